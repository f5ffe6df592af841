"""A registered dataset's edges, indexed outside git: one SQLite file per dataset.

``.biocortex/datasets/<name>.sqlite`` (the folder ignores itself in git) is derived from the
file the dataset note names and can be rebuilt from it at any time. One file per dataset, not
tables in the sidecar index, because the measurement said so (docs/datasets.md): recall's index
stays the size of the vault's own memory, rebuilding the episode index never re-reads a 1M-edge
file, and registering, refreshing or removing one dataset writes one file, atomically (a build
writes a temporary file and renames it over the old one, so readers never see half of it).

Tables: ``nodes`` (one row per distinct end: its name as the file writes it and the tokens of
`` <name>`` in the vault's encoding), ``names`` (case-folded name, and for KGX the node's id →
node), ``predicates`` and ``quals`` (interned, with their tokens), ``edges`` (subject, object,
predicate, qualifiers, the row's line in the file, its publications), and ``meta``: the schema,
the checksum and stamp (size, mtime, inode) of every file read, a digest of the note's mapping,
the renderer's format key, the encoding, and what the build skipped.

Freshness, on every use (:func:`open_dataset`): a file's stamp equal to the one recorded at build
time means the indexed file is the one the note registered. A different stamp with the same size
is hashed once (a copy or ``touch`` keeps its checksum) and the stamp renewed; a different
checksum or size is a changed file and is never answered from; a file that is missing leaves
answers to the notes, with a warning.

Recall never loads a tokenizer: a dataset's recall line is rendered from pieces that each begin
with a space after a non-space character — a pre-token boundary in cl100k and o200k — so its
tokens are the sum of the pieces' tokens, counted once per node, predicate and qualifier set at
build time (tests/test_datasets.py compares the sum with tiktoken's count). The index stores each
piece's text beside its tokens and recall renders from those, so an index is consistent with
itself whatever version of this code reads it; only a change to how rows are read (the format
key) or to the tables (SCHEMA_VERSION) rebuilds one.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Sequence

from biocortex_cli.errors import DataError
from biocortex_cli.facts.datasets import STATE_FOLDER, Dataset, Progress, resolved, state_folder
from biocortex_cli.packed import canonical, pack, unpack
from biocortex_cli.records import NamedTuple  # typing's, without importing typing
from biocortex_cli.render.blocks import format_key

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from biocortex_cli.facts.model import Fact
    from biocortex_cli.store.vault import Vault

SCHEMA_VERSION = 3  # 3: meta values, qualifier sets and the note digest without JSON (packed.py)
#: the key of how rows are read into edges (facts/datasets_read.py): a new one rebuilds on first
#: use. What the tables hold is SCHEMA_VERSION (bumped by hand: a rebuild of a 1M-edge dataset
#: takes a minute, so a change to this module's queries must not cause one).
FORMAT = format_key(os.path.join(os.path.dirname(__file__), "datasets_read.py"))
BATCH = 50_000
SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE nodes(id INTEGER PRIMARY KEY, name TEXT NOT NULL, tokens INTEGER NOT NULL);
CREATE TABLE names(key TEXT NOT NULL, node INTEGER NOT NULL, PRIMARY KEY(key, node)) WITHOUT ROWID;
CREATE TABLE predicates(id INTEGER PRIMARY KEY, name TEXT NOT NULL, text TEXT NOT NULL, tokens INTEGER NOT NULL);
CREATE TABLE quals(id INTEGER PRIMARY KEY, packed BLOB NOT NULL, text TEXT NOT NULL, tokens INTEGER NOT NULL);
CREATE TABLE edges(s INTEGER NOT NULL, o INTEGER NOT NULL, p INTEGER NOT NULL, q INTEGER NOT NULL,
  line INTEGER NOT NULL, nrefs INTEGER NOT NULL, refs TEXT);
"""
#: (s, o) serves a subject's edges and a pair's; names(node) finds a node's names (joins across datasets)
INDEXES = ("CREATE INDEX edges_so ON edges(s, o); CREATE INDEX edges_o ON edges(o); "
           "CREATE INDEX names_node ON names(node);")
MAX_IN = 500  # keys per IN (...) list


def index_location(state_dir: Path | str, name: str) -> str:
    """Where dataset ``name``'s index lives, as a str (``fact verify`` opens it without pathlib)."""
    return os.path.join(state_dir, STATE_FOLDER, f"{name}.sqlite")


