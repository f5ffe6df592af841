"""The sidecar index: one SQLite file, ``.biocortex/index.sqlite``, derived and rebuildable.

Why SQLite: measured for this project (issue #3 and docs/performance.md), it opens in
microseconds and reads a few posting lists without loading the rest, where a pickled dict took
seconds to load at 100k notes. The default rollback journal keeps the index to one file; a
rebuild is written to a temporary file and renamed over the old one, and an incremental refresh
is one transaction, so a reader never sees a half-written index and a ``recall`` running while
``index`` writes still answers.

Tables: ``meta`` (schema version, encoding, vault HEAD, folder mtimes, counts, the cached
recall settings), ``docs`` (one narrow row per indexed note: what ranking and output read),
``bodies`` (its recall block sections with their token counts, and its token lists, both
compressed: read only for the few hits printed, or when the note is re-indexed), ``postings``
(one row per fingerprint: its document frequency and its posting list), ``doclens`` (every
note's length in fingerprints, one array), ``attrs`` (tools, domains, entities -> note),
``questions``, ``question_words``, ``question_evidence`` and ``feedback_problems`` (feedback, index/feedback.py),
``lesson_texts`` (each episode's lessons as written, for ``biocortex lessons``), ``records``
(each episode's frontmatter as JSON, compressed, with the fields listings sort and digest by:
``episode list``, ``episode show`` and ``log`` read it instead of parsing notes) and ``labels``
(its domains, tools and entities case-folded: what ``episode list`` filters on).

A posting list is the sorted note numbers as unsigned 32-bit little-endian integers, and the
term frequencies above 1 as (note, tf) pairs beside them (95% of postings have tf 1). Measured
at 100k synthetic episodes: one row per (fingerprint, note) took 2.9 KB per episode (15M rows
of ~19 bytes: a 48-bit key, the note, the tf, the cell and page overhead) and a recall had to
push ~60k rows through SQLite's sorter (~150 ms); one row per fingerprint takes ~1 KB per
episode, gives the document frequency without counting, and hands recall arrays it can
intersect with sets at C speed (recall/engine.py).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence

from biocortex_cli.packed import pack, unpack
from biocortex_cli.records import NamedTuple

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # pathlib (~18 M) too: a recall opens the index by a str path
    from pathlib import Path
    from typing import Any

# 11: a list value written as an Obsidian link ("[[TP53]]") is labelled by its target and label;
# 10: no JSON to read back (fact verify imports no json): meta values as SQL values, containers
#     packed (packed.py); a problem's stamp as columns;
# 9: records and labels (listings from the index);
# 8: feedback by the question it was given on (questions, question_words, question_evidence);
# 7: Snowball stems; 6: no id_pieces table, a format key
SCHEMA_VERSION = 11
INDEX_NAME = "index.sqlite"

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE docs(
  doc INTEGER PRIMARY KEY,
  rel TEXT NOT NULL UNIQUE,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL,
  size INTEGER NOT NULL,
  created TEXT NOT NULL,
  success INTEGER,
  quality REAL,
  archived INTEGER NOT NULL DEFAULT 0,
  dl INTEGER NOT NULL,
  task TEXT NOT NULL
);
CREATE TABLE bodies(doc INTEGER PRIMARY KEY, sections BLOB NOT NULL, tokens BLOB NOT NULL);
CREATE TABLE postings(fp INTEGER PRIMARY KEY, df INTEGER NOT NULL, docs BLOB NOT NULL, tfs BLOB);
CREATE TABLE doclens(k INTEGER PRIMARY KEY, dls BLOB NOT NULL);
CREATE TABLE attrs(kind TEXT NOT NULL, value TEXT NOT NULL, doc INTEGER NOT NULL,
                   PRIMARY KEY(kind, value, doc)) WITHOUT ROWID;
CREATE TABLE lesson_texts(doc INTEGER NOT NULL, n INTEGER NOT NULL, text TEXT NOT NULL,
                          PRIMARY KEY(doc, n)) WITHOUT ROWID;
CREATE TABLE records(doc INTEGER PRIMARY KEY, created TEXT NOT NULL, id TEXT NOT NULL, author TEXT NOT NULL,
                     record BLOB NOT NULL);
CREATE INDEX records_order ON records(created, id);
CREATE INDEX records_id ON records(id);
CREATE TABLE labels(kind TEXT NOT NULL, value TEXT NOT NULL, doc INTEGER NOT NULL,
                    PRIMARY KEY(kind, value, doc)) WITHOUT ROWID;
CREATE TABLE problems(rel TEXT PRIMARY KEY, line INTEGER NOT NULL, message TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE questions(question INTEGER PRIMARY KEY, fps BLOB NOT NULL);
CREATE TABLE question_words(fp INTEGER PRIMARY KEY, questions BLOB NOT NULL);
CREATE TABLE question_evidence(question INTEGER NOT NULL, id TEXT NOT NULL, pro REAL NOT NULL,
                               con REAL NOT NULL, PRIMARY KEY(question, id)) WITHOUT ROWID;
CREATE TABLE feedback_problems(rel TEXT NOT NULL, line INTEGER NOT NULL, message TEXT NOT NULL,
                               PRIMARY KEY(rel, line)) WITHOUT ROWID;
"""


