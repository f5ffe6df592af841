"""``biocortex feedback``: how a recall went, for utility in ranking (docs/learning.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state
from biocortex_cli.progress import plural

if TYPE_CHECKING:
    import typer


def feedback(
    recall_id: Annotated[str, typer.Argument(metavar="RECALL_ID", help="The recall's id (in its header, or recall_id in --json).")],
    outcome: Annotated[str | None, typer.Option("--outcome", metavar="OUTCOME", help="Whether the task the recall served succeeded: success or failure (required unless --retract).")] = None,
    helpful: Annotated[list[str] | None, typer.Option("--helpful", metavar="ID", help="An episode or lesson that helped (repeatable).")] = None,
    unhelpful: Annotated[list[str] | None, typer.Option("--unhelpful", metavar="ID", help="An episode or lesson that misled or did not help (repeatable).")] = None,
    note: Annotated[str, typer.Option("--note", help="A sentence on why, kept in the record.")] = "",
    retract: Annotated[bool, typer.Option("--retract", help="Withdraw the feedback recorded on RECALL_ID (by anyone) instead: it stops counting; its lines stay.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the recorded feedback as JSON.")] = False,
) -> int:
    """Record the outcome of a recall and which memories helped; one commit, merges without conflicts.
    `--retract` undoes a vote (docs/learning.md)."""
    from biocortex_cli.errors import UsageError

    vault = state.vault()
    if retract:
        if outcome is not None or helpful or unhelpful:
            raise UsageError("--retract takes no --outcome, --helpful or --unhelpful",
                             hint=f"retract first (biocortex feedback {recall_id} --retract), then record the "
                                  "right feedback")
        from biocortex_cli.api.recall import retract_feedback

        undone = retract_feedback(vault, recall_id=recall_id, note=note, author=state.author(vault))
        state.info(f"biocortex: retracted {plural(len(undone.withdrawn), 'feedback record')} on {recall_id}; "
                   "they no longer count (their lines stay in git)")
        state.emit_json(undone.as_json()) if json_ else state.out(undone.path)
        return 0
    if outcome is None:
        raise UsageError("--outcome is required: success or failure",
                         hint=f"e.g. biocortex feedback {recall_id} --outcome success --helpful ID")
    from biocortex_cli.api.recall import feedback as record_feedback

    done = record_feedback(vault, recall_id=recall_id, outcome=outcome, helpful=helpful or (),
                           unhelpful=unhelpful or (), note=note, author=state.author(vault))
    if not done.recall_known:
        state.info(f"biocortex: warning: {recall_id} is not in this clone's recall log; "
                   "only the ids named with --helpful/--unhelpful count")
    if not done.recorded:
        state.info(f"biocortex: this feedback is already recorded in {done.path}; nothing new was written")
    elif not (done.record.injected or done.record.helpful or done.record.unhelpful):
        state.info(f"biocortex: note: {recall_id} injected no memory and none is named, so this record moves no "
                   "ranking; name an analysis that helped with --helpful (`biocortex episode list` finds it)")
    state.emit_json(done.as_json()) if json_ else state.out(done.path)
    return 0
