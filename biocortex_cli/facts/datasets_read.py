"""Reading a registered dataset's file: every byte hashed, every row mapped to an edge or counted.

:class:`EdgeReader` reads a dataset's file(s) once (facts/datasets.py says what a dataset is),
hashing every byte it reads (so the checksum is of exactly what was indexed), reporting progress,
and yielding one :class:`Edge` per usable row; a row it cannot use is counted by reason, and the
first few are kept as ``path:line`` problems — one bad row never stops the rest.

Formats: ``tsv``, ``csv``, ``jsonl`` (one object per line) and ``kgx`` (KGX/Biolink: a folder with
``nodes.tsv`` and ``edges.tsv``, or an ``edges.tsv`` with its ``nodes.tsv`` beside it). A column is
named by its header (exact, else case-insensitive) or by its 1-based number; a file without a
header row (``header: false``) names columns by number only.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.facts.datasets import (
    FORMATS,
    QUALIFIER_FIELD,
    Dataset,
    FileRef,
    Progress,
    normalize_qualifier,
    resolve_path,
)
from biocortex_cli.facts.model import normalize_predicate

KGX_PREFIX = "biolink:"
MAX_PROBLEMS = 20  # rows kept as path:line problems (the rest are counted)
MAX_NAME = 500
Getter = Callable[[Any], str]  # a cell of a row (a list of cells, or a JSON object), as text
_REF_SPLIT = re.compile(r"[;|,\s]+")
_PMID = re.compile(r"(?i)(?:pmid:?\s*)?(\d{1,9})")


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
