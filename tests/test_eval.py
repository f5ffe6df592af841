"""``biocortex eval``: metrics on hand-computed cases, the command end to end on a tiny BEIR set
(tests/data/eval_small: 12 episodes, 5 queries), and bad input with file:line errors."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import sys
from pathlib import Path

import pytest
from conftest import REPO, Cli

from biocortex_cli.evaluate import metrics
from biocortex_cli.evaluate.dataset import episode_text, load_beir
from biocortex_cli.evaluate.metrics import metric_names, ndcg_at, recall_at, reciprocal_rank, score_query

SMALL = REPO / "tests" / "data" / "eval_small"
HAS_BM25S = importlib.util.find_spec("bm25s") is not None

# --- metrics, computed by hand ------------------------------------------------------------------

RANKED = ["a", "b", "c", "d"]
GRADES = {"b": 3, "d": 1, "x": 2, "z": 0}  # x is relevant but never retrieved, z judged not relevant


def test_metrics_of_one_ranking_by_hand() -> None:
    got = score_query(RANKED, GRADES, k=4)
    assert metric_names(4) == ["R@1", "R@3", "R@4", "Hit@1", "Hit@3", "Hit@4", "NDCG@4", "MRR@4"]
    assert got["R@1"] == 0.0
    assert got["R@3"] == pytest.approx(1 / 3)  # b of {b, d, x}
    assert got["R@4"] == pytest.approx(2 / 3)  # b and d
    assert (got["Hit@1"], got["Hit@3"], got["Hit@4"]) == (0.0, 1.0, 1.0)
    assert got["MRR@4"] == 0.5  # b at rank 2
    # DCG: grade 3 at rank 2, grade 1 at rank 4; ideal: 3, 2, 1 at ranks 1-3 (z adds nothing)
    dcg = 3 / math.log2(3) + 1 / math.log2(5)
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert got["NDCG@4"] == pytest.approx(dcg / ideal)
    assert got["NDCG@4"] == pytest.approx(0.48794, abs=1e-5)


def test_relevance_level_changes_binary_metrics_not_ndcg() -> None:
    strict = score_query(RANKED, GRADES, k=4, relevance_level=2)
    assert strict["R@4"] == 0.5  # b of {b, x}; d (grade 1) no longer counts
    assert strict["MRR@4"] == 0.5
    assert strict["NDCG@4"] == score_query(RANKED, GRADES, k=4)["NDCG@4"]


def test_metric_edge_cases() -> None:
    assert ndcg_at(["x", "b", "d"], GRADES, 3) == pytest.approx(
        (2 + 3 / math.log2(3) + 1 / 2) / (3 + 2 / math.log2(3) + 1 / 2))
    assert ndcg_at(["b", "x", "d"], GRADES, 10) == 1.0  # the ideal order
    assert ndcg_at([], GRADES, 10) == 0.0
    assert ndcg_at(["a"], {"a": 0}, 10) == 0.0  # nothing relevant: 0, not a division by zero
    assert recall_at(["a"], set(), 5) == 0.0
    assert reciprocal_rank(["a", "b", "c"], {"c"}, 2) == 0.0  # beyond the cut-off
    assert metric_names(10) == ["R@1", "R@3", "R@5", "R@10", "Hit@1", "Hit@3", "Hit@5", "Hit@10",
                                "NDCG@10", "MRR@10"]
    assert metric_names(2)[:2] == ["R@1", "R@2"]
    assert metrics.mean([{"m": 1.0}, {"m": 0.0}, {"m": 0.5}], ["m"]) == {"m": 0.5}
    with pytest.raises(ValueError, match="twice"):
        score_query(["a", "a"], GRADES, 10)


# --- the dataset --------------------------------------------------------------------------------


def test_load_small_set() -> None:
    beir = load_beir(SMALL)
    assert len(beir.corpus) == 12 and len(beir.queries) == 5
    assert [q.category for q in beir.queries] == ["failure", "tool", "identifier", "alias", "paraphrase"]
    assert beir.qrels["q1"] == {"e01": 3, "e02": 2}
    first = beir.corpus[0]
    assert first.vault_id == "e01" and first.line == 1
    assert first.episode["task"] == first.title and first.episode["success"] is False
    assert first.text == episode_text(first.episode)
    assert "Tools: scDblFinder, ArchR." in first.text
    assert len(beir.judged(3)) == 5 and [q.id for q in beir.judged(4)] == []


def test_plain_beir_documents_become_episodes(tmp_path: Path) -> None:
    _write(tmp_path, corpus=[{"_id": "MED-1", "title": "", "text": "Vitamin D and bone density. More text."},
                             {"_id": "<dbpedia:Foo>", "title": "Foo", "text": "bar"}],
           queries=[{"_id": "1", "text": "vitamin"}], qrels="query-id\tcorpus-id\tscore\n1\tMED-1\t1\n")
    beir = load_beir(tmp_path)
    med, foo = beir.corpus
    assert med.episode == {"task": "Vitamin D and bone density.", "result": med.text,
                           "created": "2000-01-01T00:00:00Z"}
    assert foo.vault_id.startswith("doc-") and foo.id == "<dbpedia:Foo>"  # not a valid episode id


# --- the command ---------------------------------------------------------------------------------


def test_eval_json_end_to_end(cli: Cli) -> None:
    r = cli("eval", SMALL, "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert (data["documents"], data["queries"], data["judged_queries"], data["k"]) == (12, 5, 5, 10)
    assert data["categories"] == {"alias": 1, "failure": 1, "identifier": 1, "paraphrase": 1, "tool": 1}
    names = [s["name"] for s in data["systems"]]
    assert names[:2] == ["biocortex", "biocortex-gate"]
    assert names[2:] == (["bm25"] if HAS_BM25S else [])
    bc = data["systems"][0]
    assert bc["label"] == "biocortex (gate 0)" and data["systems"][1]["label"] == "biocortex (gate 0.2)"
    per = bc["per_query"]
    assert per["q3"]["ranked"][0] == "e08" and per["q3"]["MRR@10"] == 1.0  # rs7903146
    assert per["q1"]["ranked"][0] == "e01"  # the failed multiome doublet run answers "what went wrong"
    assert per["q4"]["ranked"][0] == "e12"  # R175H finds the TP53 structure
    # every top hit is relevant: R@1 is 1/|relevant| per query, averaged by hand
    assert bc["metrics"]["Hit@1"] == 1.0
    assert bc["metrics"]["R@1"] == pytest.approx((1 / 2 + 1 / 2 + 1 + 1 + 1 / 2) / 5)
    # q5: e03 (grade 3) first; e01 (grade 1) is a different analysis and not found
    assert per["q5"]["ranked"][0] == "e03" and "e01" not in per["q5"]["ranked"]
    assert per["q5"]["NDCG@10"] == pytest.approx(3 / (3 + 1 / math.log2(3)), abs=1e-4)
    beir = load_beir(SMALL)
    for system in data["systems"]:  # the reported numbers are those of the reported rankings
        for qid, row in system["per_query"].items():
            expected = score_query(row["ranked"], beir.qrels[qid], 10)
            assert {k: row[k] for k in expected} == pytest.approx(expected, abs=1e-4), (system["name"], qid)
        assert system["by_category"]["identifier"] == {k: v for k, v in system["per_query"]["q3"].items()
                                                       if k != "ranked"}
    assert "biocortex: eval: 12 documents, 5 judged queries" in r.err


def test_eval_table(cli: Cli) -> None:
    r = cli("eval", SMALL, "--k", "3")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == f"## biocortex eval: {SMALL}"
    header = next(line for line in lines if line.startswith("| system"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "system", "R@1", "R@3", "Hit@1", "Hit@3", "NDCG@3", "MRR@3", "no result", "ms/query"]
    row = next(line for line in lines if line.startswith("| biocortex (gate 0) "))
    assert row.split("|")[4].strip() == "1.000"  # Hit@1
    assert ("| BM25 (bm25s)" in r.out) == HAS_BM25S
    assert "### By category" in r.out and "| identifier |" in r.out
    assert "biocortex eval: 12 documents" not in r.out and "importing" in r.err  # progress on stderr


def test_eval_without_bm25s_reports_biocortex_only(cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "bm25s", None)  # import bm25s raises ImportError
    template = (REPO / "vault_template" / ".biocortex" / "config.yaml").read_text()
    config = tmp_path / "config.yaml"
    config.write_text(template.replace("min_relevance: 0.2", "min_relevance: 0.9"))
    assert config.read_text() != template
    r = cli("eval", SMALL, "--json", "--config", config)
    assert r.code == 0, r.err
    data = r.json()
    assert [s["name"] for s in data["systems"]] == ["biocortex", "biocortex-gate"]
    assert "bm25s is not installed" in r.err and data["notes"]
    assert data["systems"][1]["label"] == "biocortex (gate 0.9)"  # from --config
    assert data["systems"][1]["empty_results"] >= 1  # a 0.9 gate leaves some questions unanswered
    r = cli("eval", SMALL, "--config", tmp_path / "missing.yaml")
    assert r.code == 1 and "missing.yaml: no such file" in r.err


# --- bad input -----------------------------------------------------------------------------------


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "set"
    shutil.copytree(SMALL, target)
    return target


def _write(folder: Path, *, corpus: list[dict[str, object]], queries: list[dict[str, object]], qrels: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels.tsv").write_text(qrels)


def test_missing_folder_and_files(cli: Cli, tmp_path: Path) -> None:
    r = cli("eval", tmp_path / "nope")
    assert r.code == 1 and "is not a folder" in r.err and not r.out
    target = _copy(tmp_path)
    (target / "queries.jsonl").unlink()
    r = cli("eval", target)
    assert r.code == 1 and f"{target / 'queries.jsonl'}: no such file" in r.err
    (target / "qrels.tsv").rename(target / "elsewhere.tsv")
    shutil.copy(SMALL / "queries.jsonl", target)
    r = cli("eval", target)
    assert r.code == 1 and "has no qrels.tsv" in r.err


def test_bad_json_line_names_file_and_line(cli: Cli, tmp_path: Path) -> None:
    target = _copy(tmp_path)
    lines = (target / "corpus.jsonl").read_text().splitlines()
    lines[2] = lines[2][:40]  # a truncated line 3
    (target / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    r = cli("eval", target)
    assert r.code == 1 and not r.out
    assert f"{target / 'corpus.jsonl'}:3: invalid JSON" in r.err
    r = cli("eval", target, "--json")
    error = r.err_json()["error"]
    assert (error["path"], error["line"]) == (str(target / "corpus.jsonl"), 3)


@pytest.mark.parametrize(("qrels_line", "message"), [
    ("q1\te99\t2", "unknown corpus id 'e99'"),
    ("q9\te01\t2", "unknown query id 'q9'"),
    ("q1\te03\thigh", "score 'high' is not a whole number"),
    ("q1\te03", "expected 3 tab-separated columns, found 2"),
    ("q1\te01\t1", "q1 -> e01 is judged twice"),
])
def test_bad_qrels(cli: Cli, tmp_path: Path, qrels_line: str, message: str) -> None:
    target = _copy(tmp_path)
    with open(target / "qrels.tsv", "a") as fh:
        fh.write(qrels_line + "\n")
    r = cli("eval", target)
    assert r.code == 1
    assert f"{target / 'qrels.tsv'}:10: {message}" in r.err  # header + 8 judgements, then ours


def test_bad_episode_and_ids(cli: Cli, tmp_path: Path) -> None:
    episode = {"task": "t", "quality": 2}
    _write(tmp_path, corpus=[{"_id": "a", "title": "x", "text": "y"}, {"_id": "b", "metadata": episode}],
           queries=[{"_id": "q", "text": "x"}], qrels="q\ta\t1\n")
    r = cli("eval", tmp_path)
    assert r.code == 1 and f"{tmp_path / 'corpus.jsonl'}:2: quality must be a number from 0 to 1" in r.err
    _write(tmp_path, corpus=[{"_id": "a", "text": "y"}, {"_id": "a", "text": "z"}],
           queries=[{"_id": "q", "text": "x"}], qrels="q\ta\t1\n")
    r = cli("eval", tmp_path)
    assert r.code == 1 and "corpus.jsonl:2: duplicate _id 'a' (also on line 1)" in r.err
    _write(tmp_path, corpus=[{"_id": "a", "text": "y"}], queries=[{"text": "x"}], qrels="")
    r = cli("eval", tmp_path)
    assert r.code == 1 and "queries.jsonl:1: _id is missing" in r.err
    _write(tmp_path, corpus=[{"_id": "a", "text": "y"}], queries=[{"_id": "q", "text": "x"}], qrels="q\ta\t0\n")
    r = cli("eval", tmp_path)
    assert r.code == 1 and "no query has a relevant document" in r.err


def test_usage_errors(cli: Cli) -> None:
    r = cli("eval", SMALL, "--k", "0")
    assert r.code == 2 and not r.out
    r = cli("eval", SMALL, "--k", "ten")
    assert r.code == 2


# --- the shipped BioRecall set -------------------------------------------------------------------

BIORECALL = REPO / "benchmarks" / "data" / "biorecall"


def test_biorecall_files_are_what_the_generator_writes(tmp_path: Path) -> None:
    import subprocess

    subprocess.run([sys.executable, str(BIORECALL / "make_dataset.py"), str(tmp_path)], check=True,
                   capture_output=True)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels.tsv"):
        assert (tmp_path / name).read_bytes() == (BIORECALL / name).read_bytes(), (
            f"{name} is stale: run .venv/bin/python benchmarks/data/biorecall/make_dataset.py")


def test_biorecall_is_a_valid_set_of_the_promised_size() -> None:
    beir = load_beir(BIORECALL)  # validates every episode as `episode import` would
    assert len(beir.corpus) >= 300 and len(beir.judged(3)) == len(beir.queries) >= 100
    failures = sum(1 for d in beir.corpus if d.episode["success"] is False)
    assert 0.25 <= failures / len(beir.corpus) <= 0.4
    assert {q.category for q in beir.queries} == {"paraphrase", "alias", "failure", "identifier", "tool"}
    assert {g for grades in beir.qrels.values() for g in grades.values()} == {1, 2, 3}
    for d in beir.corpus:
        assert d.text == episode_text(d.episode) and d.title == d.episode["task"]
