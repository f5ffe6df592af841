"""Registering datasets: ``biocortex dataset add|list|show|refresh|remove`` (cli/dataset.py),
and what ``check`` and ``doctor`` say about them. (Answering from them is
facts/datasets_index.py :func:`~biocortex_cli.facts.datasets_index.consult`.)

Writes go through ``Vault.transaction``: one commit per command (``dataset: add trrust — …``).
Removing a dataset moves its note to ``archive/datasets/`` (nothing is deleted) and drops its
derived index. The index is built *before* the note is committed, so a file that yields no edge,
or a mapping that names a missing column, is refused with ``path:line`` and nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import DataError, NotFoundError, UsageError
from biocortex_cli.facts.datasets import (
    Dataset,
    FileRef,
    Progress,
    check_name,
    dataset_from_note,
    dataset_meta,
    dataset_rel,
    find_dataset,
    read_datasets,
    record_path,
    render_dataset,
    resolve_path,
)
from biocortex_cli.facts.datasets_index import (
    BuildReport,
    Notice,
    build_index,
    file_state,
    index_file,
    index_state,
    note_digest,
    open_index,
    prepare,
)
from biocortex_cli.facts.datasets_read import kgx_files, sniff_format
from biocortex_cli.packed import pack

if TYPE_CHECKING:
    from biocortex_cli.facts.datasets_index import DatasetEdges
    from biocortex_cli.facts.model import Fact, FactRules
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

ARCHIVE = "archive/datasets"


# --- status -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DatasetStatus:
    dataset: Dataset
    state: str  # ok, missing, changed, unindexed, stale
    message: str
    hint: str
    indexed_edges: int | None  # what the index on this machine holds (None: no usable index)
    index_bytes: int | None

    @property
    def problem(self) -> bool:
        return self.state in ("missing", "changed")

    def as_json(self) -> dict[str, Any]:
        return {**self.dataset.as_json(), "state": self.state, "message": self.message, "hint": self.hint,
                "indexed_edges": self.indexed_edges, "index_bytes": self.index_bytes}


def dataset_status(vault: Vault, dataset: Dataset) -> DatasetStatus:
    """Where a dataset stands on this machine (nothing is built; a changed-looking file is hashed)."""
    opened = open_index(vault.state_dir, dataset.name)
    meta = opened[1] if opened else None
    try:
        enc = vault.config.tokenizer.encoding
    except DataError:
        from biocortex_cli.store.config import Config

        enc = Config().tokenizer.encoding
    indexed = index_state(dataset, meta, enc)
    files, renewed = file_state(dataset, vault.root, meta if indexed.usable else None)
    if opened:
        from biocortex_cli.facts.datasets_index import renew_stamps

        renew_stamps(opened[0], opened[1], renewed)
        opened[0].close()
    state = files if not files.usable else indexed
    path = index_file(vault.state_dir, dataset.name)
    return DatasetStatus(dataset, state.state, state.message, state.hint,
                         int(meta["edges"]) if meta and indexed.usable else None,
                         path.stat().st_size if meta and indexed.usable else None)


def statuses(vault: Vault) -> tuple[list[DatasetStatus], list[DataError]]:
    datasets, problems = read_datasets(vault)
    return [dataset_status(vault, d) for d in datasets], problems


# --- add ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Registered:
    dataset: Dataset
    build: BuildReport

    def as_json(self) -> dict[str, Any]:
        return {**self.dataset.as_json(), "build": self.build.as_json()}


def add_dataset(vault: Vault, path: str, *, name: str, version: str, licence: str, author: Author,
                columns: dict[str, str] | None = None, predicates: dict[str, str] | None = None,
                predicate: str | None = None, qualifiers: dict[str, str] | None = None, fmt: str | None = None,
                header: bool = True, confidence: float | None = None, title: str = "", url: str = "",
                progress: Progress | None = None) -> Registered:
    """Register the file at ``path``: index its edges, then commit ``datasets/<name>.md``.
    ``columns`` maps fields to columns (``subject`` → ``TF``), ``predicates`` values to
    predicates (``Activation`` → ``activates``); ``qualifiers`` hold for every row."""
    from biocortex_cli.facts.datasets import make_mapping

    name = check_name(name)
    version, licence = _required(version, "--version", "e.g. --version 2"), _required(
        licence, "--licence", 'the licence the file is published under, e.g. --licence "CC BY-SA 4.0"')
    rel = dataset_rel(name)
    if (vault.root / rel).exists():
        raise UsageError(f"dataset {name!r} is already registered ({rel})",
                         hint=f"a new release: biocortex dataset refresh {name} --accept-change --version V; "
                              "or pick another --name")
    given = Path(os.path.expanduser(path))
    if not given.exists():
        raise NotFoundError(f"no file {path}", hint="give the path of the dataset file (TSV, CSV, JSONL or KGX)")
    fmt = fmt or sniff_format(given)  # a given format is checked by the API (api/datasets.py)
    mapping = make_mapping(fmt, columns=dict(columns or {}), predicates=dict(predicates or {}), predicate=predicate,
                           qualifiers=dict(qualifiers or {}))
    files: tuple[FileRef, FileRef | None]
    if fmt == "kgx":
        nodes_path, edges_path = kgx_files(given)
        files = (FileRef(record_path(vault.root, edges_path), "", 0),
                 FileRef(record_path(vault.root, nodes_path), "", 0))
    else:
        if given.is_dir():
            raise UsageError(f"{path} is a folder", hint="give a file, or --format kgx for a KGX folder")
        files = (FileRef(record_path(vault.root, given), "", 0), None)
    conf = vault.config.facts.default_confidence if confidence is None else float(confidence)
    draft = Dataset(name=name, version=version, licence=licence, file=files[0], format=fmt, header=header,
                    mapping=mapping, confidence=conf, title=" ".join(title.split()), url=url.strip(),
                    nodes=files[1], rel=rel)
    enc = vault.config.tokenizer.encoding
    report = build_index(draft, vault.root, vault.state_dir, encoding=enc, progress=progress, verify=False)
    index = index_file(vault.state_dir, name)
    try:
        if report.edges == 0:
            first = report.problems[0] if report.problems else None
            raise DataError(f"no usable row in {files[0].path} ({report.rows:,} rows read"
                            + (f"; {_reasons(report.skipped)}" if report.skipped else "") + ")",
                            path=first.path if first else files[0].path, line=first.line if first else None,
                            hint="check the column mapping (--map FIELD=COLUMN, --no-header, --predicate-map)")
        final = draft._replace(file=_ref(files[0], report), nodes=_ref(files[1], report) if files[1] else None,
                        rows=report.rows, edges=report.edges)
        import datetime as dt

        from biocortex_cli.store.notes import iso_utc

        meta = dataset_meta(final, created=iso_utc(dt.datetime.now(dt.timezone.utc)), author=str(author))
        final = final._replace(record=meta)
        summary = f"{final.label}: {final.edges:,} edges from {final.rows:,} rows ({licence})"
        with vault.transaction(f"dataset: add {name} — {summary}", author) as txn:
            txn.write(rel, render_dataset(final, meta))
        _restamp(vault.state_dir, final)
    except BaseException:
        index.unlink(missing_ok=True)
        raise
    return Registered(final, report)


def _required(value: str, option: str, hint: str) -> str:
    text = " ".join((value or "").split())
    if not text:
        raise UsageError(f"{option} is required", hint=hint)
    return text


def _ref(ref: FileRef, report: BuildReport) -> FileRef:
    return FileRef(ref.path, report.checksums[ref.path], report.sizes[ref.path])


def _reasons(skipped: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {why}" for why, n in sorted(skipped.items(), key=lambda kv: -kv[1])[:4])


def _restamp(state_dir: Path, dataset: Dataset) -> None:
    """The index just built was read from exactly the files ``dataset`` now records: say so."""
    opened = open_index(state_dir, dataset.name)
    if opened is None:
        return
    conn, _meta = opened
    try:
        conn.execute("INSERT OR REPLACE INTO meta VALUES('digest', ?)", (pack(note_digest(dataset)),))
    finally:
        conn.close()


# --- refresh ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Refreshed:
    name: str
    label: str
    action: str  # ok, indexed, updated, moved, missing, changed
    message: str = ""
    hint: str = ""
    edges: int | None = None
    seconds: float | None = None

    @property
    def problem(self) -> bool:
        return self.action in ("missing", "changed")

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": f"dataset:{self.label}", "action": self.action,
                "message": self.message, "hint": self.hint, "edges": self.edges, "seconds": self.seconds}


def refresh_datasets(vault: Vault, names: Sequence[str], *, author: Author, path: str | None = None,
                     accept_change: bool = False, version: str | None = None, rebuild: bool = False,
                     progress: Progress | None = None, notice: Notice | None = None) -> list[Refreshed]:
    """Check each dataset's file and bring its index up to date. ``path`` gives one dataset's
    file a new place (same content, unless ``accept_change``); ``accept_change`` registers the
    file as it is now (a new release: give ``version``). Note changes are one commit."""
    everything = not names
    datasets = [find_dataset(vault, n) for n in names] if names else read_datasets(vault)[0]
    if (path or accept_change or version) and len(datasets) != 1:
        raise UsageError("--path, --accept-change and --version apply to one dataset",
                         hint="name it: biocortex dataset refresh NAME --path FILE")
    if version and not accept_change:
        raise UsageError("--version goes with --accept-change", hint="a new version is a new file: add --accept-change")
    if everything and not datasets:
        return []
    enc = vault.config.tokenizer.encoding
    out: list[Refreshed] = []
    updates: list[tuple[Dataset, dict[str, Any], str]] = []
    for dataset in datasets:
        if path or accept_change:
            out.append(_relocate(vault, dataset, path, accept_change, version, enc, progress, updates))
            continue
        if rebuild:
            index_file(vault.state_dir, dataset.name).unlink(missing_ok=True)
        before = index_state(dataset, (open_index(vault.state_dir, dataset.name) or (None, None))[1], enc)
        source, state = prepare(dataset, vault.root, vault.state_dir, encoding=enc, notice=notice, progress=progress)
        if source is None:
            out.append(Refreshed(dataset.name, dataset.label, state.state, state.message, state.hint))
            continue
        edges = int(source.meta.get("edges", 0))
        source.close()
        out.append(Refreshed(dataset.name, dataset.label, "ok" if before.usable else "indexed",
                             "" if before.usable else f"indexed {edges:,} edges", edges=edges))
    if updates:
        _commit_updates(vault, updates, author)
    return out


def _relocate(vault: Vault, dataset: Dataset, path: str | None, accept_change: bool, version: str | None,
              encoding: str, progress: Progress | None,
              updates: list[tuple[Dataset, dict[str, Any], str]]) -> Refreshed:
    files = {"file": dataset.file, "nodes": dataset.nodes}
    if path:
        given = Path(os.path.expanduser(path))
        if not given.exists():
            raise NotFoundError(f"no file {path}", hint="give the dataset file's new path")
        if dataset.format == "kgx":
            nodes_path, edges_path = kgx_files(given)
            nodes = dataset.nodes._replace(path=record_path(vault.root, nodes_path)) if dataset.nodes else None
            files = {"file": dataset.file._replace(path=record_path(vault.root, edges_path)), "nodes": nodes}
        else:
            files = {**files, "file": dataset.file._replace(path=record_path(vault.root, given))}
    moved = dataset._replace(file=files["file"] or dataset.file, nodes=files["nodes"])
    if not accept_change:  # the same content in a new place: the index verifies the checksum
        try:
            report = build_index(moved, vault.root, vault.state_dir, encoding=encoding, progress=progress)
        except DataError as exc:
            return Refreshed(dataset.name, dataset.label, "changed", exc.message, exc.hint or "")
        updates.append((moved, {"path": moved.file.path, **({"nodes": moved.nodes._asdict()} if moved.nodes else {})},
                        f"moved to {moved.file.path}"))
        return Refreshed(dataset.name, dataset.label, "moved", f"file now at {moved.file.path}", edges=report.edges,
                         seconds=round(report.seconds, 3))
    for ref in moved.files():
        if not resolve_path(vault.root, ref.path).exists():
            raise NotFoundError(f"dataset file {ref.path} is missing", path=dataset.rel,
                                hint=f"give its place: biocortex dataset refresh {dataset.name} --path FILE")
    report = build_index(moved, vault.root, vault.state_dir, encoding=encoding, progress=progress, verify=False)
    if report.edges == 0:
        index_file(vault.state_dir, dataset.name).unlink(missing_ok=True)
        raise DataError(f"no usable row in {moved.file.path} ({report.rows:,} rows read)", path=dataset.rel,
                        hint="the mapping no longer fits the file: remove the dataset and add it again")
    new_version = " ".join((version or dataset.version).split())
    final = moved._replace(version=new_version, file=_ref(moved.file, report),
                    nodes=_ref(moved.nodes, report) if moved.nodes else None, rows=report.rows, edges=report.edges)
    changes: dict[str, Any] = {"version": final.version, "path": final.file.path, "checksum": final.file.checksum,
                               "size": final.file.size, "rows": final.rows, "edges": final.edges}
    if final.nodes:
        changes["nodes"] = final.nodes._asdict()
    same = final.files() == dataset.files() and final.version == dataset.version
    what = ("unchanged" if same else f"version {dataset.version} → {final.version}" if final.version != dataset.version
            else "new checksum, same version")
    if not same:
        updates.append((final, changes, f"{what}, {final.edges:,} edges"))
    stays = "" if version or same else f" (the version stays {final.version}: --version names a new one)"
    return Refreshed(dataset.name, final.label, "updated" if not same else "ok",
                     f"{what}; {final.edges:,} edges{stays}", edges=report.edges, seconds=round(report.seconds, 3))


def _commit_updates(vault: Vault, updates: list[tuple[Dataset, dict[str, Any], str]], author: Author) -> None:
    """Edit each note's frontmatter in place (order, comments and other keys kept), write its
    readable copy again, and commit once."""
    from biocortex_cli.facts.datasets import dataset_body
    from biocortex_cli.store.notes import edit_frontmatter, parse_note, split_frontmatter

    if len(updates) == 1:
        message = f"dataset: refresh {updates[0][0].name} — {updates[0][2]}"
    else:
        message = f"dataset: refresh {len(updates)} datasets — " + "; ".join(f"{d.name}: {w}" for d, _, w in updates)
    finals = []
    with vault.transaction(message, author) as txn:
        for dataset, changes, _what in updates:
            edited = edit_frontmatter((vault.root / dataset.rel).read_text(encoding="utf-8"), changes, dataset.rel)
            final = dataset_from_note(parse_note(edited, dataset.rel))
            frontmatter, _body, _line = split_frontmatter(edited, dataset.rel)
            txn.write(dataset.rel, f"---\n{frontmatter}---\n{dataset_body(final)}")
            finals.append(final)
    for final in finals:
        _restamp(vault.state_dir, final)


# --- remove -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Removed:
    name: str
    path: str  # where the note was
    to: str  # where it is now

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "to": self.to}


def remove_dataset(vault: Vault, name: str, *, reason: str, author: Author) -> Removed:
    """Stop answering from a dataset: its note goes to ``archive/datasets/`` (with why, by whom
    and when), its derived index is dropped. The file itself is not touched."""
    import datetime as dt

    from biocortex_cli.store.notes import edit_frontmatter, iso_utc

    dataset = find_dataset(vault, name)
    why = _required(reason, "--reason", 'say why, e.g. --reason "replaced by trrust 3"')
    target = f"{ARCHIVE}/{dataset.name}.md"
    n = 2
    while (vault.root / target).exists():
        target = f"{ARCHIVE}/{dataset.name}.removed-{n}.md"
        n += 1
    text = (vault.root / dataset.rel).read_text(encoding="utf-8")
    changes: dict[str, Any] = {"status": "removed",
                               "removed": {"reason": why, "by": str(author),
                                           "at": iso_utc(dt.datetime.now(dt.timezone.utc))}}
    if target != f"{ARCHIVE}/{dataset.name}.md":
        changes["id"] = Path(target).stem
    edited = edit_frontmatter(text, changes, dataset.rel)
    with vault.transaction(f"dataset: remove {dataset.name} — {why}", author) as txn:
        txn.move(dataset.rel, target)
        txn.write(target, edited)
    index_file(vault.state_dir, dataset.name).unlink(missing_ok=True)
    return Removed(dataset.name, dataset.rel, target)


# --- check and doctor ---------------------------------------------------------------------------


def file_problems(vault: Vault) -> list[DataError]:
    """Each registered dataset whose file is missing or changed, at its note's ``path`` line."""
    out = []
    found, _problems = statuses(vault)
    for status in found:
        if status.problem:
            line = status.dataset.record and _line_of(vault, status.dataset.rel, "path")
            out.append(DataError(status.message, path=status.dataset.rel, line=line or 1, hint=status.hint))
    return out


