"""Episodic recall: score past analyses against a query, gate them, fit them to a token budget.

Signals, each on a 0-1 scale:

- ``text``: IDF-weighted coverage of the query's fingerprints (unigrams, bigrams, trigrams)
  by the episode, with BM25's length normalisation; fingerprints in more than ``max_df`` of the
  episodes are ignored, and query words the vault has never seen count against coverage at half
  weight (a query about something the memory does not know should not look relevant).
- ``tools``, ``domains``, ``entities``: the share of the tools, domains and entities named in
  the query (as known to the index) that the episode lists.
- ``outcome``: only when the question asks about failures ("what went wrong", "failed",
  "pitfalls") or successes ("what worked"): 1 for an episode with that outcome, else 0. It
  reorders relevant episodes but never makes one relevant: the gate reads the fusion of the
  other signals.

Signals the query does not use are left out and the configured weights of the others are
renormalised, so ``min_relevance`` means the same whether or not a query names a tool.
See docs/recall.md for a worked example.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from biocortex_cli.errors import UsageError

MAX_QUERY_TERMS = 512
K1 = 1.2
B = 0.5
SIGNALS = ("text", "entities", "tools", "domains", "outcome")
_FAILURE_INTENT = re.compile(
    r"\b(?:wrong|fail(?:s|ed|ure|ures|ing)?|mistakes?|pitfalls?|problems?|broke|broken"
    r"|did\s*n[o']?t\s+work|doesn'?t\s+work|not\s+work|go(?:es)?\s+bad|went\s+bad)\b")
_SUCCESS_INTENT = re.compile(
    r"\b(?:worked|works\s+well|what\s+works|success(?:es|ful|fully)?|succeeded|best\s+practice)\b")
_ATTR_SIGNAL = {"tool": "tools", "domain": "domains", "entity": "entities"}


@dataclass(frozen=True)
class RecallOptions:
    query: str
    top_k: int = 5
    budget: int = 2000
    min_relevance: float = 0.2
    domain: str | None = None
    success_only: bool = False
    explain: bool = False
    include_archived: bool = False
    weights: dict[str, float] = field(default_factory=lambda: {"text": 0.5, "entities": 0.2,
                                                               "tools": 0.15, "domains": 0.15,
                                                               "outcome": 0.15})
    ngram_weights: dict[str, float] = field(default_factory=lambda: {"1": 1.0, "2": 1.5, "3": 2.0})
    max_df: float = 0.5


@dataclass(frozen=True)
class Hit:
    id: str
    path: str
    score: float
    signals: dict[str, float]
    tokens: int
    task: str
    success: bool | None
    quality: float | None
    block: str
    shortened: bool = False
    matched: dict[str, list[str]] = field(default_factory=dict)

    def as_json(self, explain: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "path": self.path, "score": self.score,
                               "signals": self.signals, "tokens": self.tokens, "task": self.task,
                               "success": self.success, "quality": self.quality}
        if self.shortened:
            out["shortened"] = True
        if explain:
            out["matched"] = self.matched
        return out


@dataclass(frozen=True)
class RecallResult:
    query: str
    vault_commit: str | None
    budget: int
    tokens: int
    encoding: str
    results: list[Hit]
    dropped: dict[str, int]
    context: str
    matched: int
    searched: int
    reason: str = ""
    query_terms: list[str] = field(default_factory=list)
    unknown_terms: list[str] = field(default_factory=list)
    ignored_terms: list[str] = field(default_factory=list)

    def as_json(self, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query, "vault_commit": self.vault_commit, "budget": self.budget,
            "tokens": self.tokens, "encoding": self.encoding,
            "results": [h.as_json(explain) for h in self.results],
            "dropped": self.dropped, "context": self.context,
        }
        if explain:
            out["explain"] = {"query_terms": self.query_terms, "unknown_terms": self.unknown_terms,
                              "too_common_terms": self.ignored_terms, "searched": self.searched}
        return out


def _idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def _digits_tokens(value: int) -> int:
    """Extra tokens of a number over the single-digit placeholder (tiktoken splits every 3)."""
    return max(1, math.ceil(len(str(value)) / 3)) - 1


def validate(opts: RecallOptions) -> None:
    if opts.top_k < 1:
        raise UsageError(f"--top-k must be at least 1, not {opts.top_k}", hint="e.g. --top-k 5")
    if opts.budget < 1:
        raise UsageError(f"--budget must be a positive number of tokens, not {opts.budget}",
                         hint="e.g. --budget 2000")
    if not 0 <= opts.min_relevance <= 1:
        raise UsageError(f"--min-relevance must be between 0 and 1, not {opts.min_relevance}")
    if not opts.query.strip():
        raise UsageError("the query is empty", hint='ask a question, e.g. biocortex recall "doublets in 10x multiome"')


def recall(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions) -> RecallResult:
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.fingerprints import query_fingerprints

    validate(opts)
    tokens = tokenize(opts.query)[:MAX_QUERY_TERMS]
    head = meta.get("head")
    encoding = str(meta.get("tokenizer", meta.get("encoding", "estimate")))
    n_docs = int(meta.get("n_docs", 0))

    def empty(reason: str, dropped: int = 0, over_top_k: int = 0, over_budget: int = 0,
              **extra: Any) -> RecallResult:
        return RecallResult(query=opts.query, vault_commit=head, budget=opts.budget, tokens=0,
                            encoding=encoding, results=[],
                            dropped={"below_relevance": dropped, "over_top_k": over_top_k,
                                     "over_budget": over_budget},
                            context="", matched=0, searched=n_docs, reason=reason,
                            query_terms=tokens, **extra)

    if not tokens:
        return empty("the query has no searchable words (only stop words or punctuation)")
    if n_docs == 0:
        return empty("the vault has no episodes yet")

    # --- text signal -------------------------------------------------------------------------
    qfps = query_fingerprints(tokens)
    cap = max(1, int(opts.max_df * n_docs))
    weights: dict[int, float] = {}
    denominator = 0.0
    unknown: list[str] = []
    common: list[str] = []
    max_idf = _idf(n_docs, 0)
    for fp, (gram, n) in qfps.items():
        df = conn.execute("SELECT COUNT(*) FROM (SELECT 1 FROM postings WHERE fp = ? LIMIT ?)",
                          (fp, cap + 1)).fetchone()[0]
        wn = float(opts.ngram_weights.get(str(n), 0.0))
        if wn <= 0:
            continue
        if df == 0:
            if n == 1:
                unknown.append(gram)
                denominator += 0.5 * wn * max_idf
            continue
        if df > cap and n_docs >= 20:  # too common to tell episodes apart
            if n == 1:
                common.append(gram)
            continue
        weights[fp] = wn * _idf(n_docs, df)
        denominator += weights[fp]

    text: dict[int, float] = {}
    avg_dl = float(meta.get("avg_dl") or 1.0)
    if weights:
        values = ",".join("(?, ?)" for _ in weights)
        params: list[Any] = [x for fp, w in weights.items() for x in (fp, w)]
        sql = (f"WITH q(fp, w) AS (VALUES {values}) "
               "SELECT p.doc, SUM(q.w * MIN(1.0, p.tf * ? / (p.tf + ? * (? + ? * d.dl / ?)))) "
               "FROM q JOIN postings p ON p.fp = q.fp JOIN docs d ON d.doc = p.doc GROUP BY p.doc")
        params += [K1 + 1, K1, 1 - B, B, avg_dl]
        for doc, s in conn.execute(sql, params):
            text[doc] = min(1.0, s / denominator) if denominator else 0.0

    # --- attribute signals -------------------------------------------------------------------
    grams_q = sorted({g for g, _n in qfps.values()})
    named: dict[str, set[str]] = {"tools": set(), "domains": set(), "entities": set()}
    attr_hits: dict[int, dict[str, set[str]]] = {}
    if grams_q:
        marks = ",".join("?" for _ in grams_q)
        for kind, value, doc in conn.execute(
                f"SELECT kind, value, doc FROM attrs WHERE value IN ({marks})", grams_q):
            signal = _ATTR_SIGNAL[kind]
            named[signal].add(value)
            attr_hits.setdefault(doc, {}).setdefault(signal, set()).add(value)

    active = {"text": bool(weights) or bool(unknown)}
    for signal, values_named in named.items():
        active[signal] = bool(values_named)
    wanted = outcome_intent(opts.query)
    active["outcome"] = wanted is not None and (active["text"] or any(named.values()))
    relevance_w = sum(float(opts.weights.get(s, 0.0)) for s in SIGNALS if active.get(s) and s != "outcome")
    outcome_w = float(opts.weights.get("outcome", 0.0)) if active["outcome"] else 0.0
    if relevance_w <= 0:
        return empty("nothing in the query matches the vault's memory", unknown_terms=unknown,
                     ignored_terms=common)

    candidates = set(text) | set(attr_hits)
    outcomes = _outcomes(conn, candidates) if outcome_w > 0 else {}
    # (relevance, score, doc, signals): the gate reads relevance, the ranking reads score
    scored: list[tuple[float, float, int, dict[str, float]]] = []
    for doc in candidates:
        signals: dict[str, float] = {}
        fused = 0.0
        for s in SIGNALS:
            if not active.get(s) or s == "outcome":
                continue
            value = text.get(doc, 0.0) if s == "text" else len(attr_hits.get(doc, {}).get(s, ())) / len(named[s])
            signals[s] = round(value, 4)
            fused += float(opts.weights.get(s, 0.0)) * value
        relevance = fused / relevance_w
        score = relevance
        if outcome_w > 0:
            value = 1.0 if outcomes.get(doc) is wanted else 0.0
            signals["outcome"] = value
            score = (fused + outcome_w * value) / (relevance_w + outcome_w)
        scored.append((relevance, score, doc, signals))

    # --- gate: on relevance (every signal but outcome), so a failure alone never qualifies ---------
    info = _doc_info(conn, [doc for rel, _s, doc, _ in scored if rel >= opts.min_relevance])
    domain_norm = " ".join(tokenize(opts.domain)) if opts.domain else None
    passing: list[tuple[float, int, dict[str, float]]] = []
    for relevance, score, doc, signals in scored:
        if relevance < opts.min_relevance or doc not in info:
            continue
        row = info[doc]
        if row["archived"] and not opts.include_archived:
            continue
        if opts.success_only and row["success"] is not True:
            continue
        if domain_norm is not None and domain_norm not in row["domains"]:
            continue
        passing.append((score, doc, signals))
    below = len(candidates) - len(passing)
    passing.sort(key=lambda t: (-round(t[0], 6), -(info[t[1]]["quality"] or 0.0), info[t[1]]["id"]))
    matched = len(passing)
    if not passing:
        reason = (f"no past analysis reached min_relevance {opts.min_relevance:g}"
                  if candidates else "no past analysis shares a word, tool, domain or entity with the query")
        if opts.domain or opts.success_only:
            reason += " with the given filters" + (f" (domain {opts.domain})" if opts.domain else "")
        return empty(reason, dropped=below, unknown_terms=unknown, ignored_terms=common)
    top = passing[: opts.top_k]
    over_top_k = matched - len(top)

    # --- budget --------------------------------------------------------------------------------
    from biocortex_cli.index.store import unpack_sections
    from biocortex_cli.render.blocks import DROP_ORDER, HEADER, Section, assemble

    header_base = int(meta["header_tokens"])

    def header_tokens(shown: int, tokens_: int) -> int:
        return header_base + sum(_digits_tokens(v) for v in (shown, matched, tokens_, opts.budget))

    reserve = header_tokens(len(top), opts.budget)  # digits of the final count never exceed these
    used = 0
    hits: list[Hit] = []
    over_budget = 0
    sections_blobs = dict(conn.execute(
        f"SELECT doc, sections FROM docs WHERE doc IN ({','.join('?' for _ in top)})",
        [doc for _, doc, _ in top]))
    for rank, (score, doc, signals) in enumerate(top, start=1):
        if hits and len(hits) < rank - 1:
            over_budget += 1
            continue
        sections = unpack_sections(sections_blobs[doc])
        cost = sum(s[2] for s in sections[:-1]) + sections[-1][3]
        keep, shortened = sections, False
        if reserve + used + cost > opts.budget:
            keep, cost = _shorten(sections, DROP_ORDER, meta, opts.budget - reserve - used)
            shortened = True
            if not keep:
                over_budget += len(top) - rank + 1
                break
        used += cost
        row = info[doc]
        block = assemble([Section(s[0], s[1]) for s in keep], rank, score, shortened)
        hits.append(Hit(id=row["id"], path=row["rel"], score=round(score, 4), signals=signals,
                        tokens=cost, task=row["task"], success=row["success"], quality=row["quality"],
                        block=block, shortened=shortened,
                        matched=_explain(conn, doc, weights, qfps, attr_hits.get(doc, {})) if opts.explain else {}))
        if shortened:
            over_budget += len(top) - rank
            break
    if not hits:
        need = header_base + min(s[2] for s in unpack_sections(sections_blobs[top[0][1]])[:2])
        return empty(f"the budget of {opts.budget} tokens is too small for any past analysis "
                     f"(the smallest form needs about {need + reserve - header_base})",
                     dropped=below, over_top_k=over_top_k, over_budget=over_budget,
                     unknown_terms=unknown, ignored_terms=common)
    total = used + header_tokens(len(hits), used)
    for _ in range(3):  # the count appears in the header; settle its digits
        new_total = used + header_tokens(len(hits), total)
        if new_total == total:
            break
        total = new_total
    header = HEADER.format(shown=len(hits), matched=matched, tokens=total, budget=opts.budget,
                           head=(head or "none")[:7])
    context = header + "".join(h.block for h in hits)
    return RecallResult(query=opts.query, vault_commit=head, budget=opts.budget, tokens=total,
                        encoding=encoding, results=hits,
                        dropped={"below_relevance": below, "over_top_k": over_top_k,
                                 "over_budget": over_budget},
                        context=context, matched=matched, searched=n_docs, query_terms=tokens,
                        unknown_terms=unknown, ignored_terms=common)


def outcome_intent(query: str) -> bool | None:
    """False when the question asks what went wrong, True when it asks what worked, else None."""
    low = query.lower()
    failure, success = _FAILURE_INTENT.search(low), _SUCCESS_INTENT.search(low)
    if failure and not success:
        return False
    if success and not failure:
        return True
    return None


def _outcomes(conn: sqlite3.Connection, docs: set[int]) -> dict[int, bool | None]:
    out: dict[int, bool | None] = {}
    ordered = sorted(docs)
    for i in range(0, len(ordered), 500):
        chunk = ordered[i : i + 500]
        for doc, success in conn.execute(
                f"SELECT doc, success FROM docs WHERE doc IN ({','.join('?' for _ in chunk)})", chunk):
            out[doc] = None if success is None else bool(success)
    return out


def _shorten(sections: Sequence[tuple[str, str, int, int]], drop_order: Sequence[str],
             meta: dict[str, Any], room: int) -> tuple[list[tuple[str, str, int, int]], int]:
    """Drop the least useful sections until the block fits ``room``; ([], 0) if it cannot."""
    keep = list(sections)
    marker = int(meta["shortened_tokens_last"])
    for name in drop_order:
        cost = sum(s[2] for s in keep) + marker
        if cost <= room:
            return keep, cost
        keep = [s for s in keep if s[0] != name]
    cost = sum(s[2] for s in keep) + marker
    return (keep, cost) if cost <= room else ([], 0)


def _doc_info(conn: sqlite3.Connection, docs: list[int]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for i in range(0, len(docs), 500):
        chunk = docs[i : i + 500]
        marks = ",".join("?" for _ in chunk)
        for doc, ident, rel, success, quality, archived, task in conn.execute(
                f"SELECT doc, id, rel, success, quality, archived, task FROM docs WHERE doc IN ({marks})", chunk):
            out[doc] = {"id": ident, "rel": rel, "success": None if success is None else bool(success),
                        "quality": quality, "archived": bool(archived), "task": task, "domains": set()}
        for doc, value in conn.execute(
                f"SELECT doc, value FROM attrs WHERE kind = 'domain' AND doc IN ({marks})", chunk):
            out[doc]["domains"].add(value)
    return out


def _explain(conn: sqlite3.Connection, doc: int, weights: dict[int, float],
             qfps: dict[int, tuple[str, int]], attrs: dict[str, set[str]]) -> dict[str, list[str]]:
    found = [qfps[fp][0] for fp in weights
             if conn.execute("SELECT 1 FROM postings WHERE fp = ? AND doc = ?", (fp, doc)).fetchone()]
    out = {"terms": sorted(found, key=lambda g: (-g.count(" "), g))}
    for signal, values in sorted(attrs.items()):
        out[signal] = sorted(values)
    return out
