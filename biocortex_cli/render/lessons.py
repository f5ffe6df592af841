"""Plain text for ``biocortex lessons`` and ``episode related``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biocortex_cli.lessons import LessonsReport
    from biocortex_cli.recall.related import Related


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
            new = f", {len(c.new_support)} new episodes (run `biocortex lessons refresh`)" if c.new_support else ""
            lines.append(f"  promoted: lessons/{c.promoted}.md{new}")
        shown = ", ".join(c.support[:5]) + (f", … ({len(c.support) - 5} more)" if len(c.support) > 5 else "")
        lines.append(f"  episodes: {shown}")
    return "\n".join(lines)


def related_text(related: Sequence[Related]) -> str:
    lines = []
    for r in related:
        outcome = {True: "success", False: "failure", None: "unknown"}[r.success]
        lines.append(f"{r.id}  {r.score:.2f}  {outcome:<7}  {' '.join(r.task.split())}")
        lines.extend(f"  {reason}" for reason in r.reasons)
    return "\n".join(lines)
