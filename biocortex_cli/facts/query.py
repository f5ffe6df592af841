"""Questions to semantic memory: the facts around an entity, and whether a claim holds.

Both work on a :class:`FactSource`: the vault's facts and aliases (the sidecar index,
:class:`biocortex_cli.facts.index.IndexedFacts`), optionally with other sources of assertions
beside them (:class:`EdgeSource`: a registered dataset's edges), combined by :class:`Layered`.
Every assertion is a :class:`~biocortex_cli.facts.model.Fact`; what it rests on is its
:meth:`~biocortex_cli.facts.model.Fact.evidence`, one item per independent source, so a dataset
row is one more evidence item and ``verify`` weighs it like any note's.

Names are matched exactly first (the name, any alias, case-insensitively): ``MYC`` never answers
with MYCN's facts. Substrings of names only on request (``fuzzy``).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from biocortex_cli.facts.evidence import Evidence, Side, weigh
from biocortex_cli.facts.model import Fact, FactRules, name_key, normalize_predicate
from biocortex_cli.records import NamedTuple  # typing's, without importing typing

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from typing import Any, Protocol

    class EdgeSource(Protocol):
        """Assertions that are not fact notes (a registered dataset's edges), as :class:`Fact`
        values whose ``record`` carries ``origin`` (``dataset:<name>@<version>``) and ``evidence``
        (one item: the dataset, its confidence, and the row's citations as ``refs``)."""

        def known_name(self, key: str) -> str | None: ...
        def touching(self, keys: Iterable[str], limit: int | None = None) -> list[Fact]: ...

    class FactSource(EdgeSource, Protocol):
        """Where facts and aliases come from (the index: :class:`biocortex_cli.facts.index.IndexedFacts`)."""

        def resolve(self, name: str) -> str: ...
        def spellings(self, name: str) -> set[str]: ...
        def substring(self, text: str, limit: int = 50) -> list[str]: ...
        def synonyms_of(self, name: str) -> list[str]: ...


class Layered:
    """The vault's facts with other sources' edges beside them: names and aliases come from the
    vault; ``touching`` asks every source and merges, most confident first."""

    __slots__ = ("extra", "notes")

    def __init__(self, notes: FactSource, extra: Sequence[EdgeSource]) -> None:
        self.notes, self.extra = notes, extra

    def resolve(self, name: str) -> str:
        return self.notes.resolve(name)

    def spellings(self, name: str) -> set[str]:
        keys = set(self.notes.spellings(name))
        for source in self.extra:  # a dataset's names of one node (a KGX node's id and name)
            more = getattr(source, "synonyms", None)
            keys |= more(keys) if more is not None else set()
        return keys

    def synonyms_of(self, name: str) -> list[str]:
        return self.notes.synonyms_of(name)

    def substring(self, text: str, limit: int = 50) -> list[str]:
        names = list(self.notes.substring(text, limit))
        for source in self.extra:  # a dataset's names (facts/datasets_index.py), when it offers them
            more = getattr(source, "substring", None)
            names += more(text, limit) if more is not None else []
        return sorted(set(names), key=lambda n: (len(n), n))[:limit]

    def known_name(self, key: str) -> str | None:
        for source in (self.notes, *self.extra):
            found = source.known_name(key)
            if found is not None:
                return found
        return None

    def touching(self, keys: Iterable[str], limit: int | None = None) -> list[Fact]:
        wanted = set(keys)
        found = [f for source in (self.notes, *self.extra) for f in source.touching(wanted, limit)]
        found.sort(key=lambda f: (-f.confidence, f.origin != "note", f.id))
        return found[:limit] if limit is not None else found

    def about(self, s_keys: set[str], o_keys: set[str], predicates: set[str]) -> list[Fact]:
        """What can speak to a claim from ``s_keys`` to ``o_keys`` (``verify``): the notes' facts
        about the subject, and each other source's edges to the object, or with ``predicates``
        (single-valued ones) — a dataset's hub of 30k edges is not read whole."""
        found = list(self.notes.touching(s_keys))
        for source in self.extra:
            about = getattr(source, "about", None)
            found += about(s_keys, o_keys, predicates) if about is not None else source.touching(s_keys)
        return found


class QueryResult(NamedTuple):
    entity: str  # as asked
    matched: list[str]  # entity names the question resolved to
    how: str  # "name", "alias", "synonym", "substring" or "none"
    facts: list[tuple[Fact, int]] = []  # noqa: RUF012 - shared default, never changed in place; (fact, hops from the entity)
    truncated: bool = False  # the limit stopped the walk
    suggestions: list[str] = []  # noqa: RUF012 - shared default, never changed in place; names containing the text (exact miss)
    ambiguous: list[str] = []  # noqa: RUF012 - shared default, never changed in place; the entities HGNC lists the name for (miss)

    def as_json(self) -> dict[str, Any]:
        return {"entity": self.entity, "matched": self.matched, "match": self.how, "truncated": self.truncated,
                "suggestions": self.suggestions, "ambiguous": self.ambiguous,
                "facts": [{**f.as_json(), "hops": h} for f, h in self.facts]}


def resolve_entity(name: str, source: FactSource, *, fuzzy: bool = False) -> tuple[list[str], str]:
    """The exact name or any alias (case-insensitive), then a synonym in the vocabulary (the
    vault's, then the shipped one: hERG → KCNH2); substrings of known names only when ``fuzzy``
    (then ``how`` is ``substring``)."""
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
    if fuzzy and wanted:
        subs = source.substring(name.strip())
        if subs:
            return subs, "substring"
    return [], "none"


def qualifies(fact: Fact, wanted: Mapping[str, str]) -> bool:
    """A fact speaks to a question qualified by ``wanted`` (taxon, cell type, context) when it
    has the same value for each, or none (an unqualified fact holds in general)."""
    quals = fact.qualifiers
    return all(name_key(quals.get(k, v)) == name_key(v) for k, v in wanted.items())


def query_facts(source: FactSource, entity: str, *, predicate: str | None = None, hops: int = 1,
                min_confidence: float = 0.0, include_all: bool = False, limit: int | None = None,
                fuzzy: bool = False, rules: FactRules | None = None,
                qualifiers: Mapping[str, str] | None = None) -> QueryResult:
    """Facts about ``entity`` (and, with ``hops`` > 1, about its neighbours), nearest first, then
    most confident first; at most ``limit`` (the walk stops there, so a hub stays cheap). A
    ``predicate`` also matches its narrower predicates (``rules.broader``)."""
    matched, how = resolve_entity(entity, source, fuzzy=fuzzy)
    suggestions = [] if matched or fuzzy else source.substring(entity.strip(), 10)
    ambiguous = [] if matched else _ambiguous(entity.strip(), source)
    preds: set[str] | None = None
    if predicate:
        pred = normalize_predicate(predicate)
        preds = (rules or FactRules()).narrower(pred)
    wanted = dict(qualifiers or {})
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
            if not qualifies(fact, wanted):
                continue
            if preds is not None and fact.predicate not in preds and depth == hops:
                continue
            if limit is not None and len(found) >= limit:
                break
            found[fact.id] = (fact, depth)
            for end in (name_key(fact.subject), name_key(fact.object)):
                if end not in seen_names:
                    seen_names.add(end)
                    nxt.add(end)
        frontier, depth = nxt, depth + 1
    rows = [(f, h) for f, h in found.values() if preds is None or f.predicate in preds]
    rows.sort(key=lambda t: (t[1], -t[0].confidence, t[0].subject.casefold(), t[0].predicate, t[0].object.casefold()))
    return QueryResult(entity=entity, matched=matched, how=how, facts=rows,
                       truncated=limit is not None and len(found) >= limit, suggestions=suggestions,
                       ambiguous=ambiguous)


def _ambiguous(name: str, source: FactSource) -> list[str]:
    """The entities this memory knows among the genes HGNC lists ``name`` for, when it is an
    ambiguous alias (``NRF2``: GABPA, NFE2L2): the vocabulary does not choose, so the question
    found nothing; these say where to look (and ``entity alias`` binds the name to one)."""
    from biocortex_cli.facts.aliases import hgnc_candidates

    found = (source.known_name(name_key(source.resolve(c))) for c in hgnc_candidates(name))
    return list(dict.fromkeys(f for f in found if f is not None))


#: one exit code per verdict of `fact verify`; 1-3 stay docs/json.md's (failed, usage, internal error)
EXIT_CODES = {"supported": 0, "unknown": 4, "contested": 5, "contradicted": 6}


class Verdict(NamedTuple):
    """What memory says about a claim, with the evidence on each side, counted per independent
    source (facts/evidence.py ``weigh``)."""

    verdict: str  # supported, contested, contradicted, unknown
    subject: str
    predicate: str
    object: str
    supporting: list[list[Fact]]  # each a chain of facts (one fact when direct)
    contradicting: list[Fact]
    pro: Side
    con: Side
    qualifiers: Mapping[str, str] = {}  # shared default, never changed in place
    outweigh: float = 3.0

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict,
                "claim": {"subject": self.subject, "predicate": self.predicate, "object": self.object,
                          **({"qualifiers": dict(self.qualifiers)} if self.qualifiers else {})},
                "for": self.pro.as_json(), "against": self.con.as_json(), "outweigh": self.outweigh,
                "supporting": [[f.as_json() for f in chain] for chain in self.supporting],
                "contradicting": [f.as_json() for f in self.contradicting]}


def verify_claim(source: FactSource, rules: FactRules, subject: str, predicate: str, obj: str, *,
                 hops: int = 1, min_confidence: float = 0.0,
                 qualifiers: Mapping[str, str] | None = None) -> Verdict:
    """Weigh what memory holds for and against a claim.

    For: current facts stating it (names through aliases; a narrower predicate counts, so
    ``activates`` supports ``regulates``), or — with ``hops`` > 1 and a transitive predicate — a
    chain of such facts. Against: facts stating an opposite predicate (or one narrower than it),
    or another object of a single-valued predicate. Facts qualified otherwise (another taxon)
    do not count. Each side's evidence is counted per independent source, and
    :func:`~biocortex_cli.facts.evidence.weigh` decides with ``rules.outweigh``."""
    pred = normalize_predicate(predicate)
    wanted = dict(qualifiers or {})
    subject, obj = _named(source, subject), _named(source, obj)
    s_keys, o_keys = source.spellings(subject), source.spellings(obj)
    about = getattr(source, "about", None)  # a dataset's hub: ask only for what speaks to the claim
    found = (about(s_keys, o_keys, {pred} if pred in rules.single_valued else set()) if about is not None
             else source.touching(s_keys))
    current = [f for f in found if f.status == "current" and f.confidence >= min_confidence
               and qualifies(f, wanted) and name_key(f.subject) in s_keys]
    direct = [f for f in current if name_key(f.object) in o_keys and rules.supports(f.predicate, pred)]
    chains: list[list[Fact]] = [[f] for f in direct]
    if not direct and pred in rules.transitive and hops > 1:
        chains = _chains(source, pred, s_keys, o_keys, hops, min_confidence, wanted)
    contradicting = [f for f in current if (
        (name_key(f.object) in o_keys and rules.opposes(f.predicate, pred))
        or (pred in rules.single_valued and f.predicate == pred and name_key(f.object) not in o_keys))]
    support: list[Evidence] = []
    for chain in chains:
        if len(chain) == 1:
            support += chain[0].evidence()
        else:  # a chain is one piece of evidence, as strong as its weakest link allows
            conf = 1.0
            for f in chain:
                conf *= f.confidence
            ident = "+".join(f.id for f in chain)
            support.append(Evidence(source=f"chain:{ident}", kind="chain", key=f"chain:{ident}",
                                    confidence=round(conf, 4), origin=ident))
    against = [e for f in contradicting for e in f.evidence()]
    verdict, pro, con = weigh(support, against, ratio=rules.outweigh)
    return Verdict(verdict=verdict, subject=source.resolve(subject), predicate=pred,
                   object=source.resolve(obj), supporting=chains, contradicting=contradicting,
                   pro=pro, con=con, qualifiers=wanted, outweigh=rules.outweigh)


def _named(source: FactSource, name: str) -> str:
    """``name``, or the one entity its synonym in the vocabulary names when memory knows no entity
    by it (``hERG`` → ``KCNH2``), as ``fact query`` resolves it: a claim is weighed about the
    entity its query would answer about."""
    matched, how = resolve_entity(name, source)
    return matched[0] if how == "synonym" and len(matched) == 1 else name


def _chains(source: FactSource, pred: str, s_keys: set[str], o_keys: set[str], hops: int,
            min_confidence: float, wanted: Mapping[str, str]) -> list[list[Fact]]:
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
                    or name_key(f.subject) not in keys or not qualifies(f, wanted)):
                continue
            nxt = name_key(f.object)
            if nxt in o_keys:
                out.append([*path, f])
            elif nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, [*path, f]))
    return out[:10]


