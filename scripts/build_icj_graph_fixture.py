"""Write the small ICJ Citation Graph fixture (Parquet) used by the tool-condition tests.

    python scripts/build_icj_graph_fixture.py [--out tests/fixtures/icj/graph]

Case numbers and names come from the CD-ICJ rows in ``tests/fixtures/icj/cd-icj/`` (Seán Fobbe,
CD-ICJ, CC0); decision dates, UN resolution symbols and adoption dates, and judges' terms are the
real ones. Every passage, title, link and the external case are invented for tests. Column and file
names vary on purpose (unpadded case numbers, ``decision_date``, ``adoption_date`` as a timestamp, a
sharded passage table with an embedding column) so the reader's detection by content is exercised.
"""

from __future__ import annotations

import argparse
import csv
import json
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
CASES_CSV = ROOT / "tests/fixtures/icj/cd-icj/CD-ICJ_Source_CaseNames.csv"

#: case number → topic words for invented passages
TOPICS = {1: "mines in the Corfu Strait and compensation for the damage to warships",
          3: "conditions for admission of a State to membership under Article 4 of the Charter",
          4: "capacity of the Organization to bring an international claim for injuries to its agents",
          53: "continued presence of South Africa in Namibia and the obligations of States",
          61: "legal ties of Western Sahara and the right of self-determination of peoples",
          64: "seizure of diplomatic and consular staff in Tehran and inviolability of premises",
          70: "use of force, armed attack and collective self-defence in and against Nicaragua",
          95: "threat or use of nuclear weapons and the law of armed conflict",
          131: "construction of a wall in the Occupied Palestinian Territory and self-determination",
          135: "pulp mills on the River Uruguay and environmental impact assessment",
          169: "separation of the Chagos Archipelago from Mauritius and decolonization",
          187: "obligations of States in respect of climate change and the protection of the climate system"}
