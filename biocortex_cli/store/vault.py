"""The vault: finding it, creating it from the template, and committing to it.

A vault is a folder with ``.biocortex/config.yaml`` inside a git repository. Writers call
:meth:`Vault.transaction`, which holds the write lock, lets the caller write files atomically,
and commits exactly those files with one message (docs/json.md, "Commits").
"""

from __future__ import annotations

import errno
import os
import posixpath
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property

from biocortex_cli.errors import BiocortexError, DataError, NotAVault
from biocortex_cli.lazy import contextmanager
from biocortex_cli.store import files, git
from biocortex_cli.store.config import CONFIG_REL, Config, load_config
from biocortex_cli.store.walk import MEMORY_DIRS

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # pathlib (~18 M) too: recall works on the vault's folder as a str (os.path)
    from pathlib import Path
    from typing import Any, Final, TextIO

    from biocortex_cli.store.notes import Note

VAULT_ENV = "BIOCORTEX_VAULT"
AUTHOR_ENV = "BIOCORTEX_AUTHOR"
CONTENT_DIRS = MEMORY_DIRS  # the memory folders (store/walk.py says which files in them are notes)
#: the files a write in progress touches, listed before it touches them (see recover_killed_transaction)
JOURNAL_NAME = "tmp/txn.journal"  # .biocortex/tmp/ is git-ignored
JOURNAL_COPIES = "tmp/txn"  # the pre-images the journal names
JOURNAL_DIR_REL = ".biocortex/tmp"


class Vault:
    """A vault: its folder, and what a write does with credentials or personal data it finds
    (``secret_policy``: store/secrets.py). Never changed once made (a changed policy is another
    ``Vault``); a plain class, not a frozen dataclass, because every command defines it
    (docs/performance.md), so equality, hashing and the repr are written out."""

    def __init__(self, root: Path | str, secret_policy: str = "refuse") -> None:
        #: the vault's folder as a str: what recall's path uses (os.path; ``root`` imports pathlib)
        self.folder: Final = os.fspath(root)
        self.secret_policy: Final = secret_policy

    @cached_property
    def root(self) -> Path:
        """The vault's folder as a :class:`~pathlib.Path` (the write commands and the cold paths)."""
        from pathlib import Path

        return Path(self.folder)

    def __repr__(self) -> str:
        return f"Vault(root={self.root!r}, secret_policy={self.secret_policy!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vault):
            return NotImplemented
        return (self.root, self.secret_policy) == (other.root, other.secret_policy)

    def __hash__(self) -> int:
        return hash((self.root, self.secret_policy))

    @cached_property
    def config(self) -> Config:
        return load_config(self.folder)

    @cached_property
    def git_folder(self) -> str:
        """The top of the vault's git repository, as a str (:attr:`git_root` as a Path)."""
        top = git.worktree_root(self.folder)
        if top is None:
            raise BiocortexError("the vault is not inside a git repository", path=str(self.root),
                                 hint="run `git init` in the vault, or `biocortex init` anew")
        return top

    @cached_property
    def git_root(self) -> Path:
        from pathlib import Path

        return Path(self.git_folder)

    @property
    def state_dir(self) -> Path:
        return self.root / ".biocortex"

    @property
    def state_folder(self) -> str:
        """:attr:`state_dir` as a str."""
        return os.path.join(self.folder, ".biocortex")

    def git_prefix(self) -> str:
        """The vault's folder from the top of its repository (``.`` when it is the top)."""
        return self.root.resolve().relative_to(self.git_root.resolve()).as_posix()

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def path(self, rel: str) -> Path:
        """The absolute path of ``rel``, refusing anything that would leave the vault."""
        from pathlib import Path

        candidate = self.root / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute() or "\0" in rel:
            raise DataError(f"path {rel!r} leaves the vault", hint="use a path inside the vault")
        if not files.inside(self.root, candidate):
            raise DataError(f"path {rel!r} leads outside the vault through a symbolic link; nothing was written",
                            hint="replace the link by a real folder or file inside the vault")
        return candidate

    def head(self) -> str | None:
        return git.head(self.git_folder)

    def author(self, explicit: str | None = None) -> git.Author:
        """``--author``, else $BIOCORTEX_AUTHOR, else git config, else biocortex (docs/json.md, "Commits").
        Under ``--redact`` a secret in the name or e-mail is removed here, before any use."""
        text = explicit or os.environ.get(AUTHOR_ENV, "").strip()
        if text and self.secret_policy == "redact":
            from biocortex_cli.store import secrets

            text = secrets.scrub_input(text, "the author")
        if text:
            return git.parse_author(text)
        return git.configured_author(self.root) or git.parse_author(git.DEFAULT_AUTHOR)

    @contextmanager
    def transaction(self, message: str, author: git.Author) -> Iterator[Transaction]:
        """Hold the write lock; commit the files written through the transaction, once.

        If anything fails before the commit, files the transaction wrote are put back as they
        were (new ones removed), so a failed write leaves the vault as it found it.
        """
        try:
            with files.write_lock(self.state_dir / "write.lock"):
                git.refuse_unfinished(self.git_root)
                recover_killed_transaction(self)
                txn = Transaction(self)
                start = self.head()
                synced = None
                try:
                    yield txn
                    synced = _sync_started() if txn.unsynced else None
                    if txn.paths:
                        prefix = self.git_prefix()
                        paths = [posixpath.normpath(f"{prefix}/{p}") for p in sorted(txn.paths)]
                        final = txn.guard_commit(txn.message or message, author)
                        if txn.allowed_secrets:
                            final += f"\n\nSecret-Allowed: {txn.allowed_secrets} finding(s) written with --allow-secret"
                        def hand_edits(changes: dict[str, str | None], sign: bool) -> None:
                            txn.commit_hand_edits(changes, sign, prefix=prefix, before=final, author=author)

                        git.commit(self.git_root, paths, final, author, ready=synced.join if synced else None,
                                   staged=hand_edits)
                        git.maintain(self.git_root, len(paths))  # history stays packed
                except BaseException:
                    if synced is not None:
                        synced.join()
                    if txn.paths and self.head() not in (start, txn.hand_edit):
                        raise  # interrupted once the commit had landed: the write is complete
                    txn.rollback()
                    if txn.paths:  # unstage whatever `git add` had staged (a hand edit committed stays)
                        git.run(self.git_root, "reset", "-q", "--", *sorted(txn.paths), check=False)
                    raise
                finally:
                    txn.close_journal()
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise BiocortexError(f"the vault is read-only: nothing was written ({exc.strerror})",
                                     path=str(self.root),
                                     hint="check the folder's permissions, or work in a clone you own") from None
            raise