class Contest(NamedTuple):
    """Two current assertions that contradict each other (an opposite predicate, or another object
    of a single-valued one), the one with more evidence first: information for `check --facts`,
    not a problem of the vault. ``verdict`` is what `fact verify` says of the stronger one:
    ``supported`` when its evidence clearly outweighs the other's, else ``contested``."""

    stronger: Fact
    weaker: Fact
    verdict: str
    pro: Side
    con: Side

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "claim": self.stronger.sentence(), "opposed_by": self.weaker.sentence(),
                "ids": [self.stronger.id, self.weaker.id], "for": self.pro.as_json(), "against": self.con.as_json()}


def contests(facts: Iterable[Fact], rules: FactRules) -> list[Contest]:
    """Every open contradiction among ``facts``, once per pair, strongest evidence first."""
    by_subject: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.status == "current":
            by_subject.setdefault(name_key(fact.subject), []).append(fact)
    out: list[Contest] = []
    for group in by_subject.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if not rules.conflicts(a, b):
                    continue
                verdict, pro, con = weigh(a.evidence(), b.evidence(), ratio=rules.outweigh)
                if con.mass > pro.mass or (con.mass == pro.mass and b.id < a.id):
                    a, b = b, a
                    verdict, pro, con = weigh(a.evidence(), b.evidence(), ratio=rules.outweigh)
                out.append(Contest(a, b, "supported" if verdict == "supported" else "contested", pro, con))
    out.sort(key=lambda c: (c.verdict != "contested", -c.pro.mass, c.stronger.id, c.weaker.id))
    return out
