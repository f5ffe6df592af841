"""Datasets as sources of record: the dataset note, the column mapping, and reading the file.

A registered dataset is ONE small committed note, ``datasets/<name>.md``: its name, version,
licence, where the file is, the file's checksum and size, and how its columns map to
(subject, predicate, object) — plus optional sign, publications and qualifier columns and a
predicate mapping (TRRUST's ``Activation`` → ``activates``). The rows are never copied into the
vault: share-alike licences and size stay with the file. Its edges are indexed outside git
(facts/datasets_index.py) and answer beside the notes (facts/datasets_registry.py).

The notes are read on every ``fact verify``; their parsed records are kept in
``.biocortex/datasets/notes.cache`` (``packed.py``) keyed by each note's size and mtime (derived,
like the index), so the hot path never imports PyYAML (:func:`read_datasets`). Reading the files is
facts/datasets_read.py.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping
from types import MappingProxyType

from biocortex_cli.errors import DataError, NotFoundError, UsageError
from biocortex_cli.packed import unpack
from biocortex_cli.records import NamedTuple  # typing's, without importing typing

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from biocortex_cli.store.notes import Note
    from biocortex_cli.store.vault import Vault

FOLDER = "datasets"
STATE_FOLDER = "datasets"  # under .biocortex/: derived, git-ignored
NOTES_CACHE = "notes.cache"
FORMATS = ("tsv", "csv", "jsonl", "kgx")
#: what a column can be mapped to; ``qualifier.<name>`` maps a qualifier column (taxon, cell_type, context)
FIELDS = ("subject", "predicate", "object", "sign", "publications")
QUALIFIER_FIELD = "qualifier."
QUALIFIERS = ("taxon", "cell_type", "context")
KGX_COLUMNS = {"subject": "subject", "predicate": "predicate", "object": "object", "publications": "publications"}
#: progress: (bytes read, bytes in all), called about every megabyte and at the end
Progress = Callable[[int, int], None]


# --- the mapping --------------------------------------------------------------------------------


class ColumnMap(NamedTuple):
    """Which column holds what, and how predicate (or sign) values become predicates. (Records on
    the path of ``fact verify`` are NamedTuples: a frozen dataclass costs ~0.5 ms to define.)"""

    columns: Mapping[str, str]  # field -> column (header name or 1-based number)
    predicates: Mapping[str, str]  # value in the file -> predicate ("" drops the row)
    predicate: str | None = None  # the predicate of every row, when no column holds one
    qualifiers: Mapping[str, str] = MappingProxyType({})  # of every row (taxon: NCBITaxon:9606)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"columns": dict(self.columns)}
        if self.predicates:
            out["predicates"] = dict(self.predicates)
        if self.predicate:
            out["predicate"] = self.predicate
        if self.qualifiers:
            out["qualifiers"] = dict(self.qualifiers)
        return out


def parse_pairs(values: list[str] | None, option: str) -> dict[str, str]:
    """``["subject=TF", "object=2"]`` → ``{"subject": "TF", "object": "2"}`` (a usage error names
    the option and the pair)."""
    out: dict[str, str] = {}
    for raw in values or []:
        key, eq, value = raw.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise UsageError(f"{option} {raw!r} is not KEY=VALUE", hint=f"e.g. {option} {_EXAMPLES[option]}")
        if key in out:
            raise UsageError(f"{option} names {key!r} twice", hint="give each key once")
        out[key] = value
    return out


_EXAMPLES = {"--map": "subject=TF", "--predicate-map": "Activation=activates", "--qualifier": "taxon=9606"}


def make_mapping(fmt: str, *, columns: dict[str, str], predicates: dict[str, str], predicate: str | None,
                 qualifiers: dict[str, str]) -> ColumnMap:
    """The mapping given on the command line, checked (fields known, predicates normalised)."""
    from biocortex_cli.facts.model import normalize_predicate

    for key, value in columns.items():
        if key not in FIELDS and not (key.startswith(QUALIFIER_FIELD) and key[len(QUALIFIER_FIELD):] in QUALIFIERS):
            raise UsageError(f"--map {key}={value}: {key!r} is not a field",
                             hint=f"fields: {', '.join(FIELDS)}, or qualifier.<{'|'.join(QUALIFIERS)}>")
        if not value:
            raise UsageError(f"--map {key}= names no column", hint="give a header name or a 1-based column number")
    if fmt == "kgx":
        columns = {**KGX_COLUMNS, **columns}
    for needed in ("subject", "object"):
        if needed not in columns:
            columns[needed] = needed  # a header named subject / object
    if "predicate" not in columns and predicate is None:
        columns["predicate"] = "predicate"
    pred = normalize_predicate(predicate) if predicate else None
    mapped = {value: normalize_predicate(target) if target else "" for value, target in predicates.items()}
    quals = _qualifiers(qualifiers)
    return ColumnMap(columns=dict(sorted(columns.items(), key=lambda kv: _field_order(kv[0]))),
                     predicates=mapped, predicate=pred, qualifiers=quals)


def _field_order(key: str) -> tuple[int, str]:
    return (FIELDS.index(key), key) if key in FIELDS else (len(FIELDS), key)


def _qualifiers(values: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in values.items():
        if key not in QUALIFIERS:
            raise UsageError(f"--qualifier {key}={value}: unknown qualifier {key!r}",
                             hint=f"qualifiers are {', '.join(QUALIFIERS)}")
        if value.strip():
            out[key] = normalize_qualifier(key, value)
    return out


def normalize_qualifier(key: str, value: str) -> str:
    """A taxon as ``NCBITaxon:<id>`` (``9606``, ``taxon:9606`` and ``NCBITaxon:9606`` alike); other
    qualifiers as whitespace-normalised text."""
    text = " ".join(str(value).split())
    if key == "taxon":
        import re

        m = re.fullmatch(r"(?i)(?:ncbitaxon|taxon|taxid)?\s*:?\s*(\d{1,8})", text)
        if m:
            return f"NCBITaxon:{int(m.group(1))}"
    return text


# --- the dataset (its note) -------------------------------------------------------------------


class FileRef(NamedTuple):
    path: str  # as recorded: relative to the vault, ~/…, or absolute
    checksum: str  # sha256:<hex>
    size: int


class Dataset(NamedTuple):
    """A registered dataset, as its note records it."""

    name: str
    version: str
    licence: str
    file: FileRef
    format: str
    header: bool
    mapping: ColumnMap
    confidence: float
    rows: int = 0
    edges: int = 0
    title: str = ""
    url: str = ""
    nodes: FileRef | None = None  # kgx: the nodes file
    rel: str = ""  # the note
    record: Mapping[str, Any] = MappingProxyType({})

    @property
    def label(self) -> str:
        """``trrust@2``: the dataset and its version, as answers cite it."""
        return f"{self.name}@{self.version}"

    @property
    def origin(self) -> str:
        """``dataset:trrust@2``: the source an edge of this dataset names."""
        return f"dataset:{self.label}"

    def files(self) -> list[FileRef]:
        return [self.file] if self.nodes is None else [self.nodes, self.file]

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name, "version": self.version, "title": self.title, "licence": self.licence,
            "url": self.url, "source": self.origin, "path": self.file.path, "format": self.format,
            "header": self.header, "checksum": self.file.checksum, "size": self.file.size, "rows": self.rows,
            "edges": self.edges, "confidence": self.confidence, **self.mapping.as_json(), "note": self.rel}
        if self.nodes is not None:
            out["nodes"] = self.nodes._asdict()
        return out


def resolved(root: Path | str, recorded: str) -> str:
    """Where a recorded path points on this machine: ``~`` expanded, relative to the vault; a str
    (``fact verify`` stats the file on every call, without pathlib)."""
    return os.path.join(root, os.path.expanduser(recorded))  # an absolute path stays as it is


def resolve_path(root: Path | str, recorded: str) -> Path:
    """:func:`resolved` as a :class:`~pathlib.Path` (indexing and registering)."""
    from pathlib import Path

    return Path(resolved(root, recorded))


def record_path(root: Path, given: Path) -> str:
    """How to record a file's path: relative to the vault when inside it, ``~/…`` when under the
    home folder (so clones on other machines find it where their owners keep it), else absolute."""
    from pathlib import Path

    absolute = Path(os.path.abspath(given))
    for base, prefix in ((Path(os.path.abspath(root)), ""), (Path.home(), "~/")):
        try:
            return prefix + absolute.relative_to(base).as_posix()
        except ValueError:
            continue
    return absolute.as_posix()


def dataset_rel(name: str) -> str:
    return f"{FOLDER}/{name}.md"


def check_name(name: str) -> str:
    from biocortex_cli.store.episodes import ID_RE

    text = name.strip()
    if not ID_RE.fullmatch(text):
        raise UsageError(f"dataset name {name!r} is not a name",
                         hint="letters, digits, '.', '_' or '-', starting with a letter or digit (e.g. trrust)")
    return text


def dataset_from_note(note: Note) -> Dataset:
    """The dataset a note records (DataError with the line of the first bad field)."""
    return dataset_from_record(note.meta, note.rel, note.line_of)


def dataset_from_record(meta: Mapping[str, Any], rel: str, line_of: Callable[[str], int]) -> Dataset:
    """The dataset a note's frontmatter records (``rel``: the note; ``line_of``: a key's line)."""

    def text(key: str, *, required: bool = True) -> str:
        value = meta.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            raise DataError(f"{key} is required text", path=rel, line=line_of(key),
                            hint=f"write {key}: …")
        return value.strip()

    def number(key: str, kind: type, default: Any = None) -> Any:
        value = meta.get(key, default)
        wrong = isinstance(value, bool) or not isinstance(value, int | float)
        if wrong or (kind is int and not isinstance(value, int)):
            raise DataError(f"{key} must be a {'whole ' if kind is int else ''}number, not {value!r}",
                            path=rel, line=line_of(key))
        return kind(value)

    def mapping(key: str) -> dict[str, str]:
        value = meta.get(key) or {}
        if not isinstance(value, dict) or not all(isinstance(v, str | int) for v in value.values()):
            raise DataError(f"{key} must be a mapping of names to text", path=rel, line=line_of(key),
                            hint=f"write {key}: {{a: b}}")
        return {str(k): str(v) for k, v in value.items()}

    def file_ref(value: Any, key: str) -> FileRef:
        if not isinstance(value, dict):
            raise DataError(f"{key} must be a mapping with path, checksum and size", path=rel,
                            line=line_of(key))
        checksum, size = value.get("checksum"), value.get("size")
        if (not isinstance(value.get("path"), str) or not _is_checksum(str(checksum))
                or not isinstance(size, int)):
            raise DataError(f"{key} needs path, checksum (sha256:<64 hex digits>) and size", path=rel,
                            line=line_of(key))
        return FileRef(str(value["path"]), str(checksum), int(size))

    name = text("id")
    checksum = text("checksum")
    if not _is_checksum(checksum):
        raise DataError(f"checksum must be sha256:<64 hex digits>, not {checksum!r}", path=rel,
                        line=line_of("checksum"), hint="run `biocortex dataset refresh NAME --accept-change`")
    fmt = text("format")
    if fmt not in FORMATS:
        raise DataError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}", path=rel,
                        line=line_of("format"))
    header = meta.get("header", True)
    if not isinstance(header, bool):
        raise DataError(f"header must be true or false, not {header!r}", path=rel, line=line_of("header"))
    confidence = number("confidence", float, 0.8)
    if not 0.0 <= confidence <= 1.0:
        raise DataError(f"confidence must be from 0 to 1, not {confidence:g}", path=rel,
                        line=line_of("confidence"))
    columns = mapping("columns")
    for key in columns:
        if key not in FIELDS and not (key.startswith(QUALIFIER_FIELD) and key[len(QUALIFIER_FIELD):] in QUALIFIERS):
            raise DataError(f"columns: {key!r} is not a field", path=rel, line=line_of("columns"),
                            hint=f"fields: {', '.join(FIELDS)}, qualifier.<{'|'.join(QUALIFIERS)}>")
    pred = meta.get("predicate")
    if not columns.get("predicate") and not (isinstance(pred, str) and pred.strip()):
        raise DataError("no predicate: map a predicate column or give one predicate for every row", path=rel,
                        line=line_of("columns"), hint="columns: {predicate: …} or predicate: regulates")
    for key in ("subject", "object"):
        if not columns.get(key):
            raise DataError(f"columns: no {key} column", path=rel, line=line_of("columns"),
                            hint=f"columns: {{{key}: <header or number>}}")
    cmap = ColumnMap(columns=columns, predicates=mapping("predicates"),
                     predicate=pred.strip() if isinstance(pred, str) and pred.strip() else None,
                     qualifiers=mapping("qualifiers"))
    nodes = file_ref(meta["nodes"], "nodes") if meta.get("nodes") is not None else None
    if fmt == "kgx" and nodes is None:
        raise DataError("a kgx dataset needs nodes (path, checksum, size)", path=rel, line=line_of("format"))
    return Dataset(name=name, version=text("version"), licence=text("licence"),
                   file=FileRef(text("path"), checksum, number("size", int)), format=fmt, header=header,
                   mapping=cmap, confidence=confidence, rows=number("rows", int, 0), edges=number("edges", int, 0),
                   title=text("title", required=False), url=text("url", required=False), nodes=nodes,
                   rel=rel, record=dict(meta))


def _is_checksum(text: str) -> bool:
    """``sha256:`` and 64 lower-case hex digits (no pattern compiled: this runs on every `fact verify`)."""
    return len(text) == 71 and text.startswith("sha256:") and not text[7:].strip("0123456789abcdef")


def dataset_problems(note: Note) -> list[DataError]:
    """What ``check`` reports about a dataset note (its fields; the file is checked apart)."""
    try:
        dataset = dataset_from_note(note)
    except DataError as exc:
        return [exc]
    stem = posixpath.splitext(posixpath.basename(note.rel))[0]
    if stem != dataset.name and not note.rel.startswith("archive/"):
        return [DataError(f"the note of dataset {dataset.name!r} must be {dataset_rel(dataset.name)}",
                          path=note.rel, line=note.line_of("id"), hint="rename the file or the id")]
    return []


def render_dataset(dataset: Dataset, meta: dict[str, Any]) -> str:
    """The dataset note: the record in the frontmatter, a readable copy below (Obsidian)."""
    from biocortex_cli.store.notes import render_note

    return render_note(meta, dataset_body(dataset))


def dataset_body(dataset: Dataset) -> str:
    """The readable copy of a dataset note's record (its body)."""

    def cell(value: str) -> str:
        return value.replace("|", "\\|").replace("\n", " ")

    title = f"# {dataset.name} {dataset.version}" + (f" — {dataset.title}" if dataset.title else "")
    columns = " · ".join(f"{k} ← {v}" for k, v in dataset.mapping.columns.items())
    rows = [("file", f"`{dataset.file.path}`" + (f" (nodes: `{dataset.nodes.path}`)" if dataset.nodes else "")),
            ("format", dataset.format + ("" if dataset.header else ", no header row")),
            ("licence", dataset.licence)]
    if dataset.url:
        rows.append(("from", dataset.url))
    rows += [("checksum", f"{dataset.file.checksum} ({dataset.file.size:,} bytes)"),
             ("rows → edges", f"{dataset.rows:,} → {dataset.edges:,}"),
             ("columns", columns)]
    if dataset.mapping.predicates:
        rows.append(("predicates", " · ".join(f"{k or '(empty)'} → {v or '(row dropped)'}"
                                              for k, v in dataset.mapping.predicates.items())))
    if dataset.mapping.predicate:
        rows.append(("predicate", dataset.mapping.predicate))
    if dataset.mapping.qualifiers:
        rows.append(("qualifiers", " · ".join(f"{k}: {v}" for k, v in dataset.mapping.qualifiers.items())))
    rows.append(("confidence", f"{dataset.confidence:g} per edge"))
    body = [title, "",
            f"A dataset registered as a source of record: `fact query`, `fact verify`, `recall` and `context` "
            f"answer from its rows beside the notes, citing `{dataset.origin}`. Its rows are not copied into "
            "the vault; they are indexed from the file into `.biocortex/datasets/` (derived, rebuildable), and a "
            "file that moved or changed is reported, never used.", "",
            "| | |", "|---|---|", *(f"| {k} | {cell(v)} |" for k, v in rows), "",
            "<!-- Written by biocortex. The frontmatter above is the record; this body is a readable copy. -->"]
    return "\n".join(body) + "\n"


