"""Engram-style fingerprints: 48-bit xxhash of token unigrams, bigrams and trigrams.

N-grams never cross a field boundary (task, plan, result, each lesson), so "…barcodes. Call
doublets…" does not invent a phrase. The same function serves the index and the query.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import xxhash

MASK48 = (1 << 48) - 1
MAX_N = 3
_hash = xxhash.xxh3_64_intdigest


def fingerprint(gram: str) -> int:
    return _hash(gram.encode("utf-8")) & MASK48


def grams(tokens: Sequence[str], max_n: int = MAX_N) -> Iterable[tuple[str, int]]:
    """(gram, n) for every n-gram of ``tokens`` with 1 <= n <= max_n."""
    count = len(tokens)
    for i in range(count):
        for n in range(1, max_n + 1):
            if i + n > count:
                break
            yield (tokens[i] if n == 1 else " ".join(tokens[i : i + n])), n


def field_fingerprints(fields: Iterable[Sequence[str]]) -> dict[int, int]:
    """fingerprint -> term frequency over several token lists (n-grams stay inside a list).

    The same grams, in the same order, as :func:`grams`; unrolled because the indexer calls it
    for every note (it was a fifth of a rebuild's time)."""
    tf: dict[int, int] = {}
    get = tf.get
    for tokens in fields:
        count = len(tokens)
        for i in range(count):
            gram = tokens[i]
            fp = _hash(gram.encode("utf-8")) & MASK48
            tf[fp] = get(fp, 0) + 1
            if i + 1 < count:
                gram = f"{gram} {tokens[i + 1]}"
                fp = _hash(gram.encode("utf-8")) & MASK48
                tf[fp] = get(fp, 0) + 1
                if i + 2 < count:
                    gram = f"{gram} {tokens[i + 2]}"
                    fp = _hash(gram.encode("utf-8")) & MASK48
                    tf[fp] = get(fp, 0) + 1
    return tf


def query_fingerprints(tokens: Sequence[str]) -> dict[int, tuple[str, int]]:
    """fingerprint -> (gram, n) for a query (first occurrence wins)."""
    out: dict[int, tuple[str, int]] = {}
    for gram, n in grams(tokens):
        out.setdefault(fingerprint(gram), (gram, n))
    return out