class IndexUnusable(Exception):
    """The file is missing, corrupt, or from another schema: rebuild it."""


class DocRow(NamedTuple):
    """What the indexer stores for one note."""

    rel: str
    id: str
    kind: str
    mtime_ns: int
    size: int
    created: str
    success: bool | None
    quality: float | None
    archived: bool
    task: str
    #: packed [name, text with placeholders, tokens, tokens when last] (:func:`pack_sections`)
    sections_blob: bytes
    #: packed token lists, one per text field (:func:`pack_tokens`; n-grams stay inside one)
    tokens_blob: bytes
    dl: int  # fingerprints counted with their tf: BM25's document length
    fingerprints: dict[int, int]  # fp -> tf (empty in rows a rebuild's workers send back)
    attrs: list[tuple[str, str]]  # (kind, normalised value)
    lessons: tuple[str, ...] = ()  # the episode's lessons as written (clustered by `biocortex lessons`)
    record_blob: bytes = b""  # the frontmatter as parsed, JSON, compressed (:func:`pack_record`)
    created_text: str = ""  # ``created`` as written (listings sort by it, as the note-parsing path did)
    author: str = ""
    labels: list[tuple[str, str]] = []  # (kind, case-folded domain/tool/entity); shared default: never changed


def index_path(state_dir: str | os.PathLike[str]) -> str:
    """The index file: in ``.biocortex/``, or in a per-user cache folder when this user cannot
    write there or it is a symbolic link (store/files.py ``local_file``)."""
    from biocortex_cli.store.files import local_file

    return local_file(state_dir, INDEX_NAME)


def connect(path: str | os.PathLike[str], *, create: bool = False) -> sqlite3.Connection:
    from biocortex_cli.store.files import exists

    if not create and not exists(os.fspath(path)):
        raise IndexUnusable("no index yet")
    try:
        conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        # one round trip for the settings. Memory-mapped I/O stays off (mmap_size = 0): it pushed
        # a 100k-episode recall's peak RSS to 125 MB for no speed (docs/performance.md), and an
        # I/O error on a mapped page is a SIGBUS, not an error the repair path can catch
        conn.executescript("PRAGMA busy_timeout = 30000; PRAGMA temp_store = MEMORY;"
                           " PRAGMA cache_size = -16000; PRAGMA mmap_size = 0;")
        if not create:
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if version is None or int(version[0]) != SCHEMA_VERSION:
                conn.close()
                raise IndexUnusable(f"index schema {version[0] if version else '?'}, "
                                    f"this biocortex reads {SCHEMA_VERSION}")
    except sqlite3.DatabaseError as exc:
        raise IndexUnusable(f"index file is unreadable ({exc})") from None
    return conn


_TYPECODE = "I" if array("I").itemsize == 4 else "L"
_SWAP = sys.byteorder != "little"


