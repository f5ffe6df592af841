"""The signals of episodic recall, each on a 0-1 scale (the pipeline is recall/engine.py).

- ``text``: IDF-weighted coverage of the query's fingerprints (unigrams, bigrams, trigrams)
  by the episode, with BM25's length normalisation; fingerprints in more than ``max_df`` of the
  episodes are ignored, and query words the vault has never seen count against coverage at half
  weight (index/weights.py). Only the episodes that can pass the gate are scored (MaxScore:
  :func:`text_bound`, :func:`light_lists`).
- ``tools``, ``domains``, ``entities``: the share of the tools, domains and entities named in
  the query (as known to the index) that the episode lists.
- ``outcome``: only when the question asks about failures ("what went wrong", "failed",
  "pitfalls") or successes ("what worked"): 1 for an episode with that outcome, else 0. It
  reorders relevant episodes but never makes one relevant: the gate reads the fusion of the
  other signals.

What the memory learned (docs/learning.md) moves the score of an episode that passed the gate,
never the gate itself (:func:`learned`):

- ``utility``: the episode's utility for this question from recorded feedback (0-1, 0.5
  without any; each vote weighs the similarity of the question it was given on to this one:
  index/feedback.py), added as ``weight * (utility - 0.5)``, never clipped; shown only once
  the vault holds feedback.
- ``recency``: ``2 ** (-age / half_life_days)``, the age counted back from the newest indexed
  episode (not from the clock: the same commit gives the same ranking); the score is multiplied
  by it. Off (and not shown) when ``half_life_days`` is 0.

A new signal: compute it here, add its name to :data:`SIGNALS` (and a default weight to
``EpisodicConfig.weights`` in store/config.py), and fuse it in recall/engine.py (``_fusion``).
"""

from __future__ import annotations

import functools
import math
import re
import sqlite3
from bisect import bisect_left
from collections.abc import Sequence

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from typing import Any

    from biocortex_cli.bio.vocabulary import Expansion
    from biocortex_cli.index.weights import QueryWeights
    from biocortex_cli.recall.engine import RecallOptions

K1 = 1.2
B = 0.5
SIGNALS = ("text", "entities", "tools", "domains", "outcome")
_FAILURE_INTENT = (
    r"\b(?:wrong|fail(?:s|ed|ure|ures|ing)?|mistakes?|pitfalls?|problems?|broke|broken"
    r"|did\s*n[o']?t\s+work|doesn'?t\s+work|not\s+work|go(?:es)?\s+bad|went\s+bad)\b")
_SUCCESS_INTENT = r"\b(?:worked|works\s+well|what\s+works|success(?:es|ful|fully)?|succeeded|best\s+practice)\b"
#: Every match of the two patterns holds one of these: a question without any asks neither, and
#: the patterns (3.5 M instructions to compile) are not compiled.
_INTENT_WORDS = ("wrong", "fail", "mistake", "pitfall", "problem", "broke", "work", "bad", "succe", "best")
ATTR_SIGNAL = {"tool": "tools", "domain": "domains", "entity": "entities"}
ATTR_COLUMN = {"entities": 0, "tools": 1, "domains": 2}
#: Words that say what any analysis does, or how, rather than what it is about ("preprocess the
#: new data", "filter", "predict"): never an informative concept of a question, so an episode
#: that shares only these with it does not pass the gate. Stemmed like the question when used.
GENERIC_WORDS = """
    new old first next predict prediction filter analyse analyze analysis data dataset
    run use used using make made do done get got give gave given take took need want help
    change changed compare check result method approach process preprocess step work worked
    good bad best better improve apply perform study experiment low high quality not
"""
#: The least IDF-weighted share of a question's informative concepts an episode must cover to
#: pass the gate (docs/recall.md, measured in docs/eval.md).
MIN_COVERAGE = 0.1


@functools.cache
def generic_terms() -> frozenset[str]:
    """:data:`GENERIC_WORDS` as recall's tokeniser writes them."""
    from biocortex_cli.bio.text import tokenize

    return frozenset(tokenize(GENERIC_WORDS))


