"""Filesystem primitives: atomic writes, safe paths, bounded reads, the vault write lock.

Every file the tool writes goes through :func:`atomic_write` (temp file in the same folder,
fsync, rename), so a reader or a crash never sees half a note. Writers serialise through
:func:`write_lock`, an ``flock`` on ``.biocortex/write.lock`` that the kernel releases when a
process dies, so a killed writer can never leave the vault locked.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from biocortex_cli.errors import DataError

#: Largest note the tool will read (a hand-pasted 50 MB log is refused, not loaded).
MAX_NOTE_BYTES = 8 * 1024 * 1024


def atomic_write(path: Path, data: str | bytes, *, fsync: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a mix.

    Batch writers pass ``fsync=False`` and call :func:`os.sync` once before committing.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def read_note_text(path: Path, rel: str) -> str:
    """Read a note as text: UTF-8 (a BOM is dropped), CRLF/CR normalised to LF.

    Raises :class:`DataError` for oversized, binary or undecodable files, naming the file.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DataError("file disappeared while reading", path=rel) from None
    if size > MAX_NOTE_BYTES:
        raise DataError(
            f"note is {size / 1e6:.1f} MB, over the {MAX_NOTE_BYTES // 2**20} MiB limit",
            path=rel,
            hint="move large outputs out of the vault and link to them from the note",
        )
    raw = path.read_bytes()
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


def inside(root: Path, candidate: Path) -> bool:
    """True when ``candidate`` (after resolving symlinks) lies inside ``root``."""
    try:
        candidate.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


@contextlib.contextmanager
def write_lock(lock_path: Path) -> Iterator[None]:
    """Hold the vault's exclusive write lock (blocking). Released by the kernel on death."""
    import fcntl

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
