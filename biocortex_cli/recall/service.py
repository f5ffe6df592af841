"""Recall against a vault: defaults from the config, a fresh index, then the engine."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from biocortex_cli.index.build import RefreshReport, refresh
from biocortex_cli.index.store import get_meta
from biocortex_cli.recall.engine import RecallOptions, RecallResult, recall, validate
from biocortex_cli.store.vault import Vault


def options_from_config(vault: Vault, query: str, **given: Any) -> RecallOptions:
    """Options given on the command line (not None) override the vault's config."""
    from biocortex_cli.store.config import EpisodicConfig

    ep = vault.config.episodic
    # a signal missing from the config's weights keeps its default weight (set 0 to turn it off)
    weights = {**EpisodicConfig().weights, **ep.weights}
    opts = RecallOptions(query=query, top_k=ep.top_k, budget=ep.token_budget,
                         min_relevance=ep.min_relevance, success_only=ep.success_only,
                         weights=weights, ngram_weights=dict(ep.ngram_weights), max_df=ep.max_df)
    return replace(opts, **{k: v for k, v in given.items() if v is not None})


def warn_problems(report: RefreshReport) -> None:
    if report.problems:
        first = report.problems[0]
        more = f" and {len(report.problems) - 1} more" if len(report.problems) > 1 else ""
        print(f"biocortex: warning: {len(report.problems)} note(s) not indexed: "
              f"{first[0]}:{first[1]}: {first[2]}{more} (run `biocortex check`)", file=sys.stderr)


def recall_vault(vault: Vault, opts: RecallOptions) -> RecallResult:
    validate(opts)  # usage errors before any work
    conn, report = refresh(vault, vault.config.tokenizer.encoding)
    try:
        warn_problems(report)
        return recall(conn, get_meta(conn), opts)
    finally:
        conn.close()
