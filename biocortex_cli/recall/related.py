"""The experience graph: episodes related to one episode, each with its reasons.

Read from the index only. For an episode (or a new one not yet written) the candidates are the
episodes that share a named entity, a tool, a word of the task, or — when it failed — a failure
in one of its domains or tools. Each signal is 0-1:

- ``entities``, ``tools``: the IDF-weighted share of the episode's entities (tools) the other one
  also lists, the weight of a value being ``log(1 + N / df)``, so a rare gene counts for more
  than a tool every episode uses;
- ``task``: the Jaccard similarity of the two tasks' unigram and bigram fingerprint sets (the
  lesson clustering's measure, :mod:`biocortex_cli.lessons.cluster`), computed for the 500
  episodes that share most of the task's words (those in at most half the episodes);
- ``domains``: the share of its domains the other one lists (never a reason on its own);
- ``failure``: 1 when both failed and share a domain or a tool.

``score = 0.35 task + 0.25 entities + 0.15 tools + 0.1 domains + 0.15 failure``. An episode is
related when it has at least one reason: an entity or a tool shared with weight ≥ 0.2, a task
similarity ≥ 0.3, or a shared failure. Ranked by score, then id: the same index gives the same
list.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

WEIGHTS = {"task": 0.35, "entities": 0.25, "tools": 0.15, "domains": 0.1, "failure": 0.15}
MIN_SHARE = 0.2
MIN_TASK = 0.3
_MAX_TASK_CANDIDATES = 500  # episodes sharing most of the task's rarer words


@dataclass(frozen=True)
class Probe:
    """What relatedness reads of an episode: its task, normalised attributes and outcome."""

    id: str | None
    task: str
    success: bool | None
    entities: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)  # normalised value -> as written


@dataclass(frozen=True)
class Related:
    id: str
    path: str
    task: str
    success: bool | None
    score: float
    reasons: tuple[str, ...]
    signals: dict[str, float]

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "task": self.task, "success": self.success,
                "score": self.score, "reasons": list(self.reasons), "signals": self.signals}


def probe_from_record(record: dict[str, Any], ident: str | None) -> Probe:
    from biocortex_cli.index.build import attr_norm

    names: dict[str, str] = {}

    def norms(key: str) -> tuple[str, ...]:
        values = record.get(key) or []
        out = []
        for v in values if isinstance(values, list) else []:
            n = attr_norm(str(v))
            names.setdefault(n, str(v))
            out.append(n)
        return tuple(sorted(set(out)))

    success = record.get("success")
    return Probe(id=ident, task=str(record.get("task") or ""),
                 success=success if isinstance(success, bool) else None,
                 entities=norms("entities"), tools=norms("tools"), domains=norms("domains"), names=names)


def related_episodes(conn: sqlite3.Connection, probe: Probe, *, limit: int = 10,
                     include_archived: bool = False) -> list[Related]:
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.fingerprints import fingerprint
    from biocortex_cli.index.store import document_frequencies, posting_lists
    from biocortex_cli.lessons.cluster import jaccard, lesson_fingerprints

    n_docs = conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0] or 1
    shares: dict[int, dict[str, float]] = {}
    shared: dict[int, dict[str, list[str]]] = {}
    for kind, signal, values in (("entity", "entities", probe.entities), ("tool", "tools", probe.tools),
                                 ("domain", "domains", probe.domains)):
        if not values:
            continue
        dfs = dict(conn.execute(f"SELECT value, COUNT(*) FROM attrs WHERE kind = ? AND value IN "
                                f"({','.join('?' * len(values))}) GROUP BY value", [kind, *values]))
        weight = {v: math.log(1 + n_docs / dfs.get(v, 1)) for v in values}
        total = sum(weight.values())
        for value, doc in conn.execute(f"SELECT value, doc FROM attrs WHERE kind = ? AND value IN "
                                       f"({','.join('?' * len(values))})", [kind, *values]):
            shares.setdefault(doc, {}).setdefault(signal, 0.0)
            shares[doc][signal] += weight[value] / total
            shared.setdefault(doc, {}).setdefault(signal, []).append(value)
    # task: candidates from the posting lists of the task's rarer words, verified by Jaccard
    task_tokens = tokenize(probe.task)
    task_set = lesson_fingerprints(task_tokens)
    task_sim: dict[int, float] = {}
    unigrams = sorted({fingerprint(t) for t in task_tokens})
    if unigrams:
        dfs_fp = document_frequencies(conn, unigrams)
        rare = sorted((fp for fp in unigrams if 0 < dfs_fp.get(fp, 0) <= max(1, n_docs // 2)),
                      key=lambda fp: (dfs_fp[fp], fp))
        counts: dict[int, int] = {}
        for posted, _tfs in posting_lists(conn, rare).values():
            for doc in posted:
                counts[doc] = counts.get(doc, 0) + 1
        candidates = sorted(counts, key=lambda d: (-counts[d], d))
        tasks = _rows(conn, candidates[:_MAX_TASK_CANDIDATES], "task")
        for doc, task in tasks.items():
            sim = jaccard(task_set, lesson_fingerprints(tokenize(task)))
            if sim >= MIN_TASK:
                task_sim[doc] = sim
    docs = sorted(set(shares) | set(task_sim))
    info = _info(conn, docs)
    failed_attrs = set(probe.domains) | set(probe.tools)
    out = []
    for doc in docs:
        row = info.get(doc)
        if row is None or row["id"] == probe.id or (row["archived"] and not include_archived):
            continue
        s = shares.get(doc, {})
        found = shared.get(doc, {})
        signals = {"task": round(task_sim.get(doc, 0.0), 4), "entities": round(min(1.0, s.get("entities", 0.0)), 4),
                   "tools": round(min(1.0, s.get("tools", 0.0)), 4),
                   "domains": round(min(1.0, s.get("domains", 0.0)), 4), "failure": 0.0}
        reasons = []
        if signals["entities"] >= MIN_SHARE:
            reasons.append("shared entities: " + ", ".join(_names(probe, found.get("entities", []))))
        if signals["tools"] >= MIN_SHARE:
            reasons.append("shared tools: " + ", ".join(_names(probe, found.get("tools", []))))
        if signals["task"] >= MIN_TASK:
            reasons.append(f"similar task ({signals['task']:.2f})")
        common = sorted(set(found.get("domains", [])) | set(found.get("tools", [])))
        if probe.success is False and row["success"] is False and failed_attrs & set(common):
            signals["failure"] = 1.0
            reasons.append("both failed (" + ", ".join(_names(probe, common)) + ")")
        if not reasons:
            continue
        score = round(sum(WEIGHTS[k] * v for k, v in signals.items()), 4)
        out.append(Related(row["id"], row["rel"], row["task"], row["success"], score, tuple(reasons), signals))
    out.sort(key=lambda r: (-r.score, r.id))
    return out[:limit]


def _names(probe: Probe, values: Sequence[str]) -> list[str]:
    return [probe.names.get(v, v) for v in sorted(set(values))]


def _rows(conn: sqlite3.Connection, docs: Sequence[int], column: str) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for i in range(0, len(docs), 500):
        chunk = list(docs[i:i + 500])
        out.update(conn.execute(f"SELECT doc, {column} FROM docs WHERE doc IN ({','.join('?' * len(chunk))})", chunk))
    return out


def _info(conn: sqlite3.Connection, docs: Sequence[int]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for i in range(0, len(docs), 500):
        chunk = list(docs[i:i + 500])
        for doc, ident, rel, task, success, archived in conn.execute(
                f"SELECT doc, id, rel, task, success, archived FROM docs WHERE doc IN ({','.join('?' * len(chunk))})",
                chunk):
            out[doc] = {"id": ident, "rel": rel, "task": task, "success": None if success is None else bool(success),
                        "archived": bool(archived)}
    return out
