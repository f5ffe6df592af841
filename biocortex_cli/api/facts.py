"""Semantic memory through the library API: facts and entities.

Each function takes the vault and keyword arguments, checks them (:mod:`.checks`), calls
``facts/`` and returns an immutable record (a ``NamedTuple`` made by ``records.py``: ``fact verify``
and ``fact query`` are hot commands, and ``dataclasses`` costs them ~60 M instructions of imports,
``typing`` ~16 M) whose ``as_json()`` is
what ``biocortex fact …`` and ``biocortex entity …`` print with ``--json`` and what the MCP tools
return. Notes that cannot be read are skipped with a warning on stderr, like the index's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from biocortex_cli.api.checks import UNIT, Bounds, Choice, checked, repairs_index
from biocortex_cli.records import NamedTuple  # typing's, without importing typing

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from biocortex_cli.facts.aliases import AliasImport, AliasResult, MergeResult
    from biocortex_cli.facts.imports import ImportReport, Progress
    from biocortex_cli.facts.model import Fact
    from biocortex_cli.facts.query import Contest, QueryResult, Verdict
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault
HOPS = Bounds(1, 5)
STATUS = Choice(("current", "retracted", "superseded", "all"))


class FactAdded(NamedTuple):
    fact: Fact
    merged: bool  # the statement was already a fact: its sources were merged
    contradicts: tuple[Fact, ...]
    notes: tuple[str, ...]  # names resolved through aliases, ambiguous symbols, a reopening
    reopened: bool = False  # it was retracted or superseded, and `reopen` made it current again
    #: the note held this evidence already (the same sources, confidences and refs): it was left as
    #: it was, and nothing was committed unless an entity note was missing; the line of its evidence
    unchanged_at: int | None = None
    written: tuple[str, ...] = ()  # the files written (and committed)

    @property
    def unchanged(self) -> bool:
        return self.unchanged_at is not None

    def as_json(self) -> dict[str, Any]:
        return {**self.fact.as_json(), "created": self.fact.record.get("created"), "merged": self.merged,
                "reopened": self.reopened, "unchanged": self.unchanged,
                "contradicts": [c.id for c in self.contradicts], "notes": list(self.notes)}


class FactList(NamedTuple):
    facts: tuple[Fact, ...]

    def as_json(self) -> list[dict[str, Any]]:
        return [f.as_json() for f in self.facts]


class EntityPage(NamedTuple):
    """An entity's aliases, its facts out and in, and the episodes that mention it."""

    page: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return self.page


class Contests(NamedTuple):
    """Open contradictions between facts, weighed (`check --facts`): information, not problems."""

    contested: tuple[Contest, ...]

    def as_json(self) -> dict[str, Any]:
        return {"contested": [c.as_json() for c in self.contested]}


def _warn(problems: Sequence[Any]) -> None:
    """The notes that could not be read: skipped, with a warning (five at most)."""
    for problem in problems[:5]:
        sys.stderr.write(f"biocortex: warning: {problem.location()}{problem.message} "
                         "(skipped; run `biocortex check`)\n")
    if len(problems) > 5:
        sys.stderr.write(f"biocortex: warning: {len(problems) - 5} more broken fact or entity notes skipped\n")


@checked(confidence=UNIT)
@repairs_index(writes=True)
def fact_add(vault: Vault, *, subject: str, predicate: str, object: str, source: Sequence[str] = (),
             confidence: float | None = None, author: Author, taxon: str | None = None,
             cell_type: str | None = None, context: str | None = None, subject_kind: str | None = None,
             object_kind: str | None = None, reopen: bool = False) -> FactAdded:
    """Record a fact; the same statement again merges its sources (config
    ``facts.default_confidence`` when no confidence is given). Sources are checked
    (docs/facts.md); ``taxon``, ``cell_type`` and ``context`` qualify the statement (another value,
    another fact); a retracted statement is refused unless ``reopen``."""
    from biocortex_cli.facts.notes import add_fact

    added = add_fact(vault, subject, predicate, object, sources=list(source), confidence=confidence, author=author,
                     qualifiers={"taxon": taxon, "cell_type": cell_type, "context": context},
                     kinds={"subject": subject_kind, "object": object_kind}, reopen=reopen)
    return FactAdded(fact=added.fact, merged=not added.created and not added.reopened,
                     contradicts=tuple(added.conflicts), notes=tuple(added.notes), reopened=added.reopened,
                     unchanged_at=added.unchanged, written=added.written)


@checked(hops=HOPS, min_confidence=UNIT, limit=Bounds(0))
@repairs_index()
def fact_query(vault: Vault, *, entity: str, predicate: str | None = None, hops: int = 1,
               min_confidence: float = 0.0, all: bool = False, limit: int = 100, fuzzy: bool = False,
               taxon: str | None = None) -> QueryResult:
    """Facts about an entity (its exact name, an alias or an identifier; names containing it only
    with ``fuzzy``), nearest and most confident first; ``all`` includes retracted and superseded
    ones; ``limit`` 0 means no limit; a ``predicate`` also matches narrower ones."""
    from biocortex_cli.facts.memory import query

    if not entity.strip():  # every name contains "": it listed names as if something matched
        from biocortex_cli.errors import UsageError

        raise UsageError("the entity name is empty", hint="name one, e.g. biocortex fact query TP53")
    result, problems = query(vault, entity, predicate=predicate, hops=hops, min_confidence=min_confidence,
                             include_all=all, limit=limit or None, fuzzy=fuzzy, qualifiers={"taxon": taxon})
    _warn(problems)
    return result


