"""``biocortex check``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def check(json_: Annotated[bool, typer.Option("--json", help="Print the problems as JSON.")] = False) -> int:
    """Validate every note: YAML, required fields, types, unique ids, links. Exit 1 on problems."""
    from biocortex_cli.api.vault import check as check_vault
    from biocortex_cli.render.text import check_report

    report = check_vault(state.vault())
    if json_:
        state.emit_json(report.as_json())
    elif report.problems:
        state.out(check_report(report.problems))
    warnings = len(report.problems) - len(report.errors)
    state.info(f"biocortex: checked {report.notes} notes, {len(report.errors)} problem(s)"
               + (f", {warnings} warning(s)" if warnings else ""))
    return 0 if report.ok else 1
