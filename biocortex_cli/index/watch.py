"""A watcher that names the notes saved in place, so a refresh need not stat every note.

A hand edit saved in place changes neither a folder's mtime nor git's HEAD; only a stat of each
note (or ``git status``, which stats each one in C) sees it. At 100k notes that costs ~0.3-0.4 s
of CPU on the machine of docs/performance.md (a stat there costs ~4 µs), whatever tool makes it.
Where the check is that slow, and on Linux, a refresh starts this watcher instead: one small
process (``python -m biocortex_cli.index.watch VAULT``, detached) that asks the kernel (inotify)
to report writes in the indexed folders (about a hundred at 100k notes: one watch per folder) and
appends each written note's path to ``.biocortex/tmp/watch.log``. A refresh then reads the lines
added since the last one, which costs a few system calls whatever the vault's size.

Nothing is missed silently. The watcher holds an exclusive lock on ``watch.lock`` while it
lives and writes its instance id as the log's first line once every folder is watched; a refresh
trusts the log only when that lock is held and the instance is the one the index recorded, and
first drops a *cookie* file into ``.biocortex/tmp``: the watcher deletes it after writing every
event queued before it (inotify keeps one queue in order), so the log is complete up to the
moment the refresh began. Otherwise — no watcher, another instance, a queue overflow (``!``
in the log), a cookie not taken in time — the refresh runs the full check (``git status``,
:func:`build.edited_in_place`) after (re)starting the watcher, and records where the log stood
when that check began. The watcher ends after ``IDLE`` seconds without a cookie, when its log
grows past ``LOG_MAX``, or when an indexed top folder is removed or created; the next refresh
starts another. ``BIOCORTEX_WATCH=0`` turns it off (the throttled check of ``build.py`` then
applies). A vault of fewer than ``MIN_NOTES`` indexed notes never gets one: its check costs
milliseconds, and one slow check on a loaded machine should not leave a process behind;
``BIOCORTEX_WATCH=1`` allows it at any size.

Only writes are logged (``IN_MODIFY``, ``IN_CLOSE_WRITE``, ``IN_ATTRIB``): a note added, removed
or renamed changes its folder's mtime, which the quick scan sees anyway.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterable

TYPE_CHECKING = False  # mypy takes it as True
if TYPE_CHECKING:  # pathlib (~18 M instructions): this module is on recall's path; its callers give it Paths
    from pathlib import Path

#: The watcher exits after this many seconds without a refresh asking it anything.
IDLE = 1800.0
#: ... or when its log grows past this many bytes (the next refresh starts a new one).
LOG_MAX = 4 << 20
#: How long a refresh waits for the watcher (to start, or to take a cookie) before checking in full.
WAIT = 2.0

LOG = "watch.log"
LOCK = "watch.lock"
COOKIE = "watch-cookie-"

_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_TO, _IN_CREATE, _IN_DELETE_SELF, _IN_MOVE_SELF = 0x80, 0x100, 0x400, 0x800
_IN_Q_OVERFLOW, _IN_IGNORED, _IN_ISDIR = 0x4000, 0x8000, 0x40000000
_WRITES = _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE
_FOLDER = _WRITES | _IN_CREATE | _IN_MOVED_TO | _IN_DELETE_SELF | _IN_MOVE_SELF


#: Indexed notes below which no watcher starts unless BIOCORTEX_WATCH=1: the full check costs ~6 µs
#: a note (57 ms of CPU at 10k on the machine of docs/performance.md), so below this it stays near
#: build.EDITS_ALWAYS (10 ms) and is over it only when the machine is loaded.
MIN_NOTES = 2000


def usable(notes: int | None = None) -> bool:
    """Whether a watcher can run here: Linux (inotify), not turned off, and (given the vault's
    ``notes``) a vault of at least MIN_NOTES, unless ``BIOCORTEX_WATCH=1`` asks for one at any size."""
    setting = os.environ.get("BIOCORTEX_WATCH", "")
    if not usable_platform() or setting == "0":
        return False
    return notes is None or setting == "1" or notes >= MIN_NOTES


def usable_platform() -> bool:
    return sys.platform.startswith("linux")


def _tmp(state_dir: Path) -> Path:
    return state_dir / "tmp"


# What a refresh calls (_alive, _ready, _header, edits_since, _cookie) takes str paths as well as
# Paths (os.path): recall's path imports no pathlib.
def _alive(tmp: Path | str) -> bool:
    """True while a watcher holds the lock on ``watch.lock``."""
    import fcntl

    try:
        fd = os.open(os.path.join(tmp, LOCK), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # also releases a lock taken above
    return False


def _ready(tmp: Path | str) -> str | None:
    """The instance id of the running watcher, once every folder is watched: the lock is held,
    and the log's first line names the instance the lock file names."""
    instance = _header(tmp)
    if instance is None or not _alive(tmp):
        return None
    try:
        with open(os.path.join(tmp, LOCK)) as fh:
            named = fh.read().split()
    except OSError:
        return None
    return instance if named[1:2] == [instance] else None


