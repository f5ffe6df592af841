"""Semantic memory through the library API: facts and entities.

Each function takes the vault and keyword arguments, checks them (:mod:`.checks`), calls
``facts/`` and returns a frozen dataclass whose ``as_json()`` is what ``biocortex fact …`` and
``biocortex entity …`` print with ``--json`` and what the MCP tools return. Notes that cannot be
read are skipped with a warning on stderr, like the index's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from biocortex_cli.api.checks import UNIT, Bounds, Choice, checked

if TYPE_CHECKING:
    from biocortex_cli.facts.index import IndexedFacts
    from biocortex_cli.facts.model import Fact
    from biocortex_cli.facts.query import QueryResult, Verdict
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

T = TypeVar("T")
HOPS = Bounds(1, 5)
STATUS = Choice(("current", "retracted", "superseded", "all"))


@dataclass(frozen=True)
class FactAdded:
    fact: Fact
    merged: bool  # the triple was already a fact: its sources were merged
    contradicts: tuple[Fact, ...]
    notes: tuple[str, ...]  # names resolved through aliases, a status left unchanged

    def as_json(self) -> dict[str, Any]:
        return {**self.fact.as_json(), "created": self.fact.record.get("created"), "merged": self.merged,
                "contradicts": [c.id for c in self.contradicts], "notes": list(self.notes)}


@dataclass(frozen=True)
class FactList:
    facts: tuple[Fact, ...]

    def as_json(self) -> list[dict[str, Any]]:
        return [f.as_json() for f in self.facts]


@dataclass(frozen=True)
class EntityPage:
    """An entity's aliases, its facts out and in, and the episodes that mention it."""

    page: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return self.page


@dataclass(frozen=True)
class EntityAliases:
    name: str
    aliases: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "aliases": list(self.aliases)}


def _using(vault: Vault, use: Callable[[IndexedFacts], T]) -> T:
    """``use`` on the index's facts, refreshed (and rebuilt when damaged); the notes that could
    not be read are skipped with a warning (five at most)."""
    from biocortex_cli.facts.index import with_facts

    result, problems = with_facts(vault, use)
    for problem in problems[:5]:
        sys.stderr.write(f"biocortex: warning: {problem.location()}{problem.message} "
                         "(skipped; run `biocortex check`)\n")
    if len(problems) > 5:
        sys.stderr.write(f"biocortex: warning: {len(problems) - 5} more broken fact or entity notes skipped\n")
    return result


@checked(confidence=UNIT)
def fact_add(vault: Vault, *, subject: str, predicate: str, object: str, source: Sequence[str] = (),
             confidence: float | None = None, author: Author) -> FactAdded:
    """Record a fact; the same triple again merges its sources (config ``facts.default_confidence``
    when no confidence is given)."""
    from biocortex_cli.facts.notes import add_fact

    added = add_fact(vault, subject, predicate, object, sources=list(source), confidence=confidence, author=author)
    return FactAdded(fact=added.fact, merged=not added.created, contradicts=tuple(added.conflicts),
                     notes=tuple(added.notes))


@checked(hops=HOPS, min_confidence=UNIT, limit=Bounds(0))
def fact_query(vault: Vault, *, entity: str, predicate: str | None = None, hops: int = 1,
               min_confidence: float = 0.0, all: bool = False, limit: int = 100) -> QueryResult:
    """Facts about an entity (exact name, alias or part of a name), nearest and most confident
    first; ``all`` includes retracted and superseded ones; ``limit`` 0 means no limit."""
    from biocortex_cli.facts.query import query_facts

    return _using(vault, lambda source: query_facts(source, entity, predicate=predicate, hops=hops,
                                                    min_confidence=min_confidence, include_all=all,
                                                    limit=limit or None))


@checked(status=STATUS, min_confidence=UNIT, limit=Bounds(1))
def fact_list(vault: Vault, *, subject: str | None = None, predicate: str | None = None, object: str | None = None,
              status: str = "current", source: str | None = None, min_confidence: float = 0.0,
              limit: int | None = None) -> FactList:
    """Facts filtered by subject, object (aliases resolved), predicate, status, a source's text and
    confidence, sorted by subject, predicate and object."""
    from biocortex_cli.facts.model import normalize_predicate

    facts, s_keys, o_keys = _using(vault, lambda memory: (
        memory.all_facts(), memory.spellings(subject) if subject else None,
        memory.spellings(object) if object else None))
    pred = normalize_predicate(predicate) if predicate else None
    rows = [f for f in facts
            if (status == "all" or f.status == status)
            and (s_keys is None or f.subject.casefold() in s_keys)
            and (o_keys is None or f.object.casefold() in o_keys)
            and (pred is None or f.predicate == pred)
            and (source is None or any(source.casefold() in s.casefold() for s in f.sources))
            and f.confidence >= min_confidence]
    rows.sort(key=lambda f: (f.subject.casefold(), f.predicate, f.object.casefold()))
    return FactList(tuple(rows[:limit] if limit else rows))


def fact_retract(vault: Vault, *, id: str, reason: str, author: Author) -> Fact:
    """Mark a fact retracted, with the reason; the note stays."""
    from biocortex_cli.facts.notes import retract_fact

    return retract_fact(vault, id, reason, author)


def fact_supersede(vault: Vault, *, id: str, by: str, author: Author) -> Fact:
    """Mark a fact superseded by another (both notes link to each other)."""
    from biocortex_cli.facts.notes import supersede_fact

    return supersede_fact(vault, id, by, author)


@checked(hops=HOPS, min_confidence=UNIT)
def fact_verify(vault: Vault, *, subject: str, predicate: str, object: str, hops: int = 1,
                min_confidence: float = 0.0) -> Verdict:
    """Whether memory supports, contradicts or does not know a claim (``Verdict.exit_code``)."""
    from biocortex_cli.facts.model import FactRules, clean_text
    from biocortex_cli.facts.query import verify_claim

    s, o = clean_text(subject, "subject"), clean_text(object, "object")
    rules = FactRules.from_config(vault)
    return _using(vault, lambda source: verify_claim(source, rules, s, predicate, o, hops=hops,
                                                     min_confidence=min_confidence))


def entity_show(vault: Vault, *, name: str) -> EntityPage:
    """An entity by name or alias: its aliases, facts in and out, and the episodes naming it."""
    from biocortex_cli.facts.entities import entity_page

    return EntityPage(entity_page(vault, name))


def entity_alias(vault: Vault, *, name: str, alias: str, author: Author) -> EntityAliases:
    """Add an alias to an entity's note (created if missing)."""
    from biocortex_cli.facts.notes import add_alias

    canonical, aliases = add_alias(vault, name, alias, author)
    return EntityAliases(canonical, tuple(aliases))
