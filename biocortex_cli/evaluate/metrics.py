"""Ranking metrics for one query, and their means. Definitions follow trec_eval / BEIR.

``ranked`` is a system's answer, best first; ``grades`` maps judged document ids to graded
relevance (0 = judged not relevant). A document is *relevant* when its grade is at least
``relevance_level`` (1 by default, as in BEIR); NDCG uses the grades themselves.

- ``R@k``: relevant documents in the top k / all relevant documents;
- ``Hit@k``: 1 if any relevant document is in the top k, else 0;
- ``NDCG@k``: DCG of the top k with linear gains, ``sum(grade_i / log2(i + 1))`` over ranks
  i = 1..k, divided by the DCG of the ideal ordering of all judged documents;
- ``MRR@k``: 1 / rank of the first relevant document in the top k, 0 if there is none.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence

#: Cut-offs reported for R@k and Hit@k (those at or below the run's k, plus k itself).
CUTOFFS = (1, 3, 5, 10)


def relevant_set(grades: Mapping[str, int], relevance_level: int = 1) -> set[str]:
    return {doc for doc, grade in grades.items() if grade >= relevance_level}


def recall_at(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def hit_at(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    return 1.0 if any(doc in relevant for doc in ranked[:k]) else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    for rank, doc in enumerate(ranked[:k], start=1):
        if doc in relevant:
            return 1.0 / rank
    return 0.0


def dcg(gains: Iterable[float]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1))


def ndcg_at(ranked: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    ideal = dcg(sorted((max(0, g) for g in grades.values()), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    return dcg(max(0, grades.get(doc, 0)) for doc in ranked[:k]) / ideal


def cutoffs(k: int) -> list[int]:
    return sorted({c for c in CUTOFFS if c <= k} | {k})


def metric_names(k: int) -> list[str]:
    ks = cutoffs(k)
    return [f"R@{c}" for c in ks] + [f"Hit@{c}" for c in ks] + [f"NDCG@{k}", f"MRR@{k}"]


def score_query(ranked: Sequence[str], grades: Mapping[str, int], k: int,
                relevance_level: int = 1) -> dict[str, float]:
    """Every metric of :func:`metric_names` for one query."""
    if len(set(ranked)) != len(ranked):
        raise ValueError("a ranking lists a document twice")
    relevant = relevant_set(grades, relevance_level)
    out: dict[str, float] = {}
    for c in cutoffs(k):
        out[f"R@{c}"] = recall_at(ranked, relevant, c)
    for c in cutoffs(k):
        out[f"Hit@{c}"] = hit_at(ranked, relevant, c)
    out[f"NDCG@{k}"] = ndcg_at(ranked, grades, k)
    out[f"MRR@{k}"] = reciprocal_rank(ranked, relevant, k)
    return out


def mean(rows: Sequence[Mapping[str, float]], names: Sequence[str]) -> dict[str, float]:
    """The mean of each metric over queries (0 for no queries)."""
    if not rows:
        return {name: 0.0 for name in names}
    return {name: sum(row[name] for row in rows) / len(rows) for name in names}
