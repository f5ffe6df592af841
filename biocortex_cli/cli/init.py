"""``biocortex init``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def init(
    path: Annotated[Path, typer.Argument(help="Folder for the new vault (created if missing).")] = Path("."),
    in_repo: Annotated[bool, typer.Option("--in-repo", help="Allow a vault inside an existing git repository: its commits go into that repository's history.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the new vault's folder, repository, branch and first commit as JSON.")] = False,
) -> int:
    """Create a vault from the template: layout, config, Obsidian settings, git, first commit."""
    from biocortex_cli.api.vault import init as init_vault

    created = init_vault(path=path, author=state.OPTIONS.author, in_repo=in_repo)
    vault = created.vault
    state.emit_json(created.as_json()) if json_ else state.out(str(vault.root))
    state.info(f"biocortex: created a vault in {vault.root}\n"
               "  next: biocortex episode add --task '…' --success   (or open it in Obsidian)")
    return 0
