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
    from biocortex_cli.errors import NotFoundError
    from biocortex_cli.store.vault import find_vault, template_dir

    try:
        path = find_vault(state.OPTIONS.vault).root / "AGENTS.md"
        if not path.is_file():  # a vault made before the guide existed
            path = template_dir() / "AGENTS.md"
    except NotFoundError:
        path = template_dir() / "AGENTS.md"
    text = path.read_text(encoding="utf-8")
    if json_:
        from biocortex_cli.tokens import get_counter

        state.emit_json({"path": str(path), "tokens": get_counter().count(text), "text": text})
    else:
        state.out(text)
    return 0