class Transaction:
    """The files one write touches, in :meth:`Vault.transaction` (a plain class, not a dataclass:
    defined on every start)."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.paths: set[str] = set()
        self.unsynced = False
        self.message: str | None = None  # set to replace the commit message decided before the writes
        self.allowed_secrets = 0  # findings written under --allow-secret: said in the commit
        # what each touched file held before (None: it did not exist), for rollback, and its blob id
        self._before: dict[str, bytes | None] = {}
        self._found: dict[str, str | None] = {}
        self._written: dict[str, str | None] = {}  # the blob id of what this write left in each file
        #: the commit of a person's uncommitted edits made before this write's own (commit_hand_edits)
        self.hand_edit: str | None = None
        self._journal_fh: TextIO | None = None
        #: rel -> (its note as rendered, its size in bytes) for files written exactly as rendered:
        #: the index can take them from memory after the commit (facts/index.py ``refresh_facts``)
        self.rendered: dict[str, tuple[Note, int]] = {}

    def write(self, rel: str, text: str, *, batch: bool = False, parsed: Note | None = None) -> Path:
        """Write one file atomically; ``batch`` defers the fsync to one sync before the commit;
        ``parsed``: the note of ``text`` (``notes.rendered_note``), not parsed again."""
        path = self.vault.path(rel)
        guarded = self._guard(rel, text, parsed)
        raw = guarded.encode("utf-8")
        self._note_rendered(rel, parsed, text, guarded, len(raw))
        self._remember(rel, path, raw)
        files.atomic_write(path, raw, fsync=not batch)
        self.unsynced |= batch
        self.paths.add(rel)
        return path

    def write_many(self, notes: Iterable[tuple[str, str, Note | None]],
                   progress: Callable[[int], None] | None = None) -> int:
        """:meth:`write` with ``batch=True`` of every (rel, text, parsed note or None), giving the
        same files byte for byte, at the cost of thousands of files rather than thousands of
        single writes: every file is guarded (secrets, limits) before any touches the disk; a
        folder is checked (no symbolic link out of the vault) and listed once, not each file in
        it; the files it does not hold yet are journaled in one append (no pre-image to keep) and
        written under one temporary-name tag; their blobs go into one pack (``git fast-import``)
        so the commit stages them without writing a loose object each. A file that exists takes
        :meth:`write`'s own path. ``progress(done)`` every 1,000 files. Returns how many."""
        import json
        import secrets as random_names  # not store/secrets.py: the standard library's

        ready: list[tuple[str, str, bytes, bool]] = []  # (rel, path, bytes, new)
        listed: dict[str, tuple[Path, set[str]]] = {}
        for rel, text, parsed in notes:
            folder, _sep, name = rel.rpartition("/")
            if folder not in listed:
                base = self.vault.path(folder) if folder else self.vault.root
                listed[folder] = (base, _names_in(base))
            base, names = listed[folder]
            new = name not in names and name not in ("", ".", "..") and "\0" not in name and rel not in self._before
            path = f"{base}/{name}" if new else str(self.vault.path(rel))
            names.add(name)  # the same file twice: the second write replaces the first
            guarded = self._guard(rel, text, parsed)
            raw = guarded.encode("utf-8")
            self._note_rendered(rel, parsed, text, guarded, len(raw))
            ready.append((rel, path, raw, new))
        fresh = [(rel, path, raw) for rel, path, raw, new in ready if new]
        for rel, _path, raw in fresh:
            self._before[rel] = self._found[rel] = None
            self._written[rel] = blob_id(raw)
        if fresh:  # journaled before any is written: a kill leaves files the journal names
            self._journal("\n".join(json.dumps({"path": rel, "post": self._written[rel]}, ensure_ascii=False)
                                     for rel, _path, _raw in fresh))
        self._remember_many([(rel, path, raw) for rel, path, raw, new in ready if not new])
        for base, _names in listed.values():
            base.mkdir(parents=True, exist_ok=True)
        packer = None
        if len(ready) >= git.PACK_AFTER_FILES:  # one pack for the files and their trees, not a loose
            import threading  # object each, made by git while this thread writes the files

            prefix = self.vault.git_prefix()
            batch = [(posixpath.normpath(f"{prefix}/{rel}"), raw) for rel, _path, raw, _new in ready]
            packer = threading.Thread(target=git.preload, args=(self.vault.git_root, batch, self.vault.head()))
            packer.start()
        tag = random_names.token_hex(4)
        try:
            for done, (rel, path, raw, new) in enumerate(ready, 1):
                files.write_fresh(path, raw, tag, replace=not new)
                self.paths.add(rel)
                if progress is not None and done % 1000 == 0:
                    progress(done)
        finally:
            self.unsynced |= bool(ready)
            if packer is not None:
                packer.join()
        return len(ready)

    def append(self, rel: str, line: str) -> Path:
        """Add ``line`` at the end of ``rel`` (after a newline if the file lacks one), atomically,
        keeping the file's own bytes as they are: a byte that is not UTF-8, typed into the file by
        hand, stays that byte (unless redaction rewrites the file)."""
        path = self.vault.path(rel)
        before = files.read_regular(path) or b""
        if before and not before.endswith(b"\n"):
            before += b"\n"
        whole = before.decode("utf-8", errors="replace") + line
        guarded = self._guard(rel, whole)
        raw = before + line.encode("utf-8") if guarded == whole else guarded.encode("utf-8")
        self.rendered.pop(rel, None)
        self._remember(rel, path, raw)
        files.atomic_write(path, raw)
        self.paths.add(rel)
        return path

    def move(self, src_rel: str, dst_rel: str) -> Path:
        src, dst = self.vault.path(src_rel), self.vault.path(dst_rel)
        moved = files.read_regular(src)
        for rel in (src_rel, dst_rel):
            self.rendered.pop(rel, None)
        self._remember(src_rel, src, None)
        self._remember(dst_rel, dst, moved)
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dst)
        self.paths.update((src_rel, dst_rel))
        return dst

    def _note_rendered(self, rel: str, parsed: Note | None, text: str, guarded: str, size: int) -> None:
        """Keep ``parsed`` as ``rel``'s note when the file gets the ``text`` it was rendered from
        (``guarded``, what the secret check let through, is that text: nothing was redacted)."""
        if parsed is not None and guarded == text:
            self.rendered[rel] = (parsed, size)
        else:
            self.rendered.pop(rel, None)

    def _guard(self, rel: str, text: str, parsed: Note | None = None) -> str:
        from biocortex_cli.store import secrets
        from biocortex_cli.store.notes import check_writable

        secrets.check_path(rel)
        parsed = check_writable(rel, text, parsed)  # what a read would refuse is not committed
        text, findings = secrets.guard(rel, text, self.vault.secret_policy, parsed)
        for f in findings:
            verb = "redacted" if self.vault.secret_policy == secrets.REDACT else "WRITTEN ANYWAY (--allow-secret)"
            sys.stderr.write(f"biocortex: warning: {rel}:{f.line}: {f.kind} in field '{f.field}' {verb}\n")
        if findings and self.vault.secret_policy == secrets.ALLOW:
            self.allowed_secrets += len(findings)
        return text

    def guard_commit(self, message: str, author: git.Author) -> str:
        """The commit message, scanned with the author like every file (store/secrets.py)."""
        from biocortex_cli.store import secrets

        final, findings = secrets.guard_commit(message, str(author), self.vault.secret_policy)
        for f in findings:
            verb = "redacted" if self.vault.secret_policy == secrets.REDACT else "WRITTEN ANYWAY (--allow-secret)"
            sys.stderr.write(f"biocortex: warning: {f.kind} in the {f.field} {verb}\n")
        if self.vault.secret_policy == secrets.ALLOW:
            self.allowed_secrets += len(findings)
        return final

    def rollback(self) -> None:
        """Put every touched file back as it was before the transaction."""
        for rel, before in self._before.items():
            path = self.vault.path(rel)
            try:
                if before is None:
                    path.unlink(missing_ok=True)
                else:
                    files.atomic_write(path, before, fsync=False)
            except OSError:
                continue  # best effort: the original error is what the user needs to see

    def _remember(self, rel: str, path: Path, after: bytes | None) -> None:
        """Journal ``rel`` before touching it: what it holds now (a copy kept aside) and what
        this write will put there, so a killed write can be undone without touching anything
        it did not write (:func:`recover_killed_transaction`)."""
        import json

        first = rel not in self._before
        if first:
            self._before[rel] = files.read_regular(path)
            self._found[rel] = blob_id(self._before[rel])
        before = self._before[rel]
        copy = None
        if first and before is not None:
            copy = f"{len(self._before)}.pre"
            target = self.vault.state_dir / JOURNAL_COPIES / copy
            files.refuse_linked(self.vault.root, target)
            files.write_private(target, before)
        entry = {"path": rel, "pre": self._found[rel], "post": blob_id(after)}
        self._written[rel] = entry["post"]
        if copy:
            entry["copy"] = copy
        self._journal(json.dumps(entry, ensure_ascii=False))

    def _remember_many(self, items: list[tuple[str, str, bytes]]) -> None:
        """:meth:`_remember` of many (rel, path, bytes to write) at once: one journal append, and a
        copy of a file's pre-image only when git's object store lacks it (recovery reads it back
        from there, :func:`_put_back`): a batch edit of 2,300 committed notes makes no copies."""
        import json
        from pathlib import Path

        todo = [(rel, path, after) for rel, path, after in items if rel not in self._before]
        for rel, path, after in items:
            if rel in self._before:
                self._remember(rel, Path(path), after)
        if not todo:
            return
        befores = [files.read_regular(Path(path)) for _rel, path, _after in todo]
        held = git.have_blobs(self.vault.git_root, [git_blob_id(b) for b in befores if b is not None]) \
            if len(todo) > 1 else set()
        lines = []
        for (rel, _path, after), before in zip(todo, befores, strict=True):
            self._before[rel] = before
            pre = self._found[rel] = blob_id(before)
            entry = {"path": rel, "pre": pre, "post": blob_id(after)}
            self._written[rel] = entry["post"]
            if before is not None and pre not in held:
                copy = entry["copy"] = f"{len(self._before)}.pre"
                target = self.vault.state_dir / JOURNAL_COPIES / copy
                files.refuse_linked(self.vault.root, target)
                files.write_private(target, before)
            lines.append(json.dumps(entry, ensure_ascii=False))
        self._journal("\n".join(lines))

    def commit_hand_edits(self, changes: dict[str, str | None], sign: bool, *, prefix: str, before: str,
                          author: git.Author) -> None:
        """Commit, on its own and before this write's commit, what a person changed in the files
        this write touched and did not commit: each file as this write found it on disk, where
        that differs from HEAD's (an edit, a new untracked file, a file deleted by hand). Called
        once the write's files are staged (``changes``: what the index changes against HEAD,
        ``git.staged_changes``); the index and the work tree are left alone, and this write's
        commit goes on top, holding only its own change. Author: the repository's git identity
        (``user.name``, ``user.email``), else the write's; committer: the write's author.

        The common case (nothing edited by hand) costs no process: the blob id of what each file
        held, computed for the journal, against HEAD's from ``changes`` (a path the write leaves
        as HEAD has it is not listed there: HEAD's id is what the write put). A file whose edit
        holds a credential or personal data is not committed on its own unless ``--allow-secret``:
        this write's commit has it as the write leaves it (redacted, or refused), as before."""
        touched = {rel: posixpath.normpath(f"{prefix}/{rel}") for rel in sorted(self.paths) if rel in self._found}
        suspects = [rel for rel, full in touched.items()
                    if self._found[rel] != (changes[full] if full in changes else self._written.get(rel))]
        if not suspects:
            return
        root = self.vault.git_root
        heads: dict[str, str | None] = {touched[rel]: changes[touched[rel]] for rel in suspects
                                        if touched[rel] in changes}
        unlisted = [touched[rel] for rel in suspects if touched[rel] not in changes]
        if unlisted:  # the write put back what HEAD holds, or git's line endings differ
            held = _blobs(git.run(root, "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", *unlisted, check=False))
            heads.update({full: held.get(full) for full in unlisted})
        blobs: dict[str, str | None] = {}
        edited: list[str] = []
        allowed = 0
        for rel in suspects:
            found, full = self._before[rel], touched[rel]
            blob = None if found is None else git.write_blob(root, full, found)  # as `git add` would store it
            if blob == heads[full]:
                continue  # the same as HEAD once git's attributes apply (line endings)
            if found is not None:
                kept = self._hand_edit_allowed(rel, found)
                if kept is None:
                    continue
                allowed += kept
            blobs[full] = blob
            edited.append(rel)
        if not blobs:
            return
        message = hand_edit_message(edited, before)
        if allowed:
            message += f"\n\nSecret-Allowed: {allowed} finding(s) in the hand edit, committed with --allow-secret"
        person = git.configured_author(root) or author
        index = self.vault.state_dir / JOURNAL_COPIES / "hand-edit.index"
        files.refuse_linked(self.vault.root, index)
        index.parent.mkdir(parents=True, exist_ok=True)
        made, parent = git.commit_blobs(root, blobs, message, person, author, index=index, sign=sign)
        self.hand_edit = made  # before HEAD moves: a failure from here on keeps the person's edit committed
        git.advance_head(root, made, parent, message, {"GIT_COMMITTER_NAME": author.name,
                                                       "GIT_COMMITTER_EMAIL": author.email})

    def _hand_edit_allowed(self, rel: str, found: bytes) -> int | None:
        """How many findings (credentials, personal data) a person's uncommitted ``found`` holds
        when they may be committed as they are (``--allow-secret``); None when they may not."""
        from biocortex_cli.store import secrets

        findings = secrets.inspect(rel, found.decode("utf-8", errors="replace"))
        if not findings:
            return 0
        if self.vault.secret_policy == secrets.ALLOW:
            sys.stderr.write(f"biocortex: warning: {rel}: {findings[0].kind} in your uncommitted edit "
                             "WRITTEN ANYWAY (--allow-secret)\n")
            return len(findings)
        sys.stderr.write(f"biocortex: warning: {rel}: your uncommitted edit holds a {findings[0].kind}: not "
                         "committed on its own; this write's commit holds the file as the write leaves it\n")
        return None

    def _journal(self, line: str) -> None:
        """Append one entry to the journal before touching a file, so a killed write can be undone."""
        if self._journal_fh is None:
            journal = self.vault.state_dir / JOURNAL_NAME
            files.refuse_linked(self.vault.root, journal)
            journal.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND | files.NOFOLLOW, 0o600)
            self._journal_fh = os.fdopen(fd, "a", encoding="utf-8")
        self._journal_fh.write(line + "\n")
        self._journal_fh.flush()  # in the page cache: survives the death of this process

    def close_journal(self) -> None:
        """The transaction is over (committed or rolled back): its journal is no longer needed."""
        if self._journal_fh is not None:
            self._journal_fh.close()
            self._journal_fh = None
            (self.vault.state_dir / JOURNAL_NAME).unlink(missing_ok=True)
            _remove_tree(self.vault.state_dir / JOURNAL_COPIES)


