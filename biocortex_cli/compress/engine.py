"""The compress algorithm: keep the system messages and the latest messages verbatim, replace the
oldest portion with a summary, and never exceed the token budget.

Counting (the same for every format). A conversation costs ``PRIMING`` (3) tokens, plus its fixed
context (an ``{"messages": ...}`` wrapper's ``system``, ``tools``, ``functions``), plus for each
message ``PER_MESSAGE`` (3) tokens, 1 more if it has a ``name``, and the tokens of each of its
values: strings as they are, anything else (content blocks, tool calls) as compact JSON. This is
OpenAI's documented recipe for chat messages (``num_tokens_from_messages`` in the OpenAI
cookbook), applied to Anthropic blocks too; counting block JSON over-counts a little, never under.

Steps:

1. Messages are counted from the end until the budget is exceeded. If the whole conversation
   fits, it is returned unchanged, byte for byte. Otherwise the older messages are counted in a
   background thread while their summary is written (tiktoken releases the GIL).
2. Fixed part: priming + wrapper context + every system/developer message (kept wherever they are).
3. Messages are grouped so that a tool call and its results are never separated.
4. Recent part: with ``keep_recent=N``, the shortest run of whole groups at the end holding at
   least N messages; otherwise whole groups from the end while they fit next to a summary
   reservation (a quarter of what is left, between ``MIN_SUMMARY_TOKENS`` and
   ``MAX_SUMMARY_TOKENS``). The latest group is always kept: if it cannot fit, that is an error,
   not a silent loss of the agent's latest turn.
5. Everything before the recent part (except system messages) is the compressed portion; its
   summary gets every token the fixed and recent parts leave, and becomes one ``user`` message
   placed after the system messages and before the recent part.
6. Without ``keep_recent``: the group just before the recent part did not fit whole. The built-in
   summary is written without it first; if that leaves room for the group's smallest excerpt,
   the group is kept after the summary in the room left, its long texts cut to a head and a tail
   (``excerpt.py``); else the summary covers it as in 5. The budget is not left empty next to a
   short summary.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biocortex_cli.compress.excerpt import Excerpt, GroupCut
from biocortex_cli.compress.formats import PER_MESSAGE, Conversation, Message, context_texts, groups, message_costs
from biocortex_cli.compress.models import Budget
from biocortex_cli.compress.summarize import DEFAULT_TIMEOUT, MIN_SUMMARY_TOKENS, earlier_summary, summarize
from biocortex_cli.errors import BudgetTooSmall

if TYPE_CHECKING:
    from biocortex_cli.tokens import TokenCounter

PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>
SUMMARY_ROLE = "user"
MAX_SUMMARY_TOKENS = 8192
SUMMARY_SHARE = 0.25


@dataclass(frozen=True)
class CompressResult:
    """What ``compress`` printed and why. ``output`` is the exact text for stdout."""

    output: str
    changed: bool
    format: str
    encoding: str
    budget: Budget
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    compressed: tuple[int, ...] = ()  # message numbers (1-based) summarised
    compressed_tokens: int = 0
    kept_system: tuple[int, ...] = ()
    kept_recent: tuple[int, ...] = ()
    kept_cut: tuple[int, ...] = ()  # kept with their texts cut to a head and a tail
    summary_tokens: int = 0
    levels: int = 0
    summarizer: str | None = None
    warnings: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        compressed = None
        if self.compressed:
            compressed = {"first": self.compressed[0], "last": self.compressed[-1],
                          "messages": len(self.compressed), "tokens": self.compressed_tokens}
        summary = None
        if self.changed:
            summary = {"tokens": self.summary_tokens, "levels": self.levels, "summarizer": self.summarizer}
        return {
            "format": self.format, "encoding": self.encoding,
            "budget": self.budget.tokens, "budget_source": self.budget.source,
            "model": self.budget.model, "model_context": self.budget.context,
            "tokens_before": self.tokens_before, "tokens": self.tokens_after, "changed": self.changed,
            "messages_before": self.messages_before, "messages": self.messages_after,
            "compressed": compressed, "summary": summary,
            "kept": {"system": list(self.kept_system), "recent": list(self.kept_recent),
                     "cut": list(self.kept_cut)},
            "warnings": list(self.warnings),
            "output": self.output,
        }

    def report_line(self) -> str:
        where = f"budget {self.budget.tokens:,} from {self.budget.source}; {self.encoding}"
        if not self.changed:
            return (f"biocortex: compress: {self.tokens_before:,} tokens fit ({where}); "
                    "printed unchanged")
        first, last = self.compressed[0], self.compressed[-1]
        cut = f"; {_span(self.kept_cut)} kept cut to its head and tail" if self.kept_cut else ""
        return (f"biocortex: compress: {self.tokens_before:,} → {self.tokens_after:,} tokens ({where}); "
                f"messages {first}–{last} summarised in {self.summary_tokens:,} tokens (level {self.levels}, "
                f"{self.summarizer}); {len(self.kept_recent)} recent and {len(self.kept_system)} system "
                f"messages kept verbatim{cut}")


def summary_message(text: str) -> dict[str, Any]:
    return {"role": SUMMARY_ROLE, "content": text}


def conversation_tokens(conv: Conversation, counter: TokenCounter) -> int:
    """The tokens a whole conversation costs (how ``compress`` counts its output)."""
    return PRIMING + sum(counter.count_many(context_texts(conv))) + sum(message_costs(conv.messages, counter))


def _span(numbers: Sequence[int]) -> str:
    return f"message {numbers[0]}" if len(numbers) == 1 else f"messages {numbers[0]}–{numbers[-1]}"


class _Background:
    """Runs ``work`` in a thread. Counting is tiktoken's Rust code, which releases the GIL, so the
    oldest messages are counted on the second core while the summary of them is written."""

    def __init__(self, work: Callable[[], None]) -> None:
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], None]) -> None:
        try:
            work()
        except BaseException as exc:  # re-raised in the caller's thread by wait()
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


def compress(conv: Conversation, *, budget: Budget, counter: TokenCounter, keep_recent: int | None = None,
             summarizer: str | None = None, timeout: float = DEFAULT_TIMEOUT,
             path: str = "<stdin>") -> CompressResult:
    """Fit ``conv`` into ``budget`` tokens (see the module docstring)."""
    limit = budget.tokens
    messages = conv.messages
    costs = [0] * len(messages)
    known = [False] * len(messages)

    def count(numbers: list[int]) -> None:
        for n, cost in zip(numbers, message_costs([messages[n] for n in numbers], counter), strict=True):
            costs[n], known[n] = cost, True

    pinned = [n for n, m in enumerate(messages) if m.is_system]
    count(pinned)
    context = PRIMING + sum(counter.count_many(context_texts(conv)))
    fixed = context + sum(costs[n] for n in pinned)
    # Count whole groups from the end until they exceed the budget; the recent part lies in them.
    ranges = list(groups(messages))
    counted, running, step = len(ranges), fixed, 16
    while counted > 0 and running <= limit:
        low = max(0, counted - step)
        todo = [n for a, b in ranges[low:counted] for n in range(a, b) if not known[n]]
        count(todo)
        running += sum(costs[n] for n in todo)
        counted, step = low, step * 2
    if counted == 0 and running <= limit:
        return CompressResult(conv.text, False, conv.format_name, counter.encoding, budget, running, running,
                              len(messages), len(messages))

    overhead = PER_MESSAGE + counter.count(SUMMARY_ROLE)
    hint = "raise --budget, or pick a model with a larger context (--model)"
    if fixed > limit:
        what = "the system messages" if pinned else "the fixed part of the conversation"
        if conv.context:
            what += " and the top-level system prompt/tools"
        raise BudgetTooSmall(f"{what} alone take {fixed:,} tokens, more than the budget of {limit:,}",
                             path=path, hint=f"{hint}; system messages are never compressed")
    if fixed + overhead + MIN_SUMMARY_TOKENS > limit:
        need = fixed + overhead + MIN_SUMMARY_TOKENS
        raise BudgetTooSmall(f"the budget of {limit:,} tokens is below the minimum that can hold a summary: "
                             f"{need:,} (system messages and overhead {fixed:,}, a summary at least "
                             f"{overhead + MIN_SUMMARY_TOKENS})", path=path, hint=hint)

    rest = [n for a, b in ranges[:counted] for n in range(a, b) if not known[n]]
    background = _Background(lambda: count(rest))
    room = limit - fixed - overhead  # for the summary and the recent part
    if keep_recent is not None and keep_recent >= 0:
        background.wait()  # the N latest messages may reach into what is still being counted
        cost_of = [sum(costs[n] for n in range(a, b) if not messages[n].is_system) for a, b in ranges]
        start_group, recent_cost = _fixed_recent(messages, ranges, cost_of, keep_recent, room, path)
        plan: tuple[GroupCut, int] | None = None
    else:  # groups not counted yet cannot fit: the counted ones already exceed the budget
        cost_of = [sum(costs[n] for n in range(a, b) if not messages[n].is_system) if g >= counted else limit + 1
                   for g, (a, b) in enumerate(ranges)]
        start_group, recent_cost = _fitting_recent(messages, ranges, cost_of, room, limit - room, path)
        plan = _excerpt_plan(messages, ranges, start_group, room - recent_cost, costs, count, counter)
    start = ranges[start_group][0] if start_group < len(ranges) else len(messages)
    old = [m for m in messages[:start] if not m.is_system]
    summary_budget = room - recent_cost

    def old_tokens() -> int:
        background.wait()
        return sum(costs[m.index - 1] for m in old)

    def covered_tokens(n: int) -> int:
        """What the first ``n`` messages of the portion stood for before any compression: an
        earlier summary counts as the tokens its header says the messages it replaced had."""
        background.wait()
        return sum(covered.tokens if (covered := earlier_summary(m)) and covered.tokens is not None
                   else costs[m.index - 1] for m in old[:n])

    summary = summarize(old, budget=summary_budget, tokens=covered_tokens, counter=counter, command=summarizer,
                        timeout=timeout, later=messages[start:], spare=len(plan[0].group) if plan else 0,
                        spare_tokens=plan[1] if plan else 0)
    cut_from = old[-summary.left_out].index - 1 if summary.left_out else start
    old = old[: len(old) - summary.left_out]
    background.wait()
    total = context + sum(costs)
    text = summary.text
    summary_cost = message_costs([Message(0, 0, "", summary_message(text))], counter)[0]
    if fixed + recent_cost + summary_cost > limit:  # cannot happen; kept as the budget's guarantee
        text = counter.truncate(text, max(0, summary_budget))
        summary_cost = message_costs([Message(0, 0, "", summary_message(text))], counter)[0]
    cut = Excerpt((), 0, ())
    if plan and summary.left_out:  # the group before the recent part, in what the summary left (it fits)
        found = plan[0].fit(limit - fixed - recent_cost - summary_cost)
        assert found is not None, "the smallest excerpt was measured to fit"
        cut = found
    kept_before = [m for m in messages[:cut_from] if m.is_system]
    output = conv.render([*(m.raw for m in kept_before), summary_message(text), *cut.parts,
                          *(m.raw for m in messages[start:])])
    after = fixed + recent_cost + summary_cost + cut.cost
    assert after <= limit, (after, limit)
    return CompressResult(
        output, True, conv.format_name, counter.encoding, budget, total, after, len(messages),
        len(kept_before) + 1 + len(messages) - cut_from,
        compressed=tuple(m.index for m in old), compressed_tokens=old_tokens(),
        kept_system=tuple(messages[n].index for n in pinned),
        kept_recent=tuple(m.index for m in messages[cut_from:] if not m.is_system and m.index not in cut.cut),
        kept_cut=cut.cut, summary_tokens=counter.count(text), levels=summary.levels,
        summarizer=summary.summarizer, warnings=summary.warnings)


def _excerpt_plan(messages: Sequence[Message], ranges: list[tuple[int, int]], start_group: int, free: int,
                  costs: list[int], count: Callable[[list[int]], None], counter: TokenCounter,
                  ) -> tuple[GroupCut, int] | None:
    """The group before the recent part did not fit whole beside the summary's reservation: the
    group, and what its smallest excerpt (its long texts cut) costs, if that is worth trying.
    The summary leaves the group out only when, without it, the summary leaves that much of its
    room unused; the group is then kept in that room, cut, instead of only summarised."""
    if start_group == 0:
        return None
    a, b = ranges[start_group - 1]
    group = messages[a:b]
    if any(m.is_system for m in group) or all(m.is_system for m in messages[:a]):  # nothing left to summarise
        return None
    count([n for n in range(a, b) if not costs[n]])  # counted already, unless the budget is tiny
    cut = GroupCut(group, counter, sum(costs[a:b]))
    least = cut.smallest()
    if least is None or free - least.cost < MIN_SUMMARY_TOKENS:
        return None
    return cut, least.cost


def _fixed_recent(messages: Sequence[Message], ranges: list[tuple[int, int]], cost_of: list[int], keep: int,
                  room: int, path: str) -> tuple[int, int]:
    """``--keep-recent N``: the shortest run of whole groups at the end with at least N messages."""
    start, count, cost = len(ranges), 0, 0
    while start > 0 and count < keep:
        start -= 1
        a, b = ranges[start]
        count += sum(1 for n in range(a, b) if not messages[n].is_system)
        cost += cost_of[start]
    if not any(not m.is_system for m in messages[: ranges[start][0] if start < len(ranges) else len(messages)]):
        raise BudgetTooSmall(f"--keep-recent {keep} keeps every message, and they do not fit the budget",
                             path=path, hint="lower --keep-recent (or working_memory.keep_recent), or raise --budget")
    if cost + MIN_SUMMARY_TOKENS > room:
        numbers = [messages[n].index for n in range(ranges[start][0], len(messages))]
        raise BudgetTooSmall(f"the {count} most recent messages ({_span(numbers)}) take {cost:,} tokens, "
                             "leaving no room for a summary within the budget", path=path,
                             hint="lower --keep-recent (or working_memory.keep_recent), or raise --budget")
    return start, cost


def _fitting_recent(messages: Sequence[Message], ranges: list[tuple[int, int]], cost_of: list[int], room: int,
                    fixed: int, path: str) -> tuple[int, int]:
    """As many whole groups from the end as fit beside the summary reservation (at least one)."""
    last = len(ranges) - 1
    while last >= 0 and cost_of[last] == 0:  # trailing system messages: already in the fixed part
        last -= 1
    if last < 0:
        raise BudgetTooSmall("the conversation has only system messages, and they do not fit the budget",
                             path=path, hint="raise --budget")
    if cost_of[last] + MIN_SUMMARY_TOKENS > room:
        numbers = [messages[n].index for n in range(ranges[last][0], ranges[last][1])]
        raise BudgetTooSmall(
            f"the most recent {_span(numbers)} take{'s' if len(numbers) == 1 else ''} {cost_of[last]:,} tokens: "
            f"with the system messages and a minimal summary that is more than the budget of {fixed + room:,}",
            path=path, hint="the latest messages are never summarised; raise --budget to at least "
                            f"{fixed + cost_of[last] + MIN_SUMMARY_TOKENS:,}")
    reserve = min(MAX_SUMMARY_TOKENS, max(MIN_SUMMARY_TOKENS, int(room * SUMMARY_SHARE)))
    reserve = min(reserve, room - cost_of[last])
    start, cost = len(ranges), 0
    while start > 0 and cost + cost_of[start - 1] <= room - reserve:
        start -= 1
        cost += cost_of[start]
    return start, cost
