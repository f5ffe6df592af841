"""``biocortex feedback``: how a recall went, for utility in ranking (docs/learning.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def feedback(
    recall_id: Annotated[str, typer.Argument(metavar="RECALL_ID", help="The recall's id (in its header, or recall_id in --json).")],
    outcome: Annotated[str, typer.Option("--outcome", metavar="OUTCOME", help="Whether the task the recall served succeeded: success or failure.")],
    helpful: Annotated[list[str] | None, typer.Option("--helpful", metavar="ID", help="An episode or lesson that helped (repeatable).")] = None,
    unhelpful: Annotated[list[str] | None, typer.Option("--unhelpful", metavar="ID", help="An episode or lesson that misled or did not help (repeatable).")] = None,
    note: Annotated[str, typer.Option("--note", help="A sentence on why, kept in the record.")] = "",
    json_: Annotated[bool, typer.Option("--json", help="Print the recorded feedback as JSON.")] = False,
) -> int:
    """Record the outcome of a recall and which memories helped; one commit, merges without conflicts."""
    from biocortex_cli.api.recall import feedback as record_feedback

    vault = state.vault()
    done = record_feedback(vault, recall_id=recall_id, outcome=outcome, helpful=helpful or (),
                           unhelpful=unhelpful or (), note=note, author=state.author(vault))
    if not done.recall_known:
        state.info(f"biocortex: warning: {recall_id} is not in this clone's recall log; "
                   "only the ids named with --helpful/--unhelpful count")
    if not done.recorded:
        state.info(f"biocortex: this feedback is already recorded in {done.path}; nothing new was written")
    state.emit_json(done.as_json()) if json_ else state.out(done.path)
    return 0
