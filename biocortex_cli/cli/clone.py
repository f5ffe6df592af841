"""``biocortex clone``: join a team's memory in one command."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def clone(
    url: Annotated[str, typer.Argument(help="The team's shared repository: a path, file://, ssh or https address.")],
    folder: Annotated[Path | None, typer.Argument(metavar="DIR", help="Folder to clone into (default: the last part of URL, without .git).")] = None,
    branch: Annotated[str | None, typer.Option("--branch", help="The vault's branch (default: the one that holds .biocortex/config.yaml: the remote's default, else main, else master, else any).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", help="Give up on a clone that takes longer (1 or more).")] = 600.0,
    json_: Annotated[bool, typer.Option("--json", help="Print what the clone holds as JSON.")] = False,
) -> int:
    """Clone a team's vault, check out the vault's branch whatever the remote's default branch is,
    build the index, and say what it holds (docs/teams.md)."""
    from biocortex_cli.api.vault import clone as clone_vault
    from biocortex_cli.render.history import clone_summary

    report = clone_vault(url=url, folder=folder, branch=branch, timeout=timeout)
    state.info(clone_summary(report))
    state.emit_json(report.as_json()) if json_ else state.out(report.path)
    return 0
