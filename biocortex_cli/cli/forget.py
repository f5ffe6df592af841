"""``biocortex forget`` and ``biocortex restore``: archive memory and bring it back, never delete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state
from biocortex_cli.progress import plural

if TYPE_CHECKING:
    import typer


def forget(
    older_than: Annotated[str | None, typer.Option("--older-than", metavar="WHEN", help="Created before WHEN: an age (365d, 52w, 6mo, 2y) or a date (2025-01-31); see 'Dates and ages' in docs/cli.md.")] = None,
    utility_below: Annotated[float | None, typer.Option("--utility-below", help="Utility from the feedback on its own subject (its task) below this, 0-1 (0.5 = no feedback).")] = None,
    quality_below: Annotated[float | None, typer.Option("--quality-below", help="Recorded quality below this, 0-1.")] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Only failed analyses.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be archived; change nothing.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the archived episodes and why as JSON.")] = False,
) -> int:
    """Move episodes matching ALL the criteria to archive/ in one commit (out of default recall)."""
    from biocortex_cli.api.vault import forget as forget_episodes

    vault = state.vault()
    result = forget_episodes(vault, author=state.author(vault), older_than=older_than, utility_below=utility_below,
                             quality_below=quality_below, failed=failed, dry_run=dry_run)
    verb = "would archive" if dry_run else "archived"
    state.info(f"biocortex: {verb} {plural(len(result.episodes), 'episode')} — {result.criteria}")
    if json_:
        state.emit_json(result.as_json())
    else:
        for moved in result.episodes:
            state.out(f"{moved.id}\t{'; '.join(moved.reasons)}")
    return 0


def restore(
    ids: Annotated[list[str], typer.Argument(metavar="ID...", help="Archived episode ids.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the restored episodes as JSON.")] = False,
) -> int:
    """Bring archived episodes back into episodes/ (and default recall), in one commit."""
    from biocortex_cli.api.vault import restore as restore_episodes

    vault = state.vault()
    done = restore_episodes(vault, ids=ids, author=state.author(vault))
    if json_:
        state.emit_json(done.as_json())
    else:
        for m in done.moved:
            state.out(m.to)
    return 0