def dataset_meta(dataset: Dataset, *, created: str, author: str) -> dict[str, Any]:
    """The frontmatter of a new dataset note, in the order people read it."""
    meta: dict[str, Any] = {"id": dataset.name, "type": "dataset", "created": created, "author": author,
                            "version": dataset.version}
    if dataset.title:
        meta["title"] = dataset.title
    meta["licence"] = dataset.licence
    if dataset.url:
        meta["url"] = dataset.url
    meta.update({"path": dataset.file.path, "format": dataset.format, "header": dataset.header,
                 "checksum": dataset.file.checksum, "size": dataset.file.size})
    if dataset.nodes is not None:
        meta["nodes"] = dataset.nodes._asdict()
    meta.update({"rows": dataset.rows, "edges": dataset.edges, "confidence": dataset.confidence,
                 "columns": dict(dataset.mapping.columns)})
    if dataset.mapping.predicates:
        meta["predicates"] = dict(dataset.mapping.predicates)
    if dataset.mapping.predicate:
        meta["predicate"] = dataset.mapping.predicate
    if dataset.mapping.qualifiers:
        meta["qualifiers"] = dict(dataset.mapping.qualifiers)
    return meta


# --- reading the notes (cached) --------------------------------------------------------------------------


def note_rels(root: Path | str) -> dict[str, tuple[int, int]]:
    """``datasets/*.md`` (not README) -> (mtime_ns, size)."""
    from biocortex_cli.store.walk import list_folder

    try:
        return dict(sorted(list_folder(root, FOLDER).notes.items()))
    except (FileNotFoundError, NotADirectoryError):
        return {}