def _header(tmp: Path | str) -> str | None:
    """The instance id a ready watcher wrote as its log's first line."""
    try:
        with open(os.path.join(tmp, LOG), "rb") as fh:
            first = fh.readline()
    except OSError:
        return None
    return first[1:-1].decode() if first.startswith(b"#") and first.endswith(b"\n") else None


def edits_since(state_dir: Path | str, state: list[object] | None) -> tuple[set[str], list[object]] | None:
    """The notes the watcher saw written since ``state`` ([instance, log offset], as the index
    recorded it), and the state to record next; None when the log cannot be trusted (then check
    in full, see :func:`start`)."""
    if not state or len(state) != 2:
        return None
    tmp = os.path.join(state_dir, "tmp")  # _tmp's folder
    instance, offset = state
    if not isinstance(offset, int) or _ready(tmp) != instance or not _cookie(tmp):
        return None
    try:
        with open(os.path.join(tmp, LOG), "rb") as fh:
            fh.seek(offset)
            added = fh.read()
    except OSError:
        return None
    added = added[: added.rfind(b"\n") + 1]  # a line being written is read next time
    names = set(added.decode("utf-8", "surrogateescape").splitlines())
    if "!" in names:
        return None
    return names, [instance, offset + len(added)]


def _cookie(tmp: Path | str) -> bool:
    """Drop a cookie and wait for the watcher to take it: every event before it is then logged."""
    path = os.path.join(tmp, f"{COOKIE}{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except OSError:
        return False
    deadline = time.monotonic() + WAIT
    pause = 0.0002
    while os.path.lexists(path):
        if time.monotonic() > deadline:
            try:
                os.unlink(path)
            except FileNotFoundError:
                return True  # taken just now
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    return True


def start(vault_root: Path, state_dir: Path, folders: Iterable[str]) -> list[object] | None:
    """Make sure a watcher of ``folders`` (relative to the vault) runs and is ready; return
    [instance, offset of the log's end] to record before a full check, or None if none could
    start (then the log is not used)."""
    tmp = _tmp(state_dir)
    proc = None
    if not _alive(tmp):
        import subprocess

        try:
            tmp.mkdir(parents=True, exist_ok=True)
            proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli.index.watch", str(vault_root),
                                     str(state_dir), *folders],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True, close_fds=True)
        except OSError:
            return None
    deadline = time.monotonic() + WAIT
    while True:
        if proc is not None and proc.poll() not in (None, 0):
            return None  # it could not watch every folder: do not wait for it
        instance = _ready(tmp)
        if instance is not None:
            try:
                size = (tmp / LOG).stat().st_size
            except OSError:
                return None
            if _ready(tmp) == instance:  # not replaced meanwhile
                return [instance, size]
        if time.monotonic() > deadline:
            return None
        time.sleep(0.005)


