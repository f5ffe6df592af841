"""Lessons across episodes: near-identical lessons clustered (``biocortex lessons``).

**Clustering** (``biocortex lessons``). Every lesson of every indexed episode is tokenised with
the recall tokeniser and turned into the set ``F`` of the 48-bit fingerprints of its unigrams and
bigrams (:mod:`biocortex_cli.index.fingerprints`). Two lessons are near-identical when the
Jaccard similarity of their sets reaches :data:`SIMILARITY`::

    J(A, B) = |F(A) ∩ F(B)| / |F(A) ∪ F(B)|  >=  0.5

and a cluster is a connected component of that relation (single linkage). Lessons with the same
tokens are one *variant* (computed once). Candidate pairs come from prefix filtering (the
AllPairs algorithm): with every set ordered rarest fingerprint first, two sets with ``J >= t``
share a fingerprint among the first ``|F| - ceil(t·|F|) + 1`` of each, so only those prefixes are
indexed and probed, never all pairs; each candidate is then verified exactly.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from biocortex_cli.progress import Stage, plural

#: Jaccard similarity of uni+bigram fingerprint sets at or above which two lessons are one.
SIMILARITY = 0.5


def lesson_fingerprints(tokens: Sequence[str]) -> frozenset[int]:
    """The fingerprints of a lesson's unigrams and bigrams (what clustering compares)."""
    from biocortex_cli.index.fingerprints import fingerprint, grams

    return frozenset(fingerprint(g) for g, _n in grams(tokens, max_n=2))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter) if inter else 0.0


def _prefix_len(size: int, t: float) -> int:
    return size - math.ceil(t * size - 1e-9) + 1


class LessonMatcher:
    """Near-duplicate search over a fixed collection of fingerprint sets (prefix filtering).

    Building it also links every pair with ``J >= threshold`` into components (union-find);
    a candidate already in the same component is not verified again, which spares most of the
    work when a lesson has hundreds of phrasings."""

    def __init__(self, sets: Sequence[frozenset[int]], threshold: float = SIMILARITY,
                 stage: Stage | None = None) -> None:
        self.sets = sets
        self.t = threshold
        df: dict[int, int] = {}
        for s in sets:
            for fp in s:
                df[fp] = df.get(fp, 0) + 1
        self.df = df
        self.prefixes: dict[int, list[int]] = {}
        self.parent = list(range(len(sets)))
        # AllPairs: visit sets by size, probe the prefixes indexed so far, then index this one
        # indexed prefixes may be shorter than probing ones (PPJoin): a set visited later is at
        # least as large, so a pair with J >= t overlaps in >= 2t/(1+t) of the smaller set
        index_t = 2 * threshold / (1 + threshold)
        for done, i in enumerate(sorted(range(len(sets)), key=lambda i: (len(sets[i]), i))):
            if stage is not None:
                stage.advance(done)
            ordered = self._ordered(sets[i])
            for j in self._verified(sets[i], ordered[: _prefix_len(len(ordered), threshold)], skip=i):
                self._union(i, j)
            for fp in ordered[: _prefix_len(len(ordered), index_t)]:
                self.prefixes.setdefault(fp, []).append(i)
        if stage is not None:
            stage.finish()
        self._full: dict[int, list[int]] | None = None

    def root(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def _union(self, a: int, b: int) -> None:
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def _ordered(self, s: frozenset[int]) -> list[int]:
        df = self.df
        return sorted(s, key=lambda fp: (df.get(fp, 0), fp))  # rarest first (unseen: rarest)

    def _verified(self, s: frozenset[int], prefix: Iterable[int], skip: int = -1,
                  index: dict[int, list[int]] | None = None) -> list[int]:
        """Sets similar to ``s`` among those whose prefixes are indexed; with ``skip`` (the
        number of ``s`` while building), those already in its component are left out."""
        seen: set[int] = set()
        out = []
        low, high = self.t * len(s), len(s) / self.t if self.t > 0 else math.inf
        for fp in prefix:
            for j in (self.prefixes if index is None else index).get(fp, ()):
                if j in seen:
                    continue
                seen.add(j)
                if skip >= 0 and self.root(j) == self.root(skip):
                    continue
                other = self.sets[j]
                if low - 1e-9 <= len(other) <= high + 1e-9 and jaccard(s, other) >= self.t - 1e-12:
                    out.append(j)
                    if skip >= 0:
                        self._union(skip, j)
        return sorted(out)

    def similar(self, s: frozenset[int]) -> list[int]:
        """Indexes of the sets with ``J >= threshold`` to ``s`` (any size): ``s``'s probing prefix
        meets every such set, so it is looked up in a full index (built on first use)."""
        if not s:
            return []
        if self._full is None:
            self._full = {}
            for j, other in enumerate(self.sets):
                for fp in other:
                    self._full.setdefault(fp, []).append(j)
        return self._verified(s, self._ordered(s)[: _prefix_len(len(s), self.t)], index=self._full)


@dataclass(frozen=True)
class EpisodeLesson:
    """One lesson as written in one episode (a row of the index's ``lesson_texts``)."""

    episode: str
    text: str
    success: bool | None
    quality: float | None
    archived: bool


@dataclass(frozen=True)
class LessonCluster:
    """Near-identical lessons from several episodes."""

    id: str  # "c-" + 8 hex digits of its representative's tokens
    text: str  # the representative: the phrasing written in most episodes (then shortest)
    variants: tuple[str, ...]  # every distinct phrasing, most supported first
    support: tuple[str, ...]  # ids of the (non-archived) episodes that state it, sorted
    archived_support: tuple[str, ...]  # ids of archived episodes that state it (not in support)
    success_rate: float | None  # share of supporting episodes that succeeded (known outcomes)
    mean_quality: float | None
    promoted: str | None = None  # id of the lesson note that holds it
    new_support: tuple[str, ...] = ()  # supporting episodes its lesson note does not list yet
    utility: float | None = None  # feedback on the lesson and its episodes, pooled (index/feedback.py)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "variants": len(self.variants),
                "phrasings": list(self.variants), "support": len(self.support),
                "episodes": list(self.support), "archived_support": list(self.archived_support),
                "success_rate": self.success_rate, "mean_quality": self.mean_quality,
                "utility": self.utility, "promoted": self.promoted, "new_support": list(self.new_support)}


