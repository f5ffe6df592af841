"""``biocortex check``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def check(
    facts: Annotated[bool, typer.Option("--facts", help="Also list open contradictions between facts, weighed (information: they never fail the check).")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the problems as JSON.")] = False,
) -> int:
    """Validate every note: YAML, required fields, types, unique ids, links. Exit 1 on problems."""
    from biocortex_cli.ops.check import check_vault, fact_contests
    from biocortex_cli.render.text import check_report

    vault = state.vault()
    report = check_vault(vault)
    contested = fact_contests(vault) if facts else []
    if json_:
        data = {"notes": report.notes, "ok": report.ok, "problems": [p.as_json() for p in report.problems]}
        if facts:
            data["facts"] = {"contested": [c.as_json() for c in contested]}
        state.emit_json(data)
    else:
        if report.problems:
            state.out(check_report(report.problems))
        if facts:
            from biocortex_cli.facts.render import contests_text

            state.out(contests_text(contested))
    state.info(f"biocortex: checked {report.notes} notes, {len(report.problems)} problem(s)")
    return 0 if report.ok else 1
