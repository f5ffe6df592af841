"""``biocortex log``: what changed in memory, as a digest for a reviewer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def log(
    since: Annotated[str, typer.Option("--since", metavar="WHEN|COMMIT",
                                       help="Start of the range: an age (12h, 7d, 2w, 6mo), a date "
                                            "(2026-11-01) or a commit; see 'Dates and ages' in "
                                            "docs/cli.md.")] = "7d",
    json_: Annotated[bool, typer.Option("--json", help="Print the digest as JSON.")] = False,
) -> int:
    """What changed in memory: new episodes, new and retracted facts, contradictions, promoted
    lessons, archived notes and feedback, by author."""
    from biocortex_cli.api.vault import log as digest
    from biocortex_cli.render.history import SHOWN, digest_text

    result = digest(state.vault(), since=since, limit=None if json_ else SHOWN)
    state.emit_json(result.as_json()) if json_ else state.out(digest_text(result))
    return 0
