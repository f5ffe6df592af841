"""Recall's output: parts (lessons, past analyses, facts) composed under one header; --explain.

Each feature renders its own part (lessons/recall.py, recall/engine.py, facts/recall.py) as a
:class:`RecallPart`: its exact text and its exact token count, summed from counts stored at
index time. :func:`compose` puts them in order and renders the header of the past analyses once,
last, when the whole output's token count is known. Every part ends with a newline and the next
begins with ``#``, a pre-token boundary in cl100k and o200k (render/blocks.py), so the tokens of
the output are the sum of the parts' tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from biocortex_cli.records import NamedTuple
from biocortex_cli.render.blocks import BARE_HEADER, HEADER

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from typing import Any

    from biocortex_cli.recall.engine import RecallResult

LESSONS = "lessons"
EPISODES = "episodes"
FACTS = "facts"
WORKING_MEMORY = "working_memory"  # context's part: the conversation (context.py)


class RecallPart(NamedTuple):
    """One section of recall's (or context's) output: its name, exact text and tokens, and what
    ``--json`` says about it (``context --json`` lists the parts)."""

    name: str  # lessons, episodes, facts (or working_memory in context)
    text: str
    tokens: int
    json: dict[str, Any] = {}  # shared by every part without one: never changed in place

    def as_json(self) -> dict[str, Any]:
        heading = self.text.split("\n", 1)[0]
        return {"name": self.name, "heading": heading, "tokens": self.tokens, **self.json}


#: The sections of an episode that ``recall --json`` gives each hit, as recorded (additive: id, path,
#: task, success and quality come first): what the block prints, whole, without parsing it.
HIT_TEXTS = ("plan", "result")
HIT_LISTS = ("tools", "domains", "lessons", "entities", "related")


def hit_fields(record: dict[str, Any]) -> dict[str, Any]:
    """``created``, ``plan``, ``result`` (text or null) and ``tools``, ``domains``, ``lessons``,
    ``entities``, ``related`` (lists, empty when not recorded) of an episode's record."""
    out: dict[str, Any] = {"created": str(record.get("created") or "")}
    for key in HIT_TEXTS:
        value = record.get(key)
        out[key] = value if isinstance(value, str) else None
    for key in HIT_LISTS:
        value = record.get(key)
        out[key] = [str(v) for v in value] if isinstance(value, list) else []
    return out


def extra_digit_tokens(value: int) -> int:
    """Tokens a number costs beyond a one-digit placeholder (tiktoken splits digits every 3)."""
    return max(1, math.ceil(len(str(value)) / 3)) - 1


class Header(NamedTuple):
    """The numbers of the past analyses' header, which :func:`compose` prints."""

    shown: int
    matched: int
    head: str | None  # the vault commit
    recall_id: str
    tokens: int  # the header with every number one digit (counted at index time: meta header_tokens)
    bare: int = 0  # BARE_HEADER's tokens, likewise (meta bare_header_tokens); 0: not known, not printed

    def cost(self, total: int, budget: int) -> int:
        """Its tokens when it says ``total``/``budget``."""
        return self.tokens + sum(extra_digit_tokens(v) for v in (self.shown, self.matched, total, budget))

    def text(self, total: int, budget: int) -> str:
        return HEADER.format(shown=self.shown, matched=self.matched, tokens=total, budget=budget,
                             head=(self.head or "none")[:7], recall_id=self.recall_id)

    def bare_cost(self, total: int, budget: int) -> int:
        return self.bare + sum(extra_digit_tokens(v) for v in (total, budget))

    def bare_text(self, total: int, budget: int) -> str:
        return BARE_HEADER.format(tokens=total, budget=budget, head=(self.head or "none")[:7],
                                  recall_id=self.recall_id)


def compose(parts: Sequence[RecallPart], header: Header | None, budget: int) -> tuple[RecallPart, ...]:
    """The parts as printed, in order, empty ones left out: ``header`` goes first in the
    ``episodes`` part, saying the tokens of the whole output (its own included) and ``budget``.

    The header holds its own count, so the count is settled from below: the least total that
    counts its own digits (a number's digits only grow with it, so this ends in a step or two)."""
    kept = [p for p in parts if p.text]
    if header is None:
        return tuple(kept)
    body = sum(p.tokens for p in kept)
    if not any(p.name == EPISODES for p in kept):
        # promoted lessons but no past analysis: the bare header, for the recall id that
        # `feedback --helpful LESSON` needs, when the budget holds it (facts alone: none to vote on)
        if not header.bare or not any(p.name == LESSONS for p in kept):
            return tuple(kept)
        total = body + header.bare_cost(0, budget)
        while (settled := body + header.bare_cost(total, budget)) != total:
            total = settled
        if total > budget:
            return tuple(kept)
        first = kept[0]
        bare = first._replace(text=header.bare_text(total, budget) + first.text,
                              tokens=first.tokens + header.bare_cost(total, budget))
        return (bare, *kept[1:])
    total = body + header.cost(0, budget)
    while (settled := body + header.cost(total, budget)) != total:
        total = settled
    head = header.text(total, budget)
    return tuple(p._replace(text=head + p.text, tokens=p.tokens + header.cost(total, budget))
                 if p.name == EPISODES else p for p in kept)


def explain_text(result: RecallResult) -> str:
    lines = [f"explain: query terms: {', '.join(result.query_terms) or '-'}"]
    if result.unknown_terms:
        lines.append(f"explain: not in the vault: {', '.join(result.unknown_terms)}")
    if result.ignored_terms:
        lines.append(f"explain: too common to count: {', '.join(result.ignored_terms)}")
    if result.informative_terms:
        lines.append(f"explain: informative concepts (the gate asks for them): {', '.join(result.informative_terms)}")
    searched = [s for s in result.synonyms if s["searched"]]
    if searched:
        lines.append("explain: synonyms: " + ", ".join(
            f"{s['term']} → {s['synonym']} ({s['source']} {s['weight']:g})" for s in searched))
    absent = [s["synonym"] for s in result.synonyms if not s["searched"]]
    if absent or result.synonyms_dropped:
        cut = f"; {result.synonyms_dropped} more cut by the caps" if result.synonyms_dropped else ""
        lines.append(f"explain: synonyms not searched (in no episode, or too common): {', '.join(absent) or '-'}{cut}")
    if result.withheld_terms:
        withheld = "; ".join(f"{w['term']} ({w['reason']})" for w in result.withheld_terms)
        lines.append(f"explain: not expanded: {withheld}")
    lines.append(f"explain: {result.matched} of {result.searched} episodes passed the gate; "
                 f"dropped {result.dropped}")
    for rank, hit in enumerate(result.results, start=1):
        signals = "  ".join(f"{k} {v:.2f}" for k, v in hit.signals.items())
        ranked = f" (rank {hit.rank_score:.2f})" if round(hit.rank_score, 2) != round(hit.score, 2) else ""
        lines.append(f"explain: {rank}. {hit.id}  score {hit.score:.2f}{ranked}  [{signals}]"
                     + ("  (shortened)" if hit.shortened else ""))
        if hit.via:
            lines.append(f"explain:      found through: {hit.via} (an analysis of the same kind: "
                         f"shares {hit.signals.get('kin', 0.0):.0%} of its weighted tools and domains)")
        for key, values in hit.matched.items():
            if values:
                lines.append(f"explain:      {key}: {', '.join(values)}")
    return "\n".join(lines)