#: (case number, date, doctype, stage, cited cases, provisions, resolutions, judges)
DOCUMENTS = [
    (1, "1947-12-01", "WRI", "NA", [], ["statute:article_36"], [], []),
    (1, "1948-03-25", "JUD", "PO", [], ["statute:article_36", "rules:article_68"], [], ["guerrero", "basdevant"]),
    (1, "1949-04-09", "JUD", "ME", [], ["statute:article_53"], [], ["guerrero", "basdevant", "hackworth"]),
    (1, "1949-12-15", "JUD", "CO", [], ["statute:article_48", "statute:article_57"], [], ["guerrero", "hackworth"]),
    (3, "1948-05-28", "ADV", "NA", [], ["charter:article_4", "statute:article_65"], [], ["guerrero", "basdevant"]),
    (4, "1949-04-11", "ADV", "NA", [3], ["charter:article_96"], [], ["guerrero", "hackworth"]),
    (53, "1971-06-21", "ADV", "NA", [3, 4], ["charter:article_24"], ["S/RES/284(1970)"], ["nagendra_singh"]),
    (61, "1975-10-16", "ADV", "NA", [53], ["statute:article_65"], ["A/RES/1514(XV)", "A/RES/3292(XXIX)"],
     ["nagendra_singh"]),
    (64, "1979-12-15", "ORD", "NA", [], ["statute:article_41"], [], ["nagendra_singh"]),
    (64, "1980-05-24", "JUD", "ME", [1], ["statute:article_53"], [], ["nagendra_singh"]),
    (70, "1984-05-10", "ORD", "NA", [64], ["statute:article_41"], [], ["nagendra_singh", "schwebel"]),
    (70, "1984-11-26", "JUD", "PO", [1], ["statute:article_36"], [], ["nagendra_singh", "schwebel"]),
    (70, "1986-06-27", "JUD", "ME", [1, 64], ["charter:article_2", "charter:article_51", "statute:article_53"],
     ["A/RES/2625(XXV)", "A/RES/3314(XXIX)"], ["nagendra_singh", "schwebel"]),
    (95, "1996-07-08", "ADV", "NA", [70], ["charter:article_2", "charter:article_51"], [],
     ["bedjaoui", "schwebel", "shi", "higgins"]),
    (131, "2003-12-19", "ORD", "NA", [], ["statute:article_66"], ["A/RES/ES-10/14"], ["shi", "higgins", "owada"]),
    (131, "2004-07-09", "ADV", "NA", [53, 61], ["charter:article_12", "charter:article_24", "statute:article_65"],
     ["A/RES/181(II)", "A/RES/ES-10/14", "S/RES/1515(2003)", "S/RES/242 (1967)"], ["shi", "higgins", "owada"]),
    (135, "2006-07-13", "ORD", "NA", [], ["statute:article_41"], [], ["higgins", "owada", "abraham"]),
    (135, "2010-04-20", "JUD", "ME", [70], ["statute:article_36", "vclt:article_31"], [],
     ["owada", "abraham", "yusuf", "donoghue"]),
    (169, "2019-02-25", "ADV", "NA", [53, 61, 131], ["statute:article_65"], ["A/RES/1514(XV)", "A/RES/71/292"],
     ["yusuf", "abraham", "donoghue", "salam", "iwasawa"]),
    (187, "2023-04-20", "ORD", "NA", [], ["statute:article_66"], ["A/RES/77/276"], ["donoghue", "salam"]),
    (187, "2025-07-23", "ADV", "NA", [95, 135, 169], ["charter:article_1", "statute:article_65"],
     ["A/RES/77/276"], ["iwasawa", "abraham", "yusuf"]),
]
RESOLUTIONS = [  # symbol, adoption date, title (real), cites
    ("A/RES/181(II)", "1947-11-29", "Future government of Palestine", []),
    ("A/RES/1514(XV)", "1960-12-14",
     "Declaration on the granting of independence to colonial countries and peoples", []),
    ("S/RES/242 (1967)", "1967-11-22", "The situation in the Middle East", ["A/RES/181(II)"]),
    ("S/RES/284(1970)", "1970-07-29", "The situation in Namibia", []),
    ("A/RES/2625(XXV)", "1970-10-24", "Declaration on Principles of International Law concerning Friendly Relations",
     ["A/RES/1514(XV)"]),
    ("A/RES/3292(XXIX)", "1974-12-13", "Question of Spanish Sahara", ["A/RES/1514(XV)"]),
    ("A/RES/3314(XXIX)", "1974-12-14", "Definition of Aggression", ["A/RES/2625(XXV)"]),
    ("S/RES/1515(2003)", "2003-11-19", "The situation in the Middle East, including the Palestinian question",
     ["S/RES/242 (1967)"]),
    ("A/RES/ES-10/14", "2003-12-08", "Illegal Israeli actions in Occupied East Jerusalem",
     ["A/RES/181(II)", "S/RES/1515(2003)"]),
    ("A/RES/71/292", "2017-06-22", "Request for an advisory opinion on the Chagos Archipelago", ["A/RES/1514(XV)"]),
    ("A/RES/77/276", "2023-03-29", "Request for an advisory opinion on climate change", ["A/RES/2625(XXV)"]),
]
JUDGES = [  # id, name, nationality, term start, term end (None: still sitting)
    ("guerrero", "José Gustavo Guerrero", "SLV", "1946-02-06", "1958-10-25"),
    ("basdevant", "Jules Basdevant", "FRA", "1946-02-06", "1964-02-05"),
    ("hackworth", "Green H. Hackworth", "USA", "1946-02-06", "1961-02-05"),
    ("nagendra_singh", "Nagendra Singh", "IND", "1973-02-06", "1988-12-11"),
    ("schwebel", "Stephen M. Schwebel", "USA", "1981-01-15", "2000-02-29"),
    ("bedjaoui", "Mohammed Bedjaoui", "DZA", "1982-03-02", "2001-09-30"),
    ("shi", "Shi Jiuyong", "CHN", "1994-02-06", "2010-05-28"),
    ("higgins", "Rosalyn Higgins", "GBR", "1995-07-12", "2009-02-05"),
    ("owada", "Hisashi Owada", "JPN", "2003-02-06", "2021-06-07"),
    ("abraham", "Ronny Abraham", "FRA", "2005-02-15", None),
    ("yusuf", "Abdulqawi Ahmed Yusuf", "SOM", "2009-02-06", None),
    ("donoghue", "Joan E. Donoghue", "USA", "2010-09-09", "2024-02-05"),
    ("salam", "Nawaf Salam", "LBN", "2018-02-06", "2025-01-14"),
    ("iwasawa", "Yuji Iwasawa", "JPN", "2018-06-22", None),
]
INSTRUMENTS = [("statute", "Statute of the International Court of Justice", "1945-06-26"),
               ("charter", "Charter of the United Nations", "1945-06-26"),
               ("rules", "Rules of Court", "1946-05-06"),
               ("vclt", "Vienna Convention on the Law of Treaties", "1969-05-23")]
EXTERNAL = ("pcij-a10", "S.S. Lotus (France v. Turkey)", "PCIJ", "1927-09-07")


def document_id(case: dict, date: str, doctype: str, stage: str) -> str:
    if case["number"] == 187:  # the short scheme of recent targets
        return f"ICJ_187_{date}_{doctype}_EN"
    return f"ICJ_{case['number']:03d}_{case['short']}_{date}_{doctype}_01_{stage}_00_EN"


def read_cases() -> dict[int, dict]:
    with CASES_CSV.open(encoding="utf-8", newline="") as handle:
        return {int(r["caseno"]): {"number": int(r["caseno"]), "short": r["casename_short"],
                                   "name": r["casename_full"].strip()} for r in csv.DictReader(handle)}


