"""``biocortex sync``: pull (rebase) and push the vault's git remote, then refresh the index."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def sync(
    remote: Annotated[str | None, typer.Option("--remote", metavar="NAME",
                                               help="The git remote (default: the branch's, else origin).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", min=1,
                                           help="Give up on a fetch or push that takes longer.")] = 60.0,
    json_: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> int:
    """Share memory with the team: rebase on the remote's commits, push ours, refresh the index,
    and report what arrived (episodes, facts, feedback by author). Commits nothing of yours:
    uncommitted changes stop it."""
    from biocortex_cli.facts.index import refresh_facts
    from biocortex_cli.index.build import refresh
    from biocortex_cli.ops.sync import sync as sync_vault
    from biocortex_cli.render.history import SHOWN, sync_summary, sync_text

    vault = state.vault()
    report = sync_vault(vault, author=vault.author(state.OPTIONS.author), remote=remote, timeout=timeout,
                        limit=None if json_ else SHOWN)
    encoding = vault.config.tokenizer.encoding
    conn, refreshed = refresh(vault, encoding)
    try:
        refresh_facts(conn, vault, encoding)
    finally:
        conn.close()
    state.info(sync_summary(report))
    for notice in report.notices:
        state.info(f"biocortex: {notice}")
    if json_:
        state.emit_json({**report.as_json(), "index": {"episodes": refreshed.total, "added": refreshed.added,
                                                       "updated": refreshed.updated, "removed": refreshed.removed}})
    else:
        state.out(sync_text(report))
    return 0