def hand_edit_message(rels: list[str], before: str) -> str:
    """The message of the commit of a person's uncommitted edits made before the write whose
    message is ``before`` (:meth:`Transaction.commit_hand_edits`)."""
    subject = before.splitlines()[0] if before else ""
    quoted = subject if len(subject) <= 60 else subject[:59] + "…"
    named = ", ".join(rels[:3]) + (f" and {len(rels) - 3} more" if len(rels) > 3 else "")
    listing = "\n".join(rels)
    return (f'hand: edit {named} — uncommitted, recorded before "{quoted}"\n\n'
            f"These files had been changed by hand (in Obsidian or an editor) and not committed when\n"
            f'biocortex wrote to them for "{subject}". biocortex committed them here as\n'
            f"they were on disk then, with the repository's git identity as author, so that its own\n"
            f"commit, next, holds only its change and not this edit:\n\n{listing}")


def _sync_started() -> Any:
    """``os.sync`` of a batch's files, in a thread while git stages them (it reads them from the
    page cache): the commit waits for it before HEAD moves (``git.commit``'s ``ready``), so the
    files reach the disk before a commit names them, without the stage waiting for the disk."""
    import threading

    thread = threading.Thread(target=os.sync, name="biocortex-sync")
    thread.start()
    return thread


def _names_in(folder: Path) -> set[str]:
    """The names in ``folder`` (none when it does not exist yet)."""
    try:
        with os.scandir(folder) as entries:
            return {e.name for e in entries}
    except FileNotFoundError:
        return set()