def outcome_intent(query: str) -> bool | None:
    """False when the question asks what went wrong, True when it asks what worked, else None."""
    low = query.lower()
    if not any(word in low for word in _INTENT_WORDS):
        return None
    failure, success = re.search(_FAILURE_INTENT, low), re.search(_SUCCESS_INTENT, low)
    if failure and not success:
        return False
    if success and not failure:
        return True
    return None


def text_bound(opts: RecallOptions, active: dict[str, bool], relevance_w: float, denominator: float) -> float:
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


def light_lists(ordered: list[tuple[float, Any, dict[int, int]]], bound: float) -> tuple[set[int], float]:
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


def text_lists(words: QueryWeights, lists: dict[int, Any]) -> tuple[
        list[int], list[tuple[float, Any, dict[int, int]]], list[tuple[int, bool] | None] | None]:
    """The posting lists to score: their fingerprints, in query order with the synonyms last (what
    ``words.concept_of`` says each one stands for); the lists as (weight, episodes, term
    frequencies); and, when the query has synonyms, each list's concept (index, is a synonym) or
    None for a list scored on its own (index/weights.py: a concept scores the best of its matches)."""
    fps = [fp for fp in words.weights if fp in lists]
    if words.synonym_weights:
        fps += [fp for fp in words.synonym_weights if fp in lists]
    weight = {**words.weights, **words.synonym_weights}
    ordered = [(weight[fp], *lists[fp]) for fp in fps]
    if not words.synonym_weights:
        return fps, ordered, None
    index = {c: i for i, c in enumerate(sorted(words.grouped))}
    concepts: list[tuple[int, bool] | None] = [
        (index[words.concept_of[fp]], fp in words.synonyms) if words.concept_of.get(fp) in index else None
        for fp in fps]
    return fps, ordered, concepts


def text_scores(ordered: list[tuple[float, Any, dict[int, int]]], light: set[int], seeds: set[int], *,
                 store_dls: Any, avg_dl: float, denominator: float,
                 concepts: list[tuple[int, bool] | None] | None = None,
                 masks: Sequence[int] = (), within: set[int] | None = None,
                 ) -> tuple[dict[int, float], dict[int, int]]:
    """Text scores of the episodes that may pass the gate: ``seeds`` and those in at least one
    posting list outside ``light``, unclipped (above 1 when an episode has more evidence than one
    occurrence of every query term at average length), and which of the query's concepts each
    covers: the union of ``masks[i]`` (bits, recall/engine.py ``_Concepts``) over the lists it is
    in. Sums run in query order, with the same arithmetic, in the same order, as the SQL ``SUM``
    this replaced (tested bit for bit); a list with a synonym concept (:func:`text_lists`) adds to
    its concept's own sum or competes as a synonym, and each concept's best is added last, in
    concept order. With ``within``, only the episodes in it are scored (the others cannot pass
    the gate)."""
    scoring = set(seeds)
    for i, (_w, docs, _tfs) in enumerate(ordered):
        if i not in light:
            scoring.update(docs)
    if within is not None:
        scoring &= within
    sums = dict.fromkeys(scoring, 0.0)
    covered: dict[int, int] = {}
    own: dict[int, dict[int, float]] = {}  # concept -> doc -> the concept's own fingerprints, summed
    best: dict[int, dict[int, float]] = {}  # concept -> doc -> its best synonym
    k1_1 = K1 + 1
    lengths: dict[int, float] = {}  # BM25's length part
    at_tf1: dict[int, float] = {}  # a term's saturation at tf 1
    for doc in scoring:
        part = lengths[doc] = K1 * (1 - B + B * store_dls[doc] / avg_dl)
        at_tf1[doc] = k1_1 / (1 + part)
    for i, (w, docs, tfs) in enumerate(ordered):
        concept = concepts[i] if concepts is not None else None
        found = scoring.intersection(docs)
        # each episode's gain from this list: w times its saturation (the same expressions, so
        # the same bits, as one gain per episode); added straight to its sum when the list
        # stands for no concept
        if tfs or concept is not None:
            gains = {doc: w * at_tf1[doc] for doc in found}
            for doc, tf in tfs.items():
                if doc in gains:
                    gains[doc] = w * (tf * k1_1 / (tf + lengths[doc]))
            if concept is None:
                for doc, gain in gains.items():
                    sums[doc] += gain
            elif concept[1]:
                synonym = best.setdefault(concept[0], {})
                for doc, gain in gains.items():
                    synonym[doc] = max(synonym.get(doc, 0.0), gain)
            else:
                mine = own.get(concept[0])
                if mine is None:  # the concept's first list: 0.0 + gain is gain
                    own[concept[0]] = gains
                else:
                    for doc, gain in gains.items():
                        mine[doc] = mine.get(doc, 0.0) + gain
        else:
            for doc in found:
                sums[doc] += w * at_tf1[doc]
        mask = masks[i] if i < len(masks) else 0
        if mask:
            for doc in found:
                covered[doc] = covered.get(doc, 0) | mask
    for c in sorted(own.keys() | best.keys()):  # each episode's concepts added in concept order
        mine, synonym = own.get(c, {}), best.get(c, {})
        if not synonym:  # gains are positive: max(gain, 0.0) is gain
            for doc, value in mine.items():
                sums[doc] += value
            continue
        for doc in mine.keys() | synonym.keys():
            sums[doc] += max(mine.get(doc, 0.0), synonym.get(doc, 0.0))
    if not denominator:
        return dict.fromkeys(sums, 0.0), covered
    return {doc: s / denominator for doc, s in sums.items()}, covered


