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
    """Validate every note (YAML, required fields, types, unique ids, links, secrets) and the config. Exit 1 on problems."""
    from biocortex_cli.api.facts import fact_contests
    from biocortex_cli.api.vault import check as check_vault
    from biocortex_cli.render.text import check_report

    vault = state.vault()
    report = check_vault(vault)
    contested = fact_contests(vault) if facts else None
    if json_:
        data = report.as_json()
        if contested is not None:
            data["facts"] = contested.as_json()
        state.emit_json(data)
    else:
        if report.problems:
            state.out(check_report(report.problems))
        if contested is not None:
            from biocortex_cli.facts.render import contests_text

            state.out(contests_text(contested.contested))
    warnings = len(report.problems) - len(report.errors)
    from biocortex_cli.progress import plural

    state.info(f"biocortex: checked {plural(report.notes, 'note')}, {plural(len(report.errors), 'problem')}"
               + (f", {plural(warnings, 'warning')}" if warnings else ""))
    return 0 if report.ok else 1
