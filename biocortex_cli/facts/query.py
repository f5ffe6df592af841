"""Questions to semantic memory: the facts around an entity, and whether a claim holds.

Both work on a list of :class:`~biocortex_cli.facts.model.Fact` and the vault's aliases, so they
answer the same whether the facts come from the notes or from the sidecar index.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from biocortex_cli.facts.model import Fact, FactRules, name_key, normalize_predicate


@dataclass(frozen=True)
class QueryResult:
    entity: str  # as asked
    matched: list[str]  # entity names the question resolved to
    how: str  # "name", "alias", "synonym", "substring" or "none"
    facts: list[tuple[Fact, int]] = field(default_factory=list)  # (fact, hops from the entity)
    truncated: bool = False  # the limit stopped the walk

    def as_json(self) -> dict[str, Any]:
        return {"entity": self.entity, "matched": self.matched, "match": self.how, "truncated": self.truncated,
                "facts": [{**f.as_json(), "hops": h} for f, h in self.facts]}


class FactSource(Protocol):
    """Where facts and aliases come from (the index: :class:`biocortex_cli.facts.index.IndexedFacts`)."""

    def resolve(self, name: str) -> str: ...
    def spellings(self, name: str) -> set[str]: ...
    def known_name(self, key: str) -> str | None: ...
    def substring(self, text: str, limit: int = 50) -> list[str]: ...
    def synonyms_of(self, name: str) -> list[str]: ...
    def touching(self, keys: Iterable[str], limit: int | None = None) -> list[Fact]: ...


def resolve_entity(name: str, source: FactSource) -> tuple[list[str], str]:
    """Exact name, then any alias, then a synonym in the vocabulary (the vault's, then the shipped
    one: hERG → KCNH2), then substring of a known name (entity notes and fact ends)."""
    wanted = name_key(name.strip())
    resolved = source.resolve(name.strip())
    if name_key(resolved) != wanted and source.known_name(name_key(resolved)) is not None:
        return [resolved], "alias"
    hit = source.known_name(wanted)
    if hit is not None:
        return [hit if name_key(hit) == wanted else resolved], "name" if name_key(hit) == wanted else "alias"
    if wanted:
        found = [h for h in (source.known_name(name_key(source.resolve(other)))
                             for other in source.synonyms_of(name.strip())) if h is not None]
        if found:
            return list(dict.fromkeys(found)), "synonym"
    subs = source.substring(name.strip()) if wanted else []
    return (subs, "substring") if subs else ([], "none")


def query_facts(source: FactSource, entity: str, *, predicate: str | None = None, hops: int = 1,
                min_confidence: float = 0.0, include_all: bool = False, limit: int | None = None) -> QueryResult:
    """Facts about ``entity`` (and, with ``hops`` > 1, about its neighbours), nearest first, then
    most confident first; at most ``limit`` (the walk stops there, so a hub stays cheap)."""
    matched, how = resolve_entity(entity, source)
    pred = normalize_predicate(predicate) if predicate else None
    start: set[str] = set()
    for name in matched:
        start |= source.spellings(name) | {name_key(name)}
    seen_names = set(start)
    found: dict[str, tuple[Fact, int]] = {}
    frontier, depth = set(start), 1
    while frontier and depth <= hops and (limit is None or len(found) < limit):
        nxt: set[str] = set()
        room = None if limit is None else 4 * (limit - len(found)) + 16  # filters below drop some
        for fact in source.touching(frontier, room):
            if fact.id in found or not (include_all or fact.status == "current") or fact.confidence < min_confidence:
                continue
            if pred is not None and fact.predicate != pred and depth == hops:
                continue
            if limit is not None and len(found) >= limit:
                break
            found[fact.id] = (fact, depth)
            for end in (name_key(fact.subject), name_key(fact.object)):
                if end not in seen_names:
                    seen_names.add(end)
                    nxt.add(end)
        frontier, depth = nxt, depth + 1
    rows = [(f, h) for f, h in found.values() if pred is None or f.predicate == pred]
    rows.sort(key=lambda t: (t[1], -t[0].confidence, t[0].subject.casefold(), t[0].predicate, t[0].object.casefold()))
    return QueryResult(entity=entity, matched=matched, how=how, facts=rows,
                       truncated=limit is not None and len(found) >= limit)


@dataclass(frozen=True)
class Verdict:
    verdict: str  # supported, contradicted, unknown
    subject: str
    predicate: str
    object: str
    supporting: list[list[Fact]]  # each a chain of facts (one fact when direct)
    contradicting: list[Fact]

    EXIT_CODES: ClassVar[dict[str, int]] = {"supported": 0, "unknown": 4, "contradicted": 5}

    @property
    def exit_code(self) -> int:
        return self.EXIT_CODES[self.verdict]

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "claim": {"subject": self.subject, "predicate": self.predicate,
                                                   "object": self.object},
                "supporting": [[f.as_json() for f in chain] for chain in self.supporting],
                "contradicting": [f.as_json() for f in self.contradicting]}


def verify_claim(source: FactSource, rules: FactRules, subject: str, predicate: str, obj: str, *,
                 hops: int = 1, min_confidence: float = 0.0) -> Verdict:
    """Supported when a current fact states the claim (through aliases, or a chain of at most
    ``hops`` facts of a transitive predicate); contradicted when a current fact states an opposite
    predicate, or another object of a single-valued one; contradiction wins over support."""
    pred = normalize_predicate(predicate)
    s_keys, o_keys = source.spellings(subject), source.spellings(obj)
    current = [f for f in source.touching(s_keys) if f.status == "current" and f.confidence >= min_confidence]
    direct = [f for f in current
              if f.predicate == pred and name_key(f.subject) in s_keys and name_key(f.object) in o_keys]
    chains: list[list[Fact]] = [[f] for f in direct]
    if not direct and pred in rules.transitive and hops > 1:
        chains = _chains(source, pred, s_keys, o_keys, hops, min_confidence)
    opposite = rules.opposites.get(pred)
    contradicting = [f for f in current if name_key(f.subject) in s_keys and (
        (opposite is not None and f.predicate == opposite and name_key(f.object) in o_keys)
        or (pred in rules.single_valued and f.predicate == pred and name_key(f.object) not in o_keys))]
    verdict = "contradicted" if contradicting else "supported" if chains else "unknown"
    return Verdict(verdict=verdict, subject=source.resolve(subject), predicate=pred,
                   object=source.resolve(obj), supporting=chains, contradicting=contradicting)


def _chains(source: FactSource, pred: str, s_keys: set[str], o_keys: set[str], hops: int,
            min_confidence: float) -> list[list[Fact]]:
    queue: deque[tuple[str, list[Fact]]] = deque((s, []) for s in sorted(s_keys))
    seen = set(s_keys)
    out: list[list[Fact]] = []
    while queue:
        node, path = queue.popleft()
        if len(path) >= hops:
            continue
        keys = source.spellings(node) | {node}
        for f in source.touching(keys):
            if (f.predicate != pred or f.status != "current" or f.confidence < min_confidence
                    or name_key(f.subject) not in keys):
                continue
            nxt = name_key(f.object)
            if nxt in o_keys:
                out.append([*path, f])
            elif nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, [*path, f]))
    return out[:10]