@dataclass(frozen=True)
class Clustering:
    """Every cluster, and what it takes to find the cluster of a new phrasing."""

    clusters: list[LessonCluster]
    matcher: LessonMatcher
    cluster_of: list[int]  # variant number -> index in ``clusters``
    lessons: int  # lessons read
    seconds: float = 0.0
    keys: dict[tuple[str, ...], int] = field(default_factory=dict)

    def find(self, text: str) -> list[LessonCluster]:
        """Clusters with a phrasing near-identical to ``text``, most supported first."""
        from biocortex_cli.bio.text import tokenize

        tokens = tuple(tokenize(text))
        found = set()
        exact = self.keys.get(tokens)
        if exact is not None:
            found.add(self.cluster_of[exact])
        found.update(self.cluster_of[j] for j in self.matcher.similar(lesson_fingerprints(tokens)))
        return sorted((self.clusters[c] for c in found), key=lambda c: (-len(c.support), c.id))


def read_episode_lessons(conn: sqlite3.Connection, domain: str | None = None) -> list[EpisodeLesson]:
    """Every lesson of every indexed episode (optionally only episodes with ``domain``)."""
    sql = ("SELECT d.id, d.success, d.quality, d.archived, l.text FROM lesson_texts l"
           " JOIN docs d ON d.doc = l.doc")
    params: list[Any] = []
    if domain is not None:
        from biocortex_cli.index.build import attr_norm

        sql += " WHERE l.doc IN (SELECT doc FROM attrs WHERE kind = 'domain' AND value = ?)"
        params.append(attr_norm(domain))
    return [EpisodeLesson(str(i), str(t), None if s is None else bool(s), q, bool(a))
            for i, s, q, a, t in conn.execute(sql + " ORDER BY d.id, l.n", params)]


def cluster_lessons(items: Sequence[EpisodeLesson], threshold: float = SIMILARITY) -> Clustering:
    """Cluster ``items`` (see the module docstring); clusters sorted by support, then id."""
    import time

    from biocortex_cli.bio.text import tokenize

    started = time.perf_counter()
    keys: dict[tuple[str, ...], int] = {}
    members: list[list[EpisodeLesson]] = []
    memo: dict[str, tuple[str, ...]] = {}
    stage = Stage("lessons", len(items), f"reading {plural(len(items), 'lesson')}…")
    for done, item in enumerate(items):
        stage.advance(done)
        tokens = memo.get(item.text)
        if tokens is None:
            tokens = memo[item.text] = tuple(tokenize(item.text))
        if not tokens:
            continue
        k = keys.setdefault(tokens, len(keys))
        if k == len(members):
            members.append([])
        members[k].append(item)
    stage.finish()
    ordered_keys = list(keys)
    sets = [lesson_fingerprints(k) for k in ordered_keys]
    matcher = LessonMatcher(sets, threshold,
                            Stage("cluster", len(sets), f"clustering {plural(len(sets), 'phrasing')}…"))
    groups: dict[int, list[int]] = {}
    for i in range(len(sets)):
        groups.setdefault(matcher.root(i), []).append(i)
    clusters: list[tuple[LessonCluster, list[int]]] = []
    for variant_keys in groups.values():
        clusters.append((_cluster([m for k in variant_keys for m in members[k]], memo), variant_keys))
    clusters.sort(key=lambda c: (-len(c[0].support), -len(c[0].archived_support), c[0].id))
    cluster_of = [0] * len(sets)
    for n, (_c, variant_keys) in enumerate(clusters):
        for k in variant_keys:
            cluster_of[k] = n
    return Clustering([c for c, _k in clusters], matcher, cluster_of, len(items),
                      time.perf_counter() - started, keys)


def _cluster(items: list[EpisodeLesson], tokens: dict[str, tuple[str, ...]]) -> LessonCluster:
    by_text: dict[str, set[str]] = {}
    for item in items:
        by_text.setdefault(item.text, set()).add(item.episode)
    variants = sorted(by_text, key=lambda t: (-len(by_text[t]), len(t), t))
    text = variants[0]
    active = {i.episode: i for i in items if not i.archived}
    archived = sorted({i.episode for i in items if i.archived} - set(active))
    outcomes = [i.success for i in active.values() if i.success is not None]
    qualities = [i.quality for i in active.values() if i.quality is not None]
    digest = hashlib.blake2b(" ".join(tokens[text]).encode("utf-8"), digest_size=4).hexdigest()
    return LessonCluster(
        id=f"c-{digest}", text=text, variants=tuple(variants), support=tuple(sorted(active)),
        archived_support=tuple(archived),
        success_rate=round(sum(outcomes) / len(outcomes), 4) if outcomes else None,
        mean_quality=round(sum(qualities) / len(qualities), 4) if qualities else None)
