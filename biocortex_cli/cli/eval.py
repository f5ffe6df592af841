"""``biocortex eval``: retrieval quality on a BEIR-style set, beside a BM25 baseline (docs/eval.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:  # annotations are strings, evaluated by typer only when the app is built
    import typer


def eval_(
    dataset: Annotated[Path, typer.Argument(metavar="DATASET_DIR", help="Folder with corpus.jsonl, queries.jsonl and qrels.tsv (BEIR layout).")],
    k: Annotated[int, typer.Option("--k", help="Rank depth: R@k and Hit@k at 1, 3, 5 and k; NDCG@k and MRR@k.")] = 10,
    relevance_level: Annotated[int, typer.Option("--relevance-level", help="Lowest qrels grade that counts as relevant for R, Hit and MRR (1 or more).")] = 1,
    config: Annotated[Path | None, typer.Option("--config", metavar="FILE", help="Evaluate with this .biocortex/config.yaml instead of the defaults.")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the report as JSON, with per-query scores.")] = False,
) -> int:
    """Measure recall quality on a BEIR-style set: the corpus goes into a throwaway vault, every
    query is recalled, and R@k, Hit@k, NDCG and MRR are printed beside a BM25 baseline (bm25s)."""
    from biocortex_cli.api.recall import evaluate
    from biocortex_cli.render.eval import eval_table

    report = evaluate(dataset=dataset, k=k, relevance_level=relevance_level, config=config)
    for note in report.notes:
        state.info(f"biocortex: note: {note}")
    if json_:
        state.emit_json(report.as_json())
    else:
        state.out(eval_table(report))
    return 0
