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
    from biocortex_cli.errors import DataError, NotFoundError
    from biocortex_cli.store.files import read_note_text
    from biocortex_cli.store.vault import find_vault, template_dir

    path = template_dir() / "AGENTS.md"
    text = path.read_text(encoding="utf-8")
    try:
        mine = find_vault(state.OPTIONS.vault).root / "AGENTS.md"
        if mine.exists() or mine.is_symlink():  # else a vault made before the guide existed
            text, path = read_note_text(mine, "AGENTS.md"), mine  # a symbolic link is refused, never followed
    except NotFoundError:
        pass
    except DataError as exc:  # this text goes into an agent's system prompt: never another file's
        state.info(f"biocortex: warning: {exc.location()}{exc.message}; printing the guide biocortex ships")
    if json_:
        from biocortex_cli.tokens import get_counter

        state.emit_json({"path": str(path), "tokens": get_counter().count(text), "text": text})
    else:
        state.out(text)
    return 0
