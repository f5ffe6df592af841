"""The third held-out BioRecall set (benchmarks/data/biorecall-heldout3): reproducible, well-formed, worded apart.

These tests check the set's files and its generator only; no retrieval system runs on the questions here.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "benchmarks" / "data" / "biorecall-heldout3"
BIORECALL_CORPUS = REPO / "benchmarks" / "data" / "biorecall" / "corpus.jsonl"
CATEGORIES = {"lay", "synonym", "alias", "abbreviation", "inflection"}


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_heldout3", SET / "make_heldout3.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def queries() -> list[dict[str, object]]:
    with (SET / "queries.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def qrels() -> list[tuple[str, str, int]]:
    with (SET / "qrels.tsv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    assert rows[0] == ["query-id", "corpus-id", "score"]
    return [(q, d, int(g)) for q, d, g in rows[1:]]


def corpus_ids() -> set[str]:
    with BIORECALL_CORPUS.open(encoding="utf-8") as fh:
        return {json.loads(line)["_id"] for line in fh if line.strip()}


def test_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SET / "make_heldout3.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "overlap share max" in done.stdout
    for name in ("queries.jsonl", "qrels.tsv"):
        assert (tmp_path / name).read_bytes() == (SET / name).read_bytes(), name


def test_corpus_is_a_relative_link_to_the_biorecall_corpus() -> None:
    link = SET / "corpus.jsonl"
    assert link.is_symlink()
    target = os.readlink(link)
    assert not os.path.isabs(target)
    assert target == "../biorecall/corpus.jsonl"
    assert link.resolve() == BIORECALL_CORPUS.resolve()


def test_questions_and_judgements_are_well_formed() -> None:
    qs = queries()
    ids = [str(q["_id"]) for q in qs]
    assert len(ids) == len(set(ids))
    assert len(qs) >= 100
    categories = [q["metadata"]["category"] for q in qs]  # type: ignore[index]
    assert set(categories) <= CATEGORIES
    assert categories.count("lay") >= 40
    assert all(str(q["text"]).strip() for q in qs)
    assert len({str(q["text"]) for q in qs}) == len(qs)

    rows = qrels()
    known = corpus_ids()
    pairs = [(q, d) for q, d, _ in rows]
    assert len(pairs) == len(set(pairs))
    assert {q for q, _, _ in rows} <= set(ids)
    assert {d for _, d, _ in rows} <= known
    assert {g for _, _, g in rows} <= {1, 2, 3}
    with_answer = {q for q, _, g in rows if g == 3}
    assert with_answer == set(ids)


def test_every_question_is_worded_apart_from_its_answers() -> None:
    gen = generator()
    corpus = gen.load_corpus(BIORECALL_CORPUS)
    by_id = {str(q["_id"]): str(q["text"]) for q in queries()}
    answers: dict[str, list[str]] = {}
    for q, d, g in qrels():
        if g == 3:
            answers.setdefault(q, []).append(corpus[d])
    for qid, text in by_id.items():
        share = gen.overlap_share(text, answers[qid])
        assert share <= gen.MAX_SHARE, (qid, share)


def test_overlap_share_counts_content_words_only() -> None:
    gen = generator()
    # "what" and "the" are stop words; "doublets" occurs, "droplets" does not
    assert gen.overlap_share("what the doublets droplets", ["Remove doublets before clustering"]) == 0.5
    assert gen.overlap_share("the of", ["anything"]) == 0.0
