"""What goes into a prompt, through the library API: ``recall``, ``context``, ``feedback``,
``compress`` (working memory) and ``evaluate`` (recall's quality on a labelled set).

Options left out (None) come from the vault's config (``episodic``, ``context``); what each
returns has an ``as_json()`` that is the JSON of ``biocortex recall|context|feedback --json``
(docs/json.md) and of the MCP tools of the same names.
"""


import json

from biocortex_cli.api.checks import UNIT, Bounds, Choice, checked, repairs_index

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from biocortex_cli.compress.engine import CompressResult
    from biocortex_cli.context import ContextResult
    from biocortex_cli.evaluate.run import EvalReport
    from biocortex_cli.recall.engine import RecallResult
    from biocortex_cli.store.feedback import FeedbackRetraction, FeedbackWrite
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

OUTCOME = Choice(("success", "failure"))


class Recalled:
    """A recall's result; ``explain``: the JSON carries each hit's matched terms and the query's terms.
    A plain class: a NamedTuple field typed with a name imported only for type checking would
    be compiled at import (``typing.ForwardRef``), the first compile of a process costs ~10 M
    instructions (docs/performance.md, "Fourth round")."""

    __slots__ = ("explain", "result")

    def __init__(self, result: "RecallResult", explain: bool) -> None:
        self.result, self.explain = result, explain

    def as_json(self) -> "dict[str, Any]":
        return self.result.as_json(self.explain)


@checked(top_k=Bounds(1, example=5), budget=Bounds(1, example=2000), min_relevance=UNIT)
@repairs_index()
def recall(vault: "Vault", *, query: str, top_k: int | None = None, budget: int | None = None,
           min_relevance: float | None = None, domain: str | None = None, success_only: bool = False,
           include_archived: bool = False, explain: bool = False, compact: bool = False) -> Recalled:
    """The past analyses (and promoted lessons and facts) relevant to ``query``, within a token
    budget; the index is refreshed first. The recall is logged for ``feedback``. ``compact``
    prints each past analysis without its note's path (else the config's ``episodic.compact``)."""
    from biocortex_cli.recall.service import options_from_config, recall_vault

    opts = options_from_config(vault, query, top_k=top_k, budget=budget, min_relevance=min_relevance,
                               domain=domain, success_only=success_only or None,
                               include_archived=include_archived, explain=explain, compact=compact or None)
    return Recalled(recall_vault(vault, opts), explain)


@checked(budget=Bounds(1, example=4000))
@repairs_index()
def context(vault: "Vault", *, query: str, budget: int | None = None,
            conversation: "str | list[Any] | dict[str, Any] | None" = None, conversation_path: str | None = None,
            where: str = "<conversation>") -> "ContextResult":
    """One token budget for a planner prompt: the conversation so far (compressed into its
    share), promoted lessons, past analyses and facts. The conversation is given inline (text in
    any format ``compress`` reads, or its messages as a list or ``{"messages": [...]}``; ``where``
    names it in messages) or as ``conversation_path``, a file inside the vault — never another file."""
    from biocortex_cli.context import build_context
    from biocortex_cli.errors import UsageError

    if conversation is not None and conversation_path is not None:
        raise UsageError("give the conversation inline or as a file inside the vault, not both")
    if conversation_path is not None:
        conversation, where = vault_text(vault, conversation_path)
    elif conversation is not None and not isinstance(conversation, str):
        conversation = json.dumps(conversation, ensure_ascii=False)
    return build_context(vault, query, budget=budget, conversation=conversation, conversation_path=where)


def vault_text(vault: "Vault", path: str) -> tuple[str, str]:
    """The text of a file inside the vault (a path relative to it, or absolute inside it) and its
    relative path. Refused: anything that resolves outside the vault (``..``, a link), and hidden
    files and folders (``.git``, ``.biocortex``), which hold no memory."""
    import os

    from biocortex_cli.compress.service import decode
    from biocortex_cli.errors import NotFoundError, UsageError
    from biocortex_cli.store.files import read_capped

    root = os.path.realpath(vault.root)
    real = os.path.realpath(os.path.join(root, os.path.expanduser(path)))
    rel = os.path.relpath(real, root)
    if rel == "." or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        raise UsageError(f"{path} is not a file inside the vault", hint="pass the conversation inline, or save "
                                                                        "it inside the vault and give its path")
    if any(part.startswith(".") for part in rel.split(os.sep)):
        raise UsageError(f"{path} is in a hidden folder or file of the vault", hint="hidden files hold no memory")
    try:
        with open(real, "rb") as fh:
            return decode(read_capped(fh, rel), rel), rel
    except FileNotFoundError:
        raise NotFoundError(f"no such file in the vault: {rel}") from None
    except IsADirectoryError:
        raise UsageError(f"{rel} is a folder, not a conversation file") from None


@checked(outcome=OUTCOME)
@repairs_index(writes=True)
def feedback(vault: "Vault", *, recall_id: str, outcome: str, helpful: "Sequence[str]" = (),
             unhelpful: "Sequence[str]" = (), note: str = "", author: "Author") -> "FeedbackWrite":
    """How a recall went: its id, the outcome of the task it served and the episodes or lessons
    that helped or misled; later recalls rank helpful memory higher (docs/learning.md)."""
    from biocortex_cli.store.feedback import record_feedback

    return record_feedback(vault, recall_id=recall_id, outcome=outcome, helpful=helpful, unhelpful=unhelpful,
                           note=note, author=author)


@repairs_index(writes=True)
def retract_feedback(vault: "Vault", *, recall_id: str, note: str = "", author: "Author") -> "FeedbackRetraction":
    """Undo the feedback given on a recall: one line naming the records it withdraws, in one
    commit; they stop counting (utility, vocabulary suggestions) and stay in their files."""
    from biocortex_cli.store.feedback import retract_feedback as retract

    return retract(vault, recall_id=recall_id, note=note, author=author)


@checked(budget=Bounds(-1, example=4000), keep_recent=Bounds(0), timeout=Bounds(0.1))  # -1: auto
def compress(*, raw: bytes, path: str = "<stdin>", budget: int | None = None, model: str | None = None,
             keep_recent: int | None = None, summarizer: str | None = None, timeout: float | None = None,
             vault: str | None = None) -> "CompressResult":
    """A conversation (its bytes; ``path`` names it) fitted into a token budget (``budget``, else 60%
    of ``model``'s context, else the config's ``working_memory``; ``budget=-1`` is 60% of the configured
    model's context, clamped to 16K-600K): system and latest messages
    verbatim, the oldest summarised. ``vault`` names the vault whose settings apply (default: the
    one found from the working folder, else the defaults)."""
    from biocortex_cli.compress.service import compress_input
    from biocortex_cli.compress.summarize import DEFAULT_TIMEOUT

    return compress_input(raw=raw, path=path, budget=budget, model=model, keep_recent=keep_recent,
                          summarizer=summarizer, timeout=DEFAULT_TIMEOUT if timeout is None else timeout, vault=vault)


@checked(k=Bounds(1, example=10), relevance_level=Bounds(1))
def evaluate(*, dataset: "Path", k: int = 10, relevance_level: int = 1, config: "Path | None" = None) -> "EvalReport":
    """Recall quality on a BEIR-style set (R@k, Hit@k, NDCG, MRR) beside a BM25 baseline; its
    phases are reported as progress (biocortex_cli/progress.py)."""
    from biocortex_cli.evaluate.run import evaluate as run

    return run(dataset, k=k, relevance_level=relevance_level, config=config)
