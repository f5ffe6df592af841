"""``biocortex fact add|query|list|retract|supersede|verify`` (semantic memory): parse, call
:mod:`biocortex_cli.api.facts`, print."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def add(
    subject: Annotated[str, typer.Argument(help="Subject, e.g. TP53 (aliases resolve to the entity's name).")],
    predicate: Annotated[str, typer.Argument(help="Predicate, e.g. regulates (stored lower_case_with_underscores).")],
    object_: Annotated[str, typer.Argument(metavar="OBJECT", help="Object, e.g. MDM2.")],
    source: Annotated[list[str] | None, typer.Option("--source", help="Where it comes from: PMID:…, DOI, episode id, notebook path, URL (repeatable).")] = None,
    confidence: Annotated[float | None, typer.Option("--confidence", help="0-1 (config: facts.default_confidence).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the stored fact as JSON instead of its id.")] = False,
) -> int:
    """Record a fact; the same triple again merges its sources instead of duplicating it."""
    from biocortex_cli.api.facts import fact_add

    vault = state.vault()
    result = fact_add(vault, subject=subject, predicate=predicate, object=object_, source=source or (),
                      confidence=confidence, author=state.author(vault))
    for note in result.notes:
        state.info(f"biocortex: {note}")
    if result.merged:
        state.info(f"biocortex: merged into existing fact {result.fact.id} "
                   f"(confidence now {result.fact.confidence:g})")
    for other in result.contradicts:
        state.info(f"biocortex: warning: {result.fact.id} contradicts {other.id} "
                   f"({result.fact.sentence()} / {other.sentence()})")
    state.emit_json(result.as_json()) if json_ else state.out(result.fact.id)
    return 0


def query(
    entity: Annotated[str, typer.Argument(help="Entity: exact name, any alias, or part of a name.")],
    predicate: Annotated[str | None, typer.Option("--predicate", help="Only facts with this predicate.")] = None,
    hops: Annotated[int, typer.Option("--hops", help="Neighbourhood depth, 1-5: 1 = facts about the entity, 2 = also about its neighbours, …")] = 1,
    min_confidence: Annotated[float, typer.Option("--min-confidence", help="Only facts at least this confident (0-1).")] = 0.0,
    all_: Annotated[bool, typer.Option("--all", help="Include retracted and superseded facts.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="At most this many facts, nearest and most confident first (0 = all).")] = 100,
    json_: Annotated[bool, typer.Option("--json", help="Print the answer as JSON (with sources and authors).")] = False,
) -> int:
    """Facts about an entity (aliases resolved), nearest first."""
    from biocortex_cli.api.facts import fact_query
    from biocortex_cli.facts.render import query_text

    result = fact_query(state.vault(), entity=entity, predicate=predicate, hops=hops,
                        min_confidence=min_confidence, all=all_, limit=limit)
    if result.truncated:
        state.info(f"biocortex: showing the first {limit} facts; --limit 0 shows all")
    if result.how == "synonym":
        state.info(f"biocortex: no entity named {entity!r}; found through the vocabulary: {', '.join(result.matched)}")
    if result.how == "substring":
        state.info(f"biocortex: no entity named {entity!r}; matched by substring: {', '.join(result.matched[:10])}")
    if not result.facts:
        state.info(f"biocortex: no facts about {entity!r}")
    if json_:
        state.emit_json(result.as_json())
    elif result.facts:
        state.out(query_text(result))
    return 0


def list_(
    subject: Annotated[str | None, typer.Option("--subject", help="Only facts with this subject (aliases resolved).")] = None,
    predicate: Annotated[str | None, typer.Option("--predicate", help="Only facts with this predicate.")] = None,
    object_: Annotated[str | None, typer.Option("--object", help="Only facts with this object (aliases resolved).")] = None,
    status: Annotated[str, typer.Option("--status", help="current, retracted, superseded or all.")] = "current",
    source: Annotated[str | None, typer.Option("--source", help="Only facts citing a source containing this text.")] = None,
    min_confidence: Annotated[float, typer.Option("--min-confidence", help="Only facts at least this confident (0-1).")] = 0.0,
    limit: Annotated[int | None, typer.Option("--limit", help="At most this many (1 or more).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the facts as JSON.")] = False,
) -> int:
    """List facts, filtered."""
    from biocortex_cli.api.facts import fact_list
    from biocortex_cli.facts.render import fact_lines

    result = fact_list(state.vault(), subject=subject, predicate=predicate, object=object_, status=status,
                       source=source, min_confidence=min_confidence, limit=limit)
    if json_:
        state.emit_json(result.as_json())
    elif result.facts:
        state.out(fact_lines(result.facts))
    else:
        state.info("biocortex: no facts match")
    return 0


def retract(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Fact id.")],
    reason: Annotated[str, typer.Option("--reason", help="Why it no longer holds (kept in the note and the commit).")],
    json_: Annotated[bool, typer.Option("--json", help="Print the retracted fact as JSON.")] = False,
) -> int:
    """Mark a fact retracted; the note stays (history is memory)."""
    from biocortex_cli.api.facts import fact_retract

    vault = state.vault()
    fact = fact_retract(vault, id=ident, reason=reason, author=state.author(vault))
    state.emit_json(fact.as_json()) if json_ else state.out(fact.id)
    return 0


def supersede(
    ident: Annotated[str, typer.Argument(metavar="ID", help="The fact that no longer holds.")],
    by: Annotated[str, typer.Option("--by", metavar="ID", help="The fact that replaces it (add it first).")],
    json_: Annotated[bool, typer.Option("--json", help="Print the superseded fact as JSON.")] = False,
) -> int:
    """Mark a fact superseded by another; both notes link to each other."""
    from biocortex_cli.api.facts import fact_supersede

    vault = state.vault()
    fact = fact_supersede(vault, id=ident, by=by, author=state.author(vault))
    state.emit_json(fact.as_json()) if json_ else state.out(fact.id)
    return 0


def verify(
    subject: Annotated[str, typer.Argument(help="Subject of the claim.")],
    predicate: Annotated[str, typer.Argument(help="Predicate of the claim.")],
    object_: Annotated[str, typer.Argument(metavar="OBJECT", help="Object of the claim.")],
    hops: Annotated[int, typer.Option("--hops", help="Chain up to this many facts (1-5) of a transitive predicate (config: facts.transitive).")] = 1,
    min_confidence: Annotated[float, typer.Option("--min-confidence", help="Ignore facts below this confidence (0-1).")] = 0.0,
    json_: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> int:
    """Check a claim against memory. Exit 0 supported, 4 unknown, 5 contradicted (1 or 2: the command failed)."""
    from biocortex_cli.api.facts import fact_verify
    from biocortex_cli.facts.render import verdict_text

    verdict = fact_verify(state.vault(), subject=subject, predicate=predicate, object=object_, hops=hops,
                          min_confidence=min_confidence)
    state.emit_json(verdict.as_json()) if json_ else state.out(verdict_text(verdict))
    return verdict.exit_code
