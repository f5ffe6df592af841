"""Build and refresh the sidecar index incrementally.

Freshness is decided without reading every file: the index remembers the mtime of every folder
it indexed and the vault's git HEAD. A folder whose mtime is unchanged holds the same entries
(every write biocortex makes is a rename, which touches the folder), so only changed folders are
listed and only their files stat'ed; when HEAD moved, ``git diff`` names the notes a pull or a
commit changed. ``recall`` and ``biocortex index`` take this quick path; ``index --full`` (and
``index --check``) stat every note, which also catches a hand edit saved in place and not yet
committed (100k stats cost ~0.3 s of CPU in Python, as much as the rest of a refresh). Each
folder's stamp also carries a digest of its notes' names, mtimes and sizes, so a refresh
compares the stored stamps of only the folders whose digest changed (at 100k notes, loading
every note's stamp from the index cost ~0.25 s).

A rebuild reads and tokenises the notes on every core (``multiprocessing``, in order, so the
same vault gives the same index) and loads them in batches (:class:`store.BulkLoader`).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator

from biocortex_cli.errors import BiocortexError, DataError
from biocortex_cli.index import store
from biocortex_cli.index.store import DocRow, IndexUnusable
from biocortex_cli.lazy import contextmanager

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # pathlib (~18 M) too: a fresh index is checked with os.path (the vault's folder as a str)
    from pathlib import Path
    from typing import Any

    from biocortex_cli.progress import Stage

#: Folders whose notes are indexed, and whether what they hold is archived memory.
INDEXED = {"episodes": False, "archive/episodes": True}


class RefreshReport:
    """What a refresh did (filled in as it goes). A plain class, not a dataclass: recall defines
    it on every start (docs/performance.md)."""

    __slots__ = ("added", "problems", "reason", "rebuilt", "removed", "seconds", "total", "updated")

    def __init__(self, added: int = 0, updated: int = 0, removed: int = 0, rebuilt: bool = False, reason: str = "",
                 total: int = 0, problems: list[tuple[str, int, str]] | None = None, seconds: float = 0.0) -> None:
        self.added = added
        self.updated = updated
        self.removed = removed
        self.rebuilt = rebuilt
        self.reason = reason
        self.total = total
        self.problems: list[tuple[str, int, str]] = [] if problems is None else problems
        self.seconds = seconds

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.rebuilt)


class Scan:  # a plain class (recall's path)
    """What a scan of the vault found: note -> (mtime_ns, size), and folder stamps.

    ``dirs`` maps every indexed folder to [mtime_ns, subfolders, digest of its notes' names and
    stamps]. ``dirty`` names the folders whose notes may differ from the index (new, vanished,
    or with another digest); ``files`` holds the notes of those folders, or of every folder when
    ``dirty`` is None. Comparing digests first spares loading 100k stamps from the index to find
    the one note that changed.
    """

    __slots__ = ("complete", "dirs", "dirty", "files")

    def __init__(self, files: dict[str, tuple[int, int]], dirs: dict[str, list[Any]], complete: bool,
                 dirty: set[str] | None = None) -> None:
        self.files, self.dirs = files, dirs
        self.complete = complete  # True when every note was stat'ed (a full scan)
        self.dirty = dirty


def _stat_dir(root: Path, rel_dir: str) -> tuple[int, list[str], dict[str, tuple[int, int]], str]:
    """A folder's mtime, its subfolders, its notes with (mtime_ns, size) (store/walk.py's rule),
    and their digest."""
    from biocortex_cli.store.walk import list_folder

    folder = list_folder(root, rel_dir)
    return folder.mtime_ns, folder.subdirs, folder.notes, _digest(folder.notes)


def _digest(notes: dict[str, tuple[int, int]]) -> str:
    import hashlib

    text = "\n".join(f"{rel}\0{m}\0{size}" for rel, (m, size) in sorted(notes.items()))
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def full_scan(root: Path, known_dirs: dict[str, list[Any]] | None = None) -> Scan:
    """Stat every note. With ``known_dirs`` (the index's folder stamps), only folders whose notes'
    digest changed are ``dirty``."""
    files: dict[str, tuple[int, int]] = {}
    dirs: dict[str, list[Any]] = {}
    dirty: set[str] | None = None if known_dirs is None else set()
    for top in INDEXED:
        stack = [top] if (root / top).is_dir() else []
        while stack:
            rel_dir = stack.pop()
            try:
                mtime, subdirs, notes, digest = _stat_dir(root, rel_dir)
            except FileNotFoundError:
                continue
            dirs[rel_dir] = [mtime, subdirs, digest]
            if dirty is None:
                files.update(notes)
            else:
                old = known_dirs.get(rel_dir) if known_dirs is not None else None
                if old is None or len(old) < 3 or old[2] != digest:
                    dirty.add(rel_dir)
                    files.update(notes)
            stack.extend(f"{rel_dir}/{s}" for s in subdirs)
    if dirty is not None and known_dirs is not None:
        dirty.update(d for d in known_dirs if d not in dirs)  # vanished: their notes are gone
    return Scan(files, dirs, complete=True, dirty=dirty)


def quick_scan(root: Path, known_dirs: dict[str, list[Any]]) -> Scan:
    """Re-list only the folders whose mtime changed (they are ``dirty`` if their notes changed)."""
    files: dict[str, tuple[int, int]] = {}
    dirs: dict[str, list[Any]] = {}
    dirty: set[str] = set()
    for top in INDEXED:
        stack = [top] if (root / top).is_dir() else []
        while stack:
            rel_dir = stack.pop()
            try:
                mtime = (root / rel_dir).stat().st_mtime_ns
            except FileNotFoundError:
                continue
            old = known_dirs.get(rel_dir)
            if old is not None and old[0] == mtime and len(old) >= 3:
                dirs[rel_dir] = list(old)
            else:
                try:
                    mtime, subdirs, notes, digest = _stat_dir(root, rel_dir)
                except FileNotFoundError:
                    continue
                dirs[rel_dir] = [mtime, subdirs, digest]
                if old is None or len(old) < 3 or old[2] != digest:
                    dirty.add(rel_dir)
                    files.update(notes)
            stack.extend(f"{rel_dir}/{s}" for s in dirs[rel_dir][1])
    dirty.update(d for d in known_dirs if d not in dirs)
    return Scan(files, dirs, complete=False, dirty=dirty)


def _add_folder(root: Path, scan: Scan, rel_dir: str) -> None:
    """Make ``rel_dir`` dirty in a partial scan: list its notes now."""
    if scan.dirty is None or rel_dir in scan.dirty:
        return
    scan.dirty.add(rel_dir)
    import contextlib

    with contextlib.suppress(FileNotFoundError):
        scan.files.update(_stat_dir(root, rel_dir)[2])


def dirs_unchanged(root: str, known_dirs: dict[str, list[Any]]) -> bool:
    """True when every indexed folder still has the mtime the index saw (no note added, removed
    or renamed). The same answer as comparing :func:`quick_scan`'s folders with ``known_dirs``,
    without loading the index's list of notes: a stat per folder (about a hundred at 100k notes)."""
    from biocortex_cli.store.files import is_dir

    for top in INDEXED:
        if (top in known_dirs) != is_dir(os.path.join(root, top)):
            return False
    for rel_dir, stamp in known_dirs.items():
        try:
            if os.stat(os.path.join(root, rel_dir)).st_mtime_ns != stamp[0]:
                return False
        except OSError:
            return False
    return True


#: A hand-edit check that took less than this much CPU runs before every refresh; a costlier one (a
#: vault of tens of thousands of notes) at most once per EDITS_FACTOR times its cost, so it never
#: takes more than 1/EDITS_FACTOR of the time (docs/architecture.md, "The sidecar index").
EDITS_ALWAYS = 0.010
EDITS_FACTOR = 20
#: an index of at most this many notes (and broken notes) has the check for hand edits stat every
#: note, not ask git (edited_in_place): ~3 µs a note against a child process and its import
STAT_ALL = 500
#: After a watcher could not start (index/watch.py), seconds before a refresh tries again.
WATCH_RETRY = 600.0


def uncommitted(vault: Any, folders: Iterable[str]) -> set[str] | None:
    """Notes under ``folders`` (relative to the vault) that the working tree or git's index holds
    otherwise than HEAD: ``git status``, which compares each tracked file's stat data with what git
    recorded (in C, ~3 µs a note), so a note saved in place since its commit is named. None when
    git cannot tell. ``--no-optional-locks``: a reader never takes git's index lock, which a
    concurrent write needs."""
    from biocortex_cli.errors import BiocortexError
    from biocortex_cli.store import git

    try:
        prefix = vault.root.resolve().relative_to(vault.git_root.resolve()).as_posix()
        paths = [d if prefix == "." else f"{prefix}/{d}" for d in folders]
        proc = git.call(vault.git_root, "--no-optional-locks", "status", "--porcelain=v1", "-z", "-uno",
                        "--no-renames", "--", *paths)
    except (BiocortexError, ValueError, OSError):
        return None
    if proc.returncode != 0:
        return None
    cut = 0 if prefix == "." else len(prefix) + 1
    return {entry[3:][cut:] for entry in proc.stdout.split("\0") if len(entry) > 3}


def edited_in_place(vault: Any, conn: sqlite3.Connection) -> set[str]:
    """Indexed notes saved since the index read them, by hand and in place (a rename would have
    changed their folder's mtime): those :func:`uncommitted` names whose mtime or size is not
    the one the index recorded. An index of at most ``STAT_ALL`` notes has every note's stamp
    compared instead: fewer instructions than starting git (and importing ``subprocess``), and
    it names every note git would."""
    few = store.few_known(conn, STAT_ALL)
    if few is not None:
        return _differing(vault, set(few), few)
    return _stamps_differ(vault, conn, uncommitted(vault, INDEXED) or set())


def _stamps_differ(vault: Any, conn: sqlite3.Connection, named: set[str]) -> set[str]:
    """The indexed notes among ``named`` whose mtime or size is not the one the index recorded."""
    if not named:
        return set()
    known = store.known_files(conn, {rel.rsplit("/", 1)[0] for rel in named if "/" in rel})
    known.update(store.known_problems(conn, {rel.rsplit("/", 1)[0] for rel in named if "/" in rel}))
    return _differing(vault, named, known)


def _differing(vault: Any, named: set[str], known: dict[str, tuple[int, int]]) -> set[str]:
    """The notes among ``named`` whose (mtime, size) is not the one ``known`` records."""
    out = set()
    for rel in named:
        if not rel.endswith(".md") or rel not in known:
            continue  # a note that is new or gone changed its folder: the quick scan sees it
        try:
            st = os.stat(os.path.join(vault.folder, rel), follow_symlinks=False)
        except OSError:
            continue
        if (st.st_mtime_ns, st.st_size) != known[rel]:
            out.add(rel)
    return out


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git): what a check costs, whatever
    else the machine runs (wall time on a loaded machine would throttle a check that is quick)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _edits_due(meta: dict[str, Any], forced: bool, now: float) -> bool:
    """Whether the hand-edit check runs now (``now``: seconds since the epoch)."""
    cost = float(meta.get("edits_cost") or 0.0)
    return forced or cost < EDITS_ALWAYS or now - float(meta.get("edits_checked") or 0.0) >= cost * EDITS_FACTOR