def to_array(blob: bytes | None) -> array[int]:
    out = array(_TYPECODE)
    if blob:
        out.frombytes(blob)
        if _SWAP:  # pragma: no cover - big-endian machines
            out.byteswap()
    return out


def to_blob(values: array[int]) -> bytes:
    if _SWAP:  # pragma: no cover - big-endian machines
        values = array(_TYPECODE, values)
        values.byteswap()
    return values.tobytes()


def document_frequencies(conn: sqlite3.Connection, fps: Sequence[int]) -> dict[int, int]:
    """fingerprint -> number of notes that have it (absent: none)."""
    out: dict[int, int] = {}
    for i in range(0, len(fps), 500):
        chunk = fps[i : i + 500]
        out.update(conn.execute(f"SELECT fp, df FROM postings WHERE fp IN ({','.join('?' * len(chunk))})", chunk))
    return out


def posting_lists(conn: sqlite3.Connection, fps: Sequence[int]) -> dict[int, tuple[array[int], dict[int, int]]]:
    """fingerprint -> (sorted note numbers, {note: tf} for tf > 1)."""
    out: dict[int, tuple[array[int], dict[int, int]]] = {}
    for i in range(0, len(fps), 500):
        chunk = fps[i : i + 500]
        for fp, docs, tfs in conn.execute(
                f"SELECT fp, docs, tfs FROM postings WHERE fp IN ({','.join('?' * len(chunk))})", chunk):
            pairs = to_array(tfs)
            out[fp] = (to_array(docs), dict(zip(pairs[::2], pairs[1::2], strict=True)))
    return out


def doc_lengths(conn: sqlite3.Connection) -> array[int]:
    """Every note's length in fingerprints (BM25's dl), indexed by note number."""
    row = conn.execute("SELECT dls FROM doclens WHERE k = 0").fetchone()
    return to_array(row[0] if row else None)


def write_doc_lengths(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT doc, dl FROM docs ORDER BY doc").fetchall()
    dls = array(_TYPECODE, bytes(array(_TYPECODE).itemsize * (rows[-1][0] + 1 if rows else 0)))
    for doc, dl in rows:
        dls[doc] = dl
    conn.execute("INSERT OR REPLACE INTO doclens(k, dls) VALUES (0, ?)", (to_blob(dls),))


def doc_numbers(conn: sqlite3.Connection, rels: Iterable[str]) -> list[int]:
    """The note numbers of ``rels`` that are in the index."""
    out = []
    for rel in rels:
        row = conn.execute("SELECT doc FROM docs WHERE rel = ?", (rel,)).fetchone()
        if row is not None:
            out.append(int(row[0]))
    return out


def patch_doc_lengths(conn: sqlite3.Connection, cleared: Iterable[int], rels: Iterable[str]) -> None:
    """Update the lengths array for a few notes: zero the numbers ``cleared`` (removed or
    re-indexed), set those of ``rels`` (just indexed). :func:`write_doc_lengths` reads every
    note's row (0.1 s at 100k notes), the bulk of refreshing the index after one new episode."""
    row = conn.execute("SELECT dls FROM doclens WHERE k = 0").fetchone()
    if row is None:
        write_doc_lengths(conn)
        return
    dls = to_array(row[0])
    for doc in cleared:
        if doc < len(dls):
            dls[doc] = 0
    for rel in rels:
        found = conn.execute("SELECT doc, dl FROM docs WHERE rel = ?", (rel,)).fetchone()
        if found is None:
            continue
        doc, dl = int(found[0]), int(found[1])
        if doc >= len(dls):
            dls.extend(array(_TYPECODE, [0]) * (doc + 1 - len(dls)))
        dls[doc] = dl
    conn.execute("INSERT OR REPLACE INTO doclens(k, dls) VALUES (0, ?)", (to_blob(dls),))


def _add_postings(conn: sqlite3.Connection, doc: int, fingerprints: dict[int, int]) -> None:
    for fp, tf in fingerprints.items():
        row = conn.execute("SELECT docs, tfs FROM postings WHERE fp = ?", (fp,)).fetchone()
        docs = to_array(row[0] if row else None)
        pairs = to_array(row[1] if row else None)
        if not docs or docs[-1] < doc:
            docs.append(doc)
        else:
            docs.insert(bisect_left(docs, doc), doc)
        if tf > 1:
            pairs.extend((doc, tf))
        conn.execute("INSERT OR REPLACE INTO postings(fp, df, docs, tfs) VALUES (?, ?, ?, ?)",
                     (fp, len(docs), to_blob(docs), to_blob(pairs) if pairs else None))


def _remove_postings(conn: sqlite3.Connection, doc: int, fps: Iterable[int]) -> None:
    for fp in fps:
        row = conn.execute("SELECT docs, tfs FROM postings WHERE fp = ?", (fp,)).fetchone()
        if row is None:
            continue
        docs, pairs = to_array(row[0]), to_array(row[1])
        at = bisect_left(docs, doc)
        if at < len(docs) and docs[at] == doc:
            del docs[at]
        if not docs:
            conn.execute("DELETE FROM postings WHERE fp = ?", (fp,))
            continue
        kept = array(_TYPECODE)
        for i in range(0, len(pairs), 2):
            if pairs[i] != doc:
                kept.extend(pairs[i : i + 2])
        conn.execute("UPDATE postings SET df = ?, docs = ?, tfs = ? WHERE fp = ?",
                     (len(docs), to_blob(docs), to_blob(kept) if kept else None, fp))


def create(path: Path) -> sqlite3.Connection:
    """A new, empty index at ``path`` (a temporary file that a rebuild renames into place).

    Nothing reads the file before the rename, and a crash leaves only a temporary file behind,
    so it is written without a journal and without syncs; :func:`finish` syncs it once.
    """
    conn = connect(path, create=True)
    conn.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE;"
                       " PRAGMA cache_size = -65536;")
    conn.executescript(SCHEMA)
    set_meta(conn, {"schema": SCHEMA_VERSION})
    return conn


