"""``biocortex sync``: pull (rebase) and push the vault's git remote, then refresh the index."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def sync(
    remote: Annotated[str | None, typer.Option("--remote", metavar="NAME",
                                               help="The git remote (default: the branch's, else origin).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS",
                                           help="Give up on a fetch or push that takes longer (1 or more).")] = 60.0,
    json_: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> int:
    """Share memory with the team: rebase on the remote's commits, push ours, refresh the index,
    and report what arrived (episodes, facts, feedback by author). Commits nothing of yours:
    uncommitted changes stop it."""
    from biocortex_cli.api.vault import sync as sync_vault
    from biocortex_cli.render.history import SHOWN, sync_summary, sync_text

    vault = state.vault()
    synced = sync_vault(vault, author=state.author(vault), remote=remote, timeout=timeout,
                        limit=None if json_ else SHOWN)
    state.info(sync_summary(synced.report))
    for notice in synced.report.notices:
        state.info(f"biocortex: {notice}")
    state.emit_json(synced.as_json()) if json_ else state.out(sync_text(synced.report))
    return 0
