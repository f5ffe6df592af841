"""Recall against a vault: defaults from the config, a fresh index, then the engine.

The recall settings of ``.biocortex/config.yaml`` are cached in the index's ``meta`` table,
keyed by a CRC-32 and the length of the file's bytes: reading 3 KB and hashing them costs
microseconds, where importing PyYAML and parsing the file cost ~15 ms of a ~60 ms recall. Any
edit changes the key, so the file is parsed (and validated, with the same errors) again.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from biocortex_cli.index.build import RefreshReport, refresh, warn_problems
from biocortex_cli.index.store import get_meta
from biocortex_cli.recall.engine import RecallOptions, RecallResult, recall, validate
from biocortex_cli.store.vault import Vault

CONFIG_CACHE_KEY = "recall_settings"
_CONFIG_REL = ".biocortex/config.yaml"
_settings_memo: dict[tuple[Path, str | None], dict[str, Any]] = {}


def _config_key(vault: Vault) -> str | None:
    try:
        raw = (vault.root / _CONFIG_REL).read_bytes()
    except OSError:
        return None
    return f"{zlib.crc32(raw):08x}-{len(raw)}"


def recall_settings(vault: Vault) -> dict[str, Any]:
    """The config values recall needs (encoding, episodic defaults), from the index's cache when
    the config file is unchanged, else parsed from the file and cached for the next process."""
    key = _config_key(vault)
    memo = _settings_memo.get((vault.root, key)) if key is not None else None
    if memo is not None:
        return memo
    from biocortex_cli.index import store

    conn = None
    try:
        conn = store.connect(store.index_path(vault.state_dir))
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (CONFIG_CACHE_KEY,)).fetchone()
        import json

        cached = json.loads(row[0]) if row else None
        if key is not None and isinstance(cached, dict) and cached.get("key") == key:
            _settings_memo[vault.root, key] = cached["settings"]
            return cached["settings"]  # type: ignore[no-any-return]
    except (store.IndexUnusable, sqlite3.DatabaseError, ValueError):
        if conn is not None:
            conn.close()
        conn = None
    settings = _parse_settings(vault)
    _settings_memo[vault.root, key] = settings
    if conn is not None and key is not None:
        try:
            conn.execute("BEGIN IMMEDIATE")
            store.set_meta(conn, {CONFIG_CACHE_KEY: {"key": key, "settings": settings}})
            conn.execute("COMMIT")
        except sqlite3.DatabaseError:
            pass  # a cache: the next recall parses the file again
    if conn is not None:
        conn.close()
    return settings


def _parse_settings(vault: Vault) -> dict[str, Any]:
    from biocortex_cli.store.config import EpisodicConfig

    config = vault.config
    ep = config.episodic
    # a signal missing from the config's weights keeps its default weight (set 0 to turn it off)
    weights = {**EpisodicConfig().weights, **ep.weights}
    return {"encoding": config.tokenizer.encoding, "top_k": ep.top_k, "budget": ep.token_budget,
            "min_relevance": ep.min_relevance, "success_only": ep.success_only, "weights": weights,
            "ngram_weights": dict(ep.ngram_weights), "max_df": ep.max_df,
            "half_life_days": ep.half_life_days}


def options_from_config(vault: Vault, query: str, **given: Any) -> RecallOptions:
    """Options given on the command line (not None) override the vault's config."""
    s = recall_settings(vault)
    opts = RecallOptions(query=query, top_k=s["top_k"], budget=s["budget"],
                         min_relevance=s["min_relevance"], success_only=s["success_only"],
                         weights=dict(s["weights"]), ngram_weights=dict(s["ngram_weights"]),
                         max_df=s["max_df"], half_life_days=s.get("half_life_days", 0.0))
    return replace(opts, **{k: v for k, v in given.items() if v is not None})


def recall_vault(vault: Vault, opts: RecallOptions, *, log: bool = True) -> RecallResult:
    """Recall for ``opts``; ``log`` appends what it injected to the recall log (docs/learning.md)."""
    result = _recall_vault(vault, opts)
    if log:
        log_recall(vault, result)
    return result


