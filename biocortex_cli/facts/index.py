"""Facts and entity aliases in the sidecar index (the same SQLite file as the episodes).

Tables (created on first use; a rebuild of the episode index drops them and the next fact
command or recall rebuilds them):

* ``facts``: one row per fact note — the triple, case-folded keys for subject and object
  (indexed) beside the names as written, confidence, status, the whole record (as ``--json``
  prints it, packed: ``packed.py``), the one-line form recall prints and its token count (counted
  here, so ``recall`` never loads a tokenizer);
* ``entity_aliases``: (alias key, note, entity name, alias as written) for every entity note's
  name, ``aliases:`` and ``identifiers:`` (a note merged into another, ``merged_into:``, gives
  none: its names are listed by the note it was merged into);
* ``fact_state``: the vault HEAD the tables reflect, the tokenizer the lines were counted with,
  and the format key of the renderer that wrote them (facts/render.py ``FORMAT``): when either
  changed, every fact is read and rendered again.

Freshness: biocortex commits every write, so the tables follow the vault's git HEAD — when it
moved, ``git diff`` names the fact and entity notes to read again. ``biocortex index`` also
stats every note, which catches hand edits not yet committed. A single ``fact add`` brings the
tables to its own commit itself, its fact note from memory, and names its notes for the next
refresh to stat (``recheck``); it stores its line uncounted and the next reader counts it
(``refresh_facts``), so the add loads no tokenizer.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, cached_property
from stat import S_ISREG

from biocortex_cli.errors import DataError
from biocortex_cli.index.build import git_changed, write_txn
from biocortex_cli.packed import pack, unpack
from biocortex_cli.store.walk import note_stamps

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from biocortex_cli.bio.vocabulary import Local
    from biocortex_cli.facts.model import Fact
    from biocortex_cli.store.notes import Note

    T = TypeVar("T")
SCHEMA = """
CREATE TABLE IF NOT EXISTS facts(
  rel TEXT PRIMARY KEY, id TEXT NOT NULL, s_key TEXT NOT NULL, o_key TEXT NOT NULL,
  predicate TEXT NOT NULL, confidence REAL NOT NULL, status TEXT NOT NULL, record BLOB NOT NULL,
  line TEXT NOT NULL, line_tokens INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
  subject TEXT NOT NULL, object TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS facts_s ON facts(s_key);
CREATE INDEX IF NOT EXISTS facts_o ON facts(o_key);
CREATE TABLE IF NOT EXISTS entity_aliases(alias_key TEXT NOT NULL, rel TEXT NOT NULL, name TEXT NOT NULL,
  alias TEXT NOT NULL, PRIMARY KEY(alias_key, rel)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entity_aliases_rel ON entity_aliases(rel);
CREATE TABLE IF NOT EXISTS entity_files(rel TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS fact_problems(rel TEXT PRIMARY KEY, line INTEGER NOT NULL, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fact_state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
#: the shape of the tables above: another value drops and rebuilds them
TABLES_VERSION = "3"  # 3: the record packed (not JSON), subject and object as written
TABLES = ("facts", "entity_aliases", "entity_files", "fact_problems", "fact_state")


#: the tables and indexes SCHEMA creates
_SCHEMA_OBJECTS = (*TABLES, "facts_s", "facts_o", "entity_aliases_rel")


def _present(conn: sqlite3.Connection) -> int:
    """How many of SCHEMA's tables and indexes the index holds."""
    marks = ",".join("?" * len(_SCHEMA_OBJECTS))
    return int(conn.execute(f"SELECT count(*) FROM sqlite_master WHERE name IN ({marks})", _SCHEMA_OBJECTS)
               .fetchone()[0])


def _state(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM fact_state"))


def refresh_facts(conn: sqlite3.Connection, vault: Any, encoding: str, *, full: bool = False,
                  written: Mapping[str, tuple[Note, int]] | None = None, count: bool = True,
                  recheck: Iterable[str] = ()) -> list[DataError]:
    """Bring the fact tables up to date; returns the notes that could not be read. ``written``:
    notes this process has just written (rel -> (the note, its size in bytes)), taken from memory
    instead of read back when their file still has that size.

    ``recheck``: notes the next refresh reads again if their file changed since the tables took
    them (a person's edit, not committed). A single ``fact add`` names its own: it indexes them
    from memory right after its commit, where the next command used to read them back (``git
    diff``), and so would have seen such an edit. Recorded with the new HEAD, in one transaction.

    ``count=False`` (a single ``fact add``) leaves the tokens of the lines it stores uncounted
    (``line_tokens`` -1, ``fact_state`` ``uncounted``): loading the tokenizer was ~165 ms of an
    add's ~600 ms CPU. Every other caller counts them here first (:func:`_count_lines`), so no
    reader sees an uncounted line; the first one after a commit loads the tokenizer anyway (the
    episodes' recall header is counted again for the new HEAD, index/build.py)."""
    from biocortex_cli.facts import render

    version = conn.execute("SELECT value FROM fact_state WHERE key = 'tables'").fetchone() if conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'fact_state'").fetchone() else None
    if version is None or version[0] != TABLES_VERSION:
        with write_txn(conn):
            for table in TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
    if _present(conn) != len(_SCHEMA_OBJECTS):  # (one query where the script is ten statements)
        conn.executescript(SCHEMA)
    state = _state(conn)
    head = vault.head() or ""
    if state.get("encoding") != encoding or state.get("format") != render.FORMAT:
        with write_txn(conn):
            for table in ("facts", "entity_aliases", "entity_files", "fact_problems", "fact_state"):
                conn.execute(f"DELETE FROM {table}")
        state = {}
    if count and "uncounted" in state:
        _count_lines(conn, encoding)
    todo: set[str] | None = None
    if state and not full and not _damaged(conn, state):
        edited = _edited(conn, vault, state.get("recheck"))
        if state.get("head") == head and not edited:
            return _problems(conn)
        if state.get("head") and head:  # what HEAD changed since, and the notes edited since read
            todo = set() if state["head"] == head else git_changed(vault.git_root, vault.root, state["head"], head,
                                                                   ("facts", "entities"))
            if todo is not None:
                todo |= edited
    if todo is None:  # first build, --full, or git cannot tell: stat everything
        known = dict(((r, (m, s)) for r, m, s in conn.execute("SELECT rel, mtime_ns, size FROM facts")))
        known.update(((r, (m, s)) for r, m, s in conn.execute("SELECT rel, mtime_ns, size FROM entity_files")))
        known.update((r, (0, -1)) for (r,) in conn.execute("SELECT rel FROM fact_problems"))
        now = note_stamps(vault.folder, ("facts", "entities"))
        todo = {r for r, st in now.items() if known.get(r) != st} | (set(known) - set(now))
    _update(conn, vault, sorted(todo), encoding, written or {}, count)
    if "header_tokens" not in state:
        from biocortex_cli.facts.render import RECALL_HEADER
        from biocortex_cli.tokens import get_counter

        with write_txn(conn):
            conn.execute("INSERT OR REPLACE INTO fact_state VALUES('header_tokens', ?)",
                         (str(get_counter(encoding).count(RECALL_HEADER)),))
    with write_txn(conn):
        conn.execute("INSERT OR REPLACE INTO fact_state VALUES('head', ?)", (head,))
        conn.execute("INSERT OR REPLACE INTO fact_state VALUES('encoding', ?)", (encoding,))
        conn.execute("INSERT OR REPLACE INTO fact_state VALUES('format', ?)", (render.FORMAT,))
        conn.execute("INSERT OR REPLACE INTO fact_state VALUES('tables', ?)", (TABLES_VERSION,))
        conn.execute("INSERT OR REPLACE INTO fact_state VALUES('rows', ?)", (_rows(conn),))
        named = sorted(r for r in recheck if r.endswith(".md") and r.startswith(("facts/", "entities/")))
        if named:
            conn.execute("INSERT OR REPLACE INTO fact_state VALUES('recheck', ?)", ("\n".join(named),))
        else:
            conn.execute("DELETE FROM fact_state WHERE key = 'recheck'")
    return _problems(conn)


def _edited(conn: sqlite3.Connection, vault: Any, named: str | None) -> set[str]:
    """The notes a refresh's ``recheck`` named whose file is not the one the tables read (another mtime
    or size, gone, or a note they could not read)."""
    out = set()
    for rel in (named or "").split("\n") if named else ():
        table = "facts" if rel.startswith("facts/") else "entity_files"
        row = conn.execute(f"SELECT mtime_ns, size FROM {table} WHERE rel = ?", (rel,)).fetchone()
        try:
            st = os.stat(f"{vault.root}/{rel}")
        except OSError:
            st = None
        if row is None or st is None or (st.st_mtime_ns, st.st_size) != tuple(row):
            out.add(rel)
    return out


def _rows(conn: sqlite3.Connection) -> str:
    """The tables' row counts, stamped after every refresh: rows lost since (a damaged file)
    make the tables be read again from the notes, never answer without them."""
    return ",".join(str(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                    for t in ("facts", "entity_aliases", "entity_files"))


def _damaged(conn: sqlite3.Connection, state: dict[str, str]) -> bool:
    if state.get("rows") == _rows(conn):
        return False
    with write_txn(conn):
        for table in ("facts", "entity_aliases", "entity_files", "fact_problems"):
            conn.execute(f"DELETE FROM {table}")
    return True


def _count_lines(conn: sqlite3.Connection, encoding: str) -> None:
    """Count the tokens of the lines a ``count=False`` refresh left uncounted."""
    from biocortex_cli.tokens import get_counter

    counter = get_counter(encoding)
    uncounted = conn.execute("SELECT rel, line FROM facts WHERE line_tokens < 0").fetchall()
    rows = [(counter.count(line), rel) for rel, line in uncounted]
    with write_txn(conn):
        conn.executemany("UPDATE facts SET line_tokens = ? WHERE rel = ?", rows)
        conn.execute("DELETE FROM fact_state WHERE key = 'uncounted'")


def _update(conn: sqlite3.Connection, vault: Any, rels: Sequence[str], encoding: str,
            written: Mapping[str, tuple[Note, int]], count: bool = True) -> None:
    from pathlib import Path  # here, not at the top: `fact verify` with nothing changed needs none

    from biocortex_cli.facts.model import Fact, fact_from_note
    from biocortex_cli.facts.render import recall_line
    from biocortex_cli.store.notes import read_note
    from biocortex_cli.tokens import get_counter

    fact_rows: list[tuple[Any, ...]] = []
    alias_rows, entity_rows, problems, gone = [], [], [], []
    root = str(vault.root)
    for rel in rels:
        path = f"{root}/{rel}"
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is None or not S_ISREG(st.st_mode):
            gone.append(rel)
            continue
        try:
            note, size = written.get(rel, (None, -1))
            if note is None or size != st.st_size:
                note = read_note(Path(path), rel)
            if rel.startswith("facts/"):
                fact = fact_from_note(note)
                fact = Fact(record=fact.record, path=rel)
                line = recall_line(fact)
                data = fact.as_json()
                fact_rows.append((rel, fact.id, fact.subject.casefold(), fact.object.casefold(), fact.predicate,
                                  fact.confidence, fact.status, pack(data), line, 0, st.st_mtime_ns, st.st_size,
                                  data["subject"], data["object"]))
            else:
                alias_rows += entity_alias_rows(note.meta, rel, os.path.splitext(rel.rpartition("/")[2])[0])
                entity_rows.append((rel, st.st_mtime_ns, st.st_size))
            gone.append(rel)  # replaced below
        except DataError as exc:
            gone.append(rel)
            problems.append((rel, exc.line or 1, exc.message))
    if fact_rows and count:  # the lines' tokens (count_many's threads cost more than they save on one-line texts)
        tokens = get_counter(encoding).count
        fact_rows = [(*row[:9], tokens(row[8]), *row[10:]) for row in fact_rows]
    elif fact_rows:
        fact_rows = [(*row[:9], -1, *row[10:]) for row in fact_rows]
    with write_txn(conn):
        if fact_rows and not count:  # in the same transaction as the rows: the next counting refresh counts them
            conn.execute("INSERT OR REPLACE INTO fact_state VALUES('uncounted', '1')")
        for table in ("facts", "entity_aliases", "entity_files", "fact_problems"):
            conn.executemany(f"DELETE FROM {table} WHERE rel = ?", [(rel,) for rel in gone])
        conn.executemany("INSERT OR REPLACE INTO facts VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", fact_rows)
        conn.executemany("INSERT OR REPLACE INTO entity_aliases VALUES(?,?,?,?)", alias_rows)
        conn.executemany("INSERT OR REPLACE INTO entity_files VALUES(?,?,?)", entity_rows)
        conn.executemany("INSERT OR REPLACE INTO fact_problems VALUES(?,?,?)", problems)


def entity_alias_rows(meta: dict[str, Any], rel: str, stem: str) -> list[tuple[str, str, str, str]]:
    """(alias key, rel, entity name, alias) for an entity note's names; none for a merged note."""
    if meta.get("merged_into"):
        return []
    name = meta.get("name")
    name = name if isinstance(name, str) and name.strip() else stem
    names = [name]
    for key in ("aliases", "identifiers"):
        listed = meta.get(key)
        if isinstance(listed, list):
            names += [a for a in listed if isinstance(a, str) and a.strip()]
    rows: dict[str, tuple[str, str, str, str]] = {}
    for alias in names:
        rows.setdefault(alias.casefold(), (alias.casefold(), rel, name, alias))
    return list(rows.values())


def _problems(conn: sqlite3.Connection) -> list[DataError]:
    return [DataError(message, path=rel, line=line)
            for rel, line, message in conn.execute("SELECT rel, line, message FROM fact_problems ORDER BY rel")]


@cache
def plain_fact() -> type[Fact]:
    """``Fact`` for a record read from the tables: JSON's data already — dicts with string keys,
    lists, strings, numbers, booleans, None (:func:`pack` took it from ``Fact.as_json``) — and
    read fresh for the fact, so its JSON is the record as it is, not converted and copied again
    value by value (``fact list --json`` of 46,797 facts spent 1.4 s of CPU there); that JSON
    shares the record's lists and dicts, which neither changes in place. Made on first use:
    facts/model.py is imported once a fact is read (and is not changed: the tables' format key
    is its source's and facts/render.py's, facts/render.py ``FORMAT``)."""
    from biocortex_cli.facts.model import Fact

    class PlainFact(Fact):
        __slots__ = ()

        def as_json(self) -> dict[str, Any]:
            return {**self.record, "path": self.path}

    return PlainFact


class IndexedFacts:
    """Facts and aliases read from the index on demand (what `fact` commands and recall use)."""

    def __init__(self, conn: sqlite3.Connection, folder: str | None = None) -> None:
        self.conn = conn
        self.folder = folder  # the vault whose vocabulary synonyms_of reads (None: the shipped one only)

    @cached_property
    def local(self) -> Local | None:
        """The vault's vocabulary (store/vocabulary.py), read when a synonym is first asked for:
        `fact verify` of a name the vault knows asks none (nor imports the tokenizer's patterns)."""
        if self.folder is None:
            return None
        from biocortex_cli.store.vocabulary import local_vocabulary

        return local_vocabulary(self.folder)

    def synonyms_of(self, name: str) -> list[str]:
        """Other names of ``name`` in the vault's vocabulary, then the shipped one (``hERG`` →
        ``KCNH2``): tried when no entity is named or aliased so (facts/query.py)."""
        from biocortex_cli.bio.vocabulary import synonym_names

        return synonym_names(name, local=self.local)

    @staticmethod
    def _fact(record: bytes) -> Fact:
        data = unpack(record)
        return plain_fact()._make((data, data.pop("path", ""), 1))

    def _facts(self, rows: Iterable[tuple[bytes]]) -> list[Fact]:
        """:meth:`_fact` of each row's record, with the cyclic garbage collector paused: the
        records are trees, never cycles, and its passes over every record read so far were a
        fifth of `fact list`'s CPU at 46,797 facts (docs/performance.md)."""
        import gc

        make = plain_fact()._make
        out: list[Fact] = []
        paused = gc.isenabled()
        gc.disable()
        try:
            for (record,) in rows:
                data = unpack(record)
                out.append(make((data, data.pop("path", ""), 1)))
        finally:
            if paused:
                gc.enable()
        return out

    def resolve(self, name: str) -> str:
        from biocortex_cli.bio.symbols import as_written

        stripped = name.strip()
        if as_written(stripped):  # a plain symbol: normalize_entity keeps it (no patterns imported)
            normalized = stripped
        else:
            from biocortex_cli.bio.entities import normalize_entity

            normalized = normalize_entity(name)
        for candidate in (stripped, normalized):
            key = candidate.casefold()
            # an entity's own name wins over another note listing it as an alias (a hand-made
            # loop, TP53 listing MDM2 and MDM2 listing TP53, must never turn MDM2 into TP53)
            row = self.conn.execute("SELECT name FROM entity_aliases WHERE alias_key = ? "
                                    "ORDER BY lower(name) != ?, rel LIMIT 1", (key, key)).fetchone()
            if row:
                return str(row[0])
        return normalized

    def alias_owner(self, text: str) -> str | None:
        """The entity whose name or alias ``text`` is (case-insensitive), if any."""
        row = self.conn.execute("SELECT name FROM entity_aliases WHERE alias_key = ? ORDER BY rel LIMIT 1",
                                (text.strip().casefold(),)).fetchone()
        return None if row is None else str(row[0])

    def spellings(self, name: str) -> set[str]:
        canonical = self.resolve(name)
        keys = {canonical.casefold(), name.strip().casefold()}
        keys.update(k for (k,) in self.conn.execute(
            "SELECT a.alias_key FROM entity_aliases a JOIN entity_aliases b ON a.rel = b.rel "
            "WHERE b.alias_key = ?", (canonical.casefold(),)))
        return keys

    def touching(self, keys: Iterable[str], limit: int | None = None) -> list[Fact]:
        """Facts whose subject or object is one of ``keys``, most confident first."""
        wanted = sorted(set(keys))
        rows: list[tuple[float, str, bytes]] = []
        for i in range(0, len(wanted), 400):
            chunk = wanted[i:i + 400]
            marks = ",".join("?" for _ in chunk)
            cap = f" LIMIT {int(limit)}" if limit is not None else ""
            rows += self.conn.execute(
                f"SELECT confidence, rel, record FROM facts WHERE s_key IN ({marks}) UNION "
                f"SELECT confidence, rel, record FROM facts WHERE o_key IN ({marks}) "
                f"ORDER BY 1 DESC, 2{cap}", [*chunk, *chunk]).fetchall()
        rows.sort(key=lambda r: (-r[0], r[1]))
        rows = rows[:limit] if limit is not None else rows
        return [self._fact(record) for _c, _r, record in rows]

    def known_name(self, key: str) -> str | None:
        row = self.conn.execute("SELECT name FROM entity_aliases WHERE alias_key = ? LIMIT 1", (key,)).fetchone()
        if row:
            return str(row[0])
        row = self.conn.execute("SELECT record FROM facts WHERE s_key = ? OR o_key = ? LIMIT 1", (key, key)).fetchone()
        if row:
            fact = self._fact(row[0])
            return fact.subject if fact.subject.casefold() == key else fact.object
        return None

    def substring(self, text: str, limit: int = 50) -> list[str]:
        like = "%" + text.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        names = {str(n) for (n,) in self.conn.execute(
            "SELECT DISTINCT name FROM entity_aliases WHERE alias_key LIKE ? ESCAPE '\\' LIMIT ?", (like, limit))}
        for (record,) in self.conn.execute(
                "SELECT record FROM facts WHERE s_key LIKE ? ESCAPE '\\' OR o_key LIKE ? ESCAPE '\\' LIMIT ?",
                (like, like, limit)):
            fact = self._fact(record)
            names.update(n for n in (fact.subject, fact.object) if text.casefold() in n.casefold())
        return sorted(names, key=lambda s: (len(s), s))[:limit]

    def all_facts(self) -> list[Fact]:
        return self._facts(self.conn.execute("SELECT record FROM facts ORDER BY rel"))

    def listed(self, *, status: str | None = None, subjects: Iterable[str] | None = None,
               objects: Iterable[str] | None = None, predicates: Iterable[str] | None = None,
               min_confidence: float = 0.0, limit: int | None = None) -> list[Fact]:
        """`fact list`: the facts with this ``status`` (None: any), subject and object keys
        (case-folded names), predicates and confidence, filtered and sorted by SQLite, so a fact
        left out is never unpacked: by subject and object case-folded, predicate, id, then path
        (SQLite compares text as UTF-8 bytes, which sort as Python sorts the strings: by code
        point)."""
        where: list[str] = ["confidence >= ?"]
        args: list[object] = [min_confidence]
        if status is not None:
            where.append("status = ?")
            args.append(status)
        for column, values in (("s_key", subjects), ("o_key", objects), ("predicate", predicates)):
            if values is not None:
                wanted = sorted(set(values))
                where.append(f"{column} IN ({','.join('?' * len(wanted))})")
                args += wanted
        cap = f" LIMIT {int(limit)}" if limit is not None else ""
        return self._facts(self.conn.execute(
            f"SELECT record FROM facts WHERE {' AND '.join(where)} ORDER BY s_key, predicate, o_key, id, rel{cap}",
            args))


def repair_derived(vault: Any, exc: BaseException) -> None:
    """After a query found a derived file damaged (index/build.py ``damaged``; SQLite does not say
    which file): the datasets' indexes and compiled vocabularies that are damaged are removed, each
    with a warning (the next use makes it again from its file or note), and the vault's index is
    rebuilt unless it reads whole and another file was the one."""
    from biocortex_cli.facts.datasets_index import index_files
    from biocortex_cli.index.build import repair
    from biocortex_cli.index.store import index_path
    from biocortex_cli.store import vocabulary
    from biocortex_cli.store.files import drop_unsound, sound

    dropped = drop_unsound([*index_files(vault.state_folder), *vocabulary.compiled_files(vault.folder)])
    for path in dropped:
        print(f"biocortex: warning: {path} was damaged ({exc}): removed, made again from the vault on next use",
              file=sys.stderr)
    if dropped:
        vocabulary.forget_compiled()
    if not dropped or not sound(index_path(vault.state_folder)):
        repair(vault, exc)


def with_facts(vault: Any, use: Callable[[IndexedFacts], T]) -> tuple[T, list[DataError]]:
    """``use(facts)`` on the refreshed index, and the notes it could not read. An index file
    damaged in a way SQLite notices (a malformed page), or replaced while it was read, is the
    caller's to repair: the API functions that read facts run again once it is rebuilt
    (api/checks.py ``repairs_index``), as every other reader of the index does."""
    conn, source, problems = open_facts(vault)
    try:
        return use(source), problems
    finally:
        conn.close()


def open_facts(vault: Any, *, full: bool = False, written: Mapping[str, tuple[Note, int]] | None = None,
               episodes: bool = True) -> tuple[sqlite3.Connection, IndexedFacts, list[DataError]]:
    """The vault's index, refreshed (episodes and facts), as a fact source; ``written``: see
    :func:`refresh_facts` (a bulk import hands over its notes: the next command after a 10,000-fact
    import read all 12,000 back, ~5 s). ``episodes=False`` (a single fact write): the episodes are
    left as they are when the index is usable (``index/build.py`` ``open_as_is``), and lines are
    stored uncounted (:func:`refresh_facts` ``count``): such a write loads no tokenizer."""
    from biocortex_cli.index.build import open_as_is, refresh

    encoding = vault.config.tokenizer.encoding
    conn = None if episodes or full else open_as_is(vault, encoding)
    if conn is None:
        conn, _report = refresh(vault, encoding)
    problems = refresh_facts(conn, vault, encoding, full=full, written=written, count=episodes)
    return conn, IndexedFacts(conn, vault.folder if vault.config.episodic.vocabulary else None), problems
