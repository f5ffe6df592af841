"""The biorecall-heldout2 question set: its generator reproduces the committed files byte for byte,
and every judgement points at a real question and a real episode."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

SET = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "biorecall-heldout2"
CATEGORIES = {"lay", "synonym", "alias", "abbreviation", "inflection"}


def _queries(folder: Path) -> list[dict]:
    with (folder / "queries.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _qrels(folder: Path) -> list[dict[str, str]]:
    with (folder / "qrels.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(SET / "make_heldout2.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    for name in ("queries.jsonl", "qrels.tsv"):
        assert (tmp_path / name).read_bytes() == (SET / name).read_bytes(), name


def test_corpus_is_a_relative_link_to_the_biorecall_corpus() -> None:
    link = SET / "corpus.jsonl"
    assert link.is_symlink()
    assert not Path(link.readlink()).is_absolute()
    assert link.resolve() == (SET.parent / "biorecall" / "corpus.jsonl").resolve()


def test_ids_categories_and_judgements() -> None:
    queries = _queries(SET)
    qids = [q["_id"] for q in queries]
    assert len(qids) == len(set(qids)) >= 100
    assert all(q["metadata"]["category"] in CATEGORIES for q in queries)
    assert sum(q["metadata"]["category"] == "lay" for q in queries) >= 40
    with (SET / "corpus.jsonl").open(encoding="utf-8") as fh:
        corpus = {json.loads(line)["_id"] for line in fh}
    rows = _qrels(SET)
    pairs = [(r["query-id"], r["corpus-id"]) for r in rows]
    assert len(pairs) == len(set(pairs))
    for row in rows:
        assert row["query-id"] in set(qids)
        assert row["corpus-id"] in corpus
        assert row["score"] in {"1", "2", "3"}
    answered = {r["query-id"] for r in rows if r["score"] == "3"}
    assert answered == set(qids)