def log_recall(vault: Vault, result: RecallResult) -> None:
    from biocortex_cli.store.feedback import log_recall as append

    append(vault.state_dir, result.recall_id, result.query, result.vault_commit, [h.id for h in result.results])


def _recall_vault(vault: Vault, opts: RecallOptions) -> RecallResult:
    validate(opts)  # usage errors before any work
    encoding = str(recall_settings(vault)["encoding"])
    conn, report = refresh(vault, encoding)
    try:
        warn_problems(report)
        meta = get_meta(conn)
        lessons = _lessons_part(conn, vault, encoding, meta, opts)
        facts = _facts_part(conn, vault, encoding, opts)
        parts = [p for p in (lessons, facts) if p is not None and p.text]
        if not parts:
            return recall(conn, meta, opts)
        # lessons and facts take their shares first; 2 tokens of slack each cover the header's
        # numbers growing
        reserved = sum(p.tokens + 2 for p in parts)
        episodes = recall(conn, meta, replace(opts, budget=max(1, opts.budget - reserved)))
        return _combine(episodes, lessons, facts, opts.budget)
    finally:
        conn.close()


def _lessons_part(conn: sqlite3.Connection, vault: Vault, encoding: str, meta: dict[str, Any],
                  opts: RecallOptions) -> Any:
    """The promoted lessons that apply, or None when the vault has none."""
    try:
        has_lessons = any((e.name.endswith(".md") and e.name != "README.md") or e.is_dir()
                          for e in os.scandir(vault.root / "lessons"))
    except OSError:
        has_lessons = False
    if not has_lessons:
        return None
    from biocortex_cli.lessons.index import refresh_lessons
    from biocortex_cli.lessons.recall import lessons_part

    problems = refresh_lessons(conn, vault, encoding)
    if problems:  # said once: the note is not read again until it changes
        warn_problems(RefreshReport(problems=[(p.path or "lessons/", p.line or 1, p.message) for p in problems]))
    return lessons_part(conn, meta, opts.query, int(opts.budget * opts.lessons_share),
                        min_relevance=opts.min_relevance, ngram_weights=opts.ngram_weights,
                        max_df=opts.max_df, domain=opts.domain)


FACTS_SHARE = 0.25  # at most this share of recall's budget goes to facts


def _facts_part(conn: sqlite3.Connection, vault: Vault, encoding: str, opts: RecallOptions) -> Any:
    """The facts about the question's entities, or None when the vault holds no facts."""
    facts_dir = vault.root / "facts"
    try:
        has_facts = any(entry.is_dir() for entry in os.scandir(facts_dir))
    except OSError:
        has_facts = False
    if not has_facts:
        return None
    from biocortex_cli.facts.index import refresh_facts
    from biocortex_cli.facts.recall import facts_part

    refresh_facts(conn, vault, encoding)
    return facts_part(conn, opts.query, int(opts.budget * FACTS_SHARE))


def _combine(episodes: RecallResult, lessons: Any, facts: Any, budget: int) -> RecallResult:
    """Lessons, episodes, then facts: one context; the header reports the whole context and budget."""
    from biocortex_cli.recall.engine import _digits_tokens

    before = lessons.text if lessons is not None else ""
    after = facts.text if facts is not None else ""
    extra = (lessons.tokens if before else 0) + (facts.tokens if after else 0)
    found_lessons: list[dict[str, Any]] = lessons.lessons if before else []
    found_facts: list[dict[str, Any]] = facts.facts if after else []
    if not episodes.results:
        return replace(episodes, budget=budget, tokens=extra, context=before + after,
                       lessons=found_lessons, facts=found_facts)
    total = episodes.tokens + extra
    for _ in range(4):  # the header holds the total: settle its digits
        new = (episodes.tokens + extra + _digits_tokens(total) - _digits_tokens(episodes.tokens)
               + _digits_tokens(budget) - _digits_tokens(episodes.budget))
        if new == total:
            break
        total = new
    head, rest = episodes.context.split("\n", 1)
    old = f"· {episodes.tokens}/{episodes.budget} tokens"
    head = head.replace(old, f"· {total}/{budget} tokens", 1)
    return replace(episodes, budget=budget, tokens=total, context=f"{before}{head}\n{rest}{after}",
                   lessons=found_lessons, facts=found_facts)
