"""Listings from the index: ``episode list``, ``episode show``'s lookup and ``log``'s records.

The note-parsing path (``store/episodes.py`` ``list_episodes``) reads every note's YAML: 3.8-11 s
at 8k episodes for ``episode list --limit 5``. Here the index answers, with exactly that path's
output: each episode's frontmatter is stored as JSON (``records``, the record as it was parsed),
with ``created`` as written (the listing sorts by it), and its domains, tools and entities
case-folded (``labels``, what the filters match). ``records_order`` hands the newest first, so
``--limit 5`` reads five rows. The index is refreshed first, as for ``recall``.

Notes the index could not take (its ``problems``: YAML it cannot read, a field of the wrong type,
a ``created`` that is no date) are read through the note-parsing path itself, so they are listed,
or skipped with a warning, exactly as before (``tests/test_listing.py`` compares both paths).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from biocortex_cli.errors import DataError
from biocortex_cli.index import store

if TYPE_CHECKING:
    from biocortex_cli.store.episode import Episode, EpisodeFilter
    from biocortex_cli.store.vault import Vault

# (created, id) newest first, as ``records_order`` hands them (so ``--limit 5`` reads five rows);
# ties by path are sorted here, within each run of equal (created, id): adding ``d.rel`` to the
# ORDER BY would make SQLite sort every row first (0.5 s at 100k)
_ORDER = " ORDER BY r.created DESC, r.id DESC"


def fresh_index(vault: Vault) -> sqlite3.Connection:
    """The vault's index, brought up to date (built if missing)."""
    from biocortex_cli.index.build import refresh

    conn, _report = refresh(vault, vault.config.tokenizer.encoding)
    return conn


def list_episodes(vault: Vault, filt: EpisodeFilter) -> tuple[list[Episode], list[DataError]]:
    """Episodes matching ``filt``, newest first, and the notes that could not be read: what
    ``store.episodes.list_episodes`` returns, from the index."""
    conn = fresh_index(vault)
    try:
        conn.execute("BEGIN")  # one snapshot
        found = list(_listed(conn, filt))
        unreadable = [rel for rel, _line, _message in store.problems(conn) if rel.startswith("episodes/")]
        conn.execute("COMMIT")
    finally:
        conn.close()
    if not unreadable:
        return found, []
    from biocortex_cli.store.episodes import newest_first, read_matching  # notes' machinery only when needed

    more, problems = read_matching(vault, unreadable, filt)  # the note-parsing path decides, as before
    return newest_first(found + more, filt.limit), problems


def _listed(conn: sqlite3.Connection, filt: EpisodeFilter) -> Iterator[Episode]:
    from biocortex_cli.store.episode import Episode, parse_created

    sql = ("SELECT r.created, r.record, d.rel, d.created FROM records r JOIN docs d ON d.doc = r.doc"
           " WHERE d.kind = 'episode' AND d.archived = 0")
    params: list[object] = []
    if filt.success is not None:
        sql += " AND d.success = ?"
        params.append(int(filt.success))
    for kind, wanted in (("domain", filt.domain), ("tool", filt.tool), ("entity", filt.entity)):
        if wanted is not None:
            sql += " AND r.doc IN (SELECT doc FROM labels WHERE kind = ? AND value = ?)"
            params += [kind, wanted.casefold()]
    floor = None
    if filt.since is not None:  # docs.created is UTC to the second: exact but on the boundary second
        floor = filt.since.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        sql += " AND d.created >= ?"
        params.append(floor)
    shown = 0
    for created, blob, rel, utc in _ties_by_path(conn.execute("SELECT r.id," + sql[len("SELECT"):] + _ORDER, params)):
        if filt.limit is not None and shown >= filt.limit:
            return
        if utc == floor and filt.since is not None and parse_created(created) < filt.since:
            continue
        shown += 1
        yield Episode(record=store.unpack_record(blob), path=rel)


def _ties_by_path(rows: Iterable[tuple[str, str, bytes, str, str]]) -> Iterator[tuple[str, bytes, str, str]]:
    """(created, record, rel, utc) of ``rows`` — (id, created, record, rel, utc), ordered by
    (created, id) — with each run of equal (created, id) ordered by rel: lazily, so a listing
    that stops after five reads about five rows."""
    run: list[tuple[str, str, bytes, str, str]] = []
    for row in rows:
        if run and (row[1], row[0]) != (run[0][1], run[0][0]):
            yield from (r[1:] for r in sorted(run, key=lambda r: r[3]))
            run = []
        run.append(row)
    yield from (r[1:] for r in sorted(run, key=lambda r: r[3]))


def indexed_path(vault: Vault, ident: str, conn: sqlite3.Connection | None = None) -> str | None:
    """The path of the episode note named ``<ident>.md`` (live or archived) anywhere under the
    episode folders, from the index: what ``store.episodes.existing_ids`` finds by walking every
    note (0.5 s at 100k), for a note the quick ``YYYY/MM`` lookup does not find; else the note
    whose frontmatter says ``id: <ident>`` under another file name (renamed in Obsidian, which
    keeps the id; ``check`` warns about it)."""
    suffix = f"/{ident}.md"
    own = conn is None
    conn = fresh_index(vault) if conn is None else conn
    try:
        for (rel,) in conn.execute("SELECT rel FROM docs WHERE substr(rel, -?) = ? UNION "
                                   "SELECT rel FROM problems WHERE substr(rel, -?) = ? UNION "
                                   "SELECT rel FROM docs WHERE id = ? AND kind = 'episode' ORDER BY rel",
                                   (len(suffix), suffix, len(suffix), suffix, ident)):
            if rel.startswith(("episodes/", "archive/episodes/")):
                return str(rel)
    finally:
        if own:
            conn.close()
    return None


def find_episode(vault: Vault, ident: str) -> Episode:
    """Episode ``ident`` (live or archived): the note ``store.episodes.find_episode`` would find
    (its ``YYYY/MM`` folder, else any note of that name, which the index knows), read from the
    index (refreshed first: the record as the note holds it now). A note the index could not
    take (its ``problems``) is read by the note parser, which says what is wrong with it."""
    from biocortex_cli.errors import NotFoundError
    from biocortex_cli.store.episode import Episode, episode_path, validate_id

    validate_id(ident)
    conn = fresh_index(vault)
    try:
        rel = episode_path(vault, ident) or indexed_path(vault, ident, conn)
        row = None if rel is None else conn.execute(
            "SELECT r.record FROM docs d JOIN records r ON r.doc = d.doc WHERE d.rel = ? AND d.kind = 'episode'",
            (rel,)).fetchone()
    finally:
        conn.close()
    if rel is None:
        raise NotFoundError(f"no episode with id {ident!r}", hint="list ids with `biocortex episode list`")
    if row is not None:
        return Episode(store.unpack_record(row[0]), rel)
    from biocortex_cli.store.episodes import load_episode  # the parser's error, path:line

    return load_episode(vault, rel)


def episode_rows(conn: sqlite3.Connection, rels: Iterable[str]) -> dict[str, tuple[str, str, str, bool | None,
                                                                                   float | None]]:
    """rel -> (id, task, author, success, quality) of the indexed episodes among ``rels``: what
    ``log`` says of each new episode, without reading its note."""
    out = {}
    wanted = list(rels)
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        for rel, ident, task, author, success, quality in conn.execute(
                "SELECT d.rel, d.id, d.task, r.author, d.success, d.quality FROM docs d"
                f" JOIN records r ON r.doc = d.doc WHERE d.rel IN ({','.join('?' * len(chunk))})", chunk):
            out[rel] = (ident, task, author, None if success is None else bool(success), quality)
    return out