def _line_of(vault: Vault, rel: str, key: str) -> int:
    import re

    try:
        text = (vault.root / rel).read_text(encoding="utf-8")
    except OSError:
        return 1
    m = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE)
    return text.count("\n", 0, m.start()) + 1 if m else 1



# --- contradictions (check --facts) --------------------------------------------------------------


def contested_edges(vault: Vault, rules: FactRules, notes: Sequence[Fact] = ()) -> list[Fact]:
    """The datasets' edges that contradict another assertion — an edge of the same dataset or of
    another one (an opposite predicate for the same subject and object; within a dataset, also
    another object of a single-valued predicate), or a current fact note — for ``check --facts``,
    which weighs each pair as information (facts/query.py). Found in SQL, never by reading every
    edge into Python: a 1M-edge dataset costs a join, not a million facts."""
    from biocortex_cli.facts.datasets_index import consult, stderr_notice
    from biocortex_cli.facts.model import name_key

    found = consult(vault, notice=stderr_notice)
    for warning in found.warnings:
        stderr_notice(warning)
    out: dict[str, Fact] = {}
    try:
        for i, a in enumerate(found.edges):
            for b in found.edges[i:]:
                for fact in _clashes(a, b, rules):
                    out[fact.id] = fact
            for note in notes:
                if note.status != "current":
                    continue
                single = {note.predicate} if note.predicate in rules.single_valued else set()
                for edge in a.about({name_key(note.subject)}, {name_key(note.object)}, single):
                    if rules.conflicts(edge, note):
                        out[edge.id] = edge
    finally:
        found.close()
    return sorted(out.values(), key=lambda f: f.id)


