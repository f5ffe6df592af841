"""``biocortex guide``: the agent guide (AGENTS.md), under 600 tokens, for a system prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def guide(
    json_: Annotated[bool, typer.Option("--json", help="Print {path, tokens, text} as JSON.")] = False,
) -> int:
    """Print the guide that tells an agent when to recall, record and verify (AGENTS.md)."""
    from biocortex_cli.api.vault import guide as agent_guide
    from biocortex_cli.errors import NotFoundError
    from biocortex_cli.store.vault import find_vault

    try:
        vault = find_vault(state.OPTIONS.vault)
    except NotFoundError:
        vault = None
    found = agent_guide(vault)
    state.emit_json(found.as_json()) if json_ else state.out(found.text)
    return 0