def _edits_record(meta: dict[str, Any], cost: float, now: float) -> dict[str, float]:
    """What the index keeps of a check that took ``cost`` seconds of CPU: when and how long, for
    :func:`_edits_due`; nothing where checks are quick (a refresh that found nothing writes
    nothing), unless the last one was slow (its throttle is lifted)."""
    if cost >= EDITS_ALWAYS or float(meta.get("edits_cost") or 0.0) >= EDITS_ALWAYS:
        return {"edits_checked": now, "edits_cost": round(cost, 4)}
    return {}


def hand_edits(vault: Any, conn: sqlite3.Connection, meta: dict[str, Any],
               forced: bool) -> tuple[set[str], dict[str, Any]]:
    """Notes saved in place since the last refresh, and what the index's meta should record.

    Where the full check (:func:`edited_in_place`) is quick, it runs every time. Where it is slow
    (large vaults) and a watcher can run (Linux), the watcher's log names the notes written since
    the last refresh (index/watch.py), and the full check runs only when the log cannot be
    trusted — after (re)starting the watcher, so the log covers what follows. Elsewhere, the
    slow check runs at most once per EDITS_FACTOR times its cost; ``forced`` (``biocortex
    index``) always runs it.
    """
    state = None
    if float(meta.get("edits_cost") or 0.0) >= EDITS_ALWAYS:
        from biocortex_cli.index import watch

        now = time.time()
        if watch.usable(int(meta.get("n_docs") or 0)) and now >= float(meta.get("watch_retry") or 0.0):
            if not forced:
                seen = watch.edits_since(vault.state_folder, meta.get("watch"))
                if seen is not None:
                    names, state = seen
                    return _stamps_differ(vault, conn, names), ({"watch": state} if state != meta.get("watch") else {})
            state = watch.start(vault.root, vault.state_dir, INDEXED)
            forced = forced or state is not None
            if state is None:  # no watcher could start here: the throttled check, and try again later
                edited, record = _checked(vault, conn, meta, forced)
                return edited, {**record, "watch": None, "watch_retry": now + WATCH_RETRY}
    edited, record = _checked(vault, conn, meta, forced)
    if state is not None:
        record["watch"] = state
    return edited, record