def index_file(state_dir: Path | str, name: str) -> Path:
    """:func:`index_location` as a :class:`~pathlib.Path` (building, refreshing, removing)."""
    from pathlib import Path

    return Path(index_location(state_dir, name))


def note_digest(dataset: Dataset) -> str:
    """What the index depends on in the note: the files' checksums, format, mapping, and what the
    recall lines print (the dataset's source and confidence)."""
    import zlib

    data = canonical([dataset.origin, dataset.format, dataset.header, dataset.confidence,
                      [tuple(f) for f in dataset.files()], dataset.mapping.as_json()]).encode()
    return f"{zlib.crc32(data):08x}-{len(data)}"


# --- the recall line ----------------------------------------------------------------------------


def line_pieces(dataset: Dataset) -> dict[str, str]:
    """The constant pieces of a dataset's recall lines (each begins with a space, but the first)."""
    conf = f"confidence {dataset.confidence:g})\n"
    return {"dash": "-", "open": f" ({dataset.origin},", "one": f" publication; {conf}",
            "many": f" publications; {conf}", "none": f" ({dataset.origin}; {conf}"}


def number_tokens(n: int) -> int:
    """Tokens of `` <n>``: the space, then one per run of three digits (cl100k, o200k and the estimate)."""
    return 1 + -(-len(str(n)) // 3)


def predicate_piece(predicate: str) -> str:
    return " " + predicate.replace("_", " ")


def recall_line(pieces: dict[str, list[Any]], s: str, pred: str, o: str, quals: str, nrefs: int) -> tuple[str, int]:
    """``- TP53 activates CDKN1A [human] (dataset:trrust@2, 28 publications; confidence 0.8)`` and
    the tokens of everything but the names, the predicate and the qualifiers (``pred`` and
    ``quals`` are their pieces as the index stores them, with their tokens apart). The constant
    pieces are those the index stored, with their tokens: an index always renders the lines it
    counted, whatever this code now says (``dataset refresh --rebuild`` takes up a new wording)."""
    head = f"{pieces['dash'][0]} {s}{pred} {o}{quals}"
    if not nrefs:
        return head + pieces["none"][0], pieces["dash"][1] + pieces["none"][1]
    tail = pieces["one" if nrefs == 1 else "many"]
    return (head + pieces["open"][0] + f" {nrefs}" + tail[0],
            pieces["dash"][1] + pieces["open"][1] + number_tokens(nrefs) + tail[1])


def qualifier_suffix(quals: dict[str, str]) -> str:
    """`` [human · T cell]`` (taxon by common name where known), or ""."""
    if not quals:
        return ""
    try:
        from biocortex_cli.facts.model import qualifier_text  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # before qualifiers land in the fact model
        return " [" + " · ".join(quals.values()) + "]"
    return f" [{qualifier_text(quals)}]"


# --- building -----------------------------------------------------------------------------------


class BuildReport(NamedTuple):
    dataset: str
    rows: int
    edges: int
    nodes: int
    skipped: dict[str, int]
    problems: list[DataError]
    checksums: dict[str, str]
    sizes: dict[str, int]
    seconds: float
    bytes: int  # of the index file

    def as_json(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "rows": self.rows, "edges": self.edges, "nodes": self.nodes,
                "skipped": self.skipped, "seconds": round(self.seconds, 3), "index_bytes": self.bytes,
                "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in self.problems]}


class ChecksumMismatch(DataError):
    """The file read is not the one the note registered."""


def _stamp(path: Path | str) -> list[int]:
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def build_index(dataset: Dataset, root: Path, state_dir: Path, *, encoding: str, progress: Progress | None = None,
                verify: bool = True) -> BuildReport:
    """Index ``dataset``'s file(s) into ``.biocortex/datasets/<name>.sqlite``, replacing it whole.

    With ``verify``, what was read must have the checksums the note records (else
    :class:`ChecksumMismatch`, and the old index stays). ``progress(bytes read, bytes in all)``."""
    from biocortex_cli.tokens import get_counter

    started = time.perf_counter()
    folder = state_folder(state_dir)
    target = folder / f"{dataset.name}.sqlite"
    tmp = folder / f".{dataset.name}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    from biocortex_cli.facts.datasets_read import EdgeReader

    reader = EdgeReader(dataset, root, progress)
    stamps = {ref.path: _stamp(path) for ref, path in reader.paths() if path.exists()}
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;" + SCHEMA)
        conn.execute("BEGIN")
        kgx = dataset.format == "kgx"
        nodes: dict[str, int] = {}
        preds: dict[str, int] = {}
        quals: dict[tuple[tuple[str, str], ...], int] = {(): 0}
        base = tuple(sorted(dataset.mapping.qualifiers.items()))
        rows: list[tuple[int, int, int, int, int, int, str | None]] = []
        insert = "INSERT INTO edges VALUES(?,?,?,?,?,?,?)"
        for edge in reader.edges():
            s = nodes.get(edge.subject)
            if s is None:
                s = nodes[edge.subject] = len(nodes) + 1
            o = nodes.get(edge.object)
            if o is None:
                o = nodes[edge.object] = len(nodes) + 1
            p = preds.get(edge.predicate)
            if p is None:
                p = preds[edge.predicate] = len(preds) + 1
            q = 0
            if base or edge.qualifiers:
                combo = tuple(sorted({**dict(base), **dict(edge.qualifiers)}.items()))
                q = quals.get(combo, -1)
                if q < 0:
                    q = quals[combo] = len(quals)
            refs = edge.refs
            rows.append((s, o, p, q, edge.line, len(refs), _pack(refs) if refs else None))
            if len(rows) >= BATCH:
                conn.executemany(insert, rows)
                rows.clear()
        conn.executemany(insert, rows)
        if verify:
            for ref in dataset.files():
                got = reader.report.checksums.get(ref.path)
                if got != ref.checksum:
                    raise ChecksumMismatch(
                        f"dataset file {ref.path} changed: its checksum is {got}, the note records {ref.checksum}",
                        path=dataset.rel or None,
                        hint=f"if this is a new release, register it: biocortex dataset refresh {dataset.name} "
                             "--accept-change --version V; else put the registered file back")
        counter = get_counter(encoding)
        names = reader.node_names
        shown = {key: (names.get(key) or key) if kgx else key for key in nodes}
        node_list = sorted(nodes.items(), key=lambda kv: kv[1])
        node_tokens = counter.count_many([" " + shown[key] for key, _ in node_list])
        conn.executemany("INSERT INTO nodes VALUES(?,?,?)",
                         [(i, shown[key], t) for (key, i), t in zip(node_list, node_tokens, strict=True)])
        name_rows = {(shown[key].casefold(), i) for key, i in node_list}
        if kgx:
            name_rows |= {(key.casefold(), i) for key, i in node_list}
        conn.executemany("INSERT INTO names VALUES(?,?)", sorted(name_rows))
        pred_list = sorted(preds.items(), key=lambda kv: kv[1])
        pred_texts = [predicate_piece(p) for p, _ in pred_list]
        pred_tokens = counter.count_many(pred_texts)
        conn.executemany("INSERT INTO predicates VALUES(?,?,?,?)",
                         [(i, p, text, t) for (p, i), text, t in zip(pred_list, pred_texts, pred_tokens, strict=True)])
        qual_rows = []
        for combo, i in quals.items():
            text = qualifier_suffix(dict(combo))
            qual_rows.append((i, pack(dict(combo)), text, counter.count(text) if text else 0))
        conn.executemany("INSERT INTO quals VALUES(?,?,?,?)", qual_rows)
        for statement in INDEXES.split(";"):
            if statement.strip():
                conn.execute(statement)
        report = reader.report
        pieces = {k: [v, counter.count(v)] for k, v in line_pieces(dataset).items()}
        meta = {"schema": SCHEMA_VERSION, "format": FORMAT, "encoding": counter.encoding, "name": dataset.name,
                "digest": note_digest(dataset), "checksums": report.checksums, "stamps": stamps,
                "rows": report.rows, "edges": report.edges, "nodes": len(nodes), "skipped": dict(report.skipped),
                "problems": [[p.path, p.line, p.message] for p in report.problems], "pieces": pieces,
                "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        conn.executemany("INSERT INTO meta VALUES(?,?)", [(k, pack(v)) for k, v in meta.items()])
        conn.execute("COMMIT")
        conn.close()
        after = {ref.path: _stamp(path) for ref, path in reader.paths()}
        if [a[:2] for a in after.values()] != [b[:2] for b in stamps.values()]:
            raise DataError(f"dataset file of {dataset.name} changed while it was being indexed",
                            path=dataset.rel or None, hint="run the command again once the file is complete")
        os.replace(tmp, target)
    except BaseException:
        conn.close()
        tmp.unlink(missing_ok=True)
        raise
    return BuildReport(dataset=dataset.name, rows=report.rows, edges=report.edges, nodes=len(nodes),
                       skipped=dict(report.skipped), problems=list(report.problems), checksums=report.checksums,
                       sizes=report.sizes, seconds=time.perf_counter() - started, bytes=target.stat().st_size)


def _pack(refs: Sequence[str]) -> str:
    """Publications as stored: PMIDs as bare digits, ``|`` between."""
    return "|".join(r[5:] if r.startswith("PMID:") else r for r in refs)


def _unpack(text: str | None) -> list[str]:
    if not text:
        return []
    return [f"PMID:{r}" if r.isdigit() else r for r in text.split("|")]


# --- reading ------------------------------------------------------------------------------------


def read_meta(conn: sqlite3.Connection) -> dict[str, Any]:
    """The index's meta table; empty for one of an older format (JSON text): out of date, rebuilt."""
    try:
        return {k: unpack(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    except ValueError:
        return {}


def connect(path: Path | str) -> sqlite3.Connection:
    """A dataset index, open for reading (and for renewing stamps)."""
    conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA query_only=0")
    return conn


class DatasetEdges:
    """One registered dataset's edges as assertions beside the notes (an edge source for
    ``fact query``, ``fact verify``, ``entity show`` and recall). Each edge is a
    :class:`~biocortex_cli.facts.model.Fact` whose record says where it comes from: ``origin``
    and ``source`` ``dataset:<name>@<version>``, one ``evidence`` item (the dataset, its
    confidence, the row's publications as ``refs``), ``dataset`` (name, version, file, line)."""

    def __init__(self, dataset: Dataset, conn: sqlite3.Connection, meta: dict[str, Any]) -> None:
        self.dataset, self.conn, self.meta = dataset, conn, meta
        self._quals: dict[str, dict[str, str]] = {}

    def close(self) -> None:
        self.conn.close()

    def nodes(self, keys: Iterable[str]) -> list[int]:
        wanted = sorted({k.casefold() for k in keys if k})
        out: list[int] = []
        for i in range(0, len(wanted), MAX_IN):
            chunk = wanted[i:i + MAX_IN]
            out += [n for (n,) in self.conn.execute(
                f"SELECT node FROM names WHERE key IN ({','.join('?' * len(chunk))})", chunk)]
        return sorted(set(out))

    def known_name(self, key: str) -> str | None:
        row = self.conn.execute("SELECT n.name FROM names k JOIN nodes n ON n.id = k.node WHERE k.key = ? "
                                "ORDER BY n.id LIMIT 1", (key.casefold(),)).fetchone()
        return None if row is None else str(row[0])

    def synonyms(self, keys: Iterable[str]) -> set[str]:
        """Every key of the nodes ``keys`` name (KGX: an id and its name are one node)."""
        nodes = self.nodes(keys)
        out: set[str] = set()
        for i in range(0, len(nodes), MAX_IN):
            chunk = nodes[i:i + MAX_IN]
            out.update(k for (k,) in self.conn.execute(
                f"SELECT key FROM names WHERE node IN ({','.join('?' * len(chunk))})", chunk))
        return out

    def substring(self, text: str, limit: int = 50) -> list[str]:
        like = "%" + text.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return [str(n) for (n,) in self.conn.execute(
            "SELECT DISTINCT n.name FROM names k JOIN nodes n ON n.id = k.node WHERE k.key LIKE ? ESCAPE '\\' "
            "ORDER BY length(n.name), n.name LIMIT ?", (like, limit))]

    def touching(self, keys: Iterable[str], limit: int | None = None) -> list[Fact]:
        """Edges whose subject or object is one of ``keys``, best documented first."""
        nodes = self.nodes(keys)
        if not nodes:
            return []
        return [self._fact(row) for row in self._rows(nodes, limit)]

    def about(self, s_keys: Iterable[str], o_keys: Iterable[str], predicates: Iterable[str] = ()) -> list[Fact]:
        """Edges from one of ``s_keys`` to one of ``o_keys``, or from one of ``s_keys`` with one of
        ``predicates`` (what can support or contradict a claim: a hub's other edges are not read)."""
        subjects, objects = self.nodes(s_keys), self.nodes(o_keys)
        preds = sorted(set(predicates))
        if not subjects or (not objects and not preds):
            return []
        ps = [p for (p,) in self.conn.execute(
            f"SELECT id FROM predicates WHERE name IN ({','.join('?' * len(preds))})", preds)] if preds else []
        facts = []
        for i in range(0, len(subjects), MAX_IN):
            chunk = subjects[i:i + MAX_IN]
            where = f"e.s IN ({','.join('?' * len(chunk))}) AND (e.o IN ({','.join('?' * len(objects))})"
            where += f" OR e.p IN ({','.join('?' * len(ps))}))" if ps else ")"
            facts += [self._fact(row) for row in self.conn.execute(
                f"{self._select('0')} WHERE {where} ORDER BY e.nrefs DESC, e.line", [*chunk, *objects[:MAX_IN], *ps])]
        return facts

    def by_rowids(self, rowids: Iterable[int]) -> list[Fact]:
        ids = sorted(set(rowids))
        out: list[Fact] = []
        for i in range(0, len(ids), MAX_IN):
            chunk = ids[i:i + MAX_IN]
            out += [self._fact(row) for row in self.conn.execute(
                f"{self._select('0')} WHERE e.rowid IN ({','.join('?' * len(chunk))}) ORDER BY e.line", chunk)]
        return out

    def predicates(self) -> list[str]:
        return [str(n) for (n,) in self.conn.execute("SELECT name FROM predicates ORDER BY id")]

    def _select(self, ends: str) -> str:
        return (f"SELECT {ends} AS ends, e.line, ns.name, pr.name, no.name, qs.packed, e.nrefs, e.refs, "
                f"ns.tokens + pr.tokens + no.tokens + qs.tokens, qs.text, pr.text FROM edges e "
                f"JOIN nodes ns ON ns.id = e.s JOIN nodes no ON no.id = e.o JOIN predicates pr ON pr.id = e.p "
                f"JOIN quals qs ON qs.id = e.q")

    def _rows(self, nodes: Sequence[int], limit: int | None, *, both_first: bool = False) -> list[tuple[Any, ...]]:
        marks = ",".join("?" * len(nodes))
        # an edge between two of the nodes first (a self-loop counts once)
        both = f"(e.s IN ({marks})) + (e.o IN ({marks}) AND e.o != e.s)" if both_first else "0"
        sql = (f"{self._select(both)} WHERE e.rowid IN (SELECT rowid FROM edges WHERE s IN ({marks}) "
               f"UNION SELECT rowid FROM edges WHERE o IN ({marks})) ORDER BY ends DESC, e.nrefs DESC, e.line")
        args = [*nodes, *nodes] if both_first else []
        args += [*nodes, *nodes]
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        if len(nodes) > MAX_IN:  # a huge neighbourhood (hops): one query per chunk, merged
            out: list[tuple[Any, ...]] = []
            for i in range(0, len(nodes), MAX_IN):
                out += self._rows(nodes[i:i + MAX_IN], limit, both_first=both_first)
            out.sort(key=lambda r: (-r[0], -r[6], r[1]))
            return out[:limit] if limit is not None else out
        return self.conn.execute(sql, args).fetchall()

    def _fact(self, row: tuple[Any, ...]) -> Fact:
        from biocortex_cli.facts.model import Fact

        _ends, line, s, p, o, quals, _n, refs, _tokens, _qtext, _ptext = row
        ds = self.dataset
        origin, confidence = ds.origin, ds.confidence
        evidence: dict[str, Any] = {"source": origin, "confidence": confidence}
        if refs:
            evidence["refs"] = _unpack(refs)
        record: dict[str, Any] = {
            "id": f"{ds.name}:{line}", "type": "fact", "subject": s, "predicate": p, "object": o,
            "confidence": confidence, "source": [origin], "status": "current", "origin": origin,
            "evidence": [evidence]}
        q = self._quals.get(quals)
        if q is None:
            q = self._quals[quals] = unpack(quals)
        if q:
            record["qualifiers"] = dict(q)
        record["dataset"] = {"name": ds.name, "version": ds.version, "file": ds.file.path, "line": line}
        return Fact(record=record, path=ds.rel, line=line)

    # --- recall ---------------------------------------------------------------------------------

    def named(self, keys: Iterable[str]) -> list[tuple[str, int, str]]:
        """(key, node, its name) for every node one of ``keys`` (case-folded) names: recall decides
        which of them the question names as an entity (facts/recall.py)."""
        wanted = sorted(set(keys))
        out: list[tuple[str, int, str]] = []
        for i in range(0, len(wanted), MAX_IN):
            chunk = wanted[i:i + MAX_IN]
            out += self.conn.execute(
                f"SELECT k.key, k.node, n.name FROM names k JOIN nodes n ON n.id = k.node "
                f"WHERE k.key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        return out

    def recall_rows(self, nodes: Sequence[int], limit: int) -> list[tuple[float, str, int, dict[str, Any]]]:
        """(confidence, line, tokens, record) for the edges around ``nodes``: edges between two of
        them first, then the best documented."""
        if not nodes:
            return []
        pieces = self.meta["pieces"]
        out = []
        for row in self._rows(nodes, limit, both_first=True):
            _ends, _line, s, _p, o, _quals, nrefs, _refs, tokens, qtext, ptext = row
            line, rest = recall_line(pieces, s, ptext, o, qtext, nrefs)
            out.append((self.dataset.confidence, line, tokens + rest, self._fact(row).as_json()))
        return out


# --- freshness ----------------------------------------------------------------------------------


class Freshness(NamedTuple):
    """Whether a dataset can answer on this machine, and if not, why and what to do."""

    state: str  # ok, missing, changed, unindexed, stale (the last two are rebuilt when allowed)
    message: str = ""
    hint: str = ""

    @property
    def usable(self) -> bool:
        return self.state == "ok"


def _hash(path: Path | str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def file_state(dataset: Dataset, root: Path | str,
               meta: dict[str, Any] | None) -> tuple[Freshness, dict[str, list[int]]]:
    """The registered file(s) on this machine against the note (and the index's stamps): ok,
    missing or changed; renewed stamps are returned for the caller to store."""
    renewed: dict[str, list[int]] = {}
    for ref in dataset.files():
        path = resolved(root, ref.path)
        try:
            stamp = _stamp(path)
        except OSError:
            return Freshness("missing", f"dataset {dataset.label}: file {ref.path} is missing",
                             f"put it back, or give its new place: biocortex dataset refresh {dataset.name} "
                             "--path FILE"), {}
        if stamp[0] != ref.size:
            return Freshness("changed", f"dataset {dataset.label}: file {ref.path} changed ({stamp[0]:,} bytes, "
                             f"registered {ref.size:,})", _changed_hint(dataset)), {}
        known = (meta or {}).get("stamps", {}).get(ref.path)
        same_index = meta is not None and meta.get("checksums", {}).get(ref.path) == ref.checksum
        if known == stamp and same_index:
            continue
        if _hash(path) != ref.checksum:
            return Freshness("changed", f"dataset {dataset.label}: file {ref.path} changed (its checksum differs "
                             "from the registered one)", _changed_hint(dataset)), {}
        renewed[ref.path] = stamp
    return Freshness("ok"), renewed


def _changed_hint(dataset: Dataset) -> str:
    return (f"if it is a new release: biocortex dataset refresh {dataset.name} --accept-change --version V; "
            "else put the registered file back")


def index_state(dataset: Dataset, meta: dict[str, Any] | None, encoding: str) -> Freshness:
    """Whether the index was built from this note's files and mapping, by this code, for this encoding."""
    if meta is None:
        return Freshness("unindexed", f"dataset {dataset.label} is not indexed on this machine",
                         f"biocortex dataset refresh {dataset.name}")
    if (meta.get("schema") != SCHEMA_VERSION or meta.get("format") != FORMAT or meta.get("encoding") != encoding
            or meta.get("digest") != note_digest(dataset)):
        return Freshness("stale", f"the index of dataset {dataset.label} is out of date",
                         f"biocortex dataset refresh {dataset.name}")
    return Freshness("ok")


def open_index(state_dir: Path | str, name: str) -> tuple[sqlite3.Connection, dict[str, Any]] | None:
    path = index_location(state_dir, name)
    if not os.path.exists(path):
        return None
    try:
        conn = connect(path)
        return conn, read_meta(conn)
    except (sqlite3.Error, ValueError):
        return None  # damaged: rebuilt like a missing one


def index_files(state_dir: Path | str) -> list[str]:
    """Every dataset index here (registered or not)."""
    folder = os.path.dirname(index_location(state_dir, "x"))
    try:
        return [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".sqlite")]
    except OSError:
        return []


def renew_stamps(conn: sqlite3.Connection, meta: dict[str, Any], renewed: dict[str, list[int]]) -> None:
    if not renewed:
        return
    stamps = {**meta.get("stamps", {}), **renewed}
    meta["stamps"] = stamps
    import contextlib

    with contextlib.suppress(sqlite3.Error):  # read-only: hashed again next time, answers still right
        conn.execute("INSERT OR REPLACE INTO meta VALUES('stamps', ?)", (pack(stamps),))


Notice = Callable[[str], None]


def prepare(dataset: Dataset, root: Path | str, state_dir: Path | str, *, encoding: str, build: bool = True,
            notice: Notice | None = None, progress: Progress | None = None) -> tuple[DatasetEdges | None, Freshness]:
    """The dataset's edges, ready to answer — or None and why not. A missing or outdated index
    is built when ``build`` (one notice; a file that changed is never indexed)."""
    opened = open_index(state_dir, dataset.name)
    meta = opened[1] if opened else None
    state = index_state(dataset, meta, encoding)
    files, renewed = file_state(dataset, root, meta if state.usable else None)
    if not files.usable:
        if opened:
            opened[0].close()
        return None, files
    if state.usable and opened:
        renew_stamps(opened[0], opened[1], renewed)
        return DatasetEdges(dataset, opened[0], opened[1]), state
    if opened:
        opened[0].close()
    if not build:
        return None, state
    if notice is not None:
        size = sum(f.size for f in dataset.files())
        notice(f"biocortex: indexing dataset {dataset.label} ({size / 2**20:.1f} MiB; {state.message or 'first use'})")
    try:
        from pathlib import Path

        build_index(dataset, Path(root), Path(state_dir), encoding=encoding, progress=progress)
    except ChecksumMismatch as exc:
        return None, Freshness("changed", exc.message, exc.hint or "")
    except OSError as exc:  # a read-only vault, a full disk: answer without it, and say why
        return None, Freshness("unindexed", f"dataset {dataset.label} cannot be indexed here ({exc.strerror or exc})",
                               "make .biocortex/datasets/ writable, then run biocortex dataset refresh")
    reopened = open_index(state_dir, dataset.name)
    if reopened is None:  # pragma: no cover - just written
        return None, Freshness("unindexed", f"dataset {dataset.label}: the index could not be opened")
    return DatasetEdges(dataset, *reopened), Freshness("ok")


def stderr_notice(text: str) -> None:
    sys.stderr.write(text + "\n")


# --- consulting ---------------------------------------------------------------------------------


class Consulted(NamedTuple):
    """The datasets that answer, and a warning for each that cannot."""

    edges: list[DatasetEdges]
    warnings: list[str]

    def close(self) -> None:
        for source in self.edges:
            source.close()


def consult(vault: Vault, *, encoding: str | None = None, notice: Notice | None = stderr_notice,
            build: bool = True) -> Consulted:
    """Open every registered dataset that can answer; an index missing or out of date is built
    (with a notice). A missing or changed file, or an unreadable note, is a warning, and answers
    come from the notes and the other datasets."""
    from biocortex_cli.facts.datasets import read_datasets

    out = Consulted([], [])
    datasets, problems = read_datasets(vault)
    for problem in problems:
        out.warnings.append(f"biocortex: warning: {problem.location()}{problem.message} (dataset skipped; "
                            "run `biocortex check`)")
    if not datasets:
        return out
    enc = encoding or vault.config.tokenizer.encoding
    for dataset in datasets:
        source, state = prepare(dataset, vault.folder, vault.state_folder, encoding=enc, build=build, notice=notice)
        if source is None:
            out.warnings.append(f"biocortex: warning: {state.message}; answering without it ({state.hint})")
        else:
            out.edges.append(source)
    return out


# --- beside the notes ---------------------------------------------------------------------------
