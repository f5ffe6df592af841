"""``biocortex lessons [promote|refresh]``: lessons abstracted from many episodes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:  # annotations are strings, evaluated by typer only when the app is built
    import typer


def lessons(
    ctx: typer.Context,
    min_support: Annotated[int, typer.Option("--min-support", help="Only lessons stated by at least this many (non-archived) episodes (1 or more).")] = 2,
    domain: Annotated[str | None, typer.Option("--domain", help="Only lessons of episodes with this domain.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most this many clusters (most supported first; 1 or more).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the clusters as JSON.")] = False,
) -> int:
    """Lessons that several episodes state, clustered (near-identical phrasings are one lesson)."""
    if ctx.invoked_subcommand is not None:
        return 0
    from biocortex_cli.api.lessons import lessons as list_lessons
    from biocortex_cli.lessons.render import lessons_text

    report = list_lessons(state.vault(), min_support=min_support, domain=domain, limit=limit)
    for warning in report.warnings:
        state.info(warning)
    if json_:
        state.emit_json(report.as_json())
    elif report.clusters:
        state.out(lessons_text(report))
    if not report.clusters:
        state.info(f"biocortex: no lesson is stated by {min_support} or more episodes "
                   f"({report.lessons} lessons read)")
    elif len(report.clusters) < report.total:
        state.info(f"biocortex: {len(report.clusters)} of {report.total} lessons shown")
    return 0


def promote(
    target: Annotated[str, typer.Argument(metavar="CLUSTER_OR_TEXT", help="A cluster id from `biocortex lessons` (c-…), or a lesson's text.")],
    text: Annotated[str | None, typer.Option("--text", help="The lesson as the note states it (default: its most frequent phrasing).")] = None,
    summarizer: Annotated[str | None, typer.Option("--summarizer", metavar="CMD", help="A command that reads the phrasings on stdin and prints one generalised lesson (falls back to the most frequent phrasing).")] = None,
    id_: Annotated[str | None, typer.Option("--id", help="Id of a new lesson note (default: lesson-<slug>).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the lesson note as JSON.")] = False,
) -> int:
    """Write the lesson note lessons/<id>.md linking its supporting episodes (or update it)."""
    from biocortex_cli.api.lessons import lesson_promote

    vault = state.vault()
    result = lesson_promote(vault, target=target, author=state.author(vault), text=text, summarizer=summarizer,
                            id=id_)
    for warning in result.warnings:
        state.info(warning)
    note = result.promotion.lesson
    if json_:
        state.emit_json(result.as_json())
    else:
        state.out(note.id)
    if not result.promotion.changed:
        state.info(f"biocortex: {note.path} is up to date ({len(note.strings('supporting'))} supporting episodes)")
        return 0
    verb = "promoted" if result.promotion.created else "updated"
    state.info(f"biocortex: {verb} {note.path}: {len(note.strings('supporting'))} supporting episodes"
               f" ({len(result.promotion.added)} new)")
    return 0


def refresh(
    json_: Annotated[bool, typer.Option("--json", help="Print what each lesson gained as JSON.")] = False,
) -> int:
    """Add to each promoted lesson the episodes that state it since (one commit); prints their ids."""
    from biocortex_cli.api.lessons import lessons_refresh

    vault = state.vault()
    done = lessons_refresh(vault, author=state.author(vault))
    if json_:
        state.emit_json(done.as_json())
    elif done.promotions:
        state.out("\n".join(f"{p.lesson.id}  +{len(p.added)}" for p in done.promotions))
    if not done.promotions:
        state.info("biocortex: every promoted lesson is up to date")
    return 0
