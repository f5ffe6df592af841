"""``biocortex dataset add|list|show|refresh|remove``: datasets as sources of record."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state
from biocortex_cli.progress import plural

if TYPE_CHECKING:
    import typer

    from biocortex_cli.facts.datasets_index import BuildReport


def add(
    path: Annotated[str, typer.Argument(help="The dataset file (TSV, CSV, JSONL), or a KGX folder or edges.tsv.")],
    name: Annotated[str, typer.Option("--name", help="Its name in answers, e.g. trrust (letters, digits, . _ -).")],
    version: Annotated[str, typer.Option("--version", help="Its version or release, e.g. 2 or 2024-06.")],
    licence: Annotated[str, typer.Option("--licence", "--license", help='The licence it is published under, e.g. "CC BY-SA 4.0".')],
    format_: Annotated[str | None, typer.Option("--format", help="tsv, csv, jsonl or kgx (default: from the file name).")] = None,
    no_header: Annotated[bool, typer.Option("--no-header", help="The file has no header row: --map names columns by number.")] = False,
    map_: Annotated[list[str] | None, typer.Option("--map", metavar="FIELD=COLUMN", help="A column for subject, predicate, object, sign, publications or qualifier.taxon|cell_type|context: its header or 1-based number (repeatable; default: the columns named subject, predicate, object).")] = None,
    predicate_map: Annotated[list[str] | None, typer.Option("--predicate-map", metavar="VALUE=PREDICATE", help="A predicate (or sign) value and the predicate it means, e.g. Activation=activates; with a map, other values are skipped (repeatable; VALUE= drops such rows).")] = None,
    predicate: Annotated[str | None, typer.Option("--predicate", help="The predicate of every row, when no column holds one.")] = None,
    qualifier: Annotated[list[str] | None, typer.Option("--qualifier", metavar="NAME=VALUE", help="A qualifier of every row: taxon=9606, cell_type=…, context=… (repeatable).")] = None,
    confidence: Annotated[float | None, typer.Option("--confidence", help="Confidence of each edge (default: facts.default_confidence).")] = None,
    title: Annotated[str, typer.Option("--title", help="A human title, e.g. 'TRRUST v2, human'.")] = "",
    url: Annotated[str, typer.Option("--url", help="Where it was published.")] = "",
    json_: Annotated[bool, typer.Option("--json", help="Print the registered dataset as JSON instead of its name.")] = False,
) -> int:
    """Register a dataset by path: index its edges (outside git) and commit one note, datasets/NAME.md.
    Its rows are not copied into the vault; fact query, fact verify, recall and context answer from it."""
    from biocortex_cli.api.datasets import dataset_add
    from biocortex_cli.facts.datasets import parse_pairs

    vault = state.vault()
    state.info(f"biocortex: indexing {path} …")
    done = dataset_add(vault, path=path, name=name, version=version, licence=licence,
                       author=vault.author(state.OPTIONS.author), columns=parse_pairs(map_, "--map"),
                       predicate_map=parse_pairs(predicate_map, "--predicate-map"), predicate=predicate,
                       qualifiers=parse_pairs(qualifier, "--qualifier"), format=format_, header=not no_header,
                       confidence=confidence, title=title, url=url)
    _said(done.build, f"registered {done.dataset.origin}")
    state.emit_json(done.as_json()) if json_ else state.out(done.dataset.name)
    return 0


def _said(report: BuildReport, what: str) -> None:
    skipped = sum(report.skipped.values())
    state.info(f"biocortex: {what}: {report.edges:,} edges from {report.rows:,} rows in {report.seconds:.1f} s"
               + (f"; {skipped:,} rows skipped" if skipped else ""))
    for reason, n in sorted(report.skipped.items(), key=lambda kv: -kv[1])[:5]:
        state.info(f"biocortex:   {n:,} × {reason}")
    for problem in report.problems[:5]:
        state.info(f"biocortex:   {problem.location()}{problem.message}")


def list_(json_: Annotated[bool, typer.Option("--json", help="Print the datasets as JSON.")] = False) -> int:
    """The registered datasets and whether each can answer on this machine."""
    from biocortex_cli.api.datasets import dataset_list
    from biocortex_cli.facts.datasets_registry import status_line

    found = dataset_list(state.vault())
    if json_:
        state.emit_json(found.as_json())
    elif found.datasets:
        state.out("\n".join(status_line(s) for s in found.datasets))
    else:
        state.info("biocortex: no datasets registered (biocortex dataset add PATH --name … --version … --licence …)")
    return 0


def show(
    name: Annotated[str, typer.Argument(help="Dataset name, e.g. trrust.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the dataset as JSON.")] = False,
) -> int:
    """One dataset: its record (source, licence, file, checksum, mapping) and its state here."""
    from biocortex_cli.api.datasets import dataset_show
    from biocortex_cli.facts.datasets_registry import show_text

    status = dataset_show(state.vault(), name=name)
    state.emit_json(status.as_json()) if json_ else state.out(show_text(status))
    return 0


def refresh(
    names: Annotated[list[str] | None, typer.Argument(metavar="[NAME]...", help="Datasets to refresh (default: all).")] = None,
    path: Annotated[str | None, typer.Option("--path", metavar="FILE", help="The file's new place (the same content, unless --accept-change).")] = None,
    accept_change: Annotated[bool, typer.Option("--accept-change", help="Register the file as it is now (a new release; give --version).")] = False,
    version: Annotated[str | None, typer.Option("--version", help="The new version, with --accept-change.")] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Index again even when the index is up to date.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print what was done per dataset as JSON.")] = False,
) -> int:
    """Check each dataset's file against its note; index what is missing or out of date. Exit 1
    when a file is missing or changed (answers then leave that dataset out, with a warning)."""
    from biocortex_cli.api.datasets import dataset_refresh
    from biocortex_cli.facts.datasets_registry import refreshed_line

    vault = state.vault()
    started = time.perf_counter()
    done = dataset_refresh(vault, names=names or [], author=vault.author(state.OPTIONS.author), path=path,
                           accept_change=accept_change, version=version, rebuild=rebuild, notice=state.info)
    if json_:
        state.emit_json(done.as_json())
    elif done.datasets:
        state.out("\n".join(refreshed_line(r) for r in done.datasets))
    problems = done.problems
    state.info(f"biocortex: {plural(len(done.datasets), 'dataset')} checked in {time.perf_counter() - started:.1f} s"
               + (f", {problems} with a problem" if problems else ""))
    return 1 if problems else 0


def remove(
    name: Annotated[str, typer.Argument(help="Dataset name.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the archived note and the commit).")],
    json_: Annotated[bool, typer.Option("--json", help="Print where the note went as JSON.")] = False,
) -> int:
    """Stop answering from a dataset: its note moves to archive/datasets/ (nothing is deleted; the
    file is not touched), its derived index is dropped."""
    from biocortex_cli.api.datasets import dataset_remove

    vault = state.vault()
    done = dataset_remove(vault, name=name, reason=reason, author=vault.author(state.OPTIONS.author))
    state.emit_json(done.as_json()) if json_ else state.out(done.to)
    return 0