def read_datasets(vault: Vault) -> tuple[list[Dataset], list[DataError]]:
    """Every registered dataset (notes in ``datasets/``) and the notes that cannot be read."""
    rels = note_rels(vault.folder)
    if not rels:
        return [], []
    cache_path = os.path.join(vault.state_folder, STATE_FOLDER, NOTES_CACHE)  # os.path: verify's path
    try:
        with open(cache_path, "rb") as fh:
            cache = unpack(fh.read())
    except (OSError, ValueError):
        cache = {}
    out, problems, fresh = [], [], {}
    for rel, stamp in rels.items():
        hit = cache.get(rel) if isinstance(cache, dict) else None
        record = hit["record"] if isinstance(hit, dict) and hit.get("stamp") == list(stamp) else None
        try:
            dataset = _from_record(rel, record) if record is not None else _parse(vault, rel)
        except DataError as exc:
            problems.append(exc)
            continue
        fresh[rel] = {"stamp": list(stamp), "record": dict(dataset.record)}
        out.append(dataset)
    if fresh != cache:
        _write_cache(vault.state_dir, fresh)
    return out, problems


def _from_record(rel: str, record: dict[str, Any]) -> Dataset:
    """A cached record (read_datasets), without the note parser: every key on line 1, as a Note
    made from it would say."""
    return dataset_from_record(record, rel, lambda _key: 1)


