"""The e-Gov registry builder on hand-made law_data trees, a stand-in network and saved responses: articles and
their marks, one-line refusals, fetching by URL or folder, the registry's fields and the command's flags."""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import urllib.error

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.codebook import section
from auditpacks.packs.jacite import egov
from auditpacks.packs.jacite.egov import (API, add_arguments, build_registry, folder_fetch, http_fetch, law_entry,
                                          main, text_of)


def node(tag, *children, **attr):
    return {"tag": tag, "attr": attr, "children": list(children)}


def article(title, *paragraphs, caption=None):
    parts = [node("ArticleTitle", title)] + ([node("ArticleCaption", caption)] if caption is not None else [])
    return node("Article", *parts, *(node("Paragraph", node("ParagraphSentence", p)) for p in paragraphs))


def response(*main_articles, suppl=(), law_id="129AC0000000089", title="民法", revision=True):
    body = node("LawBody", node("LawTitle", " ", node("Ruby", title, node("Rt", "みんぽう"))),
                node("MainProvision", node("Part", *main_articles)),
                *(node("SupplProvision", *articles, AmendLawNum=num) if num is not None else
                  node("SupplProvision", *articles) for num, articles in suppl))
    out = {"law_info": {"law_id": law_id}, "law_full_text": node("Law", body)}
    if revision:
        out["revision_info"] = {"law_revision_id": f"{law_id}_20250601", "updated": "2025-06-01T00:00:00+09:00",
                                "law_title": title}
    return out


@pytest.mark.parametrize("value, text", [
    ("第一条", "第一条"), (node("Ruby", "心裡", node("Rt", "しんり")), "心裡"), (None, ""), (3, ""),
    (node("Sentence", "私権は、", node("Ruby", "公共", node("Rt", "こうきょう")), "の福祉に適合"),
     "私権は、公共の福祉に適合"),
    ({"tag": "Sentence"}, ""), ({"tag": "Sentence", "children": None}, ""), (node("Rt", "よみ"), ""),
])
def test_text_of_a_node_leaves_ruby_readings_out(value, text):
    assert text_of(value) == text


def test_articles_in_document_order_with_titles_captions_and_marks():
    first = article(" 第一条 ", "私権は、公共の福祉に適合しなければならない。",
                    caption=" （基本原則） ")
    amended = ("平成二九年六月二日法律第四四号", [article("第一条", "施行する。")])
    entry = law_entry(response(first, article("第二条", "削除"), article("第三条", "削除", ""),
                               article("第四条", "本文", caption="（削除）"),
                               suppl=[amended, (None, [article("第二条", "経過措置")])]),
                      "129AC0000000089", "129AC0000000089.json")
    assert entry == {
        "law_id": "129AC0000000089", "title": "民法", "revision_id": "129AC0000000089_20250601",
        "updated": "2025-06-01T00:00:00+09:00",
        "articles": [
            {"article": "第一条", "caption": "（基本原則）", "supplementary": False, "deleted": False},
            {"article": "第二条", "caption": "", "supplementary": False, "deleted": True},
            {"article": "第三条", "caption": "", "supplementary": False, "deleted": True},   # an empty paragraph too
            {"article": "第四条", "caption": "（削除）", "supplementary": False,
             "deleted": False},  # the text decides, not the caption
            {"article": "第一条", "caption": "", "supplementary": True, "deleted": False,
             "amend_law_num": "平成二九年六月二日法律第四四号"},
            {"article": "第二条", "caption": "", "supplementary": True, "deleted": False, "amend_law_num": ""}]}


def test_without_revision_info_the_title_is_the_law_s_own():
    entry = law_entry(response(article("第一条", "x"), revision=False), "129AC0000000089", "r.json")
    assert (entry["title"], entry["revision_id"], entry["updated"]) == ("民法", None, None)
    bare = {"law_full_text": node("Law", node("LawBody", node("MainProvision", article("第一条", "x"))))}
    assert law_entry(bare, "129AC0000000089", "r.json")["title"] == ""


@pytest.mark.parametrize("data, error", [
    ([], "r.json: not an e-Gov law_data response (no law_full_text object)"),
    ({"law_full_text": "text"}, "r.json: not an e-Gov law_data response (no law_full_text object)"),
    (response(article("第一条", "x"), law_id="140AC0000000045"),
     "r.json: field law_info.law_id is '140AC0000000045', expected 129AC0000000089"),
    (response(article("第一条", "x"), article(" ", "y")), "r.json: article #1 has no ArticleTitle text"),
    (response(article("第一条", "x"), node("Article", node("Paragraph", "y"))),
     "r.json: article #1 has no ArticleTitle text"),
    (response(), "r.json: law_full_text holds no Article"),
])
def test_a_response_of_another_shape_is_one_line(data, error):
    with pytest.raises(PackError) as err:
        law_entry(data, "129AC0000000089", "r.json")
    assert str(err.value) == error