def stop(state_dir: Path) -> None:
    """End the vault's watcher, if one runs (tests; ``biocortex index --rebuild`` need not)."""
    import signal

    tmp = _tmp(state_dir)
    try:
        pid = int((tmp / LOCK).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    if _alive(tmp):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            return
        deadline = time.monotonic() + WAIT
        while _alive(tmp) and time.monotonic() < deadline:
            time.sleep(0.01)


# --- the watcher process --------------------------------------------------------------------


class _Inotify:
    def __init__(self) -> None:
        import ctypes

        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")

    def add(self, path: Path, mask: int) -> int:
        return int(self.libc.inotify_add_watch(self.fd, os.fsencode(path), mask))


def _watch_tree(ino: _Inotify, root: Path, rel: str, folders: dict[int, str], log: list[str]) -> bool:
    """Watch ``rel`` and every folder below it; name its notes (they may have been written before
    the watch began). False when a folder that exists could not be watched (the kernel's limit
    on watches, ``fs.inotify.max_user_watches``): the log would then miss its notes."""
    stack = [rel]
    complete = True
    while stack:
        here = stack.pop()
        wd = ino.add(root / here, _FOLDER)
        if wd < 0:
            complete = complete and not (root / here).is_dir()  # gone meanwhile: nothing to miss
            continue
        folders[wd] = here
        try:
            with os.scandir(root / here) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(f"{here}/{entry.name}")
                    elif entry.name.endswith(".md"):
                        log.append(f"{here}/{entry.name}")
        except OSError:
            continue
    return complete


def serve(vault_root: Path, state_dir: Path, indexed: list[str]) -> int:
    """Watch ``indexed`` folders until idle (the body of ``python -m biocortex_cli.index.watch``)."""
    import fcntl
    import select
    import signal
    import struct

    tmp = _tmp(state_dir)
    tmp.mkdir(parents=True, exist_ok=True)
    lock = os.open(tmp / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another watcher runs
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    instance = f"{os.getpid()}-{time.time_ns()}"
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()} {instance}\n".encode())
    ino = _Inotify()
    # the folders above the indexed ones: one of those appearing or going means start afresh
    above: dict[str, set[str]] = {}
    for top in indexed:
        parts = top.split("/")
        for i, part in enumerate(parts):
            above.setdefault("/".join(parts[:i]) or ".", set()).add(part)
    tops: dict[int, set[str]] = {}
    for parent, names in above.items():
        wd = ino.add(vault_root / parent, _IN_CREATE | _IN_MOVED_TO | _IN_DELETE_SELF | _IN_MOVE_SELF)
        if wd >= 0:
            tops[wd] = names
    folders: dict[int, str] = {}
    for top in indexed:
        if (vault_root / top).is_dir() and not _watch_tree(ino, vault_root, top, folders, []):
            return 1  # never ready: refreshes check in full (notes already there: the full check's)
    tops_wd = {wd for wd, rel in folders.items() if rel in indexed}
    cookies = ino.add(tmp, _IN_CREATE)
    log = open(tmp / LOG, "wb", buffering=0)  # noqa: SIM115 - held for the process's life
    log.write(f"#{instance}\n".encode())
    last_seen = time.monotonic()
    head = struct.Struct("iIII")
    while True:
        ready, _, _ = select.select([ino.fd], [], [], 60.0)
        if not ready:
            if time.monotonic() - last_seen > IDLE:
                return 0
            continue
        data = os.read(ino.fd, 1 << 16)
        lines: list[str] = []
        taken: list[str] = []
        end = False
        pos = 0
        while pos < len(data):
            wd, mask, _cookie, length = head.unpack_from(data, pos)
            name = data[pos + head.size : pos + head.size + length].rstrip(b"\0").decode("utf-8", "surrogateescape")
            pos += head.size + length
            if mask & _IN_Q_OVERFLOW:
                lines.append("!")
            elif wd == cookies:
                if name.startswith(COOKIE):
                    taken.append(name)
            elif wd in tops:
                if mask & (_IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED) or name in tops[wd]:
                    end = True
            elif wd in folders:
                if mask & (_IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF):
                    if wd in tops_wd:
                        end = True
                    folders.pop(wd, None)
                elif mask & _IN_ISDIR and mask & (_IN_CREATE | _IN_MOVED_TO):
                    if not _watch_tree(ino, vault_root, f"{folders[wd]}/{name}", folders, lines):
                        lines.append("!")  # a folder left unwatched: the log is not to be trusted
                        end = True
                elif mask & _WRITES and name.endswith(".md"):
                    rel = f"{folders[wd]}/{name}"
                    if not lines or lines[-1] != rel:
                        lines.append(rel)
        if lines:
            log.write("".join(f"{rel}\n" for rel in lines).encode("utf-8", "surrogateescape"))
        if end:
            log.write(b"!\n")
            return 0
        for name in taken:  # after the events before them are logged
            last_seen = time.monotonic()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp / name)
        if log.tell() > LOG_MAX:
            return 0


if __name__ == "__main__":
    from pathlib import Path

    sys.exit(serve(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]))