def blob_id(data: bytes | None) -> str | None:
    """git's id of a blob holding ``data`` (None for no file): comparable with HEAD and the index."""
    return None if data is None else git_blob_id(data)


def git_blob_id(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class _Journaled:  # a plain class (recall's path)
    __slots__ = ("copy", "post", "pre")

    def __init__(self, pre: str | None, post: str | None, copy: str | None) -> None:
        self.pre = pre  # blob id before the killed write (None: no file)
        self.post = post  # blob id the write put (or was about to put) there
        self.copy = copy  # the saved pre-image, under JOURNAL_COPIES


def read_journal(text: str) -> tuple[dict[str, _Journaled], list[str]]:
    """Entries by path (first pre-image, last post-image), and paths of an older journal format."""
    import json
    import re

    entries: dict[str, _Journaled] = {}
    legacy: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        if not line.startswith("{"):
            legacy.append(line)
            continue
        try:
            item = json.loads(line)
            rel, pre, post, copy = item["path"], item.get("pre"), item.get("post"), item.get("copy")
        except (ValueError, KeyError, TypeError):
            continue  # the line being written when the process died
        if not isinstance(rel, str) or (copy is not None and not re.fullmatch(r"\d+\.pre", str(copy))):
            continue
        first = entries.get(rel)
        entries[rel] = _Journaled(first.pre if first else pre, post, first.copy if first else copy)
    return entries, legacy


def recover_killed_transaction(vault: Vault) -> list[str]:
    """Undo what a killed writer left half done; call under the write lock.

    A transaction journals every file before it touches it in ``.biocortex/tmp/txn.journal``:
    the blob id of what the file held (a copy kept aside), and of what the write puts there; it
    deletes the journal when it ends. A journal found here belongs to a writer that died (SIGKILL,
    power loss) between its first write and the end. Each file is then judged by what it holds now:

    * what the killed write put there, not committed: the saved pre-image is put back (a file it
      created is removed) and the path unstaged;
    * what it held before, or what the killed write committed: left as it is;
    * anything else (a person edited it after the kill): left as it is, with a warning.

    So recovery restores exactly what the killed write changed and nothing a person wrote. The
    temporary files a killed atomic write leaves (``.NAME.XXXXXXXX.tmp``) are removed. A journal
    that git tracks (committed by someone) or reached through a symbolic link is not trusted.
    Returns the paths put back.
    """
    journal = vault.state_dir / JOURNAL_NAME
    try:
        files.refuse_linked(vault.root, journal)
        text = files.read_regular(journal)
    except DataError as exc:
        sys.stderr.write(f"biocortex: warning: {exc.message}; not used\n")
        return []
    if text is None:
        return []
    git.clear_stale_locks(vault.git_root)
    prefix = vault.root.resolve().relative_to(vault.git_root.resolve())
    if git.run(vault.git_root, "ls-files", "--", (prefix / JOURNAL_DIR_REL).as_posix(), check=False).strip():
        sys.stderr.write("biocortex: warning: .biocortex/tmp/ is tracked by git: its journal is not trusted; "
                         "remove it from git (git rm -r --cached .biocortex/tmp)\n")
        return []
    from pathlib import Path

    entries, legacy = read_journal(text.decode("utf-8", errors="replace"))
    full = {rel: (prefix / rel).as_posix() for rel in [*entries, *legacy] if ".." not in Path(rel).parts}
    head = _blobs(git.run(vault.git_root, "ls-tree", "-r", "-z", "--full-tree", "HEAD", check=False))
    staged = _blobs(git.run(vault.git_root, "ls-files", "-s", "-z", check=False))
    restored: list[str] = []
    unstage: list[str] = []
    kept: list[str] = []
    for rel, entry in entries.items():
        if rel not in full:
            continue
        try:
            path = vault.path(rel)
            now = blob_id(files.read_regular(path))
        except DataError:
            kept.append(rel)  # a symbolic link or a folder now: not ours to touch
            continue
        if staged.get(full[rel]) == entry.post != head.get(full[rel]):
            unstage.append(full[rel])
        if now == entry.pre or now != entry.post or head.get(full[rel]) == entry.post:
            if now not in (entry.pre, entry.post):
                kept.append(rel)
            continue
        if _put_back(vault, rel, path, entry):
            restored.append(rel)
        else:
            kept.append(rel)
    for rel in legacy:  # a journal of an older biocortex: its files as HEAD has them
        if rel in full:
            restored += _legacy_put_back(vault, rel, full[rel], full[rel] in head)
            unstage.append(full[rel])
    if unstage:
        git.run_stdin(vault.git_root, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"],
                      "\0".join(unstage), check=False)
    removed = files.remove_orphan_temps({vault.path(rel).parent for rel in full if _inside(vault, rel)})
    sys.stderr.write(f"biocortex: warning: undid a write that was killed before its commit ({len(restored)} "
                     f"file(s) put back{f', {removed} temporary file(s) removed' if removed else ''})\n")
    if kept:
        sys.stderr.write(f"biocortex: warning: {len(kept)} file(s) changed since that write were left as they "
                         f"are: {', '.join(sorted(kept)[:5])}\n")
    journal.unlink()
    _remove_tree(vault.state_dir / JOURNAL_COPIES)
    return restored


def _inside(vault: Vault, rel: str) -> bool:
    try:
        vault.path(rel)
    except DataError:
        return False
    return True


def _blobs(listing: str) -> dict[str, str]:
    """path -> blob id from ``git ls-tree -r -z`` or ``git ls-files -s -z`` output."""
    out = {}
    for item in listing.split("\0"):
        meta, _tab, name = item.partition("\t")
        fields = meta.split()
        if name and len(fields) >= 3:
            out[name] = fields[2] if fields[1] == "blob" else fields[1]
    return out


def _put_back(vault: Vault, rel: str, path: Path, entry: _Journaled) -> bool:
    """Restore ``rel``'s pre-image (remove it when it did not exist); False when the saved copy
    is missing or is not what the journal says (then nothing is touched)."""
    if entry.pre is None:
        path.unlink(missing_ok=True)
        return True
    if entry.copy is None:  # a batch keeps no copy of what git's object store holds
        copy = git.blob(vault.git_root, entry.pre)
    else:
        copy = files.read_regular(vault.state_dir / JOURNAL_COPIES / entry.copy)
    if copy is None or blob_id(copy) != entry.pre:
        return False
    files.atomic_write(path, copy)
    return True


def _legacy_put_back(vault: Vault, rel: str, full: str, tracked: bool) -> list[str]:
    if tracked:
        git.run(vault.git_root, "checkout", "-q", "HEAD", "--", full, check=False)
    else:
        import contextlib

        with contextlib.suppress(DataError, OSError):
            vault.path(rel).unlink(missing_ok=True)
    return [rel]


def _remove_tree(path: Path) -> None:
    import shutil  # imported where used: shutil (with bz2 and lzma) would cost every command's start-up

    shutil.rmtree(path, ignore_errors=True)


def find_vault(explicit: str | None = None, cwd: Path | None = None) -> Vault:
    """``--vault``, else $BIOCORTEX_VAULT, else the nearest parent with the config (docs/json.md)."""
    # with os.path, not pathlib (recall's path): the same tests (files.is_file is Path.is_file)
    # and the same folder (realpath is what Path.resolve returns)
    given = explicit or os.environ.get(VAULT_ENV)
    if given:
        root = given
        if given.startswith("~"):  # Path.expanduser's rules, and its error when there is no home
            from pathlib import Path

            root = str(Path(given).expanduser())
        try:
            found = files.is_file(os.path.join(root, CONFIG_REL))
        except OSError as exc:  # e.g. a name too long for the file system
            raise NotAVault(f"{given[:200]} is not a usable vault path ({exc.strerror or exc})",
                                hint="pass --vault PATH / set BIOCORTEX_VAULT to the vault's folder") from None
        if not found:
            from pathlib import Path

            raise NotAVault(f"{Path(root)} is not a biocortex vault (no {CONFIG_REL})",
                                hint=f"run `biocortex init {Path(root)}` to create one")
        return Vault(os.path.realpath(root))
    here = os.path.realpath(os.getcwd() if cwd is None else cwd)
    while True:  # here and each folder above it
        if files.is_file(os.path.join(here, CONFIG_REL)):
            return Vault(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    raise NotAVault("no biocortex vault here or in any parent folder",
                        hint="run `biocortex init PATH`, or pass --vault PATH / set BIOCORTEX_VAULT")


def template_dir() -> Path:
    """The vault template: package data in a wheel, the repo's folder in a source checkout."""
    from pathlib import Path

    packaged = Path(__file__).resolve().parents[1] / "vault_template"
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parents[2] / "vault_template"
    if source.is_dir():
        return source
    raise BiocortexError("the vault template is missing from this installation",
                         hint="reinstall biocortex")  # pragma: no cover


def init_vault(path: Path, author: str | None = None, *, in_repo: bool = False) -> Vault:
    """Create a vault from the template at ``path``; refuse (touching nothing) if one exists, or
    if ``path`` is inside another git repository (whose history the vault's commits would join)
    unless ``in_repo`` says that is wanted. A folder that repository ignores gets its own."""
    import shutil
    from pathlib import Path

    root = path.expanduser()
    if (root / CONFIG_REL).exists():
        raise BiocortexError(f"{root} is already a biocortex vault; nothing was changed",
                             hint="use it as it is, or choose another folder")
    if root.exists() and not root.is_dir():
        raise BiocortexError(f"{root} exists and is not a folder")
    resolved = root.resolve()
    if resolved in (Path.home().resolve(), Path(resolved.anchor)):
        # `biocortex init` run from the wrong folder: a git repository at home (or at /) takes in
        # every folder under it, and every git command there then sees it
        raise BiocortexError(f"{resolved} is {'your home folder' if resolved != Path(resolved.anchor) else 'the root'}"
                             "; a vault there would make it a git repository holding every folder under it; "
                             "nothing was changed", hint="name a folder for the vault: biocortex init lab-memory")
    template = template_dir()
    clashes = [p.relative_to(template).as_posix() for p in template.rglob("*")
               if p.is_file() and (root / p.relative_to(template)).exists()]
    if clashes:
        raise BiocortexError(f"{root} already has {', '.join(clashes[:5])}; nothing was changed",
                             hint="init into an empty folder, or move those files away first")
    existing = next((p for p in (root.absolute(), *root.absolute().parents) if p.is_dir()), Path.cwd())
    top = git.toplevel(existing)
    if top is not None and git.is_ignored(top, root):
        top = None  # an ignored folder of another repository: the vault gets its own
    if top is not None and not in_repo:
        raise BiocortexError(f"{root} is inside the git repository {top}: the vault's commits would go into "
                             "its history; nothing was created",
                             hint=f"to keep the vault in that repository, run `biocortex init {path} --in-repo`; "
                                  "else choose a folder outside it")
    root.mkdir(parents=True, exist_ok=True)
    if top is None:
        git.init(root)
    written: list[str] = []
    for src in sorted(template.rglob("*")):
        if src.is_file() and "__pycache__" not in src.parts:
            rel = src.relative_to(template).as_posix()
            dst = root / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            written.append(rel)
    vault = Vault(root.resolve())
    who = vault.author(author)
    with vault.transaction(f"vault: init {root.resolve().name} — biocortex vault from template", who) as txn:
        txn.paths.update(written)
    return vault