class Opened(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def network(monkeypatch):
    asked = []

    def urlopen(url, timeout):
        asked.append((url, timeout))
        body = network.body(url) if callable(network.body) else network.body
        if isinstance(body, Exception):
            raise body
        return Opened(body)
    network = argparse.Namespace(asked=asked, body=json.dumps(response(article("第一条", "x"))).encode())
    monkeypatch.setattr(egov.urllib.request, "urlopen", urlopen)
    return network


def test_a_law_is_fetched_by_its_id(network):
    data, name = http_fetch("https://laws.example/api/2/", timeout=5)("129AC0000000089")
    assert name == "https://laws.example/api/2/law_data/129AC0000000089"
    assert network.asked == [(name, 5)] and data["law_info"]["law_id"] == "129AC0000000089"
    http_fetch("https://laws.example/api/2")("1")
    assert network.asked[1] == ("https://laws.example/api/2/law_data/1", 60.0)


@pytest.mark.parametrize("body, why", [
    (urllib.error.URLError("no route"), "URLError: <urlopen error no route>"),
    (TimeoutError("timed out"), "TimeoutError: timed out"),
    (b"<html>", "JSONDecodeError: Expecting value: line 1 column 1 (char 0)"),
    (b"\xff\xfe", "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
])
def test_a_law_that_cannot_be_fetched_is_one_line(network, body, why):
    network.body = body
    with pytest.raises(PackError) as err:
        http_fetch(API)("129AC0000000089")
    assert str(err.value) == (f"{API}/law_data/129AC0000000089: cannot fetch the law ({why}); save the responses "
                              "and pass --from DIR")


def test_saved_responses_are_read_from_a_folder(tmp_path):
    (tmp_path / "129AC0000000089.json").write_text(json.dumps({"law_full_text": {}}), encoding="utf-8")
    assert folder_fetch(tmp_path)("129AC0000000089") == ({"law_full_text": {}}, "129AC0000000089.json")
    with pytest.raises(PackError) as err:
        folder_fetch(str(tmp_path))("140AC0000000045")
    assert str(err.value) == "140AC0000000045.json: saved law_data response not found"


def test_the_registry_names_its_source_origin_retrieval_and_laws_in_order():
    responses = {"A": response(article("第一条", "x"), law_id="A", title="甲法"),
                 "B": response(article("第一条", "y"), law_id="B", title="乙法")}
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    registry = build_registry(["B", "A"], lambda law: (responses[law], f"{law}.json"), origin="saved responses")
    after = dt.datetime.now(dt.timezone.utc)
    assert list(registry) == ["source", "origin", "retrieved", "laws"]
    assert (registry["source"], registry["origin"]) == ("e-Gov Law API v2", "saved responses")
    retrieved = dt.datetime.fromisoformat(registry["retrieved"])
    assert retrieved.utcoffset() == dt.timedelta(0) and retrieved.microsecond == 0 and before <= retrieved <= after
    assert [(law["law_id"], law["title"]) for law in registry["laws"]] == [("B", "乙法"), ("A", "甲法")]


def parse(*argv):
    parser = argparse.ArgumentParser(prog="auditpacks registry jacite")
    add_arguments(parser)
    return parser, parser.parse_args(list(argv))


def test_the_command_s_flags():
    parser, args = parse("--out", "r.json")
    assert (args.out, args.folder, args.api, args.laws) == (egov.Path("r.json"), None, API, None)
    _, args = parse("--out", "r.json", "--from", "saved", "--api", "https://x", "--laws", "A,B")
    assert (args.folder, args.api, args.laws) == (egov.Path("saved"), "https://x", "A,B")
    helps = {a.option_strings[0]: a.help for a in parser._actions}
    assert helps == {"-h": "show this help message and exit", "--out": "registry.json to write",
                     "--from": "folder of saved law_data responses named {law_id}.json (no network)",
                     "--api": f"e-Gov Law API v2 base URL (default {API})",
                     "--laws": "comma-separated e-Gov law ids (default: the card's 11 laws)"}
    with pytest.raises(SystemExit):
        parser.parse_args([])


def test_the_command_writes_the_registry_of_the_laws_asked_for(tmp_path, capsys):
    for law, title in (("A", "甲法"), ("B", "乙法")):
        (tmp_path / f"{law}.json").write_text(json.dumps(response(article("第一条", "x"), article("第二条", "y"),
                                                                  law_id=law, title=title)), encoding="utf-8")
    out = tmp_path / "out" / "registry.json"
    _, args = parse("--out", str(out), "--from", str(tmp_path), "--laws", " B, ,A ,")
    assert main(args) == 0
    registry = json.loads(out.read_text(encoding="utf-8"))
    assert registry["origin"] == "saved responses" and [law["law_id"] for law in registry["laws"]] == ["B", "A"]
    assert capsys.readouterr().out == f"wrote {out}: 2 laws (乙法 2, 甲法 2 articles)\n"


def test_by_default_the_card_s_laws_are_fetched_from_the_api(tmp_path, network, capsys):
    card = [law["law_id"] for law in section("jacite")["laws"]]
    network.body = lambda url: json.dumps(response(article("第一条", "x"), law_id=url.rsplit("/", 1)[1])).encode()
    out = tmp_path / "registry.json"
    assert main(parse("--out", str(out), "--api", "https://laws.example/api/2")[1]) == 0
    registry = json.loads(out.read_text(encoding="utf-8"))
    assert len(card) == 11 and [law["law_id"] for law in registry["laws"]] == card
    assert registry["origin"] == "https://laws.example/api/2"
    assert [url for url, _ in network.asked] == [f"https://laws.example/api/2/law_data/{law}" for law in card]


def test_the_revision_s_title_comes_first():
    data = response(article("第一条", "x"))
    data["revision_info"]["law_title"] = "民法（明治二十九年法律第八十九号）"
    assert law_entry(data, "129AC0000000089", "r.json")["title"] == "民法（明治二十九年法律第八十九号）"


def test_a_bad_saved_response_names_its_file():
    with pytest.raises(PackError) as err:
        build_registry(["A"], lambda law: (response(law_id="A"), "A.json"), origin="saved responses")
    assert str(err.value) == "A.json: law_full_text holds no Article"


def test_an_api_address_is_taken_as_written_less_its_closing_slashes(network):
    http_fetch("https://laws.example/LAWX//")("1")
    assert network.asked[0][0] == "https://laws.example/LAWX/law_data/1"
