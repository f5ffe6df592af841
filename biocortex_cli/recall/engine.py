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

What the memory learned (docs/learning.md) moves the score of an episode that passed the gate,
never the gate itself:

- ``utility``: the episode's utility from recorded feedback (0-1, 0.5 without any), added as
  ``weight * (utility - 0.5)``; shown only once the vault holds feedback.
- ``recency``: ``2 ** (-age / half_life_days)``, the age counted back from the newest indexed
  episode (not from the clock: the same commit gives the same ranking); the score is multiplied
  by it. Off (and not shown) when ``half_life_days`` is 0.

Every recall has an id, ``r`` + 12 decimal digits from a SHA-1 over the vault commit, the
normalised query and every option that shapes the output: the same recall gets the same id.
"""

from __future__ import annotations

import math
import re
import sqlite3
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from biocortex_cli.errors import UsageError

K1 = 1.2
B = 0.5
SIGNALS = ("text", "entities", "tools", "domains", "outcome")
_FAILURE_INTENT = re.compile(
    r"\b(?:wrong|fail(?:s|ed|ure|ures|ing)?|mistakes?|pitfalls?|problems?|broke|broken"
    r"|did\s*n[o']?t\s+work|doesn'?t\s+work|not\s+work|go(?:es)?\s+bad|went\s+bad)\b")
_SUCCESS_INTENT = re.compile(
    r"\b(?:worked|works\s+well|what\s+works|success(?:es|ful|fully)?|succeeded|best\s+practice)\b")
_ATTR_SIGNAL = {"tool": "tools", "domain": "domains", "entity": "entities"}
_ATTR_COLUMN = {"entities": 0, "tools": 1, "domains": 2}


@dataclass(frozen=True)
class RecallOptions:
    """What a recall is asked: the query, and the settings whose defaults are the vault's config
    (``recall.service.options_from_config`` fills them in: store/config.py declares them once)."""

    query: str
    top_k: int
    budget: int
    min_relevance: float
    success_only: bool
    weights: dict[str, float]
    ngram_weights: dict[str, float]
    max_df: float
    half_life_days: float
    lessons_share: float  # at most this share of the budget goes to promoted lessons
    domain: str | None = None
    explain: bool = False
    include_archived: bool = False


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
    facts: list[dict[str, Any]] = field(default_factory=list)  # the facts section (recall/facts.py)
    recall_id: str = ""
    lessons: list[dict[str, Any]] = field(default_factory=list)  # promoted lessons (recall/lessons.py)

    def as_json(self, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query, "recall_id": self.recall_id, "vault_commit": self.vault_commit,
            "budget": self.budget,
            "tokens": self.tokens, "encoding": self.encoding,
            "results": [h.as_json(explain) for h in self.results],
            "lessons": self.lessons, "facts": self.facts, "dropped": self.dropped, "context": self.context,
        }
        if explain:
            out["explain"] = {"query_terms": self.query_terms, "unknown_terms": self.unknown_terms,
                              "too_common_terms": self.ignored_terms, "searched": self.searched}
        return out


def recall_id(head: str | None, opts: RecallOptions, encoding: str) -> str:
    """``r`` + 12 decimal digits of a SHA-1 over what decides the output: the vault commit, the
    query (whitespace collapsed, case-folded), every option and the token encoding. Always 5
    tokens after its space (render/blocks.py: REFERENCE_ID), so the header is counted at index
    time."""
    import json

    from biocortex_cli.render.blocks import RECALL_ID_DIGITS

    try:
        from _sha1 import sha1  # the C module alone: hashlib's import costs ~2.5 ms
    except ImportError:  # pragma: no cover - Python builds without it
        from hashlib import sha1
    options = {k: v for k, v in vars(opts).items() if k != "query"}
    key = json.dumps([head, " ".join(opts.query.split()).casefold(), options, encoding],
                     sort_keys=True, ensure_ascii=False)
    number = int.from_bytes(sha1(key.encode("utf-8")).digest()[:8], "big") % 10**RECALL_ID_DIGITS
    return f"r{number:0{RECALL_ID_DIGITS}d}"


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
    """Score, gate and budget the index's episodes for ``opts.query`` (see the module docstring).

    Reads run in one read transaction, so a refresh committing meanwhile is seen whole or not
    at all (it waits for this, a few milliseconds)."""
    if conn.in_transaction:
        return _recall(conn, meta, opts)
    conn.execute("BEGIN")
    try:
        return _recall(conn, meta, opts)
    finally:
        conn.execute("COMMIT")


def _recall(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions) -> RecallResult:
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.store import doc_lengths, posting_lists
    from biocortex_cli.index.weights import MAX_QUERY_TERMS, query_weights

    validate(opts)
    tokens = tokenize(opts.query)[:MAX_QUERY_TERMS]
    head = meta.get("head")
    encoding = str(meta.get("tokenizer", meta.get("encoding", "estimate")))
    n_docs = int(meta.get("n_docs", 0))
    rid = recall_id(head, opts, encoding)

    def empty(reason: str, dropped: int = 0, over_top_k: int = 0, over_budget: int = 0,
              **extra: Any) -> RecallResult:
        return RecallResult(query=opts.query, vault_commit=head, budget=opts.budget, tokens=0,
                            encoding=encoding, results=[],
                            dropped={"below_relevance": dropped, "over_top_k": over_top_k,
                                     "over_budget": over_budget},
                            context="", matched=0, searched=n_docs, reason=reason,
                            query_terms=tokens, recall_id=rid, **extra)

    if not tokens:
        return empty("the query has no searchable words (only stop words or punctuation)")
    if n_docs == 0:
        return empty("the vault has no episodes yet")

    # --- text signal -------------------------------------------------------------------------
    found = query_weights(conn, tokens, n_docs, opts.ngram_weights, opts.max_df)
    qfps, weights, denominator = found.fingerprints, found.weights, found.denominator
    unknown, common = found.unknown, found.common

    # --- attribute signals: the query's words the index knows as tools, domains, entities --------
    grams_q = sorted({g for g, _n in qfps.values()})
    named: dict[str, set[str]] = {"tools": set(), "domains": set(), "entities": set()}
    attr_where = f"kind IN ('tool', 'domain', 'entity') AND value IN ({','.join('?' for _ in grams_q)})"
    attr_hits: dict[int, list[int]] = {}  # doc -> how many named entities, tools, domains it lists
    if grams_q:
        column = {"entity": 0, "tool": 1, "domain": 2}
        for kind, value, doc in conn.execute(f"SELECT kind, value, doc FROM attrs WHERE {attr_where}", grams_q):
            named[_ATTR_SIGNAL[kind]].add(value)
            counts = attr_hits.get(doc)
            if counts is None:
                counts = attr_hits[doc] = [0, 0, 0]
            counts[column[kind]] += 1

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

    # --- text scores of the episodes that can pass the gate ---------------------------------------
    lists = posting_lists(conn, list(weights))
    ordered = [(weights[fp], *lists[fp]) for fp in weights if fp in lists]
    everyone: set[int] = set(attr_hits)
    for _w, docs, _tfs in ordered:
        everyone.update(docs)
    candidates = len(everyone)
    light, light_total = _light_lists(ordered, _text_bound(opts, active, relevance_w, denominator))
    # episodes that name a tool, domain or entity of the query and are in none of the heavier
    # posting lists: scored only if their attribute share plus every light list could pass
    w_text = float(opts.weights.get("text", 0.0)) if active["text"] else 0.0
    best_text = w_text * min(1.0, light_total * (K1 + 1) / denominator) if denominator else 0.0
    attr_weights = [(float(opts.weights.get(s, 0.0)), _ATTR_COLUMN[s], float(len(named[s])))
                    for s in ("entities", "tools", "domains") if active.get(s)]
    could_pass: dict[tuple[int, ...], bool] = {}
    seeds: set[int] = set()
    for doc, counts in attr_hits.items():
        key = tuple(counts)
        ok = could_pass.get(key)
        if ok is None:
            attr_part = sum(w * (counts[col] / n) for w, col, n in attr_weights)
            ok = could_pass[key] = (attr_part + best_text) / relevance_w >= opts.min_relevance - 1e-9
        if ok:
            seeds.add(doc)
    text = _text_scores(ordered, light, seeds, store_dls=doc_lengths(conn),
                        avg_dl=float(meta.get("avg_dl") or 1.0), denominator=denominator)

    # --- fusion and the gate: on relevance (every signal but outcome), so a failure alone never
    # qualifies; an episode with no text score here cannot reach min_relevance (see _text_bound)
    scored: list[tuple[float, float, int, dict[str, float]]] = []
    plan = [(s, float(opts.weights.get(s, 0.0)), _ATTR_COLUMN.get(s, -1), float(len(named.get(s, ())) or 1))
            for s in SIGNALS if active.get(s) and s != "outcome"]
    no_hits = [0, 0, 0]
    for doc, text_value in text.items():
        counts = attr_hits.get(doc, no_hits)
        fused = 0.0
        for _s, weight, col, n_named in plan:
            fused += weight * (text_value if col < 0 else counts[col] / n_named)
        relevance = fused / relevance_w
        if relevance >= opts.min_relevance:
            signals = {s: round(text_value if col < 0 else counts[col] / n_named, 4) for s, _w, col, n_named in plan}
            scored.append((fused, relevance, doc, signals))
    info = _doc_info(conn, [doc for _f, _r, doc, _s in scored], domain_norm=" ".join(tokenize(opts.domain))
                     if opts.domain else None)
    passing: list[tuple[float, int, dict[str, float]]] = []
    for fused, relevance, doc, signals in scored:
        row = info[doc]
        if row["archived"] and not opts.include_archived:
            continue
        if opts.success_only and row["success"] is not True:
            continue
        if opts.domain and not row["in_domain"]:
            continue
        score = relevance
        if outcome_w > 0:
            value = 1.0 if row["success"] is wanted else 0.0
            signals["outcome"] = value
            score = (fused + outcome_w * value) / (relevance_w + outcome_w)
        passing.append((score, doc, signals))
    passing = _learned(conn, meta, opts, info, passing)
    below = candidates - len(passing)
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

    header_base = int(meta["header_tokens"])  # counted with REFERENCE_ID: every id costs the same

    def header_tokens(shown: int, tokens_: int) -> int:
        return header_base + sum(_digits_tokens(v) for v in (shown, matched, tokens_, opts.budget))

    reserve = header_tokens(len(top), opts.budget)  # digits of the final count never exceed these
    used = 0
    hits: list[Hit] = []
    over_budget = 0
    sections_blobs: dict[int, bytes] = {}
    for doc, rel, task_, blob in conn.execute(
            "SELECT d.doc, d.rel, d.task, b.sections FROM docs d JOIN bodies b ON b.doc = d.doc"
            f" WHERE d.doc IN ({','.join('?' for _ in top)})", [doc for _, doc, _ in top]):
        info[doc].update(rel=rel, task=task_)
        sections_blobs[doc] = blob
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
                        matched=_explain(conn, doc, weights, lists, qfps, attr_where, grams_q) if opts.explain else {}))
        if shortened:
            over_budget += len(top) - rank
            break
    if not hits:
        first = unpack_sections(sections_blobs[top[0][1]])  # the best hit, shortened as far as it goes
        need = reserve + sum(s[2] for s in first if s[0] not in DROP_ORDER) + int(meta["shortened_tokens_last"])
        return empty(f"the budget of {opts.budget} tokens is too small for any past analysis "
                     f"(the best one needs about {need} in its shortest form)",
                     dropped=below, over_top_k=over_top_k, over_budget=over_budget,
                     unknown_terms=unknown, ignored_terms=common)
    total = used + header_tokens(len(hits), used)
    for _ in range(3):  # the count appears in the header; settle its digits
        new_total = used + header_tokens(len(hits), total)
        if new_total == total:
            break
        total = new_total
    header = HEADER.format(shown=len(hits), matched=matched, tokens=total, budget=opts.budget,
                           head=(head or "none")[:7], recall_id=rid)
    context = header + "".join(h.block for h in hits)
    return RecallResult(query=opts.query, vault_commit=head, budget=opts.budget, tokens=total,
                        encoding=encoding, results=hits,
                        dropped={"below_relevance": below, "over_top_k": over_top_k,
                                 "over_budget": over_budget},
                        context=context, matched=matched, searched=n_docs, query_terms=tokens,
                        unknown_terms=unknown, ignored_terms=common, recall_id=rid)


def _learned(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions, info: dict[int, dict[str, Any]],
             passing: list[tuple[float, int, dict[str, float]]]) -> list[tuple[float, int, dict[str, float]]]:
    """Scores moved by utility (from feedback) and multiplied by recency (module docstring)."""
    w_utility = float(opts.weights.get("utility", 0.0))
    use_utility = w_utility > 0 and int(meta.get("feedback_ids", 0)) > 0
    use_recency = opts.half_life_days > 0 and bool(meta.get("newest_created"))
    if not passing or not (use_utility or use_recency):
        return passing
    utility: dict[str, float] = {}
    if use_utility:
        from biocortex_cli.index.feedback import utilities

        utility = utilities(conn, [info[doc]["id"] for _s, doc, _sig in passing])
    if use_recency:
        import datetime as dt

        newest = dt.datetime.fromisoformat(str(meta["newest_created"])[:19])
        created = dict(conn.execute(f"SELECT doc, created FROM docs WHERE doc IN ({','.join('?' * len(passing))})",
                                    [doc for _s, doc, _sig in passing])) if len(passing) <= 900 else dict(
            conn.execute("SELECT doc, created FROM docs"))
    out = []
    for score, doc, signals in passing:
        if use_utility:
            value = utility.get(info[doc]["id"], 0.5)
            signals["utility"] = round(value, 4)
            score = min(1.0, max(0.0, score + w_utility * (value - 0.5)))
        if use_recency:
            age = (newest - dt.datetime.fromisoformat(created[doc][:19])).total_seconds() / 86400
            factor = 2.0 ** (-max(0.0, age) / opts.half_life_days)
            signals["recency"] = round(factor, 4)
            score *= factor
        out.append((score, doc, signals))
    return out


def outcome_intent(query: str) -> bool | None:
    """False when the question asks what went wrong, True when it asks what worked, else None."""
    low = query.lower()
    failure, success = _FAILURE_INTENT.search(low), _SUCCESS_INTENT.search(low)
    if failure and not success:
        return False
    if success and not failure:
        return True
    return None


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


def _text_bound(opts: RecallOptions, active: dict[str, bool], relevance_w: float, denominator: float) -> float:
    """The least sum of matched fingerprint weights with which an episode that names none of the
    query's tools, domains or entities can still reach ``min_relevance`` (a hair less: a bound).

    An episode's text score is at most the sum of the weights of the query fingerprints it has,
    over the denominator, so one whose fingerprints all sit in lists below this bound is counted
    and dropped without being scored."""
    w_text = float(opts.weights.get("text", 0.0)) if active.get("text") else 0.0
    if w_text <= 0 or denominator <= 0:
        return math.inf
    # a term contributes at most (K1 + 1) times its weight (BM25 saturation, no per-term cap)
    return opts.min_relevance * relevance_w / w_text * denominator / (K1 + 1) * (1 - 1e-9)


def _light_lists(ordered: list[tuple[float, Any, dict[int, int]]], bound: float) -> tuple[set[int], float]:
    """The lightest posting lists whose weights sum below ``bound`` (MaxScore's non-essential
    lists), and that sum: an episode found only in them cannot pass on its text."""
    light: set[int] = set()
    total = 0.0
    for i in sorted(range(len(ordered)), key=lambda i: ordered[i][0]):
        if total + ordered[i][0] >= bound:
            break
        total += ordered[i][0]
        light.add(i)
    return light, total


def _text_scores(ordered: list[tuple[float, Any, dict[int, int]]], light: set[int], seeds: set[int], *,
                 store_dls: Any, avg_dl: float, denominator: float) -> dict[int, float]:
    """Text scores (0-1) of the episodes that may pass the gate: ``seeds`` and those in at least
    one posting list outside ``light``. Sums run in query order, with the same arithmetic, in
    the same order, as the SQL ``SUM`` this replaced (tested bit for bit)."""
    scoring = set(seeds)
    for i, (_w, docs, _tfs) in enumerate(ordered):
        if i not in light:
            scoring.update(docs)
    sums = dict.fromkeys(scoring, 0.0)
    k1_1, k1, one_b, b = K1 + 1, K1, 1 - B, B
    at_tf1: dict[int, float] = {}  # a note's term weight at tf 1 depends on its length only
    for w, docs, tfs in ordered:
        for doc in scoring.intersection(docs):
            tf = tfs.get(doc, 1) if tfs else 1
            if tf == 1:
                g = at_tf1.get(doc)
                if g is None:
                    g = at_tf1[doc] = 1 * k1_1 / (1 + k1 * (one_b + b * store_dls[doc] / avg_dl))
            else:
                g = tf * k1_1 / (tf + k1 * (one_b + b * store_dls[doc] / avg_dl))
            sums[doc] += w * g
    if not denominator:
        return dict.fromkeys(sums, 0.0)
    return {doc: min(1.0, s / denominator) for doc, s in sums.items()}


def _doc_info(conn: sqlite3.Connection, docs: list[int], domain_norm: str | None) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for i in range(0, len(docs), 500):
        chunk = docs[i : i + 500]
        marks = ",".join("?" for _ in chunk)
        for doc, ident, success, quality, archived in conn.execute(
                f"SELECT doc, id, success, quality, archived FROM docs WHERE doc IN ({marks})", chunk):
            out[doc] = {"id": ident, "success": None if success is None else bool(success),
                        "quality": quality, "archived": bool(archived), "in_domain": False}
        if domain_norm is not None:
            for (doc,) in conn.execute(f"SELECT doc FROM attrs WHERE kind = 'domain' AND value = ?"
                                       f" AND doc IN ({marks})", [domain_norm, *chunk]):
                out[doc]["in_domain"] = True
    return out


def _explain(conn: sqlite3.Connection, doc: int, weights: dict[int, float], lists: dict[int, Any],
             qfps: dict[int, tuple[str, int]], attr_where: str, grams_q: list[str]) -> dict[str, list[str]]:
    def has(fp: int) -> bool:
        docs = lists[fp][0] if fp in lists else ()
        at = bisect_left(docs, doc)
        return at < len(docs) and docs[at] == doc

    found = [qfps[fp][0] for fp in weights if has(fp)]
    out = {"terms": sorted(found, key=lambda g: (-g.count(" "), g))}
    attrs: dict[str, set[str]] = {}
    if grams_q:
        for kind, value in conn.execute(f"SELECT kind, value FROM attrs WHERE doc = ? AND {attr_where}",
                                        [doc, *grams_q]):
            attrs.setdefault(_ATTR_SIGNAL[kind], set()).add(value)
    for signal, values in sorted(attrs.items()):
        out[signal] = sorted(values)
    return out
