"""Promoted lesson notes (``lessons/``) in the sidecar index, for recall.

Tables, created on first use like the fact tables (a rebuild of the episode index drops them
and the next recall fills them again): ``lesson_notes`` holds each note's id, text, support and
the line recall prints with its token counts (counted here, so ``recall`` never loads a
tokenizer); ``lesson_fps`` maps each fingerprint of a note (its text, phrasings, tools, domains,
entities) to the note, so recall reads only the rows of the query's fingerprints;
``lesson_state`` keeps the header's token count, the encoding and the format key of the
renderer (lessons/render.py ``FORMAT``: when it or the encoding changed, every note is read
again); ``lesson_problems`` the notes that could not be read, with their stamps (so a broken note
is read again only once it changes). Lesson notes are few: freshness is a stat of each file in
``lessons/`` (no git call), which also sees hand edits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from biocortex_cli.errors import DataError
from biocortex_cli.index.build import write_txn

SCHEMA = """
CREATE TABLE IF NOT EXISTS lesson_notes(
  rel TEXT PRIMARY KEY, id TEXT NOT NULL, lesson TEXT NOT NULL, support INTEGER NOT NULL,
  success_rate REAL, domains TEXT NOT NULL, line TEXT NOT NULL,
  line_tokens INTEGER NOT NULL, last_tokens INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lesson_fps(fp INTEGER NOT NULL, rel TEXT NOT NULL, PRIMARY KEY(fp, rel)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lesson_state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lesson_problems(
  rel TEXT PRIMARY KEY, line INTEGER NOT NULL, message TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL);
"""


@dataclass(frozen=True)
class IndexedLesson:
    rel: str
    id: str
    lesson: str
    support: int
    success_rate: float | None
    domains: frozenset[str]
    line: str
    tokens: int  # the line followed by another line
    tokens_last: int  # the line, then the blank line that ends the section


def refresh_lessons(conn: sqlite3.Connection, vault: Any, encoding: str) -> list[DataError]:
    """Bring ``lesson_notes`` in line with ``lessons/``; returns the notes found unreadable now
    (each is reported once: it is recorded with its stamp in ``lesson_problems``, its old row
    removed, and it is not read again until it changes)."""
    from biocortex_cli.store.walk import note_stamps

    now = note_stamps(vault.root, ("lessons",))
    try:
        state, known = _known(conn)
    except sqlite3.OperationalError:  # first use (or an index made before lesson_problems)
        if not now:
            return []
        conn.executescript(SCHEMA)
        state, known = _known(conn)
    from biocortex_cli.lessons import render

    fresh = state.get("encoding") == encoding and state.get("format") == render.FORMAT
    if fresh and known == now:
        return []
    from biocortex_cli.lessons.render import RECALL_HEADER
    from biocortex_cli.tokens import get_counter

    counter = get_counter(encoding)
    problems: list[DataError] = []
    bad: list[tuple[str, int, str, int, int]] = []
    rows = []
    for rel, stamp in sorted(now.items()):
        if fresh and known.get(rel) == stamp:
            continue
        try:
            rows.append(_row(vault.root, rel, stamp, counter))
        except DataError as exc:
            problems.append(exc)
            bad.append((rel, exc.line or 1, exc.message, stamp[0], stamp[1]))
    with write_txn(conn):
        gone = set(known) - set(now) if fresh else set(known)
        for rel in sorted(gone | {b[0] for b in bad} | {row[0] for row, _fps in rows}):
            conn.execute("DELETE FROM lesson_notes WHERE rel = ?", (rel,))
            conn.execute("DELETE FROM lesson_fps WHERE rel = ?", (rel,))
            conn.execute("DELETE FROM lesson_problems WHERE rel = ?", (rel,))
        conn.executemany("INSERT INTO lesson_problems VALUES(?,?,?,?,?)", bad)
        conn.executemany("INSERT OR REPLACE INTO lesson_notes VALUES(?,?,?,?,?,?,?,?,?,?,?)", [r for r, _ in rows])
        conn.executemany("INSERT OR IGNORE INTO lesson_fps VALUES(?, ?)",
                         [(fp, row[0]) for row, fps in rows for fp in fps])
        conn.execute("INSERT OR REPLACE INTO lesson_state VALUES('encoding', ?)", (encoding,))
        conn.execute("INSERT OR REPLACE INTO lesson_state VALUES('format', ?)", (render.FORMAT,))
        conn.execute("INSERT OR REPLACE INTO lesson_state VALUES('header_tokens', ?)",
                     (str(counter.count(RECALL_HEADER)),))
    return problems


def lesson_problems(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
    """(rel, line, message) of every lesson note the last refresh could not read."""
    try:
        return [(r, n, m) for r, n, m in conn.execute("SELECT rel, line, message FROM lesson_problems ORDER BY rel")]
    except sqlite3.OperationalError:  # no lesson note was ever indexed
        return []


def _known(conn: sqlite3.Connection) -> tuple[dict[str, str], dict[str, tuple[int, int]]]:
    """The lesson state, and the stamp of every note indexed or recorded as unreadable."""
    state = dict(conn.execute("SELECT key, value FROM lesson_state"))
    known = {r: (m, s) for r, m, s in conn.execute("SELECT rel, mtime_ns, size FROM lesson_notes")}
    known.update((r, (m, s)) for r, m, s in conn.execute("SELECT rel, mtime_ns, size FROM lesson_problems"))
    return state, known


def _row(root: Any, rel: str, stamp: tuple[int, int], counter: Any) -> tuple[tuple[Any, ...], list[int]]:
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.build import attr_norm
    from biocortex_cli.index.fingerprints import field_fingerprints
    from biocortex_cli.lessons.notes import lesson_from_note
    from biocortex_cli.lessons.render import recall_line
    from biocortex_cli.store.notes import read_note

    lesson = lesson_from_note(read_note(root / rel, rel))
    fields = [tokenize(lesson.lesson)] + [tokenize(p) for p in lesson.strings("phrasings")]
    for key in ("tools", "domains", "entities"):
        fields += [attr_norm(v).split() for v in lesson.strings(key)]
    fps = sorted(field_fingerprints(fields))
    support = len(lesson.strings("supporting"))
    rate = lesson.record.get("success_rate")
    rate = float(rate) if isinstance(rate, int | float) else None
    line = recall_line(lesson.lesson, support, rate, lesson.id)
    domains = sorted({attr_norm(d) for d in lesson.strings("domains")})
    return (rel, lesson.id, lesson.lesson, support, rate, json.dumps(domains), line,
            counter.count(line), counter.count(line + "\n"), stamp[0], stamp[1]), fps


def matching_lessons(conn: sqlite3.Connection, weights: dict[int, float],
                     coverage: Callable[[list[tuple[int, float]]], float] | None = None,
                     ) -> list[tuple[float, IndexedLesson]]:
    """(sum of the weights of ``weights``' fingerprints the note has, note) for every lesson note
    that has at least one of them; ``coverage`` sums a note's (fingerprint, weight) pairs instead
    (a term and its synonyms count once: index/weights.py)."""
    found: dict[str, list[tuple[int, float]]] = {}
    fps = sorted(weights)
    try:
        for i in range(0, len(fps), 500):
            chunk = fps[i:i + 500]
            for fp, rel in conn.execute(f"SELECT fp, rel FROM lesson_fps WHERE fp IN ({','.join('?' * len(chunk))})",
                                        chunk):
                found.setdefault(rel, []).append((fp, weights[fp]))
    except sqlite3.OperationalError:  # no lesson tables yet
        return []
    if not found:
        return []
    sums = {rel: coverage(pairs) if coverage is not None else _added(pairs) for rel, pairs in found.items()}
    rels = sorted(sums)
    out = []
    for rel, ident, lesson, support, rate, domains, line, tokens, last in conn.execute(
            "SELECT rel, id, lesson, support, success_rate, domains, line, line_tokens, last_tokens FROM lesson_notes"
            f" WHERE rel IN ({','.join('?' * len(rels))}) ORDER BY rel", rels):
        out.append((sums[rel], IndexedLesson(rel, ident, lesson, support, rate, frozenset(json.loads(domains)),
                                             line, tokens, last)))
    return out


def _added(pairs: list[tuple[int, float]]) -> float:
    total = 0.0
    for _fp, weight in pairs:
        total += weight
    return total


def lessons_header_tokens(conn: sqlite3.Connection) -> int:
    try:
        row = conn.execute("SELECT value FROM lesson_state WHERE key = 'header_tokens'").fetchone()
    except sqlite3.OperationalError:
        return 0
    return int(row[0]) if row else 0
