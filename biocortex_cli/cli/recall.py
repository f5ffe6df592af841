"""``biocortex recall``: a hot command (agents call it constantly), also served by cli/fast.py."""

from __future__ import annotations

from biocortex_cli.cli import state

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # annotations are strings, evaluated by typer only when the app is built (cli/app.py
    from typing import Annotated  # gives this module both names)

    import typer


def recall(
    query: Annotated[str, typer.Argument(help="The question, in your own words.")],
    top_k: Annotated[int | None, typer.Option("--top-k", help="At most this many past analyses (1 or more; config: episodic.top_k).")] = None,
    budget: Annotated[int | None, typer.Option("--budget", help="Token budget of the printed context (config: episodic.token_budget).")] = None,
    min_relevance: Annotated[float | None, typer.Option("--min-relevance", help="Drop hits scoring below this, 0-1 (config: episodic.min_relevance).")] = None,
    domain: Annotated[str | None, typer.Option("--domain", help="Only past analyses in this domain, e.g. scRNA-seq.")] = None,
    success_only: Annotated[bool, typer.Option("--success-only", help="Only successful analyses (config: episodic.success_only).")] = False,
    include_archived: Annotated[bool, typer.Option("--include-archived", help="Also search archived (forgotten) memory.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Show each hit's signal scores and matched terms (on stderr, or in --json).")] = False,
    compact: Annotated[bool, typer.Option("--compact", help="Print each past analysis without its note's path; its id finds it (config: episodic.compact).")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the result as JSON (docs/json.md, recall).")] = False,
) -> int:
    """Recall the past analyses relevant to QUERY, within a token budget, for a planner prompt."""
    from biocortex_cli.api.recall import recall as recall_memory
    from biocortex_cli.render.recall import explain_text

    recalled = recall_memory(state.vault(), query=query, top_k=top_k, budget=budget, min_relevance=min_relevance,
                             domain=domain, success_only=success_only, include_archived=include_archived,
                             explain=explain, compact=compact)
    result = recalled.result
    if result.reason:
        state.info(f"biocortex: no results: {result.reason}")
    if json_:
        state.emit_json(recalled.as_json())
    else:
        state.write(result.context)  # byte for byte the JSON's "context" (but on a terminal)
        if explain:
            state.info(explain_text(result))
    return 0
