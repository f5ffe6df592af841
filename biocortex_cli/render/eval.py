"""The table ``biocortex eval`` prints: markdown, so it pastes into docs as it is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biocortex_cli.evaluate.run import EvalReport


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    numeric = [all(_numeric(r[i]) for r in rows) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [c.rjust(w) if numeric[i] else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if numeric[i] else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return [line(header), rule, *(line(r) for r in rows)]


def _numeric(cell: str) -> bool:
    return cell.replace(".", "", 1).isdigit()


def eval_table(report: EvalReport) -> str:
    judged = (f"{report.judged} queries" if report.judged == report.queries
              else f"{report.judged} of {report.queries} queries judged")
    lines = [f"## biocortex eval: {report.dataset}", "",
             f"{report.documents} documents · {judged} · k {report.k} · relevant = grade ≥ "
             f"{report.relevance_level} · NDCG with graded gains", ""]
    header = ["system", *report.metrics, "no result", "ms/query"]
    rows = []
    for s in report.systems:
        per_query_ms = 1000 * s.seconds / max(1, report.judged)
        rows.append([s.label, *(f"{s.means[m]:.3f}" for m in report.metrics), str(s.empty), f"{per_query_ms:.1f}"])
    lines += _table(header, rows)
    if report.categories:
        lines += ["", "### By category", ""]
        header = ["category", "n", "system", *report.metrics]
        rows = []
        for category, n in report.categories.items():
            for s in report.systems:
                values = s.by_category[category]
                rows.append([category, str(n), s.label, *(f"{values[m]:.3f}" for m in report.metrics)])
        lines += _table(header, rows)
    if report.notes:
        lines += ["", *(f"Note: {note}." for note in report.notes)]
    return "\n".join(lines) + "\n"
