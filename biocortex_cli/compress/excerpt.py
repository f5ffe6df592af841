"""The messages just before the recent part, cut to fit what the summary leaves.

The recent part is made of whole groups (a tool call with its results). The group before it did
not fit whole; the built-in summary of the older messages is often much shorter than the room it
was given, and that room would be wasted. Instead that group is kept in place with its texts cut:
each text too long to keep whole becomes its head and its tail around a mark that says what was
cut (``[… 1,234 lines (98,765 characters) cut here by biocortex compress …]``). Only texts are cut
(string contents, ``text`` parts and blocks, ``tool_result`` contents); tool calls and their
arguments, ids and images stay as they are, so a tool call keeps its results and every format
stays valid. The excerpt is deterministic: the same input gives the same bytes.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biocortex_cli.compress.formats import Message, message_costs

if TYPE_CHECKING:
    from biocortex_cli.tokens import TokenCounter

#: the head's share of what a cut text keeps (the top of a table, the command's first lines); the
#: tail gets the rest (the totals, the last lines of a log, the error at the end)
HEAD_SHARE = 0.6
#: the least a cut text keeps, mark included: an excerpt smaller than this is not made
MIN_TEXT_TOKENS = 96
#: a cut snaps to a line end when that keeps at least this share of the head (or the tail)
LINE_SNAP = 0.5
MAX_ROUNDS = 8  # fitting rounds: each corrects the estimate by what the last one overran
#: characters a head or tail of n tokens is looked for in (n times this): more than a token ever
#: spans in text, bar long runs of one character (there the excerpt keeps a little less)
CHARS_PER_TOKEN_MAX = 32

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Excerpt:
    """The group as it is printed: each message's exact text (kept whole) or its value with texts
    cut, and what they cost."""

    parts: tuple[str | dict[str, Any], ...]
    cost: int
    cut: tuple[int, ...]  # message numbers (1-based positions) whose texts were cut


def _texts(data: dict[str, Any]) -> Iterator[tuple[Path, str]]:
    """(where, text) of every text a message carries: what may be cut."""
    content = data.get("content")
    if isinstance(content, str):
        yield ("content",), content
        return
    for i, block in enumerate(content if isinstance(content, list) else []):
        if block.get("type") in ("text", "input_text", "output_text") and isinstance(block.get("text"), str):
            yield ("content", i, "text"), block["text"]
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                yield ("content", i, "content"), inner
            elif isinstance(inner, list):
                for j, part in enumerate(inner):
                    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                        yield ("content", i, "content", j, "text"), part["text"]


def _set(data: dict[str, Any], path: Path, text: str) -> None:
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = text


def cut_text(text: str, keep: int, counter: TokenCounter) -> str:
    """``text`` in about ``keep`` tokens: its head and its tail, on line ends where that loses
    little, around a mark saying how much was cut."""
    room = max(0, keep - counter.count(_mark(text, "x" * 12, "")))  # the mark with long numbers
    # only what a head or tail of ``room`` tokens can reach is tokenised, not a 100,000-line table
    reach = room * CHARS_PER_TOKEN_MAX
    head = counter.truncate(text[:reach], int(room * HEAD_SHARE))
    end = head.rfind("\n")
    if end >= LINE_SNAP * len(head):
        head = head[:end]
    rest = text[len(head):]
    tail = counter.tail(rest[-reach:], max(0, room - counter.count(head)))
    start = tail.find("\n")
    if start >= 0 and len(tail) - start - 1 >= LINE_SNAP * len(tail):
        tail = tail[start + 1:]
    return _mark(text, head, tail)


def _mark(text: str, head: str, tail: str) -> str:
    """``head``, the mark for what lies between it and ``tail`` in ``text``, ``tail``."""
    middle = text[len(head): len(text) - len(tail)]
    whole_lines = (not head or middle.startswith("\n")) and (not tail or middle.endswith("\n"))
    lines = middle.count("\n") - (1 if head else 0) - (1 if tail else 0) + 1
    what = f"{lines:,} line{'s' if lines != 1 else ''} ({len(middle):,} characters)" if whole_lines and lines > 0 \
        else f"{len(middle):,} characters"
    return f"{head}\n[… {what} cut here by biocortex compress …]\n{tail}"


def _fill(sizes: Sequence[int], keep: int) -> list[int]:
    """Tokens each text may keep so that they keep ``keep`` in all: the short ones whole, the
    long ones an equal share of the rest."""
    allowed = list(sizes)
    order = sorted(range(len(sizes)), key=lambda n: sizes[n])
    left = keep
    for rank, n in enumerate(order):
        share = left // (len(order) - rank)
        allowed[n] = min(sizes[n], max(0, share))
        left -= allowed[n]
    return allowed


class GroupCut:
    """The group before the recent part, its texts and what they cost (``whole``: the group's
    tokens, as the caller counted them), and the excerpts that can be made of it."""

    def __init__(self, group: Sequence[Message], counter: TokenCounter, whole: int) -> None:
        self.group = group
        self.counter = counter
        self.texts = [(n, path, text) for n, m in enumerate(group) for path, text in _texts(m.data)]
        self.sizes = counter.count_many([text for _, _, text in self.texts])
        self.whole = whole
        #: what the group costs with every text emptied, and what a text's token costs in the group
        #: (more than one where the text sits in JSON: a content block's \n and \t are escaped)
        self.base = self._cost(self._values([""] * len(self.texts), [size > 0 for size in self.sizes]))
        self.ratio = (self.whole - self.base) / max(1, sum(self.sizes))

    def _values(self, texts: Sequence[str], changed: Sequence[bool]) -> dict[int, dict[str, Any]]:
        """The values of the messages whose texts change, with ``texts`` in place."""
        datas: dict[int, dict[str, Any]] = {}
        for (n, path, _), text, change in zip(self.texts, texts, changed, strict=True):
            if change:
                _set(datas.setdefault(n, copy.deepcopy(self.group[n].data)), path, text)
        return datas

    def _cost(self, datas: dict[int, dict[str, Any]]) -> int:
        return sum(message_costs([Message(m.index, m.line, "", datas.get(n, m.data)) for n, m in enumerate(self.group)],
                                 self.counter))

    def build(self, allowed: Sequence[int]) -> Excerpt:
        changed = [keep < size for size, keep in zip(self.sizes, allowed, strict=True)]
        texts = [cut_text(text, keep, self.counter) if change else text
                 for (_, _, text), keep, change in zip(self.texts, allowed, changed, strict=True)]
        datas = self._values(texts, changed)
        parts = tuple(datas.get(n, m.raw) for n, m in enumerate(self.group))
        return Excerpt(parts, self._cost(datas), tuple(self.group[n].index for n in sorted(datas)))

    def smallest(self) -> Excerpt | None:
        """Every long text cut to ``MIN_TEXT_TOKENS``: the least an excerpt keeps. None if nothing
        would be cut (the group has no long text: it is long for its tool calls or images)."""
        allowed = [min(size, MIN_TEXT_TOKENS) for size in self.sizes]
        least = self.build(allowed) if allowed != self.sizes else None
        return least if least is not None and least.cut else None

    def fit(self, budget: int) -> Excerpt | None:
        """The group in at most ``budget`` tokens: whole if it fits, else its texts cut (the
        longest ones first, to equal shares). None when not even the smallest excerpt fits."""
        if self.whole <= budget:
            return Excerpt(tuple(m.raw for m in self.group), self.whole, ())
        keep = int((budget - self.base) / self.ratio)  # the texts' own tokens that fit
        for _ in range(MAX_ROUNDS):
            allowed = _fill(self.sizes, keep)
            if any(a < min(s, MIN_TEXT_TOKENS) for a, s in zip(allowed, self.sizes, strict=True)):
                break  # a text would keep less than is worth keeping
            cut = self.build(allowed)
            if cut.cost <= budget:
                return cut
            keep -= math.ceil((cut.cost - budget) / self.ratio)  # cuts fall on lines and words: a little off
        least = self.smallest()
        return least if least is not None and least.cost <= budget else None
