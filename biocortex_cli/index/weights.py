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

**Synonyms** (``expanded``, from bio/vocabulary.py ``expand``): a query term and its synonyms are
one *concept*. The concept's weight is that of the term's own fingerprints (every 1-3-gram inside
the term's span, known or unknown), counted once in the denominator; each synonym's fingerprint
weighs ``expansion.weight`` (0.5-0.9, below 1) times that concept weight and is in
``synonym_weights`` only when some episode has it (never in the denominator). An episode scores
the *best* of a concept's matches — its own fingerprints summed, or its best synonym — never the
sum (:meth:`QueryWeights.coverage`), so a synonym can raise a score and never lower one.
``concept_of`` names the concept of every weighted fingerprint: the term for the fingerprints
inside an expanded term and for its synonyms, the gram itself for any other.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from biocortex_cli.bio.vocabulary import Expanded, Expansion
from biocortex_cli.records import NamedTuple

#: words of a query beyond this many are not searched
MAX_QUERY_TERMS = 512
#: characters of a query beyond this many are not read at all (recall/engine.py: clip_query);
#: prose reaches MAX_QUERY_TERMS words well before this (~5,500 characters)
MAX_QUERY_CHARS = 16_000


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


class QueryWeights(NamedTuple):  # a NamedTuple, not a dataclass: defined faster on recall's path
    # (defaults are shared by every instance: never changed in place)
    fingerprints: dict[int, tuple[str, int]]  # fingerprint -> (gram, n), every one of the query
    weights: dict[int, float]  # fingerprint -> weight, for those the episodes have (not too common)
    unknown_weights: dict[int, float]  # unigrams no episode has -> half the largest IDF (times n's weight)
    denominator: float  # every weight above, summed in query order
    unknown: list[str]  # query words no episode has
    common: list[str]  # query words too common to count
    # synonyms (module docstring): fingerprint -> weight, for those some episode has (not too common)
    synonym_weights: dict[int, float] = {}
    # synonyms no episode has, weighed the same way: a lesson note may have them (lessons/recall.py)
    unknown_synonym_weights: dict[int, float] = {}
    synonyms: dict[int, Expansion] = {}  # the expansions of both
    concept_of: dict[int, str] = {}  # weighted fingerprint -> its concept
    concept_weights: dict[str, float] = {}  # concept -> its weight in the denominator
    expanded: Expanded | None = None  # what the vocabulary gave: --explain lists it
    absent_synonyms: list[str] = []  # synonyms no episode has, or too common
    grouped: frozenset[str] = frozenset()  # the concepts with a weighted synonym

    def coverage(self, found: Iterable[tuple[int, float]]) -> float:
        """The sum, over concepts, of the best of a concept's matches: ``found`` holds (fingerprint,
        contribution) pairs of one episode or note (weight times saturation); original fingerprints
        of a concept add up, synonyms compete with that sum and with each other."""
        total = 0.0  # added in order, as the lists are summed without synonyms
        own: dict[str, float] = {}
        best: dict[str, float] = {}
        for fp, value in found:
            concept = self.concept_of.get(fp) if self.grouped else None
            if concept is None or concept not in self.grouped:
                total += value
            elif fp in self.synonyms:
                best[concept] = max(best.get(concept, 0.0), value)
            else:
                own[concept] = own.get(concept, 0.0) + value
        for concept in sorted(own.keys() | best.keys()):
            total += max(own.get(concept, 0.0), best.get(concept, 0.0))
        return total


def query_weights(conn: sqlite3.Connection, tokens: Sequence[str], n_docs: int,
                  ngram_weights: Mapping[str, float], max_df: float,
                  expanded: Expanded | None = None) -> QueryWeights:
    """The weights of ``tokens``' fingerprints over the index's ``n_docs`` episodes, and of the
    synonyms in ``expanded`` (module docstring)."""
    from biocortex_cli.index.fingerprints import fingerprint, query_fingerprints
    from biocortex_cli.index.store import document_frequencies

    qfps = query_fingerprints(tokens)
    expansions = expanded.expansions if expanded is not None else ()
    concept_of_gram = _concepts(tokens, {e.term for e in expansions}) if expansions else {}
    syn_fps = {fingerprint(e.synonym): e for e in expansions}
    dfs = document_frequencies(conn, [*qfps, *syn_fps])
    cap = max(1, int(max_df * n_docs))
    max_idf = idf(n_docs, 0)
    weights: dict[int, float] = {}
    unknown_weights: dict[int, float] = {}
    denominator = 0.0
    unknown: list[str] = []
    common: list[str] = []
    concept_of: dict[int, str] = {}
    concept_weights: dict[str, float] = {}
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
            else:
                continue
        elif df > cap and n_docs >= 20:
            if n == 1:
                common.append(gram)
            continue
        else:
            weights[fp] = wn * idf(n_docs, df)
            denominator += weights[fp]
        concept = concept_of_gram.get(gram, gram)
        concept_of[fp] = concept
        concept_weights[concept] = concept_weights.get(concept, 0.0) + (weights.get(fp) or unknown_weights[fp])
    synonym_weights: dict[int, float] = {}
    unknown_synonyms: dict[int, float] = {}
    synonyms: dict[int, Expansion] = {}
    absent: list[str] = []
    for fp, expansion in syn_fps.items():
        df = dfs.get(fp, 0)
        base = concept_weights.get(expansion.term, 0.0)
        if df == 0 or (df > cap and n_docs >= 20) or base <= 0 or fp in qfps:
            absent.append(expansion.synonym)
            if df > 0 or base <= 0 or fp in qfps:
                continue
        (synonym_weights if df else unknown_synonyms)[fp] = expansion.weight * base
        synonyms[fp] = expansion
        concept_of[fp] = expansion.term
    return QueryWeights(qfps, weights, unknown_weights, denominator, unknown, common, synonym_weights,
                        unknown_synonyms, synonyms, concept_of, concept_weights, expanded, absent,
                        frozenset(concept_of[fp] for fp in synonyms))


def _concepts(tokens: Sequence[str], terms: set[str]) -> dict[str, str]:
    """gram -> the expanded term whose span holds it (the first such term of the query), for every
    1-3-gram inside an expanded term's first occurrence."""
    from biocortex_cli.index.fingerprints import MAX_N

    spans: list[tuple[int, int, str]] = []
    for term in terms:
        words = term.split(" ")
        for i in range(len(tokens) - len(words) + 1):
            if list(tokens[i:i + len(words)]) == words:
                spans.append((i, i + len(words), term))
                break
    spans.sort()
    out: dict[str, str] = {}
    for start, end, term in spans:
        for i in range(start, end):
            for n in range(1, min(MAX_N, end - i) + 1):
                out.setdefault(" ".join(tokens[i:i + n]), term)
    return out