def _opposed(rules: FactRules, a: str, b: str) -> bool:
    opposes = getattr(rules, "opposes", None)  # with a predicate hierarchy: narrower ones oppose too
    if opposes is not None:
        return bool(opposes(a, b) or opposes(b, a))
    return bool(rules.opposites.get(a) == b)


def _clashes(a: DatasetEdges, b: DatasetEdges, rules: FactRules) -> list[Fact]:
    """Edges of ``a`` and ``b`` (maybe the same dataset) that contradict each other."""
    pairs = [(x, y) for x in a.predicates() for y in b.predicates() if _opposed(rules, x, y)]
    same = a is b
    single = [x for x in a.predicates() if x in rules.single_valued] if same else []
    if not pairs and not single:
        return []
    conn = a.conn
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS opp(a TEXT NOT NULL, b TEXT NOT NULL)")
    conn.execute("DELETE FROM temp.opp")
    conn.executemany("INSERT INTO temp.opp VALUES(?, ?)", pairs)
    hits: list[tuple[int, int]] = []
    if same:
        hits += conn.execute(
            "SELECT e1.rowid, e2.rowid FROM edges e1 JOIN predicates p1 ON p1.id = e1.p "
            "JOIN temp.opp ON opp.a = p1.name JOIN predicates p2 ON p2.name = opp.b "
            "JOIN edges e2 ON e2.s = e1.s AND e2.o = e1.o AND e2.p = p2.id").fetchall()
        if single:
            marks = ",".join("?" * len(single))
            hits += conn.execute(
                f"SELECT e1.rowid, e2.rowid FROM edges e1 JOIN predicates p1 ON p1.id = e1.p AND p1.name IN ({marks}) "
                f"JOIN edges e2 ON e2.s = e1.s AND e2.p = e1.p AND e2.o != e1.o", single).fetchall()
        return a.by_rowids([x for x, _ in hits] + [y for _, y in hits])
    (other,) = [row[2] for row in b.conn.execute("PRAGMA database_list") if row[1] == "main"]
    conn.execute("ATTACH DATABASE ? AS other", (f"file:{other}?mode=ro",))
    try:
        hits = conn.execute(
            "SELECT e1.rowid, e2.rowid FROM main.edges e1 JOIN main.predicates p1 ON p1.id = e1.p "
            "JOIN temp.opp ON opp.a = p1.name JOIN other.predicates p2 ON p2.name = opp.b "
            "JOIN main.names k1 ON k1.node = e1.s JOIN other.names k2 ON k2.key = k1.key "
            "JOIN main.names k3 ON k3.node = e1.o JOIN other.names k4 ON k4.key = k3.key "
            "JOIN other.edges e2 ON e2.s = k2.node AND e2.o = k4.node AND e2.p = p2.id").fetchall()
    finally:
        conn.execute("DETACH DATABASE other")
    return a.by_rowids(x for x, _ in hits) + b.by_rowids(y for _, y in hits)


