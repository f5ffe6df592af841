"""Filesystem primitives: atomic writes, safe paths, bounded reads, the vault write lock.

Every file the tool writes goes through :func:`atomic_write` (temp file in the same folder,
fsync, rename), so a reader or a crash never sees half a note. Writers serialise through
:func:`write_lock`, an ``flock`` on ``.biocortex/write.lock`` that the kernel releases when a
process dies, so a killed writer can never leave the vault locked.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator

from biocortex_cli.errors import DataError
from biocortex_cli.lazy import contextmanager
from biocortex_cli.store.limits import MAX_INPUT_BYTES, MAX_NOTE_BYTES

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # pathlib (~18 M) too: what recall calls here takes and gives str paths (os.path)
    from pathlib import Path
    from typing import Any, BinaryIO

_CHUNK = 1024 * 1024


def read_capped(fh: BinaryIO, where: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """Read ``fh`` to its end, but never more than ``limit`` + 1 bytes: a 1 GB stream costs
    ``limit`` of memory and ends in a clear :class:`DataError`, not in the OOM killer."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = fh.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise DataError(f"input is over the {limit // 2**20} MB limit (reading stopped there; nothing was done)",
                            path=where, hint="split it into smaller parts")


def atomic_write(path: Path, data: str | bytes, *, fsync: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a mix.

    Batch writers pass ``fsync=False`` and call :func:`os.sync` once before committing. The file
    gets the mode the one it replaces had, else what the user's umask gives a new file (as
    ``git checkout`` does): teammates on a shared file server can read what is written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    import tempfile  # not on recall's path: a module import costs every command

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        import contextlib

        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_fresh(path: str, raw: bytes, tag: str, *, replace: bool = False) -> None:
    """:func:`atomic_write` of a file that does not exist yet (``replace``: or does), for a batch
    of thousands (no fsync: the batch syncs once): its folder exists, and the batch names the
    temporary file with its own ``tag`` (8 letters or digits) instead of drawing a name per file.
    The file gets the mode the user's umask gives a new one, or the one it replaces had, as
    :func:`atomic_write` gives it."""
    folder, _sep, name = path.rpartition("/")
    tmp = f"{folder}/.{name}.{tag}.tmp"
    mode = None
    if replace:
        try:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
        except OSError:
            mode = None
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
    except FileExistsError:  # a temporary file of that name was left behind: draw a fresh name
        from pathlib import Path

        atomic_write(Path(path), raw, fsync=False)
        return
    try:
        if mode is not None and mode != 0o666 & ~_umask():
            os.fchmod(fd, mode)
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        import contextlib

        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it: put it straight back (~1 us)
    os.umask(mask)
    return mask


#: O_NOFOLLOW where the platform has it: open a file, never what a symbolic link points to
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: an atomic write's temporary file: ``.NAME.`` + 8 random characters + ``.tmp``
TEMP_NAME = r"^\..+\.[A-Za-z0-9_]{8}\.tmp$"  # a pattern: `re` compiles it where used (not at every start-up)


def read_regular(path: Path) -> bytes | None:
    """The bytes of the regular file ``path``, None when there is none; DataError when ``path``
    is a symbolic link or not a regular file (it is never followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise DataError("a symbolic link where a file was expected; it is not followed", path=str(path),
                            hint="replace the link by a real file") from None
        raise
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DataError("not a regular file", path=str(path))
        return fh.read()


def refuse_linked(root: Path, path: Path) -> None:
    """DataError when ``path`` (below ``root``) or a folder between them is a symbolic link:
    the tool's own files (journal, logs, index) are never reached through one."""
    rel = linked(root, path)
    if rel is not None:
        raise DataError(f"{rel} is a symbolic link; biocortex does not follow it", path=rel,
                        hint=f"remove the link (and from git, if it was committed: git rm --cached {rel})")


