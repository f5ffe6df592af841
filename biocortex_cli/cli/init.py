"""``biocortex init``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def init(
    path: Annotated[Path, typer.Argument(help="Folder for the new vault (created if missing).")] = Path("."),
) -> int:
    """Create a vault from the template: layout, config, Obsidian settings, git, first commit."""
    from biocortex_cli.store.vault import init_vault

    vault = init_vault(path, state.OPTIONS.author)
    state.out(str(vault.root))
    state.info(f"biocortex: created a vault in {vault.root}\n"
               "  next: biocortex episode add --task '…' --success   (or open it in Obsidian)")
    return 0
