"""Seeded per-group sampling (at most n per group, input order kept, the draw fixed by the seed alone),
and the rule for a selection smaller than asked."""

import pytest

from auditpacks.packs.sampling import per_group

ITEMS = [("a", 0), ("b", 1), ("a", 2), ("c", 3), ("a", 4), ("b", 5), ("a", 6)]


def first(item):
    return item[0]


def test_groups_no_larger_than_n_are_kept_whole_in_input_order():
    assert per_group(ITEMS, 4, seed=0, key=first) == ITEMS
    assert per_group([], 2, seed=0, key=first) == []


@pytest.mark.parametrize("seed", range(5))
def test_each_group_gives_exactly_n_and_the_input_order_is_kept(seed):
    chosen = per_group(ITEMS, 1, seed=seed, key=first)
    assert sorted(k for k, _ in chosen) == ["a", "b", "c"]           # one of each group
    assert [i for _, i in chosen] == sorted(i for _, i in chosen)    # in input order
    assert ("c", 3) in chosen                                        # a group of one is always kept
    assert set(chosen) <= set(ITEMS)


def test_the_same_seed_draws_the_same_items_and_other_seeds_differ():
    draws = {tuple(per_group(ITEMS, 2, seed=s, key=first)) for s in range(20)}
    assert per_group(ITEMS, 2, seed=7, key=first) == per_group(ITEMS, 2, seed=7, key=first)
    assert len(draws) > 1  # "a" has C(4,2) = 6 possible pairs, "b" keeps both


def test_the_draw_does_not_depend_on_which_group_appears_first():
    """Groups are visited in sorted order of their key's text, so moving a group earlier changes nothing."""
    moved = [item for item in ITEMS if item[0] == "b"] + [item for item in ITEMS if item[0] != "b"]
    for seed in range(10):
        plain = per_group(ITEMS, 1, seed=seed, key=first)
        reordered = per_group(moved, 1, seed=seed, key=first)
        assert sorted(plain) == sorted(reordered)


def test_keys_of_other_types_are_grouped_by_value():
    items = [10, 9, 10, 9, 10]
    chosen = per_group(items, 1, seed=3, key=lambda x: x)
    assert sorted(chosen) == [9, 10]


def test_groups_are_visited_in_the_order_of_their_key_s_text():
    """Keys 2 and 10 draw what keys "2" and "10" draw: "10" sorts (and draws) first, whatever the keys' type."""
    items = [(k, i) for i in range(5) for k in (2, 10)]
    for seed in range(10):
        as_numbers = per_group(items, 2, seed=seed, key=first)
        as_text = per_group(items, 2, seed=seed, key=lambda item: str(item[0]))
        assert as_numbers == as_text


@pytest.mark.parametrize("missing", [None, 0])
def test_keys_of_mixed_types_are_grouped_without_comparing_them(missing):
    """A selection keyed on metadata that some scenarios lack groups those under None beside the text keys."""
    items = [("a", 0), (missing, 1), ("a", 2), (missing, 3), ("b", 4)]
    chosen = per_group(items, 1, seed=0, key=first)
    assert sorted(str(k) for k, _ in chosen) == sorted(["a", "b", str(missing)])


def test_a_group_that_fits_takes_no_draw_from_the_others():
    """A group of exactly n is kept whole without drawing, so adding it leaves the other groups' picks alone."""
    larger = [("b", i) for i in range(6)]
    fits = [("a", 10), ("a", 11)]  # visited first ("a" < "b")
    for seed in range(10):
        alone = per_group(larger, 2, seed=seed, key=first)
        together = per_group(fits + larger, 2, seed=seed, key=first)
        assert together == fits + alone


def test_check_count_refuses_a_shortfall_unless_accepted(capsys):
    from auditpacks.core.errors import PackError
    from auditpacks.packs.sampling import check_count

    check_count(3, 3, "x")
    check_count(5, None, "x")  # nothing asked
    with pytest.raises(PackError) as err:
        check_count(2, 3, "p.json: --limit 3")
    assert str(err.value) == ("p.json: --limit 3: asked for 3 scenarios, the selection has 2 "
                              "(--allow-fewer accepts fewer)")
    check_count(2, 3, "p.json: --limit 3", allow_fewer=True)
    assert capsys.readouterr().err == ("note: p.json: --limit 3: asked for 3 scenarios, the selection has 2; "
                                       "going on with 2 (--allow-fewer)\n")