def write(path: Path, rows: list[dict], schema: pa.Schema | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def build(out: Path) -> dict[str, int]:
    cases = read_cases()
    docs, passages, cites, provs, res_links, sat = [], [], [], [], [], []
    for number, date, doctype, stage, cited, provisions, resolutions, judges in DOCUMENTS:
        case = cases[number]
        doc = document_id(case, date, doctype, stage)
        kind = {"WRI": "written pleading", "ORD": "order", "JUD": "judgment", "ADV": "advisory opinion"}[doctype]
        docs.append({"doc_id": doc, "case_id": f"{number:03d}", "decision_date": date, "document_type": kind,
                     "title": f"{case['name']}: {kind} of {date}", "court": "ICJ", "language": "EN"})
        names = [cases[c]["name"] for c in cited] or ["no earlier decision"]
        texts = [f"This {kind} concerns {TOPICS[number]}.",
                 f"The Court recalls {'; '.join(names)} and the provisions {', '.join(provisions)}.",
                 f"Resolutions considered: {', '.join(resolutions) or 'none'}; dated {date}."]
        for i, text in enumerate(texts):
            passages.append({"passage_id": f"{doc}#p{i}", "document_id": doc, "ordinal": i, "text": text,
                             "embedding": [0.5, 0.5, 0.5, 0.5]})
        cites += [{"citing_document_id": doc, "cited_case_id": f"{c:03d}"} for c in cited]
        provs += [{"document_id": doc, "provision_key": k} for k in provisions]
        res_links += [{"document_id": doc, "resolution_symbol": s} for s in resolutions]
        sat += [{"document_id": doc, "judge_id": j} for j in judges]
    docs.append({"doc_id": "PCIJ_A10_Lotus_1927-09-07", "case_id": EXTERNAL[0], "decision_date": EXTERNAL[3],
                 "document_type": "judgment", "title": EXTERNAL[1], "court": EXTERNAL[2], "language": "EN"})
    cites.append({"citing_document_id": document_id(cases[70], "1986-06-27", "JUD", "ME"),
                  "cited_case_id": EXTERNAL[0]})
    case_rows = [{"caseno": str(n), "case_name": c["name"], "case_type": "advisory" if "_NA" in c["short"][-3:]
                  else "contentious", "court": "ICJ"} for n, c in sorted(cases.items())]
    case_rows.append({"caseno": EXTERNAL[0], "case_name": EXTERNAL[1], "case_type": "contentious", "court": "PCIJ"})
    counts = {}
    tables = {
        "data/cases.parquet": case_rows,
        "data/documents.parquet": docs,
        "data/case_citations.parquet": cites,
        "data/provision_citations.parquet": provs,
        "data/edges_doc_res.parquet": res_links,
        "data/instruments.parquet": [{"instrument_id": i, "name": n, "date": d} for i, n, d in INSTRUMENTS],
        "data/provisions.parquet": [{"provision_key": k, "instrument_id": k.split(":")[0],
                                     "label": "Article " + k.split("_")[-1]}
                                    for k in sorted({p["provision_key"] for p in provs})],
        "data/resolutions.parquet": [{"resolution_symbol": s, "adoption_date": datetime.fromisoformat(d),
                                      "title": t} for s, d, t, _ in RESOLUTIONS],
        "data/resolution_passages.parquet": [{"symbol": s, "passage_text": f"The resolution {t.lower()} was "
                                              f"adopted on {d}."} for s, d, t, _ in RESOLUTIONS],
        "data/resolution_citations.parquet": [{"citing_symbol": s, "cited_symbol": c}
                                              for s, _, _, cited in RESOLUTIONS for c in cited],
        "data/judges.parquet": [{"judge_id": j, "judge_name": n, "nationality": c, "term_start": s, "term_end": e}
                                for j, n, c, s, e in JUDGES],
        "data/bench.parquet": sat,
    }
    for rel, rows in tables.items():
        write(out / rel, rows)
        counts[Path(rel).stem] = len(rows)
    half = len(passages) // 2
    embedding = pa.list_(pa.float32())
    schema = pa.schema([("passage_id", pa.string()), ("document_id", pa.string()), ("ordinal", pa.int64()),
                        ("text", pa.string()), ("embedding", embedding)])
    write(out / "data/passages/train-00000-of-00002.parquet", passages[:half], schema)
    write(out / "data/passages/train-00001-of-00002.parquet", passages[half:], schema)
    counts["passages"] = len(passages)
    (out / "manifest.json").write_text(json.dumps({"counts": counts}, indent=2, sort_keys=True) + "\n",
                                       encoding="utf-8")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests/fixtures/icj/graph")
    counts = build(parser.parse_args().out)
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
