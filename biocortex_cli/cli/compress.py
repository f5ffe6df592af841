"""``biocortex compress``: a conversation in, a shorter one that fits a token budget out."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def compress(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The conversation (JSON array, {\"messages\": [...]} or JSON Lines); - or nothing reads stdin.")] = "-",
    budget: Annotated[int | None, typer.Option("--budget", metavar="N", help="Token budget of the printed conversation, 1 or more; -1 = auto, 60% of working_memory.model's context clamped to 16K-600K (config: working_memory.max_tokens).")] = None,
    model: Annotated[str | None, typer.Option("--model", metavar="NAME", help="Budget = 60% of this model's input context, clamped to 16K-600K (config: working_memory.model).")] = None,
    keep_recent: Annotated[int | None, typer.Option("--keep-recent", metavar="N", help="Keep exactly the N latest messages verbatim, whole tool calls included (default: as many as fit).")] = None,
    summarizer: Annotated[str | None, typer.Option("--summarizer", metavar="CMD", help="Summarise with this command (portion on stdin, summary on stdout); falls back to the built-in summary.")] = None,
    summarizer_timeout: Annotated[float, typer.Option("--summarizer-timeout", metavar="SECONDS", help="Give up on the --summarizer command after this long, per call (0.1 or more).")] = 120.0,
    json_: Annotated[bool, typer.Option("--json", help="Print a JSON report with the output under \"output\".")] = False,
) -> int:
    """Fit a conversation into a token budget: system and latest messages verbatim, the oldest summarised."""
    from biocortex_cli.api.recall import compress as compress_conversation
    from biocortex_cli.compress.service import read_input

    stdin = sys.stdin
    raw, path = read_input(file, stdin.buffer, file == "-" and stdin.isatty())
    result = compress_conversation(raw=raw, path=path, budget=budget, model=model, keep_recent=keep_recent,
                            summarizer=summarizer, timeout=summarizer_timeout, vault=state.OPTIONS.vault)
    for warning in result.warnings:
        state.info(warning)
    if json_:
        state.emit_json(result.as_json())
    else:
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:
            sys.stdout.write(result.output)
        else:  # byte for byte, whatever the locale's encoding
            sys.stdout.flush()
            buffer.write(result.output.encode("utf-8"))
            buffer.flush()
    state.info(result.report_line())
    return 0
