"""The sidecar index: one SQLite file, ``.biocortex/index.sqlite``, derived and rebuildable.

Why SQLite: measured for this project (issue #3 and docs/performance.md), a ``WITHOUT ROWID``
postings table answers a 30-fingerprint lookup in well under a millisecond at 100k notes and
opens in microseconds, where a pickled dict takes seconds to load at that size. The default
rollback journal keeps the index to one file; a rebuild is written to a temporary file and
renamed over the old one, and an incremental refresh is one transaction, so a reader never sees
a half-written index and a ``recall`` running while ``index`` writes still answers.

Tables: ``meta`` (schema version, encoding, vault HEAD, folder mtimes, counts), ``docs`` (one row
per indexed note, with its recall block sections and their token counts), ``postings``
(fingerprint -> note), ``attrs`` (tools, domains, entities -> note).
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
INDEX_NAME = "index.sqlite"

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
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
  task TEXT NOT NULL,
  sections BLOB NOT NULL,
  tokens BLOB NOT NULL
);
CREATE INDEX docs_id ON docs(id);
CREATE TABLE postings(fp INTEGER NOT NULL, doc INTEGER NOT NULL, tf INTEGER NOT NULL,
                      PRIMARY KEY(fp, doc)) WITHOUT ROWID;
CREATE TABLE attrs(kind TEXT NOT NULL, value TEXT NOT NULL, doc INTEGER NOT NULL,
                   PRIMARY KEY(kind, value, doc)) WITHOUT ROWID;
CREATE TABLE problems(rel TEXT PRIMARY KEY, line INTEGER NOT NULL, message TEXT NOT NULL) WITHOUT ROWID;
"""


class IndexUnusable(Exception):
    """The file is missing, corrupt, or from another schema: rebuild it."""


@dataclass(frozen=True)
class DocRow:
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
    #: [name, text with placeholders, tokens, tokens when last]
    sections: list[tuple[str, str, int, int]]
    fields: list[list[str]]  # token lists, one per text field (n-grams stay inside one)
    fingerprints: dict[int, int]  # fp -> tf
    attrs: list[tuple[str, str]]  # (kind, normalised value)


def index_path(state_dir: Path) -> Path:
    return state_dir / INDEX_NAME


def connect(path: Path, *, create: bool = False) -> sqlite3.Connection:
    if not create and not path.exists():
        raise IndexUnusable("no index yet")
    try:
        conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute("PRAGMA cache_size = -16000")
        if not create:
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if version is None or int(version[0]) != SCHEMA_VERSION:
                conn.close()
                raise IndexUnusable(f"index schema {version[0] if version else '?'}, "
                                    f"this biocortex reads {SCHEMA_VERSION}")
    except sqlite3.DatabaseError as exc:
        raise IndexUnusable(f"index file is unreadable ({exc})") from None
    return conn


def create(path: Path) -> sqlite3.Connection:
    conn = connect(path, create=True)
    conn.executescript(SCHEMA)
    conn.execute("PRAGMA journal_mode = DELETE")
    set_meta(conn, {"schema": SCHEMA_VERSION})
    return conn


def get_meta(conn: sqlite3.Connection) -> dict[str, Any]:
    return {k: json.loads(v) for k, v in conn.execute("SELECT key, value FROM meta")}


def set_meta(conn: sqlite3.Connection, values: dict[str, Any]) -> None:
    conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                     [(k, json.dumps(v, sort_keys=True)) for k, v in values.items()])


def pack_tokens(fields: list[list[str]]) -> bytes:
    return zlib.compress("\x1e".join("\x1f".join(f) for f in fields).encode("utf-8"), 6)


def unpack_tokens(blob: bytes) -> list[list[str]]:
    text = zlib.decompress(blob).decode("utf-8")
    return [f.split("\x1f") if f else [] for f in text.split("\x1e")]


def pack_sections(sections: list[tuple[str, str, int, int]]) -> bytes:
    return zlib.compress(json.dumps(sections, ensure_ascii=False).encode("utf-8"), 6)


def unpack_sections(blob: bytes) -> list[tuple[str, str, int, int]]:
    return [(str(s[0]), str(s[1]), int(s[2]), int(s[3])) for s in json.loads(zlib.decompress(blob))]


def known_files(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    return {rel: (m, s) for rel, m, s in conn.execute("SELECT rel, mtime_ns, size FROM docs")}


def known_problems(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    # a broken note is remembered with the mtime/size it had, so it is not re-read until it changes
    out = {}
    for rel, _line, message in conn.execute("SELECT rel, line, message FROM problems"):
        stamp = json.loads(message).get("stamp", [0, 0])
        out[rel] = (stamp[0], stamp[1])
    return out


def remove(conn: sqlite3.Connection, rels: Iterable[str]) -> int:
    from biocortex_cli.index.fingerprints import field_fingerprints

    removed = 0
    for rel in rels:
        conn.execute("DELETE FROM problems WHERE rel = ?", (rel,))
        row = conn.execute("SELECT doc, tokens FROM docs WHERE rel = ?", (rel,)).fetchone()
        if row is None:
            continue
        doc, blob = row
        fps = field_fingerprints(unpack_tokens(blob))
        conn.executemany("DELETE FROM postings WHERE fp = ? AND doc = ?", ((fp, doc) for fp in fps))
        conn.execute("DELETE FROM attrs WHERE doc = ?", (doc,))
        conn.execute("DELETE FROM docs WHERE doc = ?", (doc,))
        removed += 1
    return removed


def insert(conn: sqlite3.Connection, rows: Iterable[DocRow]) -> int:
    added = 0
    for row in rows:
        cur = conn.execute(
            "INSERT INTO docs(rel, id, kind, mtime_ns, size, created, success, quality, archived,"
            " dl, task, sections, tokens) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (row.rel, row.id, row.kind, row.mtime_ns, row.size, row.created,
             None if row.success is None else int(row.success), row.quality, int(row.archived),
             sum(row.fingerprints.values()), row.task, pack_sections(row.sections),
             pack_tokens(row.fields)))
        doc = cur.lastrowid
        conn.executemany("INSERT INTO postings(fp, doc, tf) VALUES (?, ?, ?)",
                         ((fp, doc, tf) for fp, tf in row.fingerprints.items()))
        conn.executemany("INSERT OR IGNORE INTO attrs(kind, value, doc) VALUES (?, ?, ?)",
                         ((k, v, doc) for k, v in row.attrs))
        added += 1
    return added


def record_problem(conn: sqlite3.Connection, rel: str, line: int, message: str, stamp: tuple[int, int]) -> None:
    conn.execute("INSERT OR REPLACE INTO problems(rel, line, message) VALUES (?, ?, ?)",
                 (rel, line, json.dumps({"message": message, "stamp": list(stamp)})))


def problems(conn: sqlite3.Connection) -> Iterator[tuple[str, int, str]]:
    for rel, line, message in conn.execute("SELECT rel, line, message FROM problems ORDER BY rel"):
        yield rel, line, json.loads(message)["message"]


def replace_file(tmp: Path, final: Path) -> None:
    os.replace(tmp, final)
