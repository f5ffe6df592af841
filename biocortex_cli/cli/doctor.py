"""``biocortex doctor``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state
from biocortex_cli.progress import plural

if TYPE_CHECKING:
    import typer


def doctor(json_: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False) -> int:
    """Check the vault's health: git state, locks, config, template, index, datasets, notes. Exit 1 on problems."""
    from biocortex_cli.api.vault import doctor as diagnose

    diagnosis = diagnose(state.vault())
    problems = diagnosis.problems
    if json_:
        state.emit_json(diagnosis.as_json())
    elif diagnosis.findings:
        state.out("\n".join(f"{f.severity}: {f.check}: {f.message}\n  fix: {f.hint}" for f in diagnosis.findings))
    state.info(f"biocortex: doctor: {plural(problems, 'problem')}" if problems else "biocortex: doctor: the vault is healthy")
    return 1 if problems else 0
