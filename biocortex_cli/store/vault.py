"""The vault: finding it, creating it from the template, and committing to it.

A vault is a folder with ``.biocortex/config.yaml`` inside a git repository. Writers call
:meth:`Vault.transaction`, which holds the write lock, lets the caller write files atomically,
and commits exactly those files with one message (SPEC §8).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TextIO

from biocortex_cli.errors import BiocortexError, DataError, NotFoundError
from biocortex_cli.store import files, git
from biocortex_cli.store.config import CONFIG_REL, Config, load_config
from biocortex_cli.store.walk import MEMORY_DIRS

VAULT_ENV = "BIOCORTEX_VAULT"
AUTHOR_ENV = "BIOCORTEX_AUTHOR"
CONTENT_DIRS = MEMORY_DIRS  # the memory folders (store/walk.py says which files in them are notes)
#: the files a write in progress touches, listed before it touches them (see recover_killed_transaction)
JOURNAL_NAME = "tmp/txn.journal"  # .biocortex/tmp/ is git-ignored


@dataclass(frozen=True)
class Vault:
    root: Path
    #: what a write does with credentials or personal data it finds (store/secrets.py)
    secret_policy: str = "refuse"

    @cached_property
    def config(self) -> Config:
        return load_config(self.root)

    @cached_property
    def git_root(self) -> Path:
        top = git.toplevel(self.root)
        if top is None:
            raise BiocortexError("the vault is not inside a git repository", path=str(self.root),
                                 hint="run `git init` in the vault, or `biocortex init` anew")
        return top

    @property
    def state_dir(self) -> Path:
        return self.root / ".biocortex"

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def path(self, rel: str) -> Path:
        """The absolute path of ``rel``, refusing anything that would leave the vault."""
        candidate = self.root / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute() or "\0" in rel:
            raise DataError(f"path {rel!r} leaves the vault", hint="use a path inside the vault")
        if not files.inside(self.root, candidate):
            raise DataError(f"path {rel!r} leads outside the vault through a symbolic link; nothing was written",
                            hint="replace the link by a real folder or file inside the vault")
        return candidate

    def head(self) -> str | None:
        return git.head(self.git_root)

    def author(self, explicit: str | None = None) -> git.Author:
        """``--author``, else $BIOCORTEX_AUTHOR, else git config, else biocortex (SPEC §8)."""
        if explicit:
            return git.parse_author(explicit)
        env = os.environ.get(AUTHOR_ENV, "").strip()
        if env:
            return git.parse_author(env)
        return git.configured_author(self.root) or git.parse_author(git.DEFAULT_AUTHOR)

    @contextlib.contextmanager
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
                try:
                    yield txn
                    if txn.unsynced:
                        os.sync()
                    if txn.paths:
                        prefix = self.root.resolve().relative_to(self.git_root.resolve())
                        paths = [(prefix / p).as_posix() for p in sorted(txn.paths)]
                        final = txn.message or message
                        if txn.allowed_secrets:
                            final += f"\n\nSecret-Allowed: {txn.allowed_secrets} finding(s) written with --allow-secret"
                        git.commit(self.git_root, paths, final, author)
                except BaseException:
                    txn.rollback()
                    if txn.paths:  # unstage whatever `git add` had staged
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


@dataclass
class Transaction:
    vault: Vault
    paths: set[str] = field(default_factory=set)
    unsynced: bool = False
    message: str | None = None  # set to replace the commit message decided before the writes
    allowed_secrets: int = 0  # findings written under --allow-secret: said in the commit
    # what each touched file held before (None: it did not exist), for rollback
    _before: dict[str, bytes | None] = field(default_factory=dict)
    _journal_fh: TextIO | None = None

    def write(self, rel: str, text: str, *, batch: bool = False) -> Path:
        """Write one file atomically; ``batch`` defers the fsync to one sync before the commit."""
        path = self.vault.path(rel)
        text = self._guard(rel, text)
        self._remember(rel, path)
        files.atomic_write(path, text, fsync=not batch)
        self.unsynced |= batch
        self.paths.add(rel)
        return path

    def move(self, src_rel: str, dst_rel: str) -> Path:
        src, dst = self.vault.path(src_rel), self.vault.path(dst_rel)
        self._remember(src_rel, src)
        self._remember(dst_rel, dst)
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dst)
        self.paths.update((src_rel, dst_rel))
        return dst

    def _guard(self, rel: str, text: str) -> str:
        from biocortex_cli.store import secrets

        secrets.check_path(rel)
        text, findings = secrets.guard(rel, text, self.vault.secret_policy)
        for f in findings:
            verb = "redacted" if self.vault.secret_policy == secrets.REDACT else "WRITTEN ANYWAY (--allow-secret)"
            sys.stderr.write(f"biocortex: warning: {rel}:{f.line}: {f.kind} in field '{f.field}' {verb}\n")
        if findings and self.vault.secret_policy == secrets.ALLOW:
            self.allowed_secrets += len(findings)
        return text

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

    def _remember(self, rel: str, path: Path) -> None:
        if rel not in self._before:
            self._before[rel] = path.read_bytes() if path.is_file() else None
            self._journal(rel)

    def _journal(self, rel: str) -> None:
        """Note ``rel`` in the journal before touching it, so a killed write can be undone."""
        if self._journal_fh is None:
            (self.vault.state_dir / JOURNAL_NAME).parent.mkdir(parents=True, exist_ok=True)
            self._journal_fh = open(self.vault.state_dir / JOURNAL_NAME, "a", encoding="utf-8")  # noqa: SIM115
        self._journal_fh.write(rel + "\n")
        self._journal_fh.flush()  # in the page cache: survives the death of this process

    def close_journal(self) -> None:
        """The transaction is over (committed or rolled back): its journal is no longer needed."""
        if self._journal_fh is not None:
            self._journal_fh.close()
            self._journal_fh = None
            (self.vault.state_dir / JOURNAL_NAME).unlink(missing_ok=True)


def recover_killed_transaction(vault: Vault) -> list[str]:
    """Undo what a killed writer left half done; call under the write lock.

    A transaction lists every file before it touches it in ``.biocortex/tmp/txn.journal`` and deletes
    the list when it ends. A list found here belongs to a writer that died (SIGKILL, power loss)
    between its first write and its commit: each listed file is put back as HEAD has it (or
    removed if HEAD has none), and unstaged. Returns the paths put back.
    """
    journal = vault.state_dir / JOURNAL_NAME
    try:
        listed = sorted({line for line in journal.read_text(encoding="utf-8").splitlines() if line})
    except FileNotFoundError:
        return []
    git.clear_stale_locks(vault.git_root)
    prefix = vault.root.resolve().relative_to(vault.git_root.resolve())
    full = {rel: (prefix / rel).as_posix() for rel in listed if ".." not in Path(rel).parts}
    tracked = set(git.run(vault.git_root, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD",
                          check=False).split("\0"))
    restore = [full[rel] for rel in full if full[rel] in tracked]
    for rel in full:
        if full[rel] not in tracked:
            with contextlib.suppress(DataError, OSError):
                vault.path(rel).unlink(missing_ok=True)
    spec = "\0".join(full.values())
    git.run_stdin(vault.git_root, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"], spec,
                  check=False)
    if restore:
        git.run_stdin(vault.git_root, ["checkout", "-q", "HEAD", "--pathspec-from-file=-",
                                       "--pathspec-file-nul"], "\0".join(restore))
    sys.stderr.write(f"biocortex: warning: undid a write that was killed before its commit "
                     f"({len(full)} file(s) put back as HEAD has them)\n")
    journal.unlink()
    return list(full)


def find_vault(explicit: str | None = None, cwd: Path | None = None) -> Vault:
    """``--vault``, else $BIOCORTEX_VAULT, else the nearest parent with the config (SPEC §2)."""
    given = explicit or os.environ.get(VAULT_ENV)
    if given:
        root = Path(given).expanduser()
        try:
            found = (root / CONFIG_REL).is_file()
        except OSError as exc:  # e.g. a name too long for the file system
            raise NotFoundError(f"{given[:200]} is not a usable vault path ({exc.strerror or exc})",
                                hint="pass --vault PATH / set BIOCORTEX_VAULT to the vault's folder") from None
        if not found:
            raise NotFoundError(f"{root} is not a biocortex vault (no {CONFIG_REL})",
                                hint=f"run `biocortex init {root}` to create one")
        return Vault(root.resolve())
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_REL).is_file():
            return Vault(folder)
    raise NotFoundError("no biocortex vault here or in any parent folder",
                        hint="run `biocortex init PATH`, or pass --vault PATH / set BIOCORTEX_VAULT")


def template_dir() -> Path:
    """The vault template: package data in a wheel, the repo's folder in a source checkout."""
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
    root = path.expanduser()
    if (root / CONFIG_REL).exists():
        raise BiocortexError(f"{root} is already a biocortex vault; nothing was changed",
                             hint="use it as it is, or choose another folder")
    if root.exists() and not root.is_dir():
        raise BiocortexError(f"{root} exists and is not a folder")
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
