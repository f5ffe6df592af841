"""``biocortex context``: working memory, past analyses and facts in one token budget."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:  # annotations are strings, evaluated by typer only when the app is built
    import typer


def context(
    query: Annotated[str, typer.Argument(help="The task or question the planner is working on.")],
    conversation: Annotated[str | None, typer.Option("--conversation", metavar="FILE", help="The conversation so far (any format `compress` reads; - for stdin), compressed into its share.")] = None,
    budget: Annotated[int | None, typer.Option("--budget", metavar="N", help="Token budget of the whole printed context (config: context.budget).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the result as JSON, with each part and its tokens (docs/json.md, context).")] = False,
) -> int:
    """Fill one token budget for a planner prompt: compressed conversation, past analyses, facts."""
    from biocortex_cli.api.recall import context as fill_context
    from biocortex_cli.compress.service import decode, read_input

    text, path = None, "<conversation>"
    if conversation is not None:
        stdin = sys.stdin
        raw, path = read_input(conversation, stdin.buffer, conversation == "-" and stdin.isatty())
        text = decode(raw, path)
    result = fill_context(state.vault(), query=query, budget=budget, conversation=text, where=path)
    if result.reason and not result.injected:
        state.info(f"biocortex: no {'past analyses' if result.parts else 'context'}: {result.reason}")
    if json_:
        state.emit_json(result.as_json())
    else:
        state.write(result.context)  # byte for byte the JSON's "context" (but on a terminal)
    return 0
