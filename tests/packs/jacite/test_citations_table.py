"""The grounding extractor on wording it had not met: a table of replies and the ids each mode reads.

``upstream`` is jacite-bench's published extractor and keeps its behaviour (it is what the
published figures were computed with); where it reads a false friend or drops a citation,
the table says so and ``full`` does better. Expected ids are worked out by reading each reply.
"""

from __future__ import annotations

import pytest

from auditpacks.packs.jacite.citations import extract_citations

# (reply, full, upstream)
TABLE = [
    # false friends: 条 starts another word
    ("第一条件として、契約は有効である。", [], ["1"]),                      # 第一条件 "the first condition"
    ("第三条約に基づき締結された", [], ["3"]),                              # 条約 "treaty"
    ("第二条例の制定について", [], ["2"]),                                  # 条例 "ordinance"
    ("第五条項目を確認する", [], ["5"]),                                    # 条項 "clause"
    ("3条件を満たす", [], []),
    ("第三条例えば", ["3"], ["3"]),                                         # 例えば "for example" follows a real citation
    ("第五百四十一条第二項", ["541"], ["541"]),                              # 第 after 条 is a paragraph
    # captions in parentheses, then a list
    ("第541条（催告による解除）及びArticle 542", ["541", "542"], ["541", "542"]),
    ("Article 541（催告による解除）及びArticle 542", ["541", "542"], ["541", "542"]),
    ("第五百四十一条（催告による解除）及び五百四十二条", ["541", "542"], ["541"]),
    ("第541条(催告による解除)及び542条", ["541", "542"], ["541"]),
    ("Articles 541 (termination) and 542", ["541", "542"], []),
    ("Articles 541 (Act No. 89 of 1896) and 542", ["541", "542"], []),     # numbers in a caption are not articles
    # mixed scripts
    ("Article 541 and 第五百四十二条", ["541", "542"], ["541", "542"]),
    ("第541条、Article 542、第543条", ["541", "542", "543"], ["541", "542", "543"]),
    ("民法第541条及びArticle 415-2", ["541", "415-2"], ["541", "415-2"]),
    # full-width and half-width forms
    ("第５４１条", ["541"], ["541"]),
    ("Ａｒｔｉｃｌｅ ５４１", ["541"], []),
    ("Article ５４１", ["541"], ["５４１"]),                                # upstream keeps the digits as written
    ("第５４１条（催告による解除）", ["541"], ["541"]),
    # line breaks inside a citation
    ("第\n541\n条", ["541"], []),
    ("第五百四十\n一条", ["541"], []),
    ("民法第541\r\n条", ["541"], []),
    ("Article\n541", ["541"], ["541"]),
    ("第二条\n一\u3000次の各号", ["2"], ["2"]),                             # a break after 条 ends the citation
]


@pytest.mark.parametrize("reply, full, upstream", TABLE, ids=[row[0][:24] for row in TABLE])
def test_extractor_table(reply, full, upstream):
    assert extract_citations(reply, "full") == full
    assert extract_citations(reply, "upstream") == upstream
