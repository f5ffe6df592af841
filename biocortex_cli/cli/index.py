"""``biocortex index``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def index(
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build the index from scratch.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Only say whether the index is stale (exit 1 if so).")] = False,
    full: Annotated[bool, typer.Option(
        "--full", help="Stat every note and compare it with the index (slower on big vaults; by default "
                       "changed folders, commits and the notes git sees edited in place are looked at).")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> int:
    """Build or refresh the sidecar index (.biocortex/index.sqlite) incrementally."""
    from biocortex_cli.api.vault import index as index_vault
    from biocortex_cli.api.vault import index_stale

    vault = state.vault()
    if check:
        staleness = index_stale(vault)
        if json_:
            state.emit_json(staleness.as_json())
        state.info(f"biocortex: {staleness.reason}")
        return 1 if staleness.stale else 0
    report = index_vault(vault, rebuild=rebuild, full=full)
    if json_:
        state.emit_json(report.as_json())
    state.info(f"biocortex: index {'rebuilt' if report.rebuilt else 'refreshed'}: {report.episodes} episodes "
               f"(+{report.added} ~{report.updated} -{report.removed}), {report.facts} facts, in {report.seconds:.2f}s")
    return 0
