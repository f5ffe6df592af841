"""Analyses of the same kind as the best hits: the episodes that share a strong hit's tools and
domains join the results, even when they share none of the question's words.

A question worded unlike any episode ("cells that look like two lineages glued together") often
finds the one analysis that answers it through a synonym or a rare word, and misses the other
runs of the same analysis (other datasets, other outcomes), whose lessons a planner wants just
as much. Those runs are recognisable without the question's words: they list the same tools and
domains. So, after the gate, each of the :data:`SEEDS` best hits brings its *kin*:

- ``share(seed, d) = TOOLS · Σ_{t ∈ tools(seed) ∩ tools(d)} w(t) / Σ_{t ∈ tools(seed)} w(t)
  + DOMAINS · (the same over domains)``, with ``w(v) = ln(1 + N / df(v))`` (a rare tool counts
  for more than one most analyses use), values in more than ``max_df`` of the episodes left out
  on both sides; a seed without domains weighs its tools alone; a seed without tools (or whose
  tools are all too common) has no kin;
- ``d`` is kin when ``share ≥`` :data:`MIN_SHARE` (at least one tool must be shared: domains
  alone weigh :data:`DOMAINS`, below it) and scores ``weight · min(1, seed's score) · share``
  (``weight`` is ``episodic.weights.kin``, 0 turns this off), which must reach
  ``min_relevance`` like any hit; an episode kin to two seeds keeps its best score, one that
  passed the gate on its own keeps its own score.

Kin carry the signal ``kin`` (their share) and ``via``, the id of the hit they were found
through; the printed block says so on a line of its own, stored with the seed's block
(render/blocks.py ``VIA``).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

#: How many of the best hits bring their kin.
SEEDS = 2
#: The least share of a seed's weighted tools and domains that makes an episode its kin.
MIN_SHARE = 0.5
#: How much of the share the tools and the domains weigh.
TOOLS, DOMAINS = 0.6, 0.4


class Kin:  # not a NamedTuple: one costs ~0.7 M instructions to define, on recall's start-up
    __slots__ = ("doc", "score", "share", "via")

    def __init__(self, score: float, doc: int, share: float, via: int) -> None:
        self.score, self.doc, self.share = score, doc, share
        self.via = via  # the seed's episode number


def kin(conn: sqlite3.Connection, seeds: Sequence[tuple[float, int]], *, weight: float, n_docs: int,
        max_df: float, min_relevance: float, passed: set[int]) -> list[Kin]:
    """The kin of ``seeds`` ((score, episode), best first) that did not pass the gate themselves
    (``passed``), best first: score, then episode number (the same index gives the same list)."""
    from biocortex_cli.index.build import attr_norm
    from biocortex_cli.index.store import unpack_record

    if weight <= 0 or not seeds or n_docs < 2:
        return []
    seeds = list(seeds[:SEEDS])
    records = dict(conn.execute(f"SELECT doc, record FROM records WHERE doc IN ({','.join('?' * len(seeds))})",
                                [doc for _s, doc in seeds]))
    wanted: dict[int, dict[str, set[str]]] = {}
    for _s, doc in seeds:
        blob = records.get(doc)
        record = unpack_record(blob) if blob is not None else {}
        wanted[doc] = {kind: {attr_norm(str(v)) for v in (record.get(key) or []) if isinstance(v, str) and v.strip()}
                       for kind, key in (("tool", "tools"), ("domain", "domains"))}
    limit = max(1, int(max_df * n_docs))
    asked = {(kind, name) for w in wanted.values() for kind in ("tool", "domain") for name in w[kind]}
    holders: dict[tuple[str, str], list[int]] = {}
    sizes: dict[tuple[str, str], int] = {}  # a value's episodes, counted
    # a domain's episodes as written (decimal numbers): they are only looked up, among the
    # episodes that share a tool, and a common domain lists thousands
    domain_docs: dict[str, set[str]] = {}
    if asked:  # one query, a row per value with its episodes joined
        names = sorted({name for _kind, name in asked})
        for kind, name, docs in conn.execute(
                "SELECT kind, value, group_concat(doc) FROM attrs WHERE kind IN ('tool', 'domain')"
                f" AND value IN ({','.join('?' * len(names))}) GROUP BY kind, value", names):
            size = docs.count(",") + 1
            if (kind, name) in asked and size <= limit:
                sizes[kind, name] = size
                if kind == "tool":
                    holders[kind, name] = sorted(map(int, docs.split(",")))
                else:
                    domain_docs[name] = set(docs.split(","))
    best: dict[int, Kin] = {}
    for score, seed in seeds:
        parts: list[tuple[float, dict[int, float]]] = []
        for kind, share_w in (("tool", TOOLS), ("domain", DOMAINS)):
            # sorted: a set's order (and so the sums' last bits) would follow the hash seed
            weights = {v: math.log(1 + n_docs / sizes[kind, v]) for v in sorted(wanted[seed][kind])
                       if (kind, v) in sizes}
            if not weights:
                if kind == "tool":
                    break  # no (informative) tool: no kin
                continue
            total = sum(weights.values())
            shares: dict[int, float] = {}
            # kin share a tool: the domains' shares only of the episodes that share one
            among = parts[0][1] if parts else None
            for attr, w in weights.items():
                part = w / total
                if among is None and not shares:  # the first tool: 0.0 + part is part
                    shares = dict.fromkeys(holders[kind, attr], part)
                elif among is None:
                    for doc in holders[kind, attr]:
                        shares[doc] = shares.get(doc, 0.0) + part
                else:  # a domain (tools come first)
                    held = domain_docs[attr]
                    for doc in among:
                        if str(doc) in held:
                            shares[doc] = shares.get(doc, 0.0) + part
            parts.append((share_w, shares))
        else:
            norm = sum(w for w, _ in parts)
            (tools_w, tools), *domains = parts
            domains_w, of_domains = domains[0] if domains else (0.0, {})
            for doc in tools:
                if doc == seed or doc in passed:
                    continue
                share = 0 + tools_w * tools[doc]  # as sum() adds the parts, from 0
                if domains:
                    share += domains_w * of_domains.get(doc, 0.0)
                share /= norm
                value = weight * min(1.0, score) * share
                if share >= MIN_SHARE - 1e-9 and value >= min_relevance - 1e-9:
                    old = best.get(doc)
                    if old is None or value > old.score:
                        best[doc] = Kin(value, doc, share, seed)
    return sorted(best.values(), key=lambda k: (-round(k.score, 6), k.doc))

