"""``biocortex entity show|alias``: the entity notes shared by episodes and facts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def show(
    name: Annotated[str, typer.Argument(help="Entity name or alias, e.g. p53.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the entity as JSON.")] = False,
) -> int:
    """An entity: its aliases, the facts in and out, and the episodes that mention it."""
    from biocortex_cli.facts.entities import entity_page
    from biocortex_cli.facts.render import entity_text

    page = entity_page(state.vault(), name)
    state.emit_json(page) if json_ else state.out(entity_text(page))
    return 0


def alias(
    name: Annotated[str, typer.Argument(help="Entity name (or an alias of it).")],
    alias_: Annotated[str, typer.Argument(metavar="ALIAS", help="Another name for it, e.g. p53 for TP53.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the entity's aliases as JSON.")] = False,
) -> int:
    """Add an alias to an entity note (Obsidian `aliases:`); facts and recall resolve it."""
    from biocortex_cli.facts.notes import add_alias

    vault = state.vault()
    canonical, aliases = add_alias(vault, name, alias_, vault.author(state.OPTIONS.author))
    state.emit_json({"name": canonical, "aliases": aliases}) if json_ else state.out(
        f"{canonical}: {', '.join(aliases)}")
    return 0
