"""``biocortex entity show|alias|merge|import``: the entity notes shared by episodes and facts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def show(
    name: Annotated[str, typer.Argument(help="Entity name, alias or identifier, e.g. p53.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the entity as JSON.")] = False,
) -> int:
    """An entity: its aliases, the facts in and out, and the episodes that mention it."""
    from biocortex_cli.api.facts import entity_show
    from biocortex_cli.facts.render import entity_text

    page = entity_show(state.vault(), name=name)
    state.emit_json(page.as_json()) if json_ else state.out(entity_text(page.page))
    return 0


def alias(
    name: Annotated[str, typer.Argument(help="Entity name (or an alias of it).")],
    alias_: Annotated[str, typer.Argument(metavar="ALIAS", help="Another name for it, e.g. p53 for TP53.")],
    merge: Annotated[bool, typer.Option("--merge", help="ALIAS is an entity of its own: merge it into NAME (facts and episodes follow, one commit, nothing deleted).")] = False,
    allow_ambiguous: Annotated[bool, typer.Option("--allow-ambiguous", help="Bind an alias HGNC lists for other genes than NAME.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the entity's aliases as JSON.")] = False,
) -> int:
    """Add an alias to an entity note (Obsidian `aliases:`); facts and recall resolve it."""
    from biocortex_cli.api.facts import entity_alias

    vault = state.vault()
    result = entity_alias(vault, name=name, alias=alias_, author=state.author(vault), merge=merge,
                          allow_ambiguous=allow_ambiguous)
    for note in result.notes:
        state.info(f"biocortex: {note}")
    state.emit_json(result.as_json()) if json_ else state.out(f"{result.name}: {', '.join(result.aliases)}")
    return 0


def merge(
    keep: Annotated[str, typer.Argument(help="The entity that stays, e.g. NFE2L2.")],
    other: Annotated[str, typer.Argument(help="The entity that becomes its name, e.g. NRF2.")],
    json_: Annotated[bool, typer.Option("--json", help="Print what moved as JSON.")] = False,
) -> int:
    """Merge two entity notes that name one thing: OTHER's facts and episodes follow KEEP; OTHER's note stays as a redirect."""
    from biocortex_cli.api.facts import entity_merge
    from biocortex_cli.progress import plural

    vault = state.vault()
    result = entity_merge(vault, keep=keep, other=other, author=state.author(vault))
    if json_:
        state.emit_json(result.as_json())
    else:
        state.out(f"{result.keep}: {', '.join(result.aliases)}")
        state.info(f"biocortex: merged {result.other} into {result.keep}: {plural(len(result.facts), 'fact')}, "
                   f"{plural(len(result.episodes), 'episode')} followed")
    return 0


def import_(
    file: Annotated[str, typer.Argument(metavar="FILE|-", help="TSV, CSV or JSON Lines: name, alias (several separated by ; or |), optionally kind and identifier.")],
    format_: Annotated[str | None, typer.Option("--format", help="tsv, csv or jsonl (default: from the file name, else tsv).")] = None,
    columns: Annotated[str | None, typer.Option("--columns", help="The file has no header: its columns in order, e.g. name,alias (- skips one).")] = None,
    allow_ambiguous: Annotated[bool, typer.Option("--allow-ambiguous", help="Bind aliases HGNC lists for other genes than the row's.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the import report as JSON.")] = False,
) -> int:
    """Import aliases from a file in one commit (every row checked as `entity alias` checks it; all or nothing)."""
    from biocortex_cli.api.facts import entity_import
    from biocortex_cli.cli.episode import read_input
    from biocortex_cli.errors import DataError

    where = "<stdin>" if file == "-" else file
    vault = state.vault()
    report = entity_import(vault, text=read_input(file), shown=where, author=state.author(vault), format=format_,
                           columns=columns.split(",") if columns else None, allow_ambiguous=allow_ambiguous)
    if report.problems:
        for problem in report.problems[:20]:
            state.info(f"{problem.location()}{problem.message}")
        raise DataError(f"{len(report.problems)} of {report.rows} rows cannot be imported; nothing was written",
                        path=where, hint=report.problems[0].hint or "fix the rows, then import the file again",
                        problems=[{"path": p.path, "line": p.line, "message": p.message, "hint": p.hint}
                                  for p in report.problems])
    for alias_, name, candidates in report.flagged[:20]:
        state.info(f"biocortex: {alias_} is ambiguous: HGNC lists it for {', '.join(candidates)}; here it means {name}")
    state.info(f"biocortex: imported {report.aliases} aliases into {report.notes} entity notes "
               f"({report.entities} new)")
    state.emit_json(report.as_json()) if json_ else state.out(str(report.aliases))
    return 0