def _parse(vault: Vault, rel: str) -> Dataset:
    from biocortex_cli.store.notes import read_note

    note = read_note(vault.root / rel, rel)
    dataset = dataset_from_note(note)
    if rel != dataset_rel(dataset.name):
        raise DataError(f"the note of dataset {dataset.name!r} must be {dataset_rel(dataset.name)}", path=rel,
                        line=note.line_of("id"), hint="rename the file or the id")
    return dataset


def state_folder(state_dir: Path) -> Path:
    """``.biocortex/datasets/``: the derived files (indexes, the notes cache); it ignores itself in git."""
    folder = state_dir / STATE_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():  # in vaults made before the template ignored the folder too
        ignore.write_text("# Derived from the registered datasets' files (biocortex dataset refresh rebuilds "
                          "them).\n*\n", encoding="utf-8")
    return folder


def _write_cache(state_dir: Path, data: dict[str, Any]) -> None:
    import contextlib

    from biocortex_cli.packed import pack
    from biocortex_cli.store.files import atomic_write

    with contextlib.suppress(OSError):  # a read-only vault: parsed again next time
        atomic_write(state_folder(state_dir) / NOTES_CACHE, pack(data), fsync=False)


def find_dataset(vault: Vault, name: str) -> Dataset:
    datasets, problems = read_datasets(vault)
    for dataset in datasets:
        if dataset.name == name:
            return dataset
    for problem in problems:
        if problem.path == dataset_rel(name):
            raise problem
    known = ", ".join(d.name for d in datasets) or "none yet"
    raise NotFoundError(f"no dataset named {name!r} (registered: {known})",
                        hint="list them with `biocortex dataset list`; register one with `biocortex dataset add`")
