"""The recall block of one episode: what an agent's planner reads about a past analysis.

Blocks are rendered at index time and their token counts stored, so ``recall`` never loads a
tokenizer. A block is a list of sections; each ends with a newline and the next begins with a
non-space character, which is a pre-token boundary for tiktoken's cl100k/o200k patterns, so the
tokens of a block are exactly the sum of its sections' tokens and any section can be dropped
without recounting. The title and meta sections carry two placeholders, the rank and the
relevance score; numbers of up to three digits are one token each in both encodings, so the
count made with ``0`` and ``0.00`` holds for every rank below 1000 and every score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

RANK = "{rank}"
SCORE = "{score}"
SHORTENED = "[shortened to fit the budget; the full note is at the path above]\n"
HEADER = ("## Relevant past analyses — {shown} of {matched} matched · {tokens}/{budget} tokens · vault {head}"
          " · recall {recall_id}\n\n")
#: Sections dropped first when the last block must shrink to fit (least useful first).
DROP_ORDER = ("plan", "entities", "tools", "lessons", "result")
_LIMITS = {"task": 60, "plan": 70, "result": 90, "lesson": 45}
MAX_LESSONS = 5


@dataclass(frozen=True)
class Section:
    name: str
    text: str


def _clip(text: str, words: int) -> str:
    parts = " ".join(text.split()).split(" ")
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + " …"


def episode_sections(record: Mapping[str, Any], path: str) -> list[Section]:
    def strings(key: str) -> list[str]:
        value = record.get(key) or []
        return [str(v) for v in value] if isinstance(value, list) else []

    def text(key: str) -> str:
        value = record.get(key)
        return value if isinstance(value, str) else ""

    success = record.get("success")
    outcome = "success" if success is True else "failure" if success is False else "outcome unknown"
    quality = record.get("quality")
    meta = [f"relevance {SCORE}", outcome]
    if isinstance(quality, int | float) and not isinstance(quality, bool):
        meta.append(f"quality {float(quality):.2f}")
    created = str(record.get("created") or "")[:10]
    if created:
        meta.append(created)
    meta += [str(record.get("id", "")), path]
    sections = [
        Section("title", f"### {RANK}. {_clip(text('task'), _LIMITS['task'])}\n"),
        Section("meta", " · ".join(meta) + "\n"),
    ]
    tools, domains = strings("tools"), strings("domains")
    if tools or domains:
        parts = ([f"tools: {', '.join(tools)}"] if tools else []) + (
            [f"domains: {', '.join(domains)}"] if domains else [])
        sections.append(Section("tools", " · ".join(parts) + "\n"))
    if text("plan").strip():
        sections.append(Section("plan", f"plan: {_clip(text('plan'), _LIMITS['plan'])}\n"))
    if text("result").strip():
        sections.append(Section("result", f"result: {_clip(text('result'), _LIMITS['result'])}\n"))
    lessons = strings("lessons")[:MAX_LESSONS]
    if lessons:
        items = "".join(f"- {_clip(lesson, _LIMITS['lesson'])}\n" for lesson in lessons)
        sections.append(Section("lessons", "lessons:\n" + items))
    entities = strings("entities")
    if entities:
        sections.append(Section("entities", f"entities: {', '.join(entities[:12])}\n"))
    return sections


def fill(text: str, rank: int, score: float) -> str:
    return text.replace(RANK, str(rank)).replace(SCORE, f"{score:.2f}")


def template_text(text: str) -> str:
    """The section as counted at index time (rank 0, score 0.00: same token count as any)."""
    return fill(text, 0, 0.0)


def assemble(sections: Sequence[Section], rank: int, score: float, shortened: bool = False) -> str:
    """The block as printed: its sections, the shortening marker if any, and a blank line.

    The blank line merges with the last line's pre-token, so the index stores for each section
    its count both inside a block and as the block's last section.
    """
    body = "".join(fill(s.text, rank, score) for s in sections)
    if shortened:
        body += SHORTENED
    return body + "\n"