def learned(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions, info: dict[int, dict[str, Any]],
            passing: list[tuple[float, int, dict[str, float]]]) -> list[tuple[float, int, dict[str, float]]]:
    """Scores moved by utility (from feedback) and multiplied by recency (module docstring); never
    clipped, so utility moves even a full match."""
    w_utility = float(opts.weights.get("utility", 0.0))
    use_utility = w_utility > 0 and int(meta.get("feedback_ids", 0)) > 0
    use_recency = opts.half_life_days > 0 and bool(meta.get("newest_created"))
    if not passing or not (use_utility or use_recency):
        return passing
    utility: dict[str, float] = {}
    if use_utility:
        from biocortex_cli.index.feedback import question_fingerprints, utilities

        utility = utilities(conn, [info[doc]["id"] for _s, doc, _sig in passing],
                            question=question_fingerprints(opts.query))
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
            signals["utility"] = value  # rounded when shown
            score += w_utility * (value - 0.5)
        if use_recency:
            age = (newest - dt.datetime.fromisoformat(created[doc][:19])).total_seconds() / 86400
            factor = 2.0 ** (-max(0.0, age) / opts.half_life_days)
            signals["recency"] = factor
            score *= factor
        out.append((score, doc, signals))
    return out


def doc_info(conn: sqlite3.Connection, docs: list[int], domain_norm: str | None) -> dict[int, dict[str, Any]]:
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


def shorten(sections: Sequence[tuple[str, str, int, int]], drop_order: Sequence[str],
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


def explain(conn: sqlite3.Connection, doc: int, weights: dict[int, float], lists: dict[int, Any],
             qfps: dict[int, tuple[str, int]], attr_where: str, grams_q: list[str],
             synonyms: dict[int, Expansion] | None = None) -> dict[str, list[str]]:
    def has(fp: int) -> bool:
        docs = lists[fp][0] if fp in lists else ()
        at = bisect_left(docs, doc)
        return at < len(docs) and docs[at] == doc

    found = [qfps[fp][0] for fp in weights if has(fp)]
    out = {"terms": sorted(found, key=lambda g: (-g.count(" "), g))}
    matched = [f"{e.synonym} (for {e.term}, {e.source} {e.weight:g})" for fp, e in (synonyms or {}).items() if has(fp)]
    if matched:
        out["synonyms"] = matched
    attrs: dict[str, set[str]] = {}
    if grams_q:
        for kind, value in conn.execute(f"SELECT kind, value FROM attrs WHERE doc = ? AND {attr_where}",
                                        [doc, *grams_q]):
            attrs.setdefault(ATTR_SIGNAL[kind], set()).add(value)
    for signal, values in sorted(attrs.items()):
        out[signal] = sorted(values)
    return out