def _checked(vault: Any, conn: sqlite3.Connection, meta: dict[str, Any],
             forced: bool) -> tuple[set[str], dict[str, Any]]:
    """The full check, when due (:func:`_edits_due`), and what to record of it."""
    if not _edits_due(meta, forced, time.time()):
        return set(), {}
    began = _cpu()
    edited = edited_in_place(vault, conn)
    return edited, dict(_edits_record(meta, _cpu() - began, time.time()))


def git_changed(git_root: Path, vault_root: Path, old: str, new: str,
                folders: Iterable[str] = INDEXED) -> set[str] | None:
    """Files under ``folders`` that differ between two commits, relative to the vault; None if
    git cannot tell."""
    try:
        prefix = vault_root.resolve().relative_to(git_root.resolve()).as_posix()
    except ValueError:
        return None
    import subprocess  # here, not at the top: with threading and selectors, ~17 M instructions recall rarely needs

    proc = subprocess.run(["git", "-C", str(git_root), "diff", "--name-only", "--no-renames", "-z",
                           old, new, "--", *[f"{prefix}/{d}" if prefix != "." else d for d in folders]],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return None
    names = [n for n in proc.stdout.split("\0") if n]
    cut = 0 if prefix == "." else len(prefix) + 1
    return {n[cut:] for n in names}


#: tools, domains and entities repeat across notes: their normalised forms, once computed
_ATTR_NORMS: dict[str, str] = {}


def attr_norm(value: str) -> str:
    """A tool, domain or entity as the index's ``attrs`` table holds it (its tokens, joined)."""
    from biocortex_cli.bio.text import tokenize

    norm = _ATTR_NORMS.get(value)
    if norm is None:
        norm = " ".join(tokenize(value)) or value.casefold()
        if len(_ATTR_NORMS) < 100_000:
            _ATTR_NORMS[value] = norm
    return norm


def build_row(root: Path, rel: str, stamp: tuple[int, int], counter: Any) -> DocRow:
    """Read one note and derive everything recall needs from it. Raises DataError."""
    from biocortex_cli.bio.entities import variant_gene
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.fingerprints import field_fingerprints
    from biocortex_cli.render.blocks import count_sections, episode_sections
    from biocortex_cli.store.episodes import check_fields, episode_from_note, parse_created
    from biocortex_cli.store.notes import read_note

    note = read_note(root / rel, rel)
    if note.meta.get("type") not in ("episode", None):
        raise DataError(f"type {note.meta.get('type')!r} in an episode folder", path=rel, line=note.line_of("type"))
    problems = check_fields(note.meta, rel, 1, note.key_lines)
    if problems:
        raise problems[0]
    ep = episode_from_note(note)
    if "id" not in note.meta:
        raise DataError("id is missing", path=rel, line=1)
    created = parse_created(note.meta.get("created"), path=rel, line=note.line_of("created"))
    fields = [tokenize(ep.task), tokenize(ep.text("plan")), tokenize(ep.text("result"))]
    fields += [tokenize(lesson) for lesson in ep.strings("lessons")]
    attrs: list[tuple[str, str]] = []
    for kind, key in (("tool", "tools"), ("domain", "domains"), ("entity", "entities")):
        for value in ep.strings(key):
            norm = attr_norm(value)
            attrs.append((kind, norm))
            if kind == "entity" and " " in norm:
                gene = variant_gene(value)
                if gene is not None:  # KRAS G12C is also KRAS for the entity signal (docs/recall.md)
                    attrs.append((kind, attr_norm(gene)))
            # also text: an identifier or tool named only in these lists still counts as known
            # to the text signal (measured on BioRecall: identifier questions NDCG 0.846 -> 0.874)
            fields.append(norm.split())
    # tokens of each section, and as the block's last one (its final newline then merges with
    # the blank line that follows)
    rows = count_sections(episode_sections(note.meta, rel), counter.encoding, counter.count)
    fingerprints = field_fingerprints(fields)
    return DocRow(rel=rel, id=ep.id, kind="episode", mtime_ns=stamp[0], size=stamp[1],
                  created=created.strftime("%Y-%m-%dT%H:%M:%SZ"), success=ep.success,
                  quality=ep.quality, archived=rel.startswith(store.ARCHIVE_PREFIX), task=ep.task,
                  sections_blob=store.pack_sections(rows), tokens_blob=store.pack_tokens(fields),
                  dl=sum(fingerprints.values()), fingerprints=fingerprints, attrs=attrs,
                  lessons=tuple(ep.strings("lessons")), record_blob=store.pack_record(note.meta),
                  created_text=ep.created, author=str(note.meta.get("author") or ""),
                  labels=sorted(store.labels_of(note.meta)))


def _counter(vault_encoding: str) -> Any:
    from biocortex_cli.tokens import get_counter

    return get_counter(vault_encoding)


#: Up to this many changed notes, the lengths array is patched rather than rewritten.
_PATCH_MAX = 1000
#: An index build of at least this many notes says so on stderr even off a terminal (about half a
#: second of work and more; below, the notice would be noise); a refresh of this many changed
#: notes reports its progress (a bar on a terminal).
NOTICE_MIN = 500
PROGRESS_MIN = 100


def _apply(conn: sqlite3.Connection, root: Path, scan: Scan, encoding: str, head: str | None,
           report: RefreshReport, recheck: set[str]) -> None:
    """Bring the index in line with ``scan``; runs inside a write transaction."""
    known = store.known_files(conn, scan.dirty)
    known_bad = store.known_problems(conn, scan.dirty)
    gone = [rel for rel in (*known, *known_bad) if rel not in scan.files]
    todo = sorted(rel for rel, stamp in scan.files.items()
                  if (known.get(rel) != stamp and known_bad.get(rel) != stamp) or rel in recheck)
    few = len(gone) + len(todo) <= _PATCH_MAX
    cleared = store.doc_numbers(conn, [*gone, *todo]) if few else []
    report.removed += store.remove(conn, gone)
    counter = _counter(encoding) if todo else None
    rows: list[DocRow] = []
    stage: Stage | None = None
    if len(todo) >= PROGRESS_MIN:
        from biocortex_cli.progress import Stage, plural

        stage = Stage("index", len(todo), f"indexing {plural(len(todo), 'changed note')}…",
                      notice=len(todo) >= NOTICE_MIN)
    for done, rel in enumerate(todo):
        if stage is not None:
            stage.advance(done)
        store.remove(conn, [rel])
        try:
            rows.append(build_row(root, rel, scan.files[rel], counter))
        except DataError as exc:
            store.record_problem(conn, rel, exc.line or 1, exc.message, scan.files[rel])
            continue
        if rel in known:
            report.updated += 1
        else:
            report.added += 1
    store.insert(conn, rows)
    if stage is not None:
        stage.finish()
    from biocortex_cli.render import blocks

    meta = store.get_meta(conn)
    values: dict[str, Any] = {"dirs": scan.dirs, "head": head, "encoding": encoding, "format": blocks.FORMAT}
    short = (head or "none")[:7]
    if (meta.get("header_head") != short or meta.get("encoding") != encoding or "header_tokens" not in meta
            or "bare_header_tokens" not in meta):
        counter = counter or _counter(encoding)
        header = blocks.HEADER.format(shown=0, matched=0, tokens=0, budget=0, head=short,
                                      recall_id=blocks.REFERENCE_ID)
        bare = blocks.BARE_HEADER.format(tokens=0, budget=0, head=short, recall_id=blocks.REFERENCE_ID)
        values.update({"header_head": short, "header_tokens": counter.count(header),
                       "bare_header_tokens": counter.count(bare),
                       "shortened_tokens": counter.count(blocks.SHORTENED),
                       "shortened_tokens_last": counter.count(blocks.SHORTENED + "\n"),
                       "tokenizer": counter.encoding})
    if few:
        store.patch_doc_lengths(conn, cleared, [row.rel for row in rows])
    else:
        store.write_doc_lengths(conn)
    n, total_dl = conn.execute("SELECT COUNT(*), COALESCE(SUM(dl), 0) FROM docs WHERE kind = 'episode'").fetchone()
    newest = conn.execute("SELECT MAX(created) FROM docs WHERE kind = 'episode'").fetchone()[0]
    values.update({"n_docs": n, "avg_dl": (total_dl / n) if n else 0.0, "newest_created": newest})
    from biocortex_cli.index.feedback import refresh_feedback

    values.update(refresh_feedback(conn, root, meta))
    store.set_meta(conn, values)
    report.total = n


@contextmanager
def write_txn(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction on an index connection (opened in autocommit mode, where
    ``with conn`` would commit every statement on its own)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        # SQLite has already rolled back after some errors (the file deleted or replaced under
        # it, I/O, a full disk): a ROLLBACK then fails and would hide the error that matters
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


#: Below this many notes a rebuild reads them in this process (workers cost ~0.2 s to start).
PARALLEL_MIN = 2000
_CHUNK = 250


Chunk = tuple[list[DocRow], list[int], store.ChunkPostings, list[tuple[str, int, str]]]


def _read_chunk(args: tuple[str, int, list[tuple[str, int, int]], str]) -> Chunk:
    """Worker: index a chunk of notes, numbered from ``first``. Returns the rows (without their
    fingerprints), their note numbers, their posting lists, and the notes that could not be
    read as (rel, line, message)."""
    from pathlib import Path

    root, first, notes, encoding = args
    counter = _counter(encoding)
    rows: list[DocRow] = []
    numbers: list[int] = []
    problems: list[tuple[str, int, str]] = []
    for i, (rel, mtime_ns, size) in enumerate(notes):
        try:
            rows.append(build_row(Path(root), rel, (mtime_ns, size), counter))
        except DataError as exc:
            problems.append((rel, exc.line or 1, exc.message))
            continue
        numbers.append(first + i)
    postings = store.ChunkPostings.of(rows, numbers)
    return [row._replace(fingerprints={}) for row in rows], numbers, postings, problems


def _read_all(root: Path, todo: list[str], files: dict[str, tuple[int, int]],
              encoding: str) -> Iterator[Chunk]:
    """Index ``todo`` in chunks, in order, note ``todo[i]`` numbered ``i + 1``; on several
    cores, in worker processes."""
    chunks = [(str(root), i + 1, [(rel, *files[rel]) for rel in todo[i : i + _CHUNK]], encoding)
              for i in range(0, len(todo), _CHUNK)]
    workers = min(os.cpu_count() or 1, 8)
    if len(todo) < PARALLEL_MIN or workers < 2:
        yield from map(_read_chunk, chunks)
        return
    with worker_pool(workers) as pool:
        yield from pool.imap(_read_chunk, chunks)


def worker_pool(workers: int) -> Any:
    """A ``multiprocessing.Pool`` whose workers take the default action for SIGTERM and ignore
    SIGINT. Forked workers would otherwise inherit the command's handlers (cli/errors.py), which
    turn SIGTERM into an exception: the pool's own shutdown (``terminate`` sends SIGTERM) then
    raised it inside a worker, at times while the worker held the task queue's lock, printing a
    traceback or leaving the pool hung. Ctrl-C reaches the parent, which rolls back and ends the
    pool. The two signals are blocked while the workers are forked, until each has set its own
    handlers: a SIGTERM that reached a worker before then went to the inherited handler, was
    dropped, and ``terminate`` waited for that worker forever (a pool ended right after it
    started, on a loaded machine). The parent gets any signal held meanwhile when they unblock."""
    import multiprocessing
    import signal

    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        return multiprocessing.Pool(workers, initializer=_worker_signals, initargs=(held,))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _worker_signals(mask: Iterable[int]) -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextmanager
def _no_gc() -> Iterator[None]:
    """Python's cycle collector off while a rebuild loads: unpickling the workers' batches makes
    millions of objects, each allocation burst triggered a collection, and the older collections
    walk a heap that grows with the vault (at 10k notes, 0.16 -> 0.03 ms of CPU per note to unpickle;
    the loader's objects hold no cycles). Workers forked meanwhile inherit the setting; theirs
    hold none either, but for a bad note's exception, freed with the worker."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def rebuild(vault: Any, encoding: str, reason: str = "") -> RefreshReport:
    """Build a whole new index in a temporary file and rename it over the old one.

    Notes are read and tokenised on every core (in order, so the same vault always gives the
    same index); this process loads the rows in batches and sorts the postings once at the end.
    """
    started = time.perf_counter()
    import contextlib
    from pathlib import Path

    from biocortex_cli.progress import Stage, plural

    final = Path(store.index_path(vault.state_dir))
    tmp = final.with_name(f"{final.name}.tmp-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    report = RefreshReport(rebuilt=True, reason=reason)
    conn = store.create(tmp)
    try:
        scan = full_scan(vault.root)
        head = vault.head()
        todo = sorted(scan.files)
        stage = (Stage("index", len(todo), f"building the index of {plural(len(todo), 'note')}…",
                       notice=len(todo) >= NOTICE_MIN) if todo else None)
        with write_txn(conn), _no_gc():
            loader = store.BulkLoader(conn)
            done = 0
            for rows, numbers, postings, problems in _read_all(vault.root, todo, scan.files, encoding):
                for rel, line, message in problems:
                    store.record_problem(conn, rel, line, message, scan.files[rel])
                loader.add(rows, numbers, postings)
                done += len(rows) + len(problems)
                if stage is not None:
                    stage.advance(done)
            loader.close()
            _apply(conn, vault.root, scan, encoding, head, report, set())
        if stage is not None:
            stage.finish()
        report.problems = problems_of(conn)
    except BaseException:
        conn.close()
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    store.finish(conn, tmp)
    store.replace_file(tmp, final)
    report.added = report.total
    report.seconds = time.perf_counter() - started
    return report


def open_as_is(vault: Any, encoding: str) -> sqlite3.Connection | None:
    """The index opened without bringing its episodes up to date, when it is there, readable and
    of this encoding and format (else None: :func:`refresh` builds it). A fact write reads and
    refreshes only the fact tables (facts/index.py): the episodes' refresh after every commit
    (``git diff``, the recall header counted again for the new HEAD) is left to the next reader
    of episodes, which does it anyway."""
    path = store.index_path(vault.state_folder)
    try:
        conn = store.connect(path)
        meta = store.get_meta(conn)
    except (IndexUnusable, sqlite3.DatabaseError, ValueError):
        return None
    if _outdated(meta, encoding):
        conn.close()
        return None
    return conn


def refresh(vault: Any, encoding: str, *, full: bool = False,
            edits: bool = False) -> tuple[sqlite3.Connection, RefreshReport]:
    """Open the index and bring it up to date; rebuild when it is missing, corrupt or outdated.

    ``full`` stats every note (``index --full``); otherwise only changed folders are listed, and
    notes saved by hand in place are found by :func:`hand_edits` (a watcher's log where the full
    check is slow; the full check with ``edits``, ``biocortex index``). Returns an open
    connection, ready for queries.
    """
    started = time.perf_counter()
    path = store.index_path(vault.state_folder)
    try:
        conn = store.connect(path)
        meta = store.get_meta(conn)
    except (IndexUnusable, sqlite3.DatabaseError, ValueError) as exc:
        reason = str(exc)
        from biocortex_cli.store.files import exists

        if exists(path):
            print(f"biocortex: warning: rebuilding the index: {reason}", file=sys.stderr)
        report = rebuild(vault, encoding, reason)
        return _open_rebuilt(path), report
    outdated = _outdated(meta, encoding)
    if outdated:
        conn.close()
        report = rebuild(vault, encoding, outdated)
        return _open_rebuilt(path), report
    report = RefreshReport()
    head = vault.head()
    try:
        edited, checked = hand_edits(vault, conn, meta, edits) if not full else (set(), {})
        if (not full and not edited and meta.get("head") == head
                and dirs_unchanged(vault.folder, meta.get("dirs", {}))):
            if checked:  # when the next check is due
                with write_txn(conn):
                    store.set_meta(conn, checked)
            report.total = int(meta.get("n_docs", 0))
            report.seconds = time.perf_counter() - started
            return conn, report  # the common case: nothing changed, nothing written
        with write_txn(conn):
            meta = store.get_meta(conn)  # another process may have refreshed meanwhile
            recheck: set[str] = set(edited)
            known_dirs = meta.get("dirs", {})
            scan = full_scan(vault.root, known_dirs) if full else quick_scan(vault.root, known_dirs)
            for rel in edited:  # saved in place: its folder's mtime did not move
                if "/" in rel and rel.rsplit("/", 1)[0] in scan.dirs:
                    _add_folder(vault.root, scan, rel.rsplit("/", 1)[0])
            if checked:
                store.set_meta(conn, checked)
            if meta.get("head") != head and meta.get("head") and head:
                changed = git_changed(vault.git_root, vault.root, meta["head"], head)
                if changed is None:
                    scan = full_scan(vault.root)
                else:
                    for rel in changed:  # a note's folder may look unchanged (same size, same second)
                        if "/" in rel and rel.rsplit("/", 1)[0] in scan.dirs:
                            _add_folder(vault.root, scan, rel.rsplit("/", 1)[0])
                    recheck |= {rel for rel in changed if rel in scan.files}
            _apply(conn, vault.root, scan, encoding, head, report, recheck)
    except sqlite3.DatabaseError as exc:
        conn.close()
        print(f"biocortex: warning: rebuilding the index: {exc}", file=sys.stderr)
        report = rebuild(vault, encoding, str(exc))
        return _open_rebuilt(path), report
    report.problems = problems_of(conn)
    report.seconds = time.perf_counter() - started
    return conn, report


def damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says the index file is damaged where opening it did not look: a page SQLite
    finds malformed (opening reads only the schema and ``meta``), a stored blob that no longer
    decompresses. A rebuild cures that; a locked or busy database, a full disk, cannot be cured so
    (SQLite's ``OperationalError``), nor can any other error."""
    import zlib

    if isinstance(exc, zlib.error):
        return True
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)


class IndexMoved(IndexUnusable):
    """The index this process had just rebuilt was gone (or replaced by an empty file) before it
    could open it: something deletes it. Said as :func:`moved`, so the command runs once more."""


def _open_rebuilt(path: str) -> sqlite3.Connection:
    try:
        return store.connect(path)
    except IndexUnusable as exc:
        raise IndexMoved(f"the index rebuilt a moment ago could not be opened ({exc})") from None


#: SQLITE_READONLY_DBMOVED, and the primary code of every SQLITE_IOERR_* (extended codes keep it in
#: their low byte)
_DBMOVED, _IOERR = 1032, 10


def moved(exc: BaseException) -> bool:
    """Whether ``exc`` says the index file this process had open was replaced or deleted meanwhile
    (another process's rebuild renamed a new one over it, or a person deleted it): SQLite then
    refuses every write to the old one ("attempt to write a readonly database",
    SQLITE_READONLY_DBMOVED), or, seen twice in CI-like runs of tests/test_index_damage.py against a
    deletion every 30 ms, reports "disk I/O error" (SQLITE_IOERR). Opening the index again finds the
    new file, or builds one; an I/O error that comes back on the second run is reported by
    :func:`still_damaged` with the disk among its causes."""
    if isinstance(exc, IndexMoved):
        return True
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is None:
        return "readonly database" in str(exc) or "disk I/O error" in str(exc)
    return bool(code == _DBMOVED or code & 0xFF == _IOERR)


def _io_error(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and bool(
        code & 0xFF == _IOERR if code is not None else "disk I/O error" in str(exc))


def repair(vault: Any, exc: BaseException) -> RefreshReport:
    """Rebuild the index that a reader found damaged (:func:`damaged`), saying so on stderr."""
    reason = f"the index file is damaged ({exc})"
    print(f"biocortex: warning: rebuilding the index: {reason}", file=sys.stderr)
    return rebuild(vault, vault.config.tokenizer.encoding, reason)


def still_damaged(vault: Any, exc: BaseException) -> BiocortexError:
    """The error when the index is damaged again right after :func:`repair` rebuilt it, or was
    replaced or deleted again while the command ran once more (:func:`moved`)."""
    path = store.index_path(vault.state_folder)
    if moved(exc):
        if _io_error(exc):
            return BiocortexError(f"the index file was replaced or deleted twice while this command ran, or could not "
                                  f"be read ({exc}): another process rebuilding it, something deleting it, or a "
                                  f"failing disk; the vault itself is fine", path=path,
                                  hint="run the command again; if it keeps happening, `biocortex doctor` checks the "
                                       "disk, and find what deletes .biocortex/index.sqlite")
        return BiocortexError("the index file was replaced or deleted twice while this command ran (another process "
                              "rebuilding it, or something deleting it); the vault itself is fine", path=path,
                              hint="run the command again; if it keeps happening, find what deletes "
                                   ".biocortex/index.sqlite")
    return DataError(f"the index is unreadable even after a rebuild ({exc})", path=path,
                     hint="delete the file and run `biocortex index --rebuild`; if it happens again, the disk "
                          "or the folder it lives in may be failing (`biocortex doctor`)")


def warn_problems(report: RefreshReport) -> None:
    """One line on stderr naming the first note the index could not read, and how many more."""
    if report.problems:
        from biocortex_cli.progress import plural

        first = report.problems[0]
        more = f" and {len(report.problems) - 1} more" if len(report.problems) > 1 else ""
        print(f"biocortex: warning: {plural(len(report.problems), 'note')} not indexed: "
              f"{first[0]}:{first[1]}: {first[2]}{more} (run `biocortex check`)", file=sys.stderr)


def _outdated(meta: dict[str, Any], encoding: str) -> str:
    """Why the whole index must be built again ("" if it need not): its token counts are for
    another encoding, or its blocks were rendered by another version of render/blocks.py."""
    from biocortex_cli.render import blocks

    if meta.get("encoding") != encoding:
        return f"index counts with {meta.get('encoding')}, config says {encoding}"
    if meta.get("format") != blocks.FORMAT:
        return "the recall text format changed since the index was built"
    return ""


def problems_of(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
    """(rel, line, message) of every note and feedback line the index could not read."""
    from biocortex_cli.index.feedback import feedback_problems

    return sorted([*store.problems(conn), *feedback_problems(conn)])


def is_stale(vault: Any, encoding: str) -> tuple[bool, str]:
    """Exact freshness check (stats every note and feedback file); for ``index --check``."""
    path = store.index_path(vault.state_dir)
    try:
        conn = store.connect(path)
        meta = store.get_meta(conn)
        # every page read: a damaged one deep in the file is otherwise found only by the query
        # that reaches it (a rebuild then follows: api/checks.py ``repairs_index``)
        verdict = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
    except (IndexUnusable, sqlite3.DatabaseError, ValueError) as exc:
        return True, str(exc)
    try:
        if verdict != "ok":
            return True, f"index file is damaged ({' '.join(str(verdict).split())}): `biocortex index --rebuild`"
        outdated = _outdated(meta, encoding)
        if outdated:
            return True, outdated
        scan = full_scan(vault.root)
        known = store.known_files(conn) | store.known_problems(conn)
        if scan.files != known:
            added = len(set(scan.files) - set(known))
            removed = len(set(known) - set(scan.files))
            changed = sum(1 for r in scan.files if r in known and known[r] != scan.files[r])
            hint = (" (edited in place: `biocortex index` picks them up, `biocortex index --full` also those "
                    "never committed)") if changed else ""
            return True, f"notes since the last index: {added} new, {changed} changed, {removed} removed{hint}"
        if meta.get("head") != vault.head():
            return True, "the vault's git HEAD moved since the last index"
        from biocortex_cli.index.feedback import feedback_digest

        if meta.get("feedback_digest") != feedback_digest(vault.root):
            return True, ("feedback files changed since the last index (edited by hand: "
                          "`biocortex index --full` reads them again)")
        return False, "index is up to date"
    finally:
        conn.close()
