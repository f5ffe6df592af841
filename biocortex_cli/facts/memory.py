"""Everything `fact query`, `fact verify` and `entity show` read: the vault's facts and aliases
from the sidecar index, and beside them the sources of assertions that are not notes.

:func:`edge_sources` is the one place such sources are opened (the registered datasets,
facts/datasets*.py): each is an :class:`~biocortex_cli.facts.query.EdgeSource`, and the readers
see them through :class:`~biocortex_cli.facts.query.Layered` without knowing where an assertion
came from — its ``origin`` and ``evidence`` say so.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from biocortex_cli.errors import DataError
    from biocortex_cli.facts.index import IndexedFacts
    from biocortex_cli.facts.model import Fact
    from biocortex_cli.facts.query import EdgeSource, FactSource, QueryResult, Verdict

    T = TypeVar("T")


def edge_sources(vault: Any, conn: sqlite3.Connection) -> list[EdgeSource]:
    """The sources of assertions beside the vault's notes: every registered dataset that can
    answer here (facts/datasets_index.py ``consult``: an index missing or out of date is built,
    with a notice; a dataset whose file is missing or changed is left out, with a warning)."""
    del conn
    from biocortex_cli.store.walk import has_notes

    if not has_notes(vault.folder, "datasets"):
        return []
    from biocortex_cli.facts.datasets_index import consult, stderr_notice

    found = consult(vault)
    for warning in found.warnings:
        stderr_notice(warning)
    return list(found.edges)


def open_memory(vault: Any, *, full: bool = False) -> tuple[sqlite3.Connection, FactSource, list[DataError]]:
    """The index, refreshed, as a :class:`FactSource` over the notes and every edge source."""
    from biocortex_cli.facts.index import open_facts
    from biocortex_cli.facts.query import Layered

    conn, notes, problems = open_facts(vault, full=full)
    extra = edge_sources(vault, conn)
    return conn, (Layered(notes, extra) if extra else notes), problems


def ask(vault: Any, use: Callable[[FactSource], T]) -> tuple[T, list[DataError]]:
    """``use(source)`` on the open memory, and the notes that could not be read (facts/index.py
    ``with_facts``: a damaged index is the caller's to repair, api/checks.py ``repairs_index``)."""
    from biocortex_cli.facts.index import with_facts
    from biocortex_cli.facts.query import Layered

    def layered(notes: IndexedFacts) -> T:
        extra = edge_sources(vault, notes.conn)
        return use(Layered(notes, extra) if extra else notes)

    return with_facts(vault, layered)


def list_facts(vault: Any, *, subject: str | None = None, predicate: str | None = None, object_: str | None = None,
               status: str = "current", source: str | None = None, min_confidence: float = 0.0,
               limit: int | None = None) -> tuple[list[Fact], list[DataError]]:
    """`fact list`: the vault's fact notes, filtered (a predicate also matches narrower ones)."""
    from biocortex_cli.errors import UsageError
    from biocortex_cli.facts.index import with_facts
    from biocortex_cli.facts.model import STATUSES, FactRules, normalize_predicate

    if status not in (*STATUSES, "all"):
        raise UsageError(f"--status must be one of {', '.join(STATUSES)} or all, not {status!r}")
    preds = FactRules.from_config(vault).narrower(normalize_predicate(predicate)) if predicate else None

    def matching(notes: IndexedFacts) -> list[Fact]:
        found = notes.listed(status=None if status == "all" else status,
                             subjects=notes.spellings(subject) if subject else None,
                             objects=notes.spellings(object_) if object_ else None, predicates=preds,
                             min_confidence=min_confidence, limit=limit if source is None else None)
        if source is None:
            return found
        return [f for f in found if any(source.casefold() in s.casefold() for s in f.sources)]

    rows, problems = with_facts(vault, matching)
    return (rows[:limit] if limit else rows), problems


def query(vault: Any, entity: str, *, predicate: str | None = None, hops: int = 1, min_confidence: float = 0.0,
          include_all: bool = False, limit: int | None = 100, fuzzy: bool = False,
          qualifiers: dict[str, str | None] | None = None) -> tuple[QueryResult, list[DataError]]:
    """`fact query`: (QueryResult, unreadable notes)."""
    from biocortex_cli.facts.model import FactRules, normalize_qualifiers
    from biocortex_cli.facts.query import query_facts

    rules = FactRules.from_config(vault) if predicate else None
    wanted = normalize_qualifiers(qualifiers or {})
    return ask(vault, lambda source: query_facts(
        source, entity, predicate=predicate, hops=hops, min_confidence=min_confidence, include_all=include_all,
        limit=limit, fuzzy=fuzzy, rules=rules, qualifiers=wanted))


def verify(vault: Any, subject: str, predicate: str, obj: str, *, hops: int = 1, min_confidence: float = 0.0,
           qualifiers: dict[str, str | None] | None = None) -> tuple[Verdict, list[DataError]]:
    """`fact verify`: (Verdict, unreadable notes)."""
    from biocortex_cli.facts.model import FactRules, clean_text, normalize_qualifiers
    from biocortex_cli.facts.query import verify_claim

    s, o = clean_text(subject, "subject"), clean_text(obj, "object")
    rules = FactRules.from_config(vault)
    wanted = normalize_qualifiers(qualifiers or {})
    return ask(vault, lambda source: verify_claim(source, rules, s, predicate, o, hops=hops,
                                                  min_confidence=min_confidence, qualifiers=wanted))
