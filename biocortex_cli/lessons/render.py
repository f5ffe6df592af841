"""Text of lessons: the line recall prints for a promoted lesson, and ``biocortex lessons``.

The recall line and the header are rendered when lesson notes are indexed and cached with their
token counts (lessons/index.py); the index keeps :data:`FORMAT` beside them and renders them again
when it differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from biocortex_cli.render import blocks
from biocortex_cli.render.blocks import clip, format_key

if TYPE_CHECKING:
    from biocortex_cli.lessons.promote import LessonsReport

#: the key of what lessons/index.py caches: the recall line and header here (clipped as in
#: render/blocks.py), and what it reads of a note (notes.py)
FORMAT = format_key(__file__, blocks.__file__, str(Path(__file__).with_name("notes.py")))
RECALL_HEADER = "## Lessons that apply\n\n"


def recall_line(lesson: str, support: int, success_rate: float | None, ident: str) -> str:
    """The line recall prints for a promoted lesson (and whose tokens the index stores)."""
    rate = f", {success_rate:.0%} succeeded" if success_rate is not None else ""
    return f"- {clip(lesson, 60)} ({support} episode{'s' if support != 1 else ''}{rate} · {ident})\n"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def lessons_text(report: LessonsReport) -> str:
    lines = []
    for c in report.clusters:
        quality = "-" if c.mean_quality is None else f"{c.mean_quality:.2f}"
        utility = "" if c.utility is None else f" · utility {c.utility:.2f}"
        archived = f" (+{len(c.archived_support)} archived)" if c.archived_support else ""
        variants = f" · {len(c.variants)} phrasings" if len(c.variants) > 1 else ""
        plural = "s" if len(c.support) != 1 else ""
        lines.append(f"{c.id}  {len(c.support)} episode{plural}{archived} · success {_pct(c.success_rate)} · "
                     f"quality {quality}{utility}{variants}")
        lines.append(f"  {' '.join(c.text.split())}")
        if c.promoted:
            n = len(c.new_support)
            new = f", {n} new episode{'s' if n != 1 else ''} (run `biocortex lessons refresh`)" if n else ""
            lines.append(f"  promoted: lessons/{c.promoted}.md{new}")
        shown = ", ".join(c.support[:5]) + (f", … ({len(c.support) - 5} more)" if len(c.support) > 5 else "")
        lines.append(f"  episodes: {shown}")
    return "\n".join(lines)
