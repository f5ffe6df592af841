"""``context``: one token budget filled for a planner prompt, in documented sections.

1. ``## Working memory`` (only when a conversation is given): the conversation, compressed by
   :mod:`biocortex_cli.compress` when it does not fit, printed as compress prints it, in a fence.
2. ``## Lessons that apply`` (promoted lesson notes relevant to the query, at most
   ``lessons_share`` of recall's part), ``## Relevant past analyses`` and ``## Known facts about
   the entities in the question``: exactly what ``recall`` prints for the query.

How the budget is split (config ``context``): the conversation may take ``conversation_share``
of it and recall the rest. Recall runs first, with its share plus whatever the conversation does
not need (its full size is counted up front); the conversation then gets everything recall left
unused. So a share one part leaves unused flows to the other.

The whole context is counted once more, exactly, with the vault's encoding; if joining the
sections ever made it exceed the budget, the parts are rebuilt for a budget smaller by the
excess. ``tokens <= budget`` always holds, or a :class:`BudgetTooSmall` (exit 2, code
``budget_too_small``) says that nothing fits — as ``recall`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import BiocortexError, BudgetTooSmall, DataError, UsageError
from biocortex_cli.render.recall import WORKING_MEMORY, RecallPart
from biocortex_cli.store.config import CONFIG_REL

if TYPE_CHECKING:
    from biocortex_cli.compress.formats import Conversation
    from biocortex_cli.recall.engine import RecallResult
    from biocortex_cli.store.config import ContextConfig
    from biocortex_cli.store.vault import Vault
    from biocortex_cli.tokens import TokenCounter

SEPARATOR = "\n"  # between sections (each section ends with its own newline): one blank line


@dataclass(frozen=True)
class ContextResult:
    query: str
    vault_commit: str | None
    budget: int
    tokens: int
    encoding: str
    parts: tuple[RecallPart, ...]  # each counted alone, exactly
    context: str
    reason: str = ""  # why no past analysis is in it (stderr, and the JSON: MCP has no stderr)
    recall_id: str | None = None  # the id of the recall inside (docs/learning.md)
    injected: tuple[str, ...] = ()  # the episodes that recall put in the context

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query, "recall_id": self.recall_id, "vault_commit": self.vault_commit,
                               "budget": self.budget, "tokens": self.tokens, "encoding": self.encoding,
                               "parts": [p.as_json() for p in self.parts], "context": self.context}
        if not self.injected and self.reason:  # as recall --json: a key present only then
            out["reason"] = self.reason
        return out


def shares(config: ContextConfig) -> float:
    """The conversation's share of the budget (0-1), from the two relative shares."""
    conv, rec = config.conversation_share, config.recall_share
    if conv < 0 or rec < 0 or conv + rec <= 0:
        raise DataError(f"context.conversation_share ({conv:g}) and context.recall_share ({rec:g}) must be "
                        "0 or more, and not both 0", path=CONFIG_REL, hint="e.g. 0.5 and 0.5")
    return conv / (conv + rec)


def working_memory_text(conversation: str, changed: bool) -> str:
    title = "## Working memory (compressed)" if changed else "## Working memory"
    return f"{title}\n\n```json\n{conversation.rstrip(chr(10))}\n```\n"


def build_context(vault: Vault, query: str, *, budget: int | None = None, conversation: str | None = None,
                  conversation_path: str = "<conversation>") -> ContextResult:
    """Fill ``budget`` tokens (config ``context.budget``) for ``query``; ``conversation`` is the text
    of a chat (any format ``compress`` reads), or None."""
    from biocortex_cli.compress.formats import parse
    from biocortex_cli.tokens import get_counter

    config = vault.config
    budget = config.context.budget if budget is None else budget
    if budget < 1:
        raise UsageError(f"--budget must be a positive number of tokens, not {budget}", hint="e.g. --budget 4000")
    if not query.strip():
        raise UsageError("the query is empty", hint='ask a question, e.g. biocortex context "doublets in 10x multiome"')
    share = shares(config.context)
    counter = get_counter(config.tokenizer.encoding)
    conv = parse(conversation, conversation_path) if conversation is not None else None
    if conv is not None and not conv.messages and not conv.context:
        conv = None  # nothing said yet: no section (it held only "[]")
    room = budget
    while True:
        result = _assemble(vault, query, room, share, conv, counter, conversation_path)
        if result.tokens <= budget:
            if result.recall_id:
                from biocortex_cli.store.recall_log import log_recall

                log_recall(vault.state_dir, result.recall_id, query, result.vault_commit, result.injected)
            return replace(result, budget=budget)
        room -= result.tokens - budget  # joining sections cost more than their sum: shrink and redo


