"""``biocortex index``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer


def index(
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build the index from scratch.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Only say whether the index is stale (exit 1 if so).")] = False,
    full: Annotated[bool, typer.Option(
        "--full", help="Stat every note and compare it with the index (slower on big vaults; by default "
                       "changed folders, commits and the notes git sees edited in place are looked at).")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> int:
    """Build or refresh the sidecar index (.biocortex/index.sqlite) incrementally."""
    from biocortex_cli.index.build import is_stale, problems_of, refresh, warn_problems
    from biocortex_cli.index.build import rebuild as rebuild_index

    vault = state.vault()
    encoding = vault.config.tokenizer.encoding
    if check:
        stale, why = is_stale(vault, encoding)
        if json_:
            state.emit_json({"stale": stale, "reason": why})
        state.info(f"biocortex: {why}")
        return 1 if stale else 0
    rebuilt = rebuild_index(vault, encoding, "--rebuild") if rebuild else None
    conn, refreshed = refresh(vault, encoding, full=full, edits=True)
    report = rebuilt or refreshed
    try:
        report.problems = problems_of(conn)  # all of them, also when nothing changed since the last refresh
        from biocortex_cli.facts.index import refresh_facts

        fact_problems = refresh_facts(conn, vault, encoding, full=full)
        n_facts = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
    finally:
        conn.close()
    for problem in fact_problems[:5]:
        state.info(f"biocortex: warning: {problem.location()}{problem.message} (not indexed; run `biocortex check`)")
    warn_problems(report)
    if json_:
        state.emit_json({"rebuilt": report.rebuilt, "added": report.added, "updated": report.updated,
                         "removed": report.removed, "episodes": report.total, "facts": n_facts,
                         "problems": [{"path": p, "line": ln, "message": m} for p, ln, m in report.problems],
                         "seconds": round(report.seconds, 3)})
    state.info(f"biocortex: index {'rebuilt' if report.rebuilt else 'refreshed'}: {report.total} episodes "
               f"(+{report.added} ~{report.updated} -{report.removed}), {n_facts} facts, in {report.seconds:.2f}s")
    return 0