def write_private(path: Path, data: bytes) -> None:
    """Create ``path`` (mode 0600, never through a symbolic link) holding ``data``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def remove_orphan_temps(folders: Iterable[Path]) -> int:
    """Remove the temporary files killed atomic writes left in ``folders``; how many."""
    import contextlib
    import re

    removed = 0
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if re.match(TEMP_NAME, entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed += 1
    return removed


def user_dir(*parts: str) -> Path:
    """A private (0700) per-user folder for biocortex's local files: ``$XDG_CACHE_HOME/biocortex``
    (else ``~/.cache/biocortex``), else ``<tmp>/biocortex-<uid>`` when there is no usable home.
    Never a folder another user owns or a symbolic link (a shared temp folder is hostile)."""
    import tempfile  # not on recall's path: a module import costs every command
    from pathlib import Path

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for root in (Path(base) / "biocortex", Path(tempfile.gettempdir()) / f"biocortex-{os.getuid()}"):
        try:
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = os.lstat(root)
            if stat.S_ISLNK(st.st_mode) or st.st_uid != os.getuid():
                continue
            if stat.S_IMODE(st.st_mode) & 0o077:
                os.chmod(root, 0o700)
            folder = root.joinpath(*parts)
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return folder
        except OSError:
            continue
    raise DataError("no private folder to write local files to", path=base,
                    hint="set XDG_CACHE_HOME to a folder you own")


def sound(path: str) -> bool:
    """Whether ``path`` is an SQLite file that reads whole: every page well-formed (``PRAGMA
    quick_check``, a read of the whole file) and some table in it. For the repair path of the
    derived files (an index, a dataset's index, a compiled vocabulary), never for a hot path."""
    import sqlite3
    from urllib.parse import quote

    if not os.path.isfile(path):
        return False
    try:
        conn = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
        try:
            return bool(conn.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok"
                        and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def drop_unsound(paths: Iterable[str]) -> list[str]:
    """Remove each derived SQLite file of ``paths`` that is not :func:`sound` (the next use builds
    it again, as a missing one); the files removed."""
    dropped = []
    for path in paths:
        if not sound(path):
            import contextlib

            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            dropped.append(path)
    return dropped


def exists(path: str) -> bool:
    """``Path(path).exists()`` without pathlib: False for a missing path (or one through a file,
    or a loop of links); any other failure (a name too long, no permission) raises, as there."""
    return _mode(path) is not None


def is_file(path: str) -> bool:
    """``Path(path).is_file()`` without pathlib (see :func:`exists`)."""
    mode = _mode(path)
    return mode is not None and stat.S_ISREG(mode)


def is_dir(path: str) -> bool:
    """``Path(path).is_dir()`` without pathlib (see :func:`exists`)."""
    mode = _mode(path)
    return mode is not None and stat.S_ISDIR(mode)


def _mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return None
        raise
    except ValueError:  # a NUL byte
        return None


def local_state(state_dir: str | os.PathLike[str]) -> str:
    """Where the vault's local, derived files (index, recall logs) go: ``.biocortex/`` when this
    user may write there, else a per-user cache folder named after the vault, so a vault the
    user cannot write (a colleague's, a read-only mount) can still be read and recalled from.
    A ``.biocortex`` that is a symbolic link is not used either (nothing there is followed)."""
    state_dir = os.fspath(state_dir)
    try:
        usable = not stat.S_ISLNK(os.lstat(state_dir).st_mode) and os.access(state_dir, os.W_OK | os.X_OK)
    except OSError:
        usable = False
    return state_dir if usable else _cached_state(state_dir)


def _cached_state(state_dir: str) -> str:
    import hashlib
    from pathlib import Path

    folder = Path(state_dir)
    key = hashlib.sha1(str(folder.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return str(user_dir("vaults", f"{folder.parent.name[:40]}-{key}"))


def local_file(state_dir: str | os.PathLike[str], name: str) -> str:
    """``name`` (e.g. ``logs/recalls-2026-11.jsonl``) under :func:`local_state`; in the per-user
    folder also when the vault's own ``name``, or a folder on the way, is a symbolic link (a
    committed ``.biocortex/logs -> /elsewhere``), or it is a file this user cannot write."""
    state_dir = os.fspath(state_dir)
    folder = local_state(state_dir)
    path = os.path.join(folder, name)
    if folder == state_dir and (linked(state_dir, path) or (exists(path) and not os.access(path, os.W_OK))):
        return os.path.join(_cached_state(state_dir), name)
    return path


def linked(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> str | None:
    """The first symbolic link among ``path`` and its folders below ``root``, as a path relative
    to ``root`` ("/" between its parts), or None."""
    top, full = os.fspath(root), os.fspath(path)
    prefix = top if top.endswith(os.sep) else top + os.sep
    if not full.startswith(prefix):
        return None
    parts = [part for part in full[len(prefix):].split(os.sep) if part and part != "."]
    cur = top
    for i, part in enumerate(parts):
        cur = os.path.join(cur, part)
        try:
            if stat.S_ISLNK(os.lstat(cur).st_mode):
                return "/".join(parts[: i + 1])
        except OSError:
            return None
    return None


def check_unicode(value: Any, where: str, line: int | None = None, *, record: bool = False) -> None:
    """Refuse strings that cannot be written as UTF-8: JSON's ``"\\ud800"`` escape decodes to a
    lone surrogate, which no note, commit message or stdout can hold. Walks lists and dicts.
    ``record``: the value becomes a note (and ids, file names, a commit message), which cannot
    hold a NUL character either."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise DataError(f"text holds a lone surrogate (\\u{ord(item[exc.start]):04x}), which is not Unicode",
                                path=where, line=line, hint="fix the \\u escape: surrogates come in pairs") from None
            if record and "\0" in item:  # no file name, git commit message or YAML note can hold one
                raise DataError("text holds a NUL character (\\u0000)", path=where, line=line,
                                hint="remove the \\u0000 escape from the input")
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def read_note_text(path: str | os.PathLike[str], rel: str) -> str:
    """Read a note as text: UTF-8 (a BOM is dropped), CRLF/CR normalised to LF.

    Raises :class:`DataError` for oversized, binary or undecodable files, naming the file; and for
    anything that is not a regular file inside the vault: a symbolic link (the note itself, or a
    folder on the way to it, e.g. ``entities -> /elsewhere``), a FIFO or a device. A note over
    :data:`MAX_NOTE_BYTES` is refused from its size, without being read.
    """
    _refuse_linked_folders(path, rel)
    try:
        # O_NOFOLLOW: a link is refused, never followed; O_NONBLOCK: a FIFO cannot hang the read
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise DataError("file disappeared while reading", path=rel) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise DataError("a symbolic link where a note was expected; it is not read", path=rel,
                            hint="replace the link by the note itself (notes must be files inside the vault)"
                            ) from None
        raise DataError(f"cannot read the note: {exc.strerror or exc}", path=rel) from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DataError("not a regular file where a note was expected", path=rel,
                            hint="keep only markdown notes in episodes/, facts/ and entities/")
        if st.st_size > MAX_NOTE_BYTES:
            raise _too_big(st.st_size, rel)
        raw = fh.read(MAX_NOTE_BYTES + 1)
    if len(raw) > MAX_NOTE_BYTES:  # grew after the fstat
        raise _too_big(len(raw), rel)
    if b"\x00" in raw[:8192]:
        raise DataError("binary file where a markdown note was expected", path=rel,
                        hint="keep data files outside episodes/, facts/ and entities/")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"not valid UTF-8 (byte {raw[exc.start]:#04x})", path=rel, line=line,
                        hint="re-save the file as UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _too_big(size: int, rel: str) -> DataError:
    return DataError(f"note is {size / 2**20:.1f} MB, over the {MAX_NOTE_BYTES // 2**20} MB limit",
                     path=rel, line=1,
                     hint="move large outputs out of the vault and link to them from the note")


def _refuse_linked_folders(path: str | os.PathLike[str], rel: str) -> None:
    """Refuse a note reached through a symlinked folder of the vault (``rel``'s folders).

    ``path`` is ``<vault root>/<rel>``; each folder of ``rel`` is lstat'ed (about 4 us a note)."""
    parts = rel.split("/")
    posix = os.fspath(path).replace(os.sep, "/")  # Path.as_posix()
    if len(parts) < 2 or ".." in parts or not posix.endswith("/" + rel):
        return  # not a path relative to a vault root (a file given on the command line)
    base = posix[: -len(rel) - 1]
    cur = base
    for part in parts[:-1]:
        cur = f"{cur}/{part}"
        try:
            linked = stat.S_ISLNK(os.lstat(cur).st_mode)
        except OSError:
            return  # missing: the open below says so
        if linked:
            raise DataError(f"folder {cur[len(base) + 1:]} is a symbolic link; notes through it are not read",
                            path=rel, hint="keep the vault's folders inside the vault (git stores them)")


def inside(root: Path, candidate: Path) -> bool:
    """True when ``candidate`` (after resolving symlinks) lies inside ``root``."""
    try:
        candidate.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


@contextmanager
def write_lock(lock_path: Path) -> Iterator[None]:
    """Hold the vault's exclusive write lock (blocking). Released by the kernel on death."""
    import fcntl

    for part in (lock_path.parent, lock_path):  # a committed `.biocortex -> /elsewhere` is never used
        if os.path.islink(part):
            raise DataError(f"{part.name} is a symbolic link; biocortex does not follow it: nothing was written",
                            path=str(part), hint="replace it by a real folder (git rm --cached it, then commit)")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another write or a sync holds it: say why we wait
            import sys

            print("biocortex: waiting for the vault's write lock (another write or a sync is running)",
                  file=sys.stderr)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
