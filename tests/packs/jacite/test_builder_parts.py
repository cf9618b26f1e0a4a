"""The jacite builder's parts in process: question generation, article texts, one scenario, smoke picks, selection."""

from __future__ import annotations

import argparse
import json
import random

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.codebook import section
from auditpacks.packs.jacite import builder

CIVIL = "129AC0000000089"
TEMPLATES = {"ja": ["【{law}】{ref}とは。", "{law}{ref}の内容は。"], "en": ["What is {ref} of the {law}?", "Explain {ref} ({law})."]}
BOOK = {"seed": 7, "per_language": 2, "laws": [{"title": "民法", "law_id": CIVIL, "en": "Civil Code"}],
        "templates": TEMPLATES, "en_ref": "Art. {canonical}"}


def _law(law_id, title, *articles):
    return {"law_id": law_id, "title": title, "revision_id": f"{law_id}_rev",
            "articles": [dict(zip(("article", "caption", "supplementary"), a)) for a in articles]}


def test_generated_questions_skip_uncaptioned_and_supplementary_articles_and_stop_at_the_quota():
    registry = {"laws": [
        _law(CIVIL, "民法", ("第一条", "（基本原則）"), ("第二条", ""), ("第三条", "（附則）", True), ("第三条の三",),
             ("第三条の二の二", "（能力）"), ("第四条", "（成年）")),
    ]}
    questions = builder.generate_questions(registry, BOOK)
    rng = random.Random(7)  # one draw per question, in order: jacite-bench's generator
    expected = [
        ("ja", "民法", "第一条", "1", "第一条", "（基本原則）"), ("en", "Civil Code", "第一条", "1", "Art. 1", "（基本原則）"),
        ("ja", "民法", "第三条の二の二", "3-2", "第三条の二の二", "（能力）"),  # jacite-bench reads one branch level
        ("en", "Civil Code", "第三条の二の二", "3-2", "Art. 3-2", "（能力）"),
    ]
    assert [q["id"] for q in questions] == ["q0000", "q0001", "q0002", "q0003"]
    for question, (language, law, article, gold, ref, caption) in zip(questions, expected, strict=True):
        prompt = rng.choice(TEMPLATES[language]).format(law=law, ref=ref)
        assert question == {"id": question["id"], "language": language, "law": law, "law_id": CIVIL,
                            "article": article, "question": prompt, "gold_article": gold,
                            "revision_id": f"{CIVIL}_rev", "caption": caption}


def test_a_law_without_an_english_name_keeps_its_title_and_a_short_registry_gives_what_it_has():
    registry = {"laws": [{"law_id": "X", "title": "某法", "articles": [{"article": "第五条", "caption": "（目的）"}]}]}
    questions = builder.generate_questions(registry, dict(BOOK, per_language=3))
    assert [(q["language"], q["law"], q["revision_id"]) for q in questions] == [("ja", "某法", None),
                                                                                 ("en", "某法", None)]


def test_article_texts_keep_main_articles_with_a_number(tmp_path):
    path = tmp_path / "minpo.json"
    path.write_text(json.dumps({"law_id": CIVIL, "articles": [
        {"number": "1", "text": "私権は、公共の福祉に適合しなければならない。"}, {"number": "2"},
        {"number": "1", "text": "附則の本文", "supplementary": True}, {"text": "番号なし"}, "stray"]},
        ensure_ascii=False), encoding="utf-8")
    assert builder.article_texts(path) == {(CIVIL, "1"): "私権は、公共の福祉に適合しなければならない。", (CIVIL, "2"): ""}


@pytest.mark.parametrize("data", [[1, 2], {"laws": []}, {"articles": {}}])
def test_article_texts_of_a_file_without_an_articles_list_are_none(tmp_path, data):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert builder.article_texts(path) == {}


#: the law as the question names it ("Minpo"): the scenario takes the registry's title and the codebook's English name
QUESTION = {"id": "q0003", "language": "en", "law": "Minpo", "law_id": CIVIL, "article": "第三条の二",
            "question": "Explain Art. 3-2 (Civil Code).", "gold_article": "3-2", "revision_id": "rev",
            "caption": "（能力）"}