def finish(conn: sqlite3.Connection, path: Path) -> None:
    """Close a freshly built index and flush it to disk before it is renamed into place."""
    conn.close()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def get_meta(conn: sqlite3.Connection) -> dict[str, Any]:
    return {k: unpack(v) if isinstance(v, bytes) else v for k, v in conn.execute("SELECT key, value FROM meta")}


def set_meta(conn: sqlite3.Connection, values: dict[str, Any]) -> None:
    conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                     [(k, _meta_value(v)) for k, v in values.items()])


def _meta_value(value: Any) -> Any:
    """A string or number as an SQL value (``n_docs`` is read in SQL; no ``json`` to read it back),
    anything else packed (``packed.py``)."""
    kind = type(value)
    if kind is str or (kind is float and value == value) or (kind is int and -(2**63) <= value < 2**63):
        return value
    return pack(value, sort_keys=True)


def pack_tokens(fields: list[list[str]]) -> bytes:
    return zlib.compress("\x1e".join("\x1f".join(f) for f in fields).encode("utf-8"), 6)


def unpack_tokens(blob: bytes) -> list[list[str]]:
    text = zlib.decompress(blob).decode("utf-8")
    return [f.split("\x1f") if f else [] for f in text.split("\x1e")]


def pack_record(record: dict[str, Any]) -> bytes:
    """A note's frontmatter (plain data: notes.parse_note makes it JSON-able), compressed."""
    import json

    return zlib.compress(json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass"), 6)


def unpack_record(blob: bytes) -> dict[str, Any]:
    import json

    record: dict[str, Any] = json.loads(zlib.decompress(blob).decode("utf-8", "surrogatepass"))
    return record


#: (label kind, the record's list field): what ``episode list --domain/--tool/--entity`` filter on
LABELS = (("domain", "domains"), ("tool", "tools"), ("entity", "entities"))


def labels_of(record: dict[str, Any]) -> set[tuple[str, str]]:
    """The ``labels`` rows of an episode: each domain, tool and entity, case-folded (the listing
    matches any case, as the note-parsing listing does)."""
    from biocortex_cli.store.episode import link_names

    out: set[tuple[str, str]] = set()
    for kind, key in LABELS:
        values = record.get(key)
        if isinstance(values, list):
            out.update((kind, name.casefold()) for v in values for name in link_names(str(v)))
    return out


def pack_sections(sections: list[tuple[str, str, int, int]]) -> bytes:
    import json

    return zlib.compress(json.dumps(sections, ensure_ascii=False).encode("utf-8"), 6)


def unpack_sections(blob: bytes, compact: bool = False) -> list[tuple[str, str, int, int]]:
    """A block's sections in order; ``compact``: each in its compact variant where it has one
    (render/blocks.py ``COMPACT``)."""
    import json

    from biocortex_cli.render.blocks import COMPACT, VIA

    rows = [(str(s[0]), str(s[1]), int(s[2]), int(s[3])) for s in json.loads(zlib.decompress(blob))
            if s[0] != VIA]
    variants = {row[0][: -len(COMPACT)]: row for row in rows if row[0].endswith(COMPACT)} if compact else {}
    return [(row[0], *variants[row[0]][1:]) if row[0] in variants else row
            for row in rows if not row[0].endswith(COMPACT)]


def via_section(blob: bytes) -> tuple[str, str, int, int] | None:
    """The line a block found through this episode carries (render/blocks.py ``VIA``), if stored."""
    import json

    from biocortex_cli.render.blocks import VIA

    for s in json.loads(zlib.decompress(blob)):
        if s[0] == VIA:
            return (str(s[0]), str(s[1]), int(s[2]), int(s[3]))
    return None


def _in_folders(rel_column: str, folders: Iterable[str] | None) -> tuple[str, list[str]]:
    """A WHERE clause for notes directly inside ``folders`` (None: every note)."""
    if folders is None:
        return "", []
    params: list[str] = []
    for folder in sorted(folders):
        params += [folder + "/", folder + "0"]  # '0' sorts right after '/'
    ranges = " OR ".join(f"({rel_column} >= ? AND {rel_column} < ?)" for _ in range(len(params) // 2))
    return f" WHERE {ranges or '0'}", params


def _direct(rel: str, folders: Iterable[str] | None) -> bool:
    return folders is None or rel.rsplit("/", 1)[0] in folders


def known_files(conn: sqlite3.Connection, folders: set[str] | None = None) -> dict[str, tuple[int, int]]:
    """rel -> (mtime_ns, size) of the indexed notes (directly inside ``folders``, if given)."""
    where, params = _in_folders("rel", folders)
    return {rel: (m, s) for rel, m, s in conn.execute(f"SELECT rel, mtime_ns, size FROM docs{where}", params)
            if _direct(rel, folders)}


#: an archived note is one under this folder (``docs.archived``, index/build.py)
ARCHIVE_PREFIX = "archive/"


def has_archived(conn: sqlite3.Connection) -> bool:
    """Whether the index holds an archived note: one probe of the ``rel`` index (the range of
    paths under ARCHIVE_PREFIX; ``0`` follows ``/``), however many notes there are."""
    return conn.execute("SELECT 1 FROM docs WHERE rel >= ? AND rel < ? LIMIT 1",
                        (ARCHIVE_PREFIX, ARCHIVE_PREFIX[:-1] + "0")).fetchone() is not None


def few_known(conn: sqlite3.Connection, most: int) -> dict[str, tuple[int, int]] | None:
    """rel -> (mtime_ns, size) of every indexed note and broken note, if there are at most ``most``
    of them together (reading at most ``most`` + 1 rows); else None."""
    rows = conn.execute("SELECT rel, mtime_ns, size FROM docs LIMIT ?", (most + 1,)).fetchall()
    if len(rows) > most:
        return None
    known = {rel: (m, s) for rel, m, s in rows}
    for rel, mtime_ns, size in conn.execute("SELECT rel, mtime_ns, size FROM problems LIMIT ?",
                                            (most + 1 - len(rows),)):
        known[rel] = (mtime_ns, size)
    return None if len(known) > most else known


def known_problems(conn: sqlite3.Connection, folders: set[str] | None = None) -> dict[str, tuple[int, int]]:
    # a broken note is remembered with the mtime/size it had, so it is not re-read until it changes
    where, params = _in_folders("rel", folders)
    out = {}
    for rel, mtime_ns, size in conn.execute(f"SELECT rel, mtime_ns, size FROM problems{where}", params):
        if _direct(rel, folders):
            out[rel] = (mtime_ns, size)
    return out


def remove(conn: sqlite3.Connection, rels: Iterable[str]) -> int:
    from biocortex_cli.index.fingerprints import field_fingerprints

    removed = 0
    for rel in rels:
        conn.execute("DELETE FROM problems WHERE rel = ?", (rel,))
        row = conn.execute("SELECT d.doc, b.tokens, r.record FROM docs d JOIN bodies b ON b.doc = d.doc"
                           " LEFT JOIN records r ON r.doc = d.doc WHERE d.rel = ?", (rel,)).fetchone()
        if row is None:
            continue
        doc, blob, record = row
        _remove_postings(conn, doc, field_fingerprints(unpack_tokens(blob)))
        if record is not None:  # its labels, by key (the table has no index on doc)
            conn.executemany("DELETE FROM labels WHERE kind = ? AND value = ? AND doc = ?",
                             [(k, v, doc) for k, v in labels_of(unpack_record(record))])
        conn.execute("DELETE FROM attrs WHERE doc = ?", (doc,))
        conn.execute("DELETE FROM lesson_texts WHERE doc = ?", (doc,))
        conn.execute("DELETE FROM records WHERE doc = ?", (doc,))
        conn.execute("DELETE FROM bodies WHERE doc = ?", (doc,))
        conn.execute("DELETE FROM docs WHERE doc = ?", (doc,))
        removed += 1
    return removed


_INSERT_DOC = ("INSERT INTO docs(doc, rel, id, kind, mtime_ns, size, created, success, quality, archived, dl, task)"
               " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")


_INSERT_LESSON = "INSERT INTO lesson_texts(doc, n, text) VALUES (?, ?, ?)"
_INSERT_RECORD = "INSERT INTO records(doc, created, id, author, record) VALUES (?, ?, ?, ?, ?)"
_INSERT_LABEL = "INSERT OR IGNORE INTO labels(kind, value, doc) VALUES (?, ?, ?)"


def _doc_values(doc: int | None, row: DocRow) -> tuple[Any, ...]:
    return (doc, row.rel, row.id, row.kind, row.mtime_ns, row.size, row.created,
            None if row.success is None else int(row.success), row.quality, int(row.archived),
            row.dl, row.task)


def insert(conn: sqlite3.Connection, rows: Iterable[DocRow]) -> int:
    """Add notes to an index in use (an incremental refresh)."""
    added = 0
    for row in rows:
        doc = int(conn.execute(_INSERT_DOC, _doc_values(None, row)).lastrowid or 0)
        conn.execute("INSERT INTO bodies(doc, sections, tokens) VALUES (?, ?, ?)",
                     (doc, row.sections_blob, row.tokens_blob))
        _add_postings(conn, doc, row.fingerprints)
        conn.executemany("INSERT OR IGNORE INTO attrs(kind, value, doc) VALUES (?, ?, ?)",
                         ((k, v, doc) for k, v in row.attrs))
        conn.executemany(_INSERT_LESSON, ((doc, n, text) for n, text in enumerate(row.lessons)))
        conn.execute(_INSERT_RECORD, (doc, row.created_text, row.id, row.author, row.record_blob))
        conn.executemany(_INSERT_LABEL, ((k, v, doc) for k, v in row.labels))
        added += 1
    return added


class ChunkPostings:
    """The posting lists of a batch of notes, with their final note numbers: what a rebuild's
    worker hands back (arrays pickle as bytes, a dict per note would cost the loader ~0.3 ms).
    A plain class: a NamedTuple's field typed ``array[int]`` would be a string here (``array``
    takes no subscript at run time before Python 3.12), compiled at import, and a process's
    first compile costs ~10 M instructions (docs/performance.md, "Fourth round")."""

    __slots__ = ("docs", "tfs")

    def __init__(self, docs: dict[int, array[int]], tfs: dict[int, array[int]]) -> None:
        self.docs = docs
        self.tfs = tfs  # fp -> (note, tf) pairs for tf > 1

    @classmethod
    def of(cls, rows: Sequence[DocRow], numbers: Sequence[int]) -> ChunkPostings:
        """``numbers[i]`` is the note number of ``rows[i]`` (increasing)."""
        docs: dict[int, array[int]] = {}
        tfs: dict[int, array[int]] = {}
        for doc, row in zip(numbers, rows, strict=True):
            for fp, tf in row.fingerprints.items():
                found = docs.get(fp)
                if found is None:
                    docs[fp] = array(_TYPECODE, (doc,))
                else:
                    found.append(doc)
                if tf > 1:
                    tfs.setdefault(fp, array(_TYPECODE)).extend((doc, tf))
        return cls(docs, tfs)


class BulkLoader:
    """Fill a new index fast: notes in big batches, posting lists gathered in memory and written
    once, in key order, by :meth:`close` (about 2 GB of Python objects at 100k notes if kept as
    lists of ints; as arrays, ~200 MB). Batches come numbered by the worker that read them (a
    note's number is its place in the rebuild's sorted list, so a note that cannot be read
    leaves a gap, as a removed one does), so joining a batch's lists is a copy in C per
    fingerprint, with no renumbering in Python."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.lists: dict[int, array[int]] = {}
        self.tfs: dict[int, array[int]] = {}
        self.added = 0

    def add(self, rows: Sequence[DocRow], numbers: Sequence[int], postings: ChunkPostings) -> None:
        """Notes ``rows`` numbered ``numbers`` (above any added before), and their postings."""
        numbered = list(zip(numbers, rows, strict=True))
        self.conn.executemany(_INSERT_DOC, [_doc_values(doc, row) for doc, row in numbered])
        self.conn.executemany("INSERT INTO bodies(doc, sections, tokens) VALUES (?, ?, ?)",
                              [(doc, row.sections_blob, row.tokens_blob) for doc, row in numbered])
        self.conn.executemany("INSERT OR IGNORE INTO attrs(kind, value, doc) VALUES (?, ?, ?)",
                              [(k, v, doc) for doc, row in numbered for k, v in row.attrs])
        self.conn.executemany(_INSERT_LESSON, [(doc, n, text) for doc, row in numbered
                                               for n, text in enumerate(row.lessons)])
        self.conn.executemany(_INSERT_RECORD, [(doc, row.created_text, row.id, row.author, row.record_blob)
                                               for doc, row in numbered])
        self.conn.executemany(_INSERT_LABEL, [(k, v, doc) for doc, row in numbered for k, v in row.labels])
        for target, source in ((self.lists, postings.docs), (self.tfs, postings.tfs)):
            get = target.get
            for fp, local in source.items():
                found = get(fp)
                if found is None:
                    target[fp] = local
                else:
                    found.extend(local)
        self.added += len(rows)

    def close(self) -> int:
        lists, tfs = self.lists, self.tfs
        self.conn.executemany(
            "INSERT INTO postings(fp, df, docs, tfs) VALUES (?, ?, ?, ?)",
            ((fp, len(lists[fp]), to_blob(lists[fp]), to_blob(tfs[fp]) if fp in tfs else None)
             for fp in sorted(lists)))
        self.lists, self.tfs = {}, {}
        return self.added


def record_problem(conn: sqlite3.Connection, rel: str, line: int, message: str, stamp: tuple[int, int]) -> None:
    conn.execute("INSERT OR REPLACE INTO problems(rel, line, message, mtime_ns, size) VALUES (?, ?, ?, ?, ?)",
                 (rel, line, message, stamp[0], stamp[1]))


def problems(conn: sqlite3.Connection) -> Iterator[tuple[str, int, str]]:
    yield from conn.execute("SELECT rel, line, message FROM problems ORDER BY rel")


def replace_file(tmp: Path, final: Path) -> None:
    os.replace(tmp, final)
