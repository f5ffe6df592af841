"""Questions to semantic memory: the facts around an entity, and whether a claim holds.

Both work on a list of :class:`~biocortex_cli.store.facts.Fact` and the vault's aliases, so they
answer the same whether the facts come from the notes or from the sidecar index.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from biocortex_cli.store.facts import Aliases, Fact, FactRules, normalize_predicate


@dataclass(frozen=True)
class QueryResult:
    entity: str  # as asked
    matched: list[str]  # entity names the question resolved to
    how: str  # "name", "alias", "substring" or "none"
    facts: list[tuple[Fact, int]] = field(default_factory=list)  # (fact, hops from the entity)

    def as_json(self) -> dict[str, Any]:
        return {"entity": self.entity, "matched": self.matched, "match": self.how,
                "facts": [{**f.as_json(), "hops": h} for f, h in self.facts]}


def _key(name: str) -> str:
    return name.casefold()


def resolve_entity(name: str, facts: Sequence[Fact], aliases: Aliases) -> tuple[list[str], str]:
    """Exact name, then any alias, then substring of a known name (entity notes and fact ends)."""
    wanted = _key(name.strip())
    known: dict[str, str] = {}
    for fact in facts:
        known.setdefault(_key(fact.subject), fact.subject)
        known.setdefault(_key(fact.object), fact.object)
    for entity in aliases.names:
        known.setdefault(_key(entity), entity)
    if wanted in known:
        return [known[wanted]], "name"
    alias_hit = aliases.canonical.get(wanted)
    if alias_hit is not None:
        return [alias_hit], "alias"
    resolved = aliases.resolve(name.strip())
    if _key(resolved) in known:
        return [known[_key(resolved)]], "name"
    subs = sorted({v for k, v in known.items() if wanted and wanted in k}, key=lambda s: (len(s), s))
    if not subs:  # an alias containing the text
        subs = sorted({aliases.canonical[a] for a in aliases.canonical if wanted and wanted in a})
    return (subs[:50], "substring") if subs else ([], "none")


def query_facts(facts: Sequence[Fact], aliases: Aliases, entity: str, *, predicate: str | None = None,
                hops: int = 1, min_confidence: float = 0.0, include_all: bool = False) -> QueryResult:
    """Facts about ``entity`` (and, with ``hops`` > 1, about its neighbours), nearest first."""
    matched, how = resolve_entity(entity, facts, aliases)
    pred = normalize_predicate(predicate) if predicate else None
    usable = [f for f in facts if (include_all or f.status == "current") and f.confidence >= min_confidence]
    by_name: dict[str, list[Fact]] = {}
    for fact in usable:
        by_name.setdefault(_key(fact.subject), []).append(fact)
        if _key(fact.object) != _key(fact.subject):
            by_name.setdefault(_key(fact.object), []).append(fact)
    start = set()
    for name in matched:
        start |= aliases.spellings(name) | {_key(name)}
    seen_names = set(start)
    found: dict[str, tuple[Fact, int]] = {}
    frontier = deque((n, 1) for n in sorted(start))
    while frontier:
        name, depth = frontier.popleft()
        for fact in by_name.get(name, []):
            if fact.id in found:
                continue
            found[fact.id] = (fact, depth)
            if depth < hops:
                for end in (_key(fact.subject), _key(fact.object)):
                    if end not in seen_names:
                        seen_names.add(end)
                        frontier.append((end, depth + 1))
    rows = [(f, h) for f, h in found.values() if pred is None or f.predicate == pred]
    rows.sort(key=lambda t: (t[1], -t[0].confidence, t[0].subject.casefold(), t[0].predicate, t[0].object.casefold()))
    return QueryResult(entity=entity, matched=matched, how=how, facts=rows)


@dataclass(frozen=True)
class Verdict:
    verdict: str  # supported, contradicted, unknown
    subject: str
    predicate: str
    object: str
    supporting: list[list[Fact]]  # each a chain of facts (one fact when direct)
    contradicting: list[Fact]

    EXIT_CODES: ClassVar[dict[str, int]] = {"supported": 0, "contradicted": 1, "unknown": 4}

    @property
    def exit_code(self) -> int:
        return self.EXIT_CODES[self.verdict]

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "claim": {"subject": self.subject, "predicate": self.predicate,
                                                   "object": self.object},
                "supporting": [[f.as_json() for f in chain] for chain in self.supporting],
                "contradicting": [f.as_json() for f in self.contradicting]}


def verify_claim(facts: Sequence[Fact], aliases: Aliases, rules: FactRules, subject: str, predicate: str,
                 obj: str, *, hops: int = 1, min_confidence: float = 0.0) -> Verdict:
    """Supported when a current fact states the claim (through aliases, or a chain of at most
    ``hops`` facts of a transitive predicate); contradicted when a current fact states an opposite
    predicate, or another object of a single-valued one; contradiction wins over support."""
    pred = normalize_predicate(predicate)
    s_keys, o_keys = aliases.spellings(subject), aliases.spellings(obj)
    current = [f for f in facts if f.status == "current" and f.confidence >= min_confidence]
    direct = [f for f in current if f.predicate == pred and _key(f.subject) in s_keys and _key(f.object) in o_keys]
    chains: list[list[Fact]] = [[f] for f in direct]
    if not direct and pred in rules.transitive and hops > 1:
        chains = _chains(current, pred, s_keys, o_keys, hops, aliases)
    opposite = rules.opposites.get(pred)
    contradicting = [f for f in current if _key(f.subject) in s_keys and (
        (opposite is not None and f.predicate == opposite and _key(f.object) in o_keys)
        or (pred in rules.single_valued and f.predicate == pred and _key(f.object) not in o_keys))]
    verdict = "contradicted" if contradicting else "supported" if chains else "unknown"
    return Verdict(verdict=verdict, subject=aliases.resolve(subject), predicate=pred,
                   object=aliases.resolve(obj), supporting=chains, contradicting=contradicting)


def _chains(facts: Sequence[Fact], pred: str, s_keys: set[str], o_keys: set[str], hops: int,
            aliases: Aliases) -> list[list[Fact]]:
    edges: dict[str, list[Fact]] = {}
    for f in facts:
        if f.predicate == pred:
            for spelling in aliases.spellings(f.subject):
                edges.setdefault(spelling, []).append(f)
    queue: deque[tuple[str, list[Fact]]] = deque((s, []) for s in sorted(s_keys))
    seen = set(s_keys)
    out: list[list[Fact]] = []
    while queue:
        node, path = queue.popleft()
        if len(path) >= hops:
            continue
        for f in edges.get(node, []):
            nxt = _key(f.object)
            if nxt in o_keys:
                out.append([*path, f])
            elif nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, [*path, f]))
    return out[:10]
