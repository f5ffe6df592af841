"""A query's fingerprints weighted by their IDF over the indexed episodes: recall's text signal.

Episodic recall (recall/engine.py) and the lessons part (lessons/recall.py) weigh a query the same
way, with this one function. Each fingerprint of the query (unigrams, bigrams, trigrams:
index/fingerprints.py) weighs ``ngram_weights[n] * idf``, where
``idf = log(1 + (N - df + 0.5) / (df + 0.5))`` over the ``N`` indexed episodes, ``df`` of them
having the fingerprint. A fingerprint in more than ``max_df`` of the episodes (once the vault
holds 20) is ignored: too common to tell them apart. A query word no episode has weighs half the
largest IDF and counts against coverage (a query about what memory does not know should not look
relevant); it is kept apart in ``unknown_weights``, since no episode can match it, while a lesson
note may.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: words of a query beyond this many are not searched
MAX_QUERY_TERMS = 512


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class QueryWeights:
    fingerprints: dict[int, tuple[str, int]]  # fingerprint -> (gram, n), every one of the query
    weights: dict[int, float]  # fingerprint -> weight, for those the episodes have (not too common)
    unknown_weights: dict[int, float]  # unigrams no episode has -> half the largest IDF (times n's weight)
    denominator: float  # every weight above, summed in query order
    unknown: list[str]  # query words no episode has
    common: list[str]  # query words too common to count


def query_weights(conn: sqlite3.Connection, tokens: Sequence[str], n_docs: int,
                  ngram_weights: Mapping[str, float], max_df: float) -> QueryWeights:
    """The weights of ``tokens``' fingerprints over the index's ``n_docs`` episodes."""
    from biocortex_cli.index.fingerprints import query_fingerprints
    from biocortex_cli.index.store import document_frequencies

    qfps = query_fingerprints(tokens)
    dfs = document_frequencies(conn, list(qfps))
    cap = max(1, int(max_df * n_docs))
    max_idf = idf(n_docs, 0)
    weights: dict[int, float] = {}
    unknown_weights: dict[int, float] = {}
    denominator = 0.0
    unknown: list[str] = []
    common: list[str] = []
    for fp, (gram, n) in qfps.items():
        wn = float(ngram_weights.get(str(n), 0.0))
        if wn <= 0:
            continue
        df = dfs.get(fp, 0)
        if df == 0:
            if n == 1:
                unknown.append(gram)
                unknown_weights[fp] = 0.5 * wn * max_idf
                denominator += unknown_weights[fp]
            continue
        if df > cap and n_docs >= 20:
            if n == 1:
                common.append(gram)
            continue
        weights[fp] = wn * idf(n_docs, df)
        denominator += weights[fp]
    return QueryWeights(qfps, weights, unknown_weights, denominator, unknown, common)
