"""Datasets as sources of record: the dataset note, the column mapping, and reading the file.

A registered dataset is ONE small committed note, ``datasets/<name>.md``: its name, version,
licence, where the file is, the file's checksum and size, and how its columns map to
(subject, predicate, object) — plus optional sign, publications and qualifier columns and a
predicate mapping (TRRUST's ``Activation`` → ``activates``). The rows are never copied into the
vault: share-alike licences and size stay with the file. Its edges are indexed outside git
(facts/datasets_index.py) and answer beside the notes (facts/datasets_registry.py).

Formats: ``tsv``, ``csv``, ``jsonl`` (one object per line) and ``kgx`` (KGX/Biolink: a folder with
``nodes.tsv`` and ``edges.tsv``, or an ``edges.tsv`` with its ``nodes.tsv`` beside it). A column is
named by its header (exact, else case-insensitive) or by its 1-based number; a file without a
header row (``header: false``) names columns by number only.

:class:`EdgeReader` reads a dataset's file once, hashing every byte it reads (so the checksum
is of exactly what was indexed), reporting progress, and yielding one :class:`Edge` per usable
row; a row it cannot use is counted by reason, and the first few are kept as ``path:line``
problems — one bad row never stops the rest.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.facts.model import normalize_predicate

if TYPE_CHECKING:
    from biocortex_cli.store.notes import Note

FOLDER = "datasets"
FORMATS = ("tsv", "csv", "jsonl", "kgx")
#: what a column can be mapped to; ``qualifier.<name>`` maps a qualifier column (taxon, cell_type, context)
FIELDS = ("subject", "predicate", "object", "sign", "publications")
QUALIFIER_FIELD = "qualifier."
QUALIFIERS = ("taxon", "cell_type", "context")
KGX_COLUMNS = {"subject": "subject", "predicate": "predicate", "object": "object", "publications": "publications"}
KGX_PREFIX = "biolink:"
MAX_PROBLEMS = 20  # rows kept as path:line problems (the rest are counted)
MAX_NAME = 500
#: progress: (bytes read, bytes in all), called about every megabyte and at the end
Progress = Callable[[int, int], None]
Getter = Callable[[Any], str]  # a cell of a row (a list of cells, or a JSON object), as text
_REF_SPLIT = re.compile(r"[;|,\s]+")
_PMID = re.compile(r"(?i)(?:pmid:?\s*)?(\d{1,9})")


# --- the mapping --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnMap:
    """Which column holds what, and how predicate (or sign) values become predicates."""

    columns: Mapping[str, str] = field(default_factory=dict)  # field -> column (header name or 1-based number)
    predicates: Mapping[str, str] = field(default_factory=dict)  # value in the file -> predicate ("" drops the row)
    predicate: str | None = None  # the predicate of every row, when no column holds one
    qualifiers: Mapping[str, str] = field(default_factory=dict)  # qualifiers of every row (taxon: NCBITaxon:9606)

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
        m = re.fullmatch(r"(?i)(?:ncbitaxon|taxon|taxid)?\s*:?\s*(\d{1,8})", text)
        if m:
            return f"NCBITaxon:{int(m.group(1))}"
    return text


# --- the dataset (its note) -------------------------------------------------------------------


class FileRef(NamedTuple):
    path: str  # as recorded: relative to the vault, ~/…, or absolute
    checksum: str  # sha256:<hex>
    size: int


@dataclass(frozen=True)
class Dataset:
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
    record: Mapping[str, Any] = field(default_factory=dict)

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


def resolve_path(root: Path, recorded: str) -> Path:
    """Where a recorded path points on this machine: ``~`` expanded, relative to the vault."""
    path = Path(os.path.expanduser(recorded))
    return path if path.is_absolute() else root / path


def record_path(root: Path, given: Path) -> str:
    """How to record a file's path: relative to the vault when inside it, ``~/…`` when under the
    home folder (so clones on other machines find it where their owners keep it), else absolute."""
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
    meta = note.meta

    def text(key: str, *, required: bool = True) -> str:
        value = meta.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            raise DataError(f"{key} is required text", path=note.rel, line=note.line_of(key),
                            hint=f"write {key}: …")
        return value.strip()

    def number(key: str, kind: type, default: Any = None) -> Any:
        value = meta.get(key, default)
        wrong = isinstance(value, bool) or not isinstance(value, int | float)
        if wrong or (kind is int and not isinstance(value, int)):
            raise DataError(f"{key} must be a {'whole ' if kind is int else ''}number, not {value!r}",
                            path=note.rel, line=note.line_of(key))
        return kind(value)

    def mapping(key: str) -> dict[str, str]:
        value = meta.get(key) or {}
        if not isinstance(value, dict) or not all(isinstance(v, str | int) for v in value.values()):
            raise DataError(f"{key} must be a mapping of names to text", path=note.rel, line=note.line_of(key),
                            hint=f"write {key}: {{a: b}}")
        return {str(k): str(v) for k, v in value.items()}

    def file_ref(value: Any, key: str) -> FileRef:
        if not isinstance(value, dict):
            raise DataError(f"{key} must be a mapping with path, checksum and size", path=note.rel,
                            line=note.line_of(key))
        checksum, size = value.get("checksum"), value.get("size")
        if (not isinstance(value.get("path"), str) or not _CHECKSUM.fullmatch(str(checksum))
                or not isinstance(size, int)):
            raise DataError(f"{key} needs path, checksum (sha256:<64 hex digits>) and size", path=note.rel,
                            line=note.line_of(key))
        return FileRef(str(value["path"]), str(checksum), int(size))

    name = text("id")
    checksum = text("checksum")
    if not _CHECKSUM.fullmatch(checksum):
        raise DataError(f"checksum must be sha256:<64 hex digits>, not {checksum!r}", path=note.rel,
                        line=note.line_of("checksum"), hint="run `biocortex dataset refresh NAME --accept-change`")
    fmt = text("format")
    if fmt not in FORMATS:
        raise DataError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}", path=note.rel,
                        line=note.line_of("format"))
    header = meta.get("header", True)
    if not isinstance(header, bool):
        raise DataError(f"header must be true or false, not {header!r}", path=note.rel, line=note.line_of("header"))
    confidence = number("confidence", float, 0.8)
    if not 0.0 <= confidence <= 1.0:
        raise DataError(f"confidence must be from 0 to 1, not {confidence:g}", path=note.rel,
                        line=note.line_of("confidence"))
    columns = mapping("columns")
    for key in columns:
        if key not in FIELDS and not (key.startswith(QUALIFIER_FIELD) and key[len(QUALIFIER_FIELD):] in QUALIFIERS):
            raise DataError(f"columns: {key!r} is not a field", path=note.rel, line=note.line_of("columns"),
                            hint=f"fields: {', '.join(FIELDS)}, qualifier.<{'|'.join(QUALIFIERS)}>")
    pred = meta.get("predicate")
    if not columns.get("predicate") and not (isinstance(pred, str) and pred.strip()):
        raise DataError("no predicate: map a predicate column or give one predicate for every row", path=note.rel,
                        line=note.line_of("columns"), hint="columns: {predicate: …} or predicate: regulates")
    for key in ("subject", "object"):
        if not columns.get(key):
            raise DataError(f"columns: no {key} column", path=note.rel, line=note.line_of("columns"),
                            hint=f"columns: {{{key}: <header or number>}}")
    cmap = ColumnMap(columns=columns, predicates=mapping("predicates"),
                     predicate=pred.strip() if isinstance(pred, str) and pred.strip() else None,
                     qualifiers=mapping("qualifiers"))
    nodes = file_ref(meta["nodes"], "nodes") if meta.get("nodes") is not None else None
    if fmt == "kgx" and nodes is None:
        raise DataError("a kgx dataset needs nodes (path, checksum, size)", path=note.rel, line=note.line_of("format"))
    return Dataset(name=name, version=text("version"), licence=text("licence"),
                   file=FileRef(text("path"), checksum, number("size", int)), format=fmt, header=header,
                   mapping=cmap, confidence=confidence, rows=number("rows", int, 0), edges=number("edges", int, 0),
                   title=text("title", required=False), url=text("url", required=False), nodes=nodes,
                   rel=note.rel, record=dict(meta))


_CHECKSUM = re.compile(r"sha256:[0-9a-f]{64}")


def dataset_problems(note: Note) -> list[DataError]:
    """What ``check`` reports about a dataset note (its fields; the file is checked apart)."""
    try:
        dataset = dataset_from_note(note)
    except DataError as exc:
        return [exc]
    stem = Path(note.rel).stem
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


# --- reading the file ---------------------------------------------------------------------------


class Edge(NamedTuple):
    line: int  # of the row in the file (1-based, physical line)
    subject: str
    predicate: str
    object: str
    refs: tuple[str, ...]  # publications (PMID:… and others), counted with the dataset, not apart
    qualifiers: tuple[tuple[str, str], ...]  # per-row qualifiers (after the dataset's own)


class _Hashing(io.RawIOBase):
    """A raw reader that hashes every byte it hands on and reports progress."""

    def __init__(self, fh: BinaryIO, digest: Any, tick: Callable[[int], None]) -> None:
        self._fh, self._digest, self._tick = fh, digest, tick

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._fh.readinto(buffer)  # type: ignore[attr-defined]
        if n:
            self._digest.update(memoryview(buffer)[:n])
            self._tick(n)
        return n or 0


@dataclass
class ReadReport:
    """What reading found: per file its checksum, the rows and edges, and what was skipped."""

    checksums: dict[str, str] = field(default_factory=dict)  # recorded path -> sha256:…
    sizes: dict[str, int] = field(default_factory=dict)
    rows: int = 0
    edges: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> rows
    problems: list[DataError] = field(default_factory=list)  # the first MAX_PROBLEMS, path:line


class EdgeReader:
    """Reads a dataset's file(s) once: hashes, counts, maps each row to an :class:`Edge`."""

    def __init__(self, dataset: Dataset, root: Path, progress: Progress | None = None) -> None:
        self.dataset = dataset
        self.root = root
        self.report = ReadReport()
        self._progress = progress
        self._total = 0
        self._done = 0
        self._said = 0
        self.node_names: dict[str, str] = {}  # kgx: node id -> name

    def paths(self) -> list[tuple[FileRef, Path]]:
        return [(ref, resolve_path(self.root, ref.path)) for ref in self.dataset.files()]

    def _tick(self, n: int) -> None:
        self._done += n
        if self._progress is not None and (self._done - self._said >= 1 << 20 or self._done >= self._total):
            self._said = self._done
            self._progress(self._done, self._total)

    def _text(self, ref: FileRef, path: Path) -> tuple[io.TextIOWrapper, Any]:
        """The file as text, and the digest that every byte read from it goes through."""
        digest = hashlib.sha256()
        try:
            fh = open(path, "rb")  # noqa: SIM115 - closed by _finish
        except FileNotFoundError:
            raise DataError(f"dataset file {ref.path} does not exist", path=self.dataset.rel or None,
                            hint="give its new place: biocortex dataset refresh NAME --path FILE") from None
        except OSError as exc:
            raise DataError(f"cannot read dataset file {ref.path}: {exc.strerror}",
                            path=self.dataset.rel or None) from None
        raw = _Hashing(fh, digest, self._tick)
        return io.TextIOWrapper(io.BufferedReader(raw, 1 << 20), encoding="utf-8-sig", newline=""), digest

    def _read(self, ref: FileRef, path: Path,
              rows: Callable[[io.TextIOWrapper, str], Iterator[Edge]]) -> Iterator[Edge]:
        text, digest = self._text(ref, path)
        try:
            yield from rows(text, ref.path)
            while text.read(1 << 20):  # hash to the end (a reader may stop before it)
                pass
        except UnicodeDecodeError as exc:
            raise DataError(f"{ref.path} is not UTF-8 text ({exc.reason} near byte {self._done:,})",
                            path=self.dataset.rel or None, hint="convert it, e.g. iconv -f LATIN1 -t UTF-8") from None
        finally:
            text.close()
        self.report.checksums[ref.path] = "sha256:" + digest.hexdigest()
        self.report.sizes[ref.path] = _size(path)

    def edges(self) -> Iterator[Edge]:
        """Every usable row as an edge (the report fills as it goes)."""
        refs = self.paths()
        self._total = sum(_size(p) for _, p in refs)
        if self.dataset.format == "kgx":
            yield from self._read(*refs[0], self._read_nodes)
            refs = refs[1:]
        yield from self._read(*refs[0], self._read_edges)
        if self._progress is not None and self._said < self._done:
            self._progress(self._done, self._total)

    def _rows(self, text: io.TextIOWrapper, where: str, required: Iterable[str],
              optional: Iterable[str] = ()) -> tuple[Iterator[tuple[int, Any]], Callable[[str], Getter]]:
        """(line, row) per row, and a maker of getters: ``column(spec)(row)`` is the cell's text.
        A required column that is not there is one error before any row; an optional one reads
        as empty."""
        if self.dataset.format == "jsonl":
            return self._json_rows(text, where), lambda col: lambda obj: _json_value(obj.get(col))
        import csv

        fmt = self.dataset.format
        reader = csv.reader(text, delimiter="," if fmt == "csv" else "\t",
                            quoting=csv.QUOTE_MINIMAL if fmt == "csv" else csv.QUOTE_NONE)
        has_header = self.dataset.header or fmt == "kgx"
        header: dict[str, int] = {}
        if has_header:
            first = next(reader, None)
            header = _header_index(first or [])
        for col in required:
            _position(col, header, where, has_header)

        def column(col: str) -> Getter:
            try:
                at = _position(col, header, where, has_header)
            except DataError:
                if col in optional:
                    return lambda row: ""
                raise
            return lambda row: row[at].strip() if at < len(row) else ""

        def rows() -> Iterator[tuple[int, list[str]]]:
            for row in reader:
                if row and row != [""]:
                    yield reader.line_num, row

        return rows(), column

    def _json_rows(self, text: io.TextIOWrapper, where: str) -> Iterator[tuple[int, dict[str, Any]]]:
        import json

        for number, line in enumerate(text, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                self._skip("not a JSON object", where, number, f"not JSON: {exc}")
                continue
            if not isinstance(obj, dict):
                self._skip("not a JSON object", where, number, "not a JSON object")
                continue
            yield number, obj

    def _read_nodes(self, text: io.TextIOWrapper, where: str) -> Iterator[Edge]:
        """KGX nodes: id -> name (edges name their ends by id); yields nothing."""
        rows, column = self._rows(text, where, ("id",), ("name",))
        ident, name = column("id"), column("name")
        for _number, row in rows:
            key = ident(row)
            if key:
                self.node_names[key] = " ".join(name(row).split())
        yield from ()

    def _read_edges(self, text: io.TextIOWrapper, where: str) -> Iterator[Edge]:
        cmap = self.dataset.mapping
        cols = cmap.columns
        rows, column = self._rows(text, where, cols.values())
        subject, obj = column(cols["subject"]), column(cols["object"])
        sign = column(cols["sign"]) if "sign" in cols else None
        predicate = column(cols["predicate"]) if "predicate" in cols else None
        publications = column(cols["publications"]) if "publications" in cols else None
        qual_cols = [(k[len(QUALIFIER_FIELD):], column(v)) for k, v in cols.items() if k.startswith(QUALIFIER_FIELD)]
        cache: dict[str, str] = {}
        report = self.report
        for number, row in rows:
            report.rows += 1
            s, o = " ".join(subject(row).split()), " ".join(obj(row).split())
            if not s or not o:
                self._skip("empty subject or object", where, number, "empty subject or object")
                continue
            if len(s) > MAX_NAME or len(o) > MAX_NAME:
                self._skip("name too long", where, number, f"a name longer than {MAX_NAME} characters")
                continue
            value = sign(row) if sign is not None else ""
            signed = bool(value)
            if not signed:
                value = predicate(row) if predicate is not None else ""
            pred, why = self._predicate(value, signed, cache)
            if pred is None:
                self._skip(why, where, number, why)
                continue
            if not pred:
                report.skipped[f"predicate {value!r} mapped to nothing"] += 1
                continue
            refs = _refs(publications(row)) if publications is not None else ()
            quals = tuple((k, normalize_qualifier(k, q)) for k, get in qual_cols if (q := get(row)))
            report.edges += 1
            yield Edge(number, s, pred, o, refs, quals)

    def _predicate(self, value: str, signed: bool, cache: dict[str, str]) -> tuple[str | None, str]:
        """(the predicate a row's sign or predicate cell means, or None and why not)."""
        cmap = self.dataset.mapping
        if not value:
            return (cmap.predicate, "") if cmap.predicate is not None else (None, "empty predicate")
        if signed or cmap.predicates:
            found = cmap.predicates.get(value)
            return (found, "") if found is not None else (None, f"{'sign' if signed else 'predicate'} {value!r} "
                                                                "is not in the predicate map")
        if value not in cache:
            kgx = self.dataset.format == "kgx"
            try:
                cache[value] = normalize_predicate(value[len(KGX_PREFIX):] if kgx and value.startswith(KGX_PREFIX)
                                                   else value)
            except UsageError as exc:
                return None, exc.message
        return cache[value], ""

    def _skip(self, reason: str, where: str, line: int, message: str) -> None:
        self.report.skipped[reason] += 1
        if len(self.report.problems) < MAX_PROBLEMS:
            self.report.problems.append(DataError(message, path=where, line=line))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _header_index(first: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, name in enumerate(first):
        out.setdefault(name.strip(), i)
    for i, name in enumerate(first):
        out.setdefault(name.strip().casefold(), i)
    return out


def _position(col: str, header: dict[str, int], where: str, has_header: bool) -> int:
    if col in header:
        return header[col]
    if col.casefold() in header:
        return header[col.casefold()]
    if col.isdigit() and int(col) >= 1:
        return int(col) - 1
    if not has_header:
        raise DataError(f"column {col!r}: a file without a header row names columns by number (1, 2, …)",
                        path=where, line=1, hint="e.g. --map subject=1 --map object=2, or drop --no-header")
    names = ", ".join(n for n in header if n == n.strip())[:300]
    raise DataError(f"no column {col!r} in the header", path=where, line=1,
                    hint=f"the columns are: {names}; map fields with --map FIELD=COLUMN")


def _json_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "|".join(str(v) for v in value)
    return str(value).strip()


def _refs(text: str) -> tuple[str, ...]:
    """``10101800;PMID:123|doi:10.1/x`` → ``("PMID:10101800", "PMID:123", "doi:10.1/x")``."""
    out = []
    for part in _REF_SPLIT.split(text):
        if part:
            m = _PMID.fullmatch(part)
            out.append(f"PMID:{int(m.group(1))}" if m else part)
    return tuple(dict.fromkeys(out))


def sniff_format(path: Path) -> str:
    """The format a path's name says (a folder or ``*edges.tsv`` with ``nodes.tsv`` beside: kgx)."""
    if path.is_dir():
        return "kgx"
    name = path.name.casefold()
    for suffix in (".gz", ".bz2", ".xz", ".zip"):
        if name.endswith(suffix):
            raise UsageError(f"{path} is compressed", hint=f"decompress it first (biocortex reads plain text): "
                             f"e.g. {'gunzip -k' if suffix == '.gz' else 'unzip'} {path}")
    if name.endswith("edges.tsv") and (path.parent / name.replace("edges", "nodes")).is_file():
        return "kgx"
    if name.endswith((".tsv", ".tab", ".txt")):
        return "tsv"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    raise UsageError(f"cannot tell the format of {path.name}", hint=f"give --format ({', '.join(FORMATS)})")


def kgx_files(path: Path) -> tuple[Path, Path]:
    """(nodes, edges) of a KGX dataset given as its folder or its edges file."""
    if path.is_dir():
        nodes, edges = path / "nodes.tsv", path / "edges.tsv"
    else:
        edges = path
        nodes = path.parent / path.name.replace("edges", "nodes")
    for part in (nodes, edges):
        if not part.is_file():
            raise UsageError(f"KGX dataset {path}: {part.name} not found",
                             hint="a KGX dataset is nodes.tsv and edges.tsv in one folder")
    return nodes, edges