@checked(status=STATUS, min_confidence=UNIT, limit=Bounds(1))
@repairs_index()
def fact_list(vault: Vault, *, subject: str | None = None, predicate: str | None = None, object: str | None = None,
              status: str = "current", source: str | None = None, min_confidence: float = 0.0,
              limit: int | None = None) -> FactList:
    """Facts filtered by subject, object (aliases resolved), predicate (and narrower ones), status,
    a source's text and confidence, sorted by subject, predicate and object."""
    from biocortex_cli.facts.memory import list_facts

    rows, problems = list_facts(vault, subject=subject, predicate=predicate, object_=object, status=status,
                                source=source, min_confidence=min_confidence, limit=limit)
    _warn(problems)
    return FactList(tuple(rows))


@repairs_index(writes=True)
def fact_retract(vault: Vault, *, id: str, reason: str, author: Author) -> Fact:
    """Mark a fact retracted, with the reason; the note stays."""
    from biocortex_cli.facts.notes import retract_fact

    return retract_fact(vault, id, reason, author)


@repairs_index(writes=True)
def fact_supersede(vault: Vault, *, id: str, by: str, author: Author) -> Fact:
    """Mark a fact superseded by another (both notes link to each other)."""
    from biocortex_cli.facts.notes import supersede_fact

    return supersede_fact(vault, id, by, author)


@repairs_index(writes=True)
def fact_unsource(vault: Vault, *, id: str, source: str, author: Author) -> Fact:
    """Take one source (any spelling, or one of a dataset's citations) out of a fact's evidence."""
    from biocortex_cli.facts.notes import remove_source

    return remove_source(vault, id, source, author)


@checked(hops=HOPS, min_confidence=UNIT)
@repairs_index()
def fact_verify(vault: Vault, *, subject: str, predicate: str, object: str, hops: int = 1,
                min_confidence: float = 0.0, taxon: str | None = None) -> Verdict:
    """Weigh what memory holds for and against a claim: supported, contested, contradicted or
    unknown (``Verdict.exit_code``: 0, 5, 6, 4), with the evidence on each side."""
    from biocortex_cli.facts.memory import verify

    verdict, problems = verify(vault, subject, predicate, object, hops=hops, min_confidence=min_confidence,
                               qualifiers={"taxon": taxon})
    _warn(problems)
    return verdict


@checked(confidence=UNIT)
@repairs_index(writes=True)
def fact_import(vault: Vault, *, path: Path, text: str | None = None, shown: str | None = None,
                format: str | None = None, columns: Sequence[str] | None = None,
                predicate_map: dict[str, str] | None = None, source_prefix: str | None = None,
                dataset: str | None = None, confidence: float | None = None, taxon: str | None = None,
                cell_type: str | None = None, context: str | None = None, subject_kind: str | None = None,
                object_kind: str | None = None, reopen: bool = False, skip_retracted: bool = False,
                author: Author, progress: Progress | None = None) -> ImportReport:
    """Import a file of facts (TSV, CSV, JSON Lines) in one commit; nothing when any row is bad
    (``problems``: each with its path and line)."""
    from biocortex_cli.facts.imports import ImportOptions, import_facts

    if reopen and skip_retracted:
        from biocortex_cli.errors import UsageError

        raise UsageError("--reopen and --skip-retracted exclude each other",
                         hint="--reopen makes retracted facts current again; --skip-retracted leaves them retracted")
    if dataset and not dataset.casefold().startswith("dataset:"):
        dataset = f"dataset:{dataset}"
    options = ImportOptions(format=format, columns=columns, predicates=predicate_map or {},
                            source_prefix=source_prefix, dataset=dataset, confidence=confidence,
                            qualifiers={"taxon": taxon, "cell_type": cell_type, "context": context},
                            kinds={"subject": subject_kind, "object": object_kind}, reopen=reopen,
                            skip_closed=skip_retracted)
    return import_facts(vault, path, author=author, options=options, rel=shown, text=text, progress=progress)


@repairs_index()
def fact_contests(vault: Vault) -> Contests:
    """Every open contradiction between current facts, once per pair, weighed."""
    from biocortex_cli.ops.check import fact_contests as contests

    return Contests(tuple(contests(vault)))


@repairs_index()
def entity_show(vault: Vault, *, name: str) -> EntityPage:
    """An entity by name, alias or identifier: its aliases, facts in and out, and the episodes naming it."""
    from biocortex_cli.facts.entities import entity_page

    return EntityPage(entity_page(vault, name))


@repairs_index(writes=True)
def entity_alias(vault: Vault, *, name: str, alias: str, author: Author, merge: bool = False,
                 allow_ambiguous: bool = False) -> AliasResult:
    """Add an alias to an entity's note (created if missing). An alias HGNC lists for several genes
    is flagged (``ambiguous``), or refused when ``name`` is none of them (unless
    ``allow_ambiguous``); an alias that is an entity of its own is merged when ``merge``."""
    from biocortex_cli.facts.aliases import add_alias

    return add_alias(vault, name, alias, author, merge=merge, allow_ambiguous=allow_ambiguous)


@repairs_index(writes=True)
def entity_merge(vault: Vault, *, keep: str, other: str, author: Author) -> MergeResult:
    """Make ``other`` a name of ``keep``: its facts and episodes follow, one commit, nothing deleted."""
    from biocortex_cli.facts.aliases import merge_entities

    return merge_entities(vault, keep, other, author)


@repairs_index(writes=True)
def entity_import(vault: Vault, *, text: str, shown: str, author: Author, format: str | None = None,
                  columns: Sequence[str] | None = None, allow_ambiguous: bool = False) -> AliasImport:
    """Import aliases from a file in one commit; nothing when any row is refused (``problems``)."""
    from biocortex_cli.facts.aliases import import_aliases

    return import_aliases(vault, text, shown, author, format_=format, columns=list(columns) if columns else None,
                          allow_ambiguous=allow_ambiguous)
