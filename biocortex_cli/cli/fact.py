"""``biocortex fact add|import|query|list|verify|unsource|retract|supersede`` (semantic memory):
parse, call :mod:`biocortex_cli.api.facts`, print."""

from __future__ import annotations

from biocortex_cli.cli import state

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off verify's path
if TYPE_CHECKING:  # annotations are strings, evaluated by typer only when the app is built (cli/app.py
    from typing import Annotated  # gives this module both names)

    import typer


def add(
    subject: Annotated[str, typer.Argument(help="Subject, e.g. TP53 (aliases resolve to the entity's name).")],
    predicate: Annotated[str, typer.Argument(help="Predicate, e.g. regulates (stored lower_case_with_underscores).")],
    object_: Annotated[str, typer.Argument(metavar="OBJECT", help="Object, e.g. MDM2.")],
    source: Annotated[list[str] | None, typer.Option("--source", help="Where it comes from: PMID:…, DOI, PMC…, an episode id, agent:NAME, dataset:NAME[@VERSION], a URL or a relative path (repeatable; checked).")] = None,
    confidence: Annotated[float | None, typer.Option("--confidence", help="0-1 (config: facts.default_confidence).")] = None,
    taxon: Annotated[str | None, typer.Option("--taxon", help="The species it holds in (human, mouse, NCBITaxon:10090): another fact than the same triple elsewhere.")] = None,
    cell_type: Annotated[str | None, typer.Option("--cell-type", help="The cell type it holds in (a qualifier, like --taxon).")] = None,
    context: Annotated[str | None, typer.Option("--context", help="Any other condition it holds under (a qualifier).")] = None,
    subject_kind: Annotated[str | None, typer.Option("--subject-kind", help="Kind of the subject's entity note if this creates it (gene, protein, compound, cell_type, …).")] = None,
    object_kind: Annotated[str | None, typer.Option("--object-kind", help="Kind of the object's entity note if this creates it.")] = None,
    reopen: Annotated[bool, typer.Option("--reopen", help="The statement was retracted or superseded: make it current again with this evidence.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the stored fact as JSON instead of its id.")] = False,
) -> int:
    """Record a fact; the same statement again merges its sources instead of duplicating it."""
    from biocortex_cli.api.facts import fact_add

    vault = state.vault()
    result = fact_add(vault, subject=subject, predicate=predicate, object=object_, source=source or (),
                      confidence=confidence, author=state.author(vault), taxon=taxon, cell_type=cell_type,
                      context=context, subject_kind=subject_kind, object_kind=object_kind, reopen=reopen)
    for note in result.notes:
        state.info(f"biocortex: {note}")
    if result.unchanged:  # the same statement with the same evidence: no new knowledge
        made = f"; made {', '.join(result.written)} again (missing)" if result.written else "; nothing written"
        state.info(f"biocortex: {result.fact.path}:{result.unchanged_at}: already recorded "
                   f"({result.fact.sentence()}, confidence {result.fact.confidence:g}){made}")
    elif result.merged:
        state.info(f"biocortex: merged into existing fact {result.fact.id} "
                   f"(confidence now {result.fact.confidence:g})")
    for other in result.contradicts:
        state.info(f"biocortex: warning: {result.fact.id} contradicts {other.id} "
                   f"({result.fact.sentence()} / {other.sentence()})")
    state.emit_json(result.as_json()) if json_ else state.out(result.fact.id)
    return 0


