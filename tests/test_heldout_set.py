"""The held-out recall set (benchmarks/data/biorecall-heldout): reproducible and well formed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
HELDOUT = REPO / "benchmarks" / "data" / "biorecall-heldout"
CATEGORIES = {"lay", "synonym", "alias", "abbreviation", "inflection"}


def read_queries() -> list[dict[str, Any]]:
    with (HELDOUT / "queries.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def read_qrels() -> list[tuple[str, str, int]]:
    lines = (HELDOUT / "qrels.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "query-id\tcorpus-id\tscore"
    rows = []
    for line in lines[1:]:
        query_id, corpus_id, score = line.split("\t")
        rows.append((query_id, corpus_id, int(score)))
    return rows


def corpus_ids() -> set[str]:
    with (HELDOUT / "corpus.jsonl").open(encoding="utf-8") as handle:
        return {json.loads(line)["_id"] for line in handle if line.strip()}


@pytest.mark.parametrize("run", [1, 2])
def test_regenerating_gives_byte_identical_files(tmp_path: Path, run: int) -> None:
    out = tmp_path / f"run{run}"
    subprocess.run([sys.executable, str(HELDOUT / "make_heldout.py"), "--out", str(out)],
                   check=True, capture_output=True, text=True, timeout=60)
    for name in ("queries.jsonl", "qrels.tsv"):
        assert (out / name).read_bytes() == (HELDOUT / name).read_bytes(), name


def test_question_ids_are_unique() -> None:
    ids = [query["_id"] for query in read_queries()]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 110


def test_every_category_is_allowed() -> None:
    for query in read_queries():
        assert query["metadata"]["category"] in CATEGORIES, query["_id"]


def test_every_question_has_a_grade_3_judgement() -> None:
    with_three = {query_id for query_id, _, score in read_qrels() if score == 3}
    assert {query["_id"] for query in read_queries()} <= with_three


def test_every_judgement_is_of_a_known_question_and_a_corpus_episode() -> None:
    known_questions = {query["_id"] for query in read_queries()}
    episodes = corpus_ids()
    rows = read_qrels()
    for query_id, corpus_id, score in rows:
        assert query_id in known_questions, query_id
        assert corpus_id in episodes, corpus_id
        assert score in (1, 2, 3)
    pairs = [(query_id, corpus_id) for query_id, corpus_id, _ in rows]
    assert len(pairs) == len(set(pairs))


def test_corpus_is_the_biorecall_corpus() -> None:
    link = HELDOUT / "corpus.jsonl"
    assert link.is_symlink()
    assert link.resolve() == (REPO / "benchmarks" / "data" / "biorecall" / "corpus.jsonl").resolve()
