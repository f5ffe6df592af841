"""Which files are notes: one rule and one walker, for ``check``, the index and every command.

The memory folders are ``episodes/``, ``facts/``, ``entities/``, ``lessons/``, ``datasets/`` (one note
per registered dataset) and ``archive/``
(forgotten memory, in the same layout: ``archive/episodes/…``). ``templates/`` (Obsidian's
templates), ``feedback/`` and every other folder hold no notes. Inside a memory folder:

- a file or folder whose name starts with ``.`` is not memory (editor swap files, the temporary
  files of atomic writes): it is not listed;
- ``README.md`` at the top of a memory folder (or of ``archive/<folder>``) says what the folder
  is for: it is not a note (anywhere deeper, ``README.md`` is a note like any other);
- a symbolic link to a folder is not entered;
- every other entry named ``*.md`` is a note. A symbolic link or a special file named so is a
  note that cannot be read: reading it fails with a problem (store/files.py), which ``check``,
  the index and the commands all report the same way;
- other files are *strays*: ``check`` reports them, nothing else reads them.

Notes at the vault's root are not memory and are not walked: ``Home.md`` and ``AGENTS.md`` are
for people and agents, ``vocabulary.md`` is the vault's vocabulary (store/vocabulary.py), which
``check`` validates on its own.

Listing is ``os.scandir`` with relative paths built by concatenation: ``os.walk`` + ``relpath``
took 2 s for the 164k entity notes of the 100k benchmark vault.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

TYPE_CHECKING = False  # mypy takes it as True
if TYPE_CHECKING:  # pathlib (~18 M instructions) stays off recall's path: folders are walked with os.path
    from pathlib import Path

MEMORY_DIRS = ("episodes", "facts", "entities", "lessons", "datasets", "archive")
README = "README.md"

Stamp = tuple[int, int]  # (mtime_ns, size) of the entry itself (a link is not followed)


class Folder:  # a plain class (recall's path)
    """One memory folder as listed: its notes with their stamps, its subfolders, its strays."""

    __slots__ = ("mtime_ns", "notes", "rel", "strays", "subdirs")

    def __init__(self, rel: str, mtime_ns: int, notes: dict[str, Stamp], subdirs: list[str],
                 strays: list[str]) -> None:
        self.rel, self.mtime_ns = rel, mtime_ns
        self.notes = notes  # rel -> stamp
        self.subdirs = subdirs  # names, sorted
        self.strays = strays  # rels of files that are not notes


def is_readme(rel_dir: str, name: str) -> bool:
    """Whether ``rel_dir/name`` is the README of a memory folder (not a note)."""
    return name == README and (rel_dir in MEMORY_DIRS or (rel_dir.startswith("archive/") and rel_dir.count("/") == 1))


def list_folder(root: Path | str, rel_dir: str) -> Folder:
    """The entries of one folder (``rel_dir`` is relative to the vault). Raises OSError."""
    path = os.path.join(root, rel_dir)
    mtime = os.stat(path).st_mtime_ns
    notes: dict[str, Stamp] = {}
    subdirs: list[str] = []
    strays: list[str] = []
    prefix = rel_dir + "/"
    with os.scandir(path) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(name)
            elif entry.is_symlink() and entry.is_dir():
                continue  # a linked folder: not entered
            elif name.endswith(".md"):
                if not is_readme(rel_dir, name):
                    st = entry.stat(follow_symlinks=False)
                    notes[prefix + name] = (st.st_mtime_ns, st.st_size)
            else:
                strays.append(prefix + name)
    subdirs.sort()
    return Folder(rel_dir, mtime, notes, subdirs, sorted(strays))


def walk(root: Path | str, tops: Iterable[str] = MEMORY_DIRS) -> Iterator[Folder]:
    """Every folder under ``tops`` (relative to the vault), depth first, in name order. A top that
    is missing is skipped; one that is a symbolic link is listed (its notes then fail to read)."""
    for top in tops:
        stack = [top]
        while stack:
            rel_dir = stack.pop()
            try:
                folder = list_folder(root, rel_dir)
            except (FileNotFoundError, NotADirectoryError):
                continue
            yield folder
            stack.extend(f"{rel_dir}/{name}" for name in reversed(folder.subdirs))


def note_stamps(root: Path | str, tops: Iterable[str] = MEMORY_DIRS) -> dict[str, Stamp]:
    """rel -> (mtime_ns, size) of every note under ``tops``."""
    out: dict[str, Stamp] = {}
    for folder in walk(root, tops):
        out.update(folder.notes)
    return out


def note_paths(root: Path | str, tops: Iterable[str] = MEMORY_DIRS) -> list[str]:
    """Every note under ``tops``, sorted."""
    return sorted(note_stamps(root, tops))


def has_notes(root: Path | str, top: str) -> bool:
    """Whether ``top`` holds at least one note; stops at the first (cheap in a big folder)."""
    try:
        with os.scandir(os.path.join(root, top)) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if has_notes(root, f"{top}/{name}"):
                        return True
                elif name.endswith(".md") and not is_readme(top, name) and not (entry.is_symlink() and entry.is_dir()):
                    return True
    except (FileNotFoundError, NotADirectoryError):
        pass
    return False
