"""Recall against a vault: options from the config, a fresh index, then the engine."""

from __future__ import annotations

import sqlite3

from biocortex_cli.errors import BudgetTooSmall
from biocortex_cli.index.build import RefreshReport, refresh, warn_problems
from biocortex_cli.index.store import get_meta
from biocortex_cli.recall.engine import RecallOptions, RecallResult, clip_query, recall, search, validate
from biocortex_cli.render.recall import RecallPart
from biocortex_cli.store.vault import Vault
from biocortex_cli.store.vocabulary import local_vocabulary
from biocortex_cli.store.walk import has_notes

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from typing import Any

    from biocortex_cli.bio.vocabulary import Local


def options_from_config(vault: Vault, query: str, **given: Any) -> RecallOptions:
    """Recall's options: the vault's config (``episodic``), overridden by those given (not None)."""
    from biocortex_cli.store.config import ContextConfig, EpisodicConfig

    ep = vault.config.episodic
    defaults = {"top_k": ep.top_k, "budget": ep.token_budget, "min_relevance": ep.min_relevance,
                "success_only": ep.success_only, "compact": ep.compact, "max_df": ep.max_df,
                "half_life_days": ep.half_life_days, "vocabulary": ep.vocabulary,
                # a signal missing from the config's weights keeps its default weight (0 turns it off)
                "weights": {**EpisodicConfig().weights, **ep.weights}, "ngram_weights": dict(ep.ngram_weights),
                # plain recall gives lessons context's default share (context passes its configured one)
                "lessons_share": ContextConfig().lessons_share}
    return RecallOptions(query=clip_query(query),
                         **{**defaults, **{k: v for k, v in given.items() if v is not None}})


def recall_vault(vault: Vault, opts: RecallOptions, *, log: bool = True, require_fit: bool = True) -> RecallResult:
    """Recall for ``opts``; ``log`` appends what it injected to the recall log (docs/learning.md).

    When past analyses pass the gate but the budget cannot hold even the best one, shortened, and
    nothing else fits either, ``require_fit`` makes that an error (:class:`BudgetTooSmall`, exit 2,
    as in ``context``): an empty answer would read as "nothing relevant". ``context`` passes
    False and fills the budget with the conversation instead."""
    result = _recall_vault(vault, opts)
    if require_fit and not result.parts and result.dropped.get("over_budget"):
        raise BudgetTooSmall(result.reason, hint="raise --budget (or episodic.token_budget in the config)")
    if log:
        log_recall(vault, result)
    return result


def log_recall(vault: Vault, result: RecallResult) -> None:
    from biocortex_cli.store.recall_log import log_recall as append

    # the past analyses, then the promoted lessons it printed: feedback credits both (docs/learning.md)
    injected = [h.id for h in result.results] + [str(x["id"]) for x in result.detail("lessons", "lessons")]
    append(vault.state_folder, result.recall_id, result.query, result.vault_commit, injected)


def _recall_vault(vault: Vault, opts: RecallOptions) -> RecallResult:
    """Lessons, past analyses, then facts: lessons and facts take their shares of the budget first
    (2 tokens of slack each cover the header's numbers growing), past analyses the rest."""
    validate(opts)  # usage errors before any work
    encoding = vault.config.tokenizer.encoding
    conn, report = refresh(vault, encoding)
    try:
        warn_problems(report)
        meta = get_meta(conn)
        vocabulary = local_vocabulary(vault.folder) if opts.vocabulary else None
        before = _lessons_part(conn, vault, encoding, meta, opts, vocabulary)
        after = _facts_part(conn, vault, encoding, opts, vocabulary)
        if not before and not after:
            return recall(conn, meta, opts, vocabulary)
        reserved = sum(p.tokens + 2 for p in (*before, *after))
        found = search(conn, meta, opts._replace(budget=max(1, opts.budget - reserved)), vocabulary)
        return found.finish(opts.budget, before, after)
    finally:
        conn.close()


def _lessons_part(conn: sqlite3.Connection, vault: Vault, encoding: str, meta: dict[str, Any],
                  opts: RecallOptions, vocabulary: Local | None) -> list[RecallPart]:
    """The promoted lessons that apply (none when the vault has no lesson notes)."""
    if not has_notes(vault.folder, "lessons"):
        return []
    from biocortex_cli.lessons.index import refresh_lessons
    from biocortex_cli.lessons.recall import lessons_part

    problems = refresh_lessons(conn, vault, encoding)
    if problems:  # said once: the note is not read again until it changes
        warn_problems(RefreshReport(problems=[(p.path or "lessons/", p.line or 1, p.message) for p in problems]))
    return lessons_part(conn, meta, opts.query, int(opts.budget * opts.lessons_share),
                        min_relevance=opts.min_relevance, ngram_weights=opts.ngram_weights,
                        max_df=opts.max_df, domain=opts.domain, synonyms=opts.vocabulary, local=vocabulary)


FACTS_SHARE = 0.25  # at most this share of recall's budget goes to facts


def _facts_part(conn: sqlite3.Connection, vault: Vault, encoding: str, opts: RecallOptions,
                vocabulary: Local | None) -> list[RecallPart]:
    """The facts about the question's entities (none when the vault holds no facts and no
    registered dataset)."""
    datasets = has_notes(vault.folder, "datasets")
    if not datasets and not has_notes(vault.folder, "facts"):
        return []
    from biocortex_cli.facts.index import refresh_facts
    from biocortex_cli.facts.recall import facts_part

    refresh_facts(conn, vault, encoding)
    if not datasets:
        return facts_part(conn, opts.query, int(opts.budget * FACTS_SHARE), synonyms=opts.vocabulary,
                          local=vocabulary)
    from biocortex_cli.facts.datasets_index import consult, stderr_notice

    found = consult(vault, encoding=encoding)
    for warning in found.warnings:
        stderr_notice(warning)
    try:
        return facts_part(conn, opts.query, int(opts.budget * FACTS_SHARE), found.edges,
                          synonyms=opts.vocabulary, local=vocabulary)
    finally:
        found.close()