def import_(
    file: Annotated[str, typer.Argument(metavar="FILE|-", help="TSV, CSV or JSON Lines of facts, or - for stdin.")],
    format_: Annotated[str | None, typer.Option("--format", help="tsv, csv or jsonl (default: from the file name, else tsv).")] = None,
    columns: Annotated[str | None, typer.Option("--columns", help="The file has no header: its columns in order, e.g. subject,object,predicate,source (- skips one).")] = None,
    predicate_map: Annotated[list[str] | None, typer.Option("--predicate-map", metavar="VALUE=PREDICATE", help="Read a value of the predicate column as a predicate, e.g. Activation=activates (repeatable).")] = None,
    source_prefix: Annotated[str | None, typer.Option("--source-prefix", help="A bare number in the source column is PREFIX:number, e.g. PMID.")] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", metavar="NAME@VERSION", help="Every row's evidence is this dataset's (one source; the row's citations are its refs).")] = None,
    confidence: Annotated[float | None, typer.Option("--confidence", help="0-1 for rows without a confidence column (config: facts.default_confidence).")] = None,
    taxon: Annotated[str | None, typer.Option("--taxon", help="Taxon of rows without their own (human, mouse, NCBITaxon:10090).")] = None,
    cell_type: Annotated[str | None, typer.Option("--cell-type", help="Cell type of rows without their own.")] = None,
    context: Annotated[str | None, typer.Option("--context", help="Context of rows without their own.")] = None,
    subject_kind: Annotated[str | None, typer.Option("--subject-kind", help="Kind of the subjects' new entity notes (gene, protein, compound, …).")] = None,
    object_kind: Annotated[str | None, typer.Option("--object-kind", help="Kind of the objects' new entity notes.")] = None,
    reopen: Annotated[bool, typer.Option("--reopen", help="Rows restating a retracted or superseded fact make it current again.")] = False,
    skip_retracted: Annotated[bool, typer.Option("--skip-retracted", help="Rows restating a retracted or superseded fact are left out: the retraction stands.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the import report as JSON.")] = False,
) -> int:
    """Import curated facts from a file in one commit (every row checked; all or nothing); prints how many."""
    from pathlib import Path

    from biocortex_cli.api.facts import fact_import
    from biocortex_cli.cli.episode import read_input
    from biocortex_cli.errors import DataError, UsageError

    mapping = {}
    for item in predicate_map or []:
        value, eq, pred = item.partition("=")
        if not eq or not value.strip() or not pred.strip():
            raise UsageError(f"--predicate-map {item!r} is not VALUE=PREDICATE", hint="e.g. Activation=activates")
        mapping[value.strip()] = pred.strip()
    where = "<stdin>" if file == "-" else file
    vault = state.vault()
    state.info(f"biocortex: importing facts from {where} …")
    report = fact_import(vault, path=Path(file), text=read_input(file), shown=where, format=format_,
                         columns=columns.split(",") if columns else None, predicate_map=mapping,
                         source_prefix=source_prefix, dataset=dataset, confidence=confidence, taxon=taxon,
                         cell_type=cell_type, context=context, subject_kind=subject_kind, object_kind=object_kind,
                         reopen=reopen, skip_retracted=skip_retracted, author=state.author(vault))
    if report.problems:
        for problem in report.problems[:20]:
            state.info(f"{problem.location()}{problem.message}")
        more = " (the first 20 above)" if len(report.problems) > 20 else ""
        raise DataError(f"{len(report.problems)} of {report.rows} rows cannot be imported{more}; nothing was written",
                        path=where, hint=report.problems[0].hint or "fix the rows, then import the file again",
                        problems=[{"path": p.path, "line": p.line, "message": p.message, "hint": p.hint}
                                  for p in report.problems])
    same = f", {report.unchanged} unchanged" if report.unchanged else ""
    same += f", {report.skipped} retracted left out" if report.skipped else ""
    nothing = ("; nothing changed, no commit" if report.unchanged + report.skipped == report.facts
               and not report.entities else "")
    state.info(f"biocortex: imported {report.facts} facts from {report.rows} rows ({report.created} new, "
               f"{report.merged} merged{same}, {report.entities} entity notes) in {report.seconds:.1f} s{nothing}"
               + (f"; {len(report.conflicts)} open contradictions (biocortex check --facts)" if report.conflicts else ""))
    if report.new_predicates:
        listed = ", ".join(f"{p} ({n} row{'s' if n != 1 else ''})" for p, n in list(report.new_predicates.items())[:8])
        state.info(f"biocortex: predicates new to this vault: {listed}; if they are a column's values rather "
                   "than predicates, --predicate-map VALUE=PREDICATE maps them (e.g. Activation=activates)")
    state.emit_json(report.as_json()) if json_ else state.out(str(report.facts))
    return 0


def query(
    entity: Annotated[str, typer.Argument(help="Entity: its name, any alias or an identifier (exact, case-insensitive).")],
    predicate: Annotated[str | None, typer.Option("--predicate", help="Only facts with this predicate or a narrower one (config: facts.broader).")] = None,
    hops: Annotated[int, typer.Option("--hops", help="Neighbourhood depth, 1-5: 1 = facts about the entity, 2 = also about its neighbours, …")] = 1,
    min_confidence: Annotated[float, typer.Option("--min-confidence", help="Only facts at least this confident (0-1).")] = 0.0,
    all_: Annotated[bool, typer.Option("--all", help="Include retracted and superseded facts.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="At most this many facts, nearest and most confident first (0 = all).")] = 100,
    fuzzy: Annotated[bool, typer.Option("--fuzzy", help="When no entity has this exact name or alias, use the names that contain it.")] = False,
    taxon: Annotated[str | None, typer.Option("--taxon", help="Only facts about this taxon (human, mouse, NCBITaxon:10090) or none.")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the answer as JSON (with sources and authors).")] = False,
) -> int:
    """Facts about an entity (aliases resolved), nearest first."""
    from biocortex_cli.api.facts import fact_query
    from biocortex_cli.facts.render import query_text

    result = fact_query(state.vault(), entity=entity, predicate=predicate, hops=hops,
                        min_confidence=min_confidence, all=all_, limit=limit, fuzzy=fuzzy, taxon=taxon)
    if result.truncated:
        state.info(f"biocortex: showing the first {limit} facts; --limit 0 shows all")
    if result.how == "synonym":
        state.info(f"biocortex: no entity named {entity!r}; found through the vocabulary: {', '.join(result.matched)}")
    if result.how == "substring":
        state.info(f"biocortex: no entity named {entity!r}; --fuzzy matched: {', '.join(result.matched[:10])}")
    elif result.suggestions:
        state.info(f"biocortex: no entity named {entity!r}; names containing it (--fuzzy uses them): "
                   f"{', '.join(result.suggestions)}")
    if result.ambiguous:
        state.info(f"biocortex: {entity!r} is ambiguous: HGNC lists it for several genes, and this vault knows "
                   f"{', '.join(result.ambiguous)}; ask about one, or bind the name to one with "
                   f"`biocortex entity alias {result.ambiguous[0]} {entity}`")
    if not result.facts:
        state.info(f"biocortex: no facts about {entity!r}")
    if json_:
        state.emit_json(result.as_json())
    elif result.facts:
        state.out(query_text(result))
    return 0


def list_(
    subject: Annotated[str | None, typer.Option("--subject", help="Only facts with this subject (aliases resolved).")] = None,
    predicate: Annotated[str | None, typer.Option("--predicate", help="Only facts with this predicate or a narrower one.")] = None,
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


def unsource(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Fact id.")],
    source: Annotated[str, typer.Argument(help="The source to take out (any spelling of it, or one of a dataset's citations).")],
    json_: Annotated[bool, typer.Option("--json", help="Print the fact as JSON.")] = False,
) -> int:
    """Take a source out of a fact's evidence (one commit); its confidence is what remains."""
    from biocortex_cli.api.facts import fact_unsource

    vault = state.vault()
    fact = fact_unsource(vault, id=ident, source=source, author=state.author(vault))
    state.emit_json(fact.as_json()) if json_ else state.out(
        f"{fact.id}  ·  {fact.confidence:g}  ·  {', '.join(fact.sources)}")
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
    taxon: Annotated[str | None, typer.Option("--taxon", help="The claim holds in this taxon: facts about another taxon do not count.")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> int:
    """Weigh a claim against memory. Exit 0 supported, 4 unknown, 5 contested, 6 contradicted."""
    from biocortex_cli.api.facts import fact_verify
    from biocortex_cli.facts.render import verdict_text

    verdict = fact_verify(state.vault(), subject=subject, predicate=predicate, object=object_, hops=hops,
                          min_confidence=min_confidence, taxon=taxon)
    state.emit_json(verdict.as_json()) if json_ else state.out(verdict_text(verdict))
    return verdict.exit_code
