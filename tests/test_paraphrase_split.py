"""The BioRecall paraphrase split (benchmarks/data/biorecall-paraphrase) is what its generator writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from biocortex_cli.evaluate.dataset import load_beir

SPLIT = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "biorecall-paraphrase"


def test_the_split_is_regenerated_byte_for_byte(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(SPLIT / "make_split.py"), str(tmp_path)], check=True, capture_output=True)
    for name in ("queries.jsonl", "qrels.tsv"):
        assert (tmp_path / name).read_bytes() == (SPLIT / name).read_bytes(), (
            f"{name} is stale: run .venv/bin/python benchmarks/data/biorecall-paraphrase/make_split.py")


def test_the_split_loads_over_biorecall_corpus() -> None:
    split = load_beir(SPLIT)
    assert (SPLIT / "corpus.jsonl").resolve() == (SPLIT.parent / "biorecall" / "corpus.jsonl").resolve()
    assert len(split.corpus) == 339
    assert len(split.queries) >= 100
    assert all(3 in split.qrels[q.id].values() for q in split.queries)