def _assemble(vault: Vault, query: str, budget: int, share: float, conv: Conversation | None,
              counter: TokenCounter, conv_path: str) -> ContextResult:
    if budget < 1:
        raise BudgetTooSmall("the budget is too small for any section", hint="raise --budget")
    sep = counter.count(SEPARATOR)
    full = working_memory_text(conv.text, changed=False) if conv is not None else ""
    need_conv = counter.count(full) + sep if conv is not None else 0
    recall_room = budget - min(need_conv, int(budget * share))
    recall = (_recall(vault, query, recall_room, vault.config.context.lessons_share)
              if recall_room >= 1 else None)
    parts: list[RecallPart] = []
    recall_tokens = 0
    if recall is not None and recall.context:
        recall_tokens = counter.count(recall.context)
        last = len(recall.parts) - 1
        for i, part in enumerate(recall.parts):
            # a recall part ends with a blank line before the next one: SEPARATOR puts it back
            text = part.text[:-1] if i < last and part.text.endswith("\n\n") else part.text
            parts.append(part._replace(text=text, tokens=counter.count(text)))
    if conv is not None:
        room = budget - recall_tokens - (sep if recall_tokens else 0)
        parts.insert(0, _working_memory(conv, room, counter, conv_path))
    context = SEPARATOR.join(p.text for p in parts)
    reason = recall.reason if recall is not None else "no tokens left for recall"
    if not parts and recall is not None and recall.dropped.get("over_budget"):
        raise BudgetTooSmall(f"the budget of {budget} tokens is too small for any section: {recall.reason}",
                             hint="raise --budget (or context.budget in the config)")
    commit = recall.vault_commit if recall is not None else None
    return ContextResult(query, commit, budget, counter.count(context), counter.encoding, tuple(parts), context, reason,
                         recall_id=recall.recall_id if recall is not None else None,
                         injected=tuple(h.id for h in recall.results) if recall is not None else ())


def _recall(vault: Vault, query: str, budget: int, lessons_share: float) -> RecallResult:
    from biocortex_cli.recall.service import options_from_config, recall_vault

    return recall_vault(vault, options_from_config(vault, query, budget=budget, lessons_share=lessons_share), log=False,
                        require_fit=False)


def _working_memory(conv: Conversation, room: int, counter: TokenCounter, path: str) -> RecallPart:
    """The conversation, whole if it fits ``room`` tokens, else compressed until its section does."""
    from biocortex_cli.compress.engine import compress
    from biocortex_cli.compress.models import Budget

    text = working_memory_text(conv.text, changed=False)
    tokens = counter.count(text)
    if tokens <= room:
        return RecallPart(WORKING_MEMORY, text, tokens, {"changed": False, "messages": len(conv.messages)})
    target = room - (counter.count(working_memory_text("", changed=True)))
    while True:
        try:
            if target < 1:
                raise BiocortexError(f"no room left for it ({room} tokens)", path=path)
            done = compress(conv, budget=Budget(target, "context"), counter=counter, path=path)
        except BiocortexError as exc:
            raise BudgetTooSmall(f"the conversation does not fit its share of the budget: {exc.message}", path=path,
                                 hint="raise --budget, or context.conversation_share in the config") from None
        text = working_memory_text(done.output, changed=done.changed)
        tokens = counter.count(text)
        if tokens <= room:
            detail = {"changed": done.changed, "messages_before": done.messages_before,
                      "messages": done.messages_after, "tokens_before": done.tokens_before,
                      "summarised": len(done.compressed)}
            return RecallPart(WORKING_MEMORY, text, tokens, detail)
        target -= tokens - room  # the printed JSON costs more than the chat count: aim lower
