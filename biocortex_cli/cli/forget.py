"""``biocortex forget`` and ``biocortex restore``: archive memory and bring it back, never delete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def forget(
    older_than: Annotated[str | None, typer.Option("--older-than", metavar="WHEN", help="Created before WHEN: an age (365d, 52w, 6mo, 2y) or a date (2025-01-31); see 'Dates and ages' in docs/cli.md.")] = None,
    utility_below: Annotated[float | None, typer.Option("--utility-below", min=0.0, max=1.0, help="Utility from feedback below this (0.5 = no feedback).")] = None,
    quality_below: Annotated[float | None, typer.Option("--quality-below", min=0.0, max=1.0, help="Recorded quality below this.")] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Only failed analyses.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be archived; change nothing.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the archived episodes and why as JSON.")] = False,
) -> int:
    """Move episodes matching ALL the criteria to archive/ in one commit (out of default recall)."""
    from biocortex_cli.ops.forget import Criteria
    from biocortex_cli.ops.forget import forget as forget_episodes

    vault = state.vault()
    criteria = Criteria(older_than=older_than, utility_below=utility_below, quality_below=quality_below, failed=failed)
    result = forget_episodes(vault, criteria, author=vault.author(state.OPTIONS.author), dry_run=dry_run)
    verb = "would archive" if dry_run else "archived"
    state.info(f"biocortex: {verb} {len(result.episodes)} episode(s) — {result.criteria}")
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
    from biocortex_cli.ops.forget import restore as restore_episodes

    vault = state.vault()
    moved = restore_episodes(vault, ids, author=vault.author(state.OPTIONS.author))
    if json_:
        state.emit_json([m.as_json() for m in moved])
    else:
        for m in moved:
            state.out(m.to)
    return 0
