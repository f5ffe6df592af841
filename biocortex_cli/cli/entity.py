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
    from biocortex_cli.api.facts import entity_show
    from biocortex_cli.facts.render import entity_text

    page = entity_show(state.vault(), name=name)
    state.emit_json(page.as_json()) if json_ else state.out(entity_text(page.page))
    return 0


def alias(
    name: Annotated[str, typer.Argument(help="Entity name (or an alias of it).")],
    alias_: Annotated[str, typer.Argument(metavar="ALIAS", help="Another name for it, e.g. p53 for TP53.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the entity's aliases as JSON.")] = False,
) -> int:
    """Add an alias to an entity note (Obsidian `aliases:`); facts and recall resolve it."""
    from biocortex_cli.api.facts import entity_alias

    vault = state.vault()
    result = entity_alias(vault, name=name, alias=alias_, author=state.author(vault))
    state.emit_json(result.as_json()) if json_ else state.out(f"{result.name}: {', '.join(result.aliases)}")
    return 0