# --- text for people ----------------------------------------------------------------------------


def status_line(status: DatasetStatus) -> str:
    d = status.dataset
    edges = f"{status.indexed_edges:,}" if status.indexed_edges is not None else f"({d.edges:,})"
    state = status.state if status.state == "ok" else status.state.upper()
    return f"{d.label:<24} {state:<9} {edges:>11} edges  {d.licence}  ·  {d.file.path}"


def show_text(status: DatasetStatus) -> str:
    d = status.dataset
    rows = [("source", d.origin), ("title", d.title), ("licence", d.licence), ("from", d.url),
            ("file", d.file.path), ("nodes file", d.nodes.path if d.nodes else ""),
            ("format", d.format + ("" if d.header else " (no header row)")),
            ("checksum", f"{d.file.checksum} ({d.file.size:,} bytes)"),
            ("rows → edges", f"{d.rows:,} → {d.edges:,}"), ("confidence", f"{d.confidence:g}"),
            ("columns", " · ".join(f"{k} ← {v}" for k, v in d.mapping.columns.items())),
            ("predicates", " · ".join(f"{k} → {v or '(dropped)'}" for k, v in d.mapping.predicates.items())),
            ("predicate", d.mapping.predicate or ""),
            ("qualifiers", " · ".join(f"{k}: {v}" for k, v in d.mapping.qualifiers.items())),
            ("note", d.rel),
            ("state", status.state + (f": {status.message}" if status.message else "")),
            ("fix", status.hint if status.state != "ok" else ""),
            ("index", f"{status.indexed_edges:,} edges, {status.index_bytes / 2**20:.1f} MiB"
             if status.indexed_edges is not None and status.index_bytes is not None else "")]
    return "\n".join(f"{k + ':':<14}{v}" for k, v in rows if v)


def refreshed_line(item: Refreshed) -> str:
    said = f": {item.message}" if item.message else ""
    fix = f" ({item.hint})" if item.problem and item.hint else ""
    return f"{item.label:<24} {item.action}{said}{fix}"
