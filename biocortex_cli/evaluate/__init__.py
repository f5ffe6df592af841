"""Retrieval-quality evaluation: a BEIR-style set in, R@k / Hit@k / NDCG / MRR out (docs/eval.md).

:mod:`.dataset` reads and checks the set, :mod:`.metrics` scores one ranking, :mod:`.run` builds a
throwaway vault from the corpus and ranks every query with biocortex recall and with a BM25
baseline.
"""