def test_a_scenario_names_the_law_article_and_language_and_carries_the_text_for_the_judge():
    book = section("jacite")
    made = builder.scenario(QUESTION, book, {CIVIL: "民法"}, "意思能力を有しなかったときは、無効とする。")
    assert made["name"] == "Civil Code Article 3-2 (en) - Statute citation grounding [q0003]"
    assert made["test_prompt"] == "Explain Art. 3-2 (Civil Code)." and made["language"] == "en"
    assert made["description"].startswith("Asks about Civil Code (民法) Article 3-2 （能力）. Every article ")
    assert made["expected_behavior"][0] == "Cites 民法 Article 3-2, the article the question asks about."
    assert made["expected_behavior"][2].startswith("Describes what Article 3-2 （能力） provides")
    assert (made["category"], made["subcategory"], made["severity"]) == (
        book["category"], book["subcategory"], book["severity"])
    assert made["source"] == book["source"] and made["source"] is not book["source"]
    assert made["metadata"] == {
        "question_id": "q0003", "law_id": CIVIL, "law": "民法", "article": "第三条の二", "gold_article": "3-2",
        "caption": "（能力）", "language": "en", "revision_id": "rev", "author": "auditpacks",
        "date_created": book["date_created"], "judge_notes": ["The question's own article is 民法 Article 3-2 (第三条の二).",
                        "Its text in the registry: 意思能力を有しなかったときは、無効とする。"]}


def test_a_scenario_without_caption_text_or_known_law_falls_back_to_the_question():
    question = {k: v for k, v in QUESTION.items() if k not in ("caption", "revision_id")} | {"law_id": "X", "law": "Civil Code"}
    made = builder.scenario(question, section("jacite"), {}, None)
    assert made["name"].startswith("Civil Code Article 3-2 (en)")
    assert "Article 3-2. Every" in made["description"]
    assert made["metadata"]["law"] == "Civil Code" and made["metadata"]["caption"] == ""
    assert made["metadata"]["revision_id"] is None
    assert made["metadata"]["judge_notes"] == ["The question's own article is Civil Code Article 3-2 (第三条の二)."]


def _scenario(name, language, gold):
    return {"name": name, "metadata": {"language": language, "gold_article": gold}}


@pytest.mark.parametrize("scenarios, picks", [
    ([_scenario("a", "ja", "1"), _scenario("b", "en", "1"), _scenario("c", "ja", "2-2")], ["a", "b", "c"]),
    ([_scenario("a", "en", "2-2"), _scenario("b", "ja", "2-2"), _scenario("c", "en", "3-2")], ["b", "a", "c"]),
    ([_scenario("a", "ja", "2-2")], ["a"]),                # one scenario is picked once
    ([_scenario("a", "ja", "1"), _scenario("b", "ja", "2")], ["a"]),  # no English, no branch article
])
def test_smoke_picks_first_japanese_english_and_branch_article(scenarios, picks):
    assert builder.smoke_names(scenarios) == picks


QUESTIONS = [{"id": f"q{i}", "language": lang} for i, lang in enumerate(["ja", "en", "ja", "en", "ja"])]


@pytest.mark.parametrize("language, limit, ids", [
    (None, None, ["q0", "q1", "q2", "q3", "q4"]), ("ja", None, ["q0", "q2", "q4"]), ("en", 1, ["q1"]),
    (None, 5, ["q0", "q1", "q2", "q3", "q4"]), ("ja", 2, ["q0", "q2"]),
])
def test_select_filters_by_language_then_takes_the_first_n(language, limit, ids):
    args = argparse.Namespace(language=language, limit=limit)
    assert [q["id"] for q in builder.select(QUESTIONS, args)] == ids


def test_select_refuses_a_short_selection_unless_fewer_are_accepted(capsys):
    with pytest.raises(PackError, match=r"^jacite --limit 3: asked for 3 scenarios, the selection has 2"):
        builder.select(QUESTIONS, argparse.Namespace(language="en", limit=3))
    chosen = builder.select(QUESTIONS, argparse.Namespace(language="en", limit=3, allow_fewer=True))
    assert [q["id"] for q in chosen] == ["q1", "q3"]
    assert "going on with 2" in capsys.readouterr().err
