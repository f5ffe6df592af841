"""The few git operations biocortex needs, through the git binary.

Why the binary and not GitPython: measured for this project, GitPython's ``index.add`` +
``index.commit`` cost ~280 ms per commit at 10k files and break on index v4, while ``git`` itself
takes ~30 ms; GitPython also costs ~66 ms to import. See docs/architecture.md.

Every commit happens inside the vault's write lock (:func:`biocortex_cli.store.files.write_lock`)
so concurrent writers never mix files into each other's commits or race on ``index.lock``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

from biocortex_cli.errors import BiocortexError, DataError
from biocortex_cli.records import NamedTuple

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # pathlib (~18 M) too: what recall calls here (worktree_root, head) works on str paths
    import subprocess
    from pathlib import Path

DEFAULT_AUTHOR = "biocortex <biocortex@localhost>"
#: A git ``index.lock`` older than this, found while we hold the vault write lock, was left by
#: a killed process (every biocortex writer holds our lock while git runs).
STALE_LOCK_SECONDS = 10.0
#: glibc's heap padding for git's bulk commands: without it ``fast-import`` grows and trims its heap
#: (``brk``) ~4 times a blob, 49,000 calls for 12,000 notes: 1.4 s of system time against 0.26 s
#: in all with it (docs/performance.md). Other C libraries ignore the variable.
BULK_ENV = {"MALLOC_TOP_PAD_": str(64 << 20)}


class Author(NamedTuple):
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


def parse_author(text: str) -> Author:
    text = text.strip()
    if "<" in text and text.endswith(">"):
        name, _, email = text[:-1].partition("<")
        if name.strip() and email.strip():
            return Author(name.strip(), email.strip())
    if text and "<" not in text and ">" not in text:
        return Author(text, "biocortex@localhost")
    raise DataError(f"author {text!r} is not 'Name <email>'",
                    hint="use --author 'Ada Lovelace <ada@lab.example>'")


def call(root: Path | str, *args: str, env: dict[str, str] | None = None,
         timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run git and return the finished process whatever its exit status, for callers that explain
    failures themselves (sync). Never prompts; ``timeout`` seconds bound a network call."""
    import subprocess  # here, not at the top: reading commands such as recall start no git

    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              env=full_env, check=False, timeout=timeout)
    except FileNotFoundError:
        raise BiocortexError("git is not installed", hint="install git and try again") from None
    except subprocess.TimeoutExpired:
        command = next((a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-c")),
                       args[0])  # the subcommand, not the -c NAME=VALUE before it
        raise BiocortexError(f"git {command} gave no answer within {timeout:g} s", path=str(root),
                             hint="check the network and the remote's address (git remote -v)") from None


def run(root: Path | str, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    proc = call(root, *args, env=env)
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise BiocortexError(f"git {args[0]} failed: {msg[-1] if msg else proc.returncode}",
                             path=str(root), hint="run `biocortex check` and `git status` in the vault")
    return proc.stdout


def reason(text: str) -> str:
    """git's reason: its ``fatal:``/``error:`` lines, what the remote said and why it rejected the
    push, and the files it names — else its last line."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return "no message from git"
    keep = [ln for ln in lines if ln.startswith(("fatal:", "error:", "remote:")) or "[remote rejected]" in ln]
    for i, ln in enumerate(lines):  # "error: … would be overwritten by checkout:" lists the files after it
        if ln.endswith(":") and ln.startswith("error:"):
            keep += [f for f in lines[i + 1 : i + 6] if not f.startswith(("error:", "fatal:", "Please", "Aborting"))]
    keep = list(dict.fromkeys(keep))
    return "; ".join(keep[:8]) if keep else lines[-1]


def worktree_root(path: str) -> str | None:
    """The top folder of the repository ``path`` is in, as ``git rev-parse --show-toplevel`` says,
    found without starting git (a few ms on every command): the nearest folder holding ``.git``
    (a folder, or the file of a linked worktree or a submodule). When $GIT_DIR or $GIT_WORK_TREE
    is set, git decides."""
    if "GIT_DIR" in os.environ or "GIT_WORK_TREE" in os.environ:
        top = toplevel(path)
        return None if top is None else str(top)
    here = os.path.realpath(path)  # Path.resolve()
    while True:  # here and each folder above it
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def toplevel(path: Path | str) -> Path | None:
    try:
        out = run(path, "rev-parse", "--show-toplevel", check=True)
    except BiocortexError:
        return None
    from pathlib import Path

    return Path(out.strip())


def is_ignored(top: Path, path: Path) -> bool:
    """Whether the repository at ``top`` ignores ``path`` (a folder inside it)."""
    rel = path.resolve().relative_to(top.resolve()).as_posix()
    if rel == ".":
        return False
    import subprocess

    proc = subprocess.run(["git", "-C", str(top), "check-ignore", "-q", "--", rel + "/"],
                          capture_output=True, check=False)
    return proc.returncode == 0


def init(root: Path) -> None:
    run(root, "init", "-q", "-b", "main")


def head(root: Path | str) -> str | None:
    """The commit HEAD points at, read from files (no subprocess), or None before any commit."""
    from biocortex_cli.store.files import is_file

    git_dir = os.path.join(root, ".git")
    if is_file(git_dir):  # worktree or submodule: fall back to git
        out = run(root, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()
        return out or None
    try:
        ref = _read_text(os.path.join(git_dir, "HEAD")).strip()
    except OSError:
        return None
    if not ref.startswith("ref: "):
        return ref or None
    name = ref[5:]
    try:
        return _read_text(os.path.join(git_dir, name)).strip()
    except OSError:
        pass
    try:
        for line in _read_text(os.path.join(git_dir, "packed-refs")).splitlines():
            if line.endswith(" " + name):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return None


def _read_text(path: str) -> str:
    """``Path(path).read_text()``, without pathlib."""
    with open(path) as fh:
        return fh.read()


def configured_author(root: Path) -> Author | None:
    """``user.name`` and ``user.email`` as ``git config`` resolves them (the last value of each,
    includes followed), in one process: ``--get-regexp`` lists every level's values in order."""
    out = run(root, "config", "-z", "--get-regexp", r"^user\.(name|email)$", check=False)
    found: dict[str, str] = {}
    for entry in out.split("\0"):
        key, _, value = entry.partition("\n")
        if key in ("user.name", "user.email"):
            found[key] = value.strip()
    name, email = found.get("user.name", ""), found.get("user.email", "")
    if name and email:
        return Author(name, email)
    return None


def lock_in_use(lock: Path, repo: Path | None = None) -> bool | None:
    """Whether a live process may still be using the git lock file ``lock``.

    On Linux, False (stale at once) when no process of the lock's owner holds it open
    (``/proc/*/fd``) and no git process of that owner runs in this repository (git closes the
    lock before renaming it into place; its cwd gives it away in that gap). True when one does.
    None when this cannot be known (no ``/proc``, or the lock belongs to another user whose
    processes we may not inspect): the caller falls back to the lock's age.
    """
    try:
        st = lock.stat()
    except FileNotFoundError:
        return False
    from pathlib import Path

    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir() or st.st_uid != os.getuid():
        return None
    target = (st.st_dev, st.st_ino)
    if repo is None:  # the folder that holds .git/
        repo = next((p.parent for p in lock.parents if p.name == ".git"), lock.parent.parent)
    top = str(repo.resolve())
    me = str(os.getpid())
    try:
        pids = [p for p in os.listdir(proc) if p.isdigit() and p != me]
    except OSError:
        return None
    for pid in pids:
        base = f"/proc/{pid}"
        try:
            if os.stat(base).st_uid != st.st_uid:
                continue
            with open(f"{base}/comm", encoding="utf-8", errors="replace") as fh:
                comm = fh.read().strip()
            if comm.startswith("git"):
                cwd = os.readlink(f"{base}/cwd")
                if cwd == top or cwd.startswith(top + os.sep):
                    return True
            with os.scandir(f"{base}/fd") as fds:
                for fd in fds:
                    try:
                        fst = os.stat(fd.path)
                    except OSError:
                        continue
                    if (fst.st_dev, fst.st_ino) == target:
                        return True
        except OSError:  # the process ended meanwhile, or is not ours to inspect
            continue
    return False


def git_locks(root: Path) -> list[Path]:
    """The lock files git may hold in ``root``'s repository while it writes: the index, HEAD,
    packed-refs, config and every ref (``refs/**/*.lock``, left by a killed ``update-ref``)."""
    from pathlib import Path

    gitdir = root / ".git"
    found = [gitdir / name for name in ("index.lock", "HEAD.lock", "packed-refs.lock", "config.lock")]
    found = [p for p in found if p.exists()]
    for dirpath, _dirs, names in os.walk(gitdir / "refs"):
        found.extend(Path(dirpath) / n for n in names if n.endswith(".lock"))
    return sorted(found)


def clear_stale_locks(root: Path) -> list[Path]:
    """Remove the git lock files a killed process left (:func:`git_locks`); returns those removed.

    Called under the vault's write lock. A lock no live process uses (:func:`lock_in_use`) goes
    at once; where that cannot be known (no ``/proc``, another user's lock) it goes once it is
    ``STALE_LOCK_SECONDS`` old, the portable rule. A lock a live process holds is never removed:
    after ``STALE_LOCK_SECONDS`` of waiting for it, a clear error.
    """
    removed: list[Path] = []
    deadline = time.monotonic() + STALE_LOCK_SECONDS
    for lock in git_locks(root):
        while lock.exists():
            try:
                age = time.time() - lock.stat().st_mtime
            except FileNotFoundError:
                break
            in_use = lock_in_use(lock, root)
            if in_use is True and time.monotonic() >= deadline:  # a live git: never pull its lock away
                raise BiocortexError(f"git is busy: {lock} is held by a running process", path=str(root), code="locked",
                                     hint="wait for that git command to finish (a person's, or an "
                                          "Obsidian plugin's), then try again")
            if in_use is False or (in_use is None and age >= STALE_LOCK_SECONDS):
                try:
                    lock.unlink()
                except FileNotFoundError:
                    break
                import sys

                print(f"biocortex: warning: removed a stale git lock {lock} left by a killed process",
                      file=sys.stderr)
                removed.append(lock)
                break
            time.sleep(0.05)
    return removed


def unfinished(root: Path) -> tuple[str, str] | None:
    """(what, how to finish it) when a rebase, merge, cherry-pick or revert waits for a person."""
    git_dir = root / ".git"
    for name, what, how in (("rebase-merge", "a rebase", "git rebase --continue or --abort"),
                            ("rebase-apply", "a rebase", "git rebase --continue or --abort"),
                            ("MERGE_HEAD", "a merge", "git commit or git merge --abort"),
                            ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue or --abort"),
                            ("REVERT_HEAD", "a revert", "git revert --continue or --abort")):
        if (git_dir / name).exists():
            return what, how
    return None


#: in the git directory while ``biocortex sync`` rebases (it names the commit the vault was at): left
#: behind, it says the rebase in progress is a killed sync's, not a person's
SYNC_REBASE = "biocortex-sync-rebase"
#: a killed sync's rebase that cannot be undone safely: what to tell the person
_KILLED_SYNC_HINT = ("a `biocortex sync` was stopped during its rebase, which could not be undone safely (a file "
                     "changed since): copy any edit of yours aside, then `git rebase --abort` puts the vault back "
                     "as it was before that sync (every commit is kept), and `biocortex sync` again")


def undo_killed_sync(root: Path) -> str | None:
    """Undo the rebase of a ``biocortex sync`` that was killed (its :data:`SYNC_REBASE` mark is
    still there). Call it holding the vault's write lock: sync rebases under that lock, so the sync
    that left the mark is gone. ``git rebase --abort`` puts the branch back at the commits it had
    before that sync (every one of them kept), but only when no file differs from git's index: a
    file changed since (a person's edit, a conflict git left) makes it do nothing, and the error
    :func:`refuse_unfinished` raises says what to do. The commit the vault is back at, or None."""
    mark = root / ".git" / SYNC_REBASE
    if not mark.is_file():
        return None
    if unfinished(root) is None:  # the sync was killed after its rebase ended, or before it began
        mark.unlink(missing_ok=True)
        return None
    status = run(root, "status", "--porcelain", "--untracked-files=no", check=False).splitlines()
    if any(line[1:2] != " " or line[:1] == "U" or line[:2] in ("AA", "DD") for line in status if line):
        return None
    if call(root, "rebase", "--abort").returncode != 0 and not _quit_unstarted_rebase(root, mark):
        return None
    if unfinished(root) is not None:
        return None
    mark.unlink(missing_ok=True)
    return head(root)


def _quit_unstarted_rebase(root: Path, mark: Path) -> bool:
    """A rebase killed while git wrote its state (``rebase-merge`` holds ``head-name`` but no
    ``orig-head``): ``--abort`` cannot read it. When the branch is still at the commit the mark
    names, nothing was rebased yet: drop git's state (``--quit``) and put HEAD back on the branch."""
    before = mark.read_text(encoding="utf-8", errors="replace").strip()
    try:
        branch = (root / ".git" / "rebase-merge" / "head-name").read_text(encoding="utf-8").strip()
    except OSError:
        branch = run(root, "symbolic-ref", "-q", "HEAD", check=False).strip()
    if not before or not branch.startswith("refs/heads/") or \
            run(root, "rev-parse", "--verify", "-q", branch, check=False).strip() != before:
        return False
    if call(root, "rebase", "--quit").returncode != 0:
        return False
    if run(root, "symbolic-ref", "-q", "HEAD", check=False).strip() != branch:
        return call(root, "checkout", "-q", branch.removeprefix("refs/heads/")).returncode == 0
    return True


def conflict_markers(text: str) -> list[int]:
    """The lines (1-based) of the conflict markers git writes into a file it could not merge
    (``<<<<<<< HEAD`` … ``>>>>>>> 1a2b3c4 (message)``), when the text has both kinds: a file
    committed so keeps both sides' words between them, and is not a valid note."""
    opening, closing = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("<<<<<<<") and line[7:8] in ("", " "):
            opening.append(number)
        elif line.startswith(">>>>>>>") and line[7:8] in ("", " "):
            closing.append(number)
    return sorted(opening + closing) if opening and closing else []


def refuse_unfinished(root: Path) -> None:
    """Refuse to write while a rebase, merge or cherry-pick waits for a person, or HEAD is
    detached: a commit made there is lost when the person aborts (``git rebase --abort``). A
    killed sync's rebase is undone first (:func:`undo_killed_sync`)."""
    git_dir = root / ".git"
    if not git_dir.is_dir():
        return  # a worktree or submodule (.git is a file): git itself guards those
    undo_killed_sync(root)
    waiting = unfinished(root)
    if waiting is not None:
        killed = (git_dir / SYNC_REBASE).is_file()
        raise BiocortexError(f"{waiting[0]} is in progress in the vault's repository; nothing was written",
                             path=str(root),
                             hint=_KILLED_SYNC_HINT if killed else f"finish it first ({waiting[1]}), then write again")
    try:
        detached = not (git_dir / "HEAD").read_text().startswith("ref: ")
    except OSError:
        return
    if detached:
        raise BiocortexError("the vault's HEAD is detached (no branch); nothing was written", path=str(root),
                             hint="check out the vault's branch first (git switch main)")


def signing(root: Path) -> bool:
    """Whether the repository asks for signed commits (``commit.gpgsign``, any config level)."""
    return run(root, "config", "--bool", "--get", "commit.gpgsign", check=False).strip() == "true"


def hooks(root: Path) -> list[str]:
    """The commit hooks a person's ``git commit`` would run here, which biocortex's commits skip."""
    folder = root / run(root, "rev-parse", "--git-path", "hooks", check=False).strip()  # core.hooksPath too
    names = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")
    return [n for n in names if (folder / n).is_file() and os.access(folder / n, os.X_OK)]


def commit(root: Path, paths: Sequence[str], message: str, author: Author, *,
           ready: Callable[[], None] | None = None,
           staged: Callable[[dict[str, str | None], bool], None] | None = None) -> None:
    """Stage ``paths`` (added, changed or removed) and commit exactly them. Call under the lock.
    ``ready()`` is called before HEAD moves (a batch's sync of its files runs meanwhile);
    ``staged(changes, sign)`` once they are staged, before the commit, with what the index now
    changes against HEAD (:func:`staged_changes`) and whether commits are signed: it may commit
    on HEAD without touching the index (a person's uncommitted edit, store/vault.py), and this
    commit then goes on top.

    Commits are signed when the repository asks for it (``commit.gpgsign``), as ``git commit``
    would; git hooks are not run (``--no-verify``): a hook may prompt, take seconds or reject
    what biocortex validated itself (``doctor`` says when hooks are installed)."""
    clear_stale_locks(root)
    ident = _ident(author, author)
    # Paths come on stdin so thousands never hit the argv limit. update-index takes each as the
    # literal path it is (added, changed, or removed when it is gone); `git add -A` matches
    # thousands of pathspecs against every file, 3.5-4.7 s for 10,000 notes against 0.3 s here.
    spec = "\0".join(paths)
    run_stdin(root, ["update-index", "--add", "--remove", "-z", "--stdin"], spec + "\0", {**ident, **BULK_ENV})
    sign = signing(root)
    changes = staged_changes(root) if head(root) else None  # read from the files: no process
    if staged is not None and changes is not None:
        staged(changes, sign)
    if changes is not None and _commit_staged(root, paths, set(changes), message, ident, sign, ready):
        return
    if ready is not None:
        ready()
    try:
        run_stdin(root, ["-c", "gc.auto=0", "commit", "-q", "--no-verify", "-m", message,
                          "--pathspec-from-file=-", "--pathspec-file-nul"], spec, ident)
    except BiocortexError as exc:
        if sign:
            exc.hint = f"if signing failed: {SIGNING_HINT.format(root=root)}; else: {exc.hint}"
        raise


def _ident(author: Author, committer: Author) -> dict[str, str]:
    return {"GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email,
            "GIT_COMMITTER_NAME": committer.name, "GIT_COMMITTER_EMAIL": committer.email}


def staged_changes(root: Path) -> dict[str, str | None]:
    """The paths whose staged version differs from HEAD's, each with HEAD's blob id there (None:
    HEAD has no such file), from one ``git diff --cached --raw``."""
    out = run(root, "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", check=False).split("\0")
    changes: dict[str, str | None] = {}
    for meta, name in zip(out[0::2], out[1::2], strict=False):
        fields = meta.split()
        if name and len(fields) >= 5:
            changes[name] = None if fields[2].strip("0") == "" else fields[2]
    return changes


def write_blob(root: Path, path: str, data: bytes) -> str:
    """Store ``data`` as the blob ``git add`` would make of it at ``path`` (its attributes: line
    endings, filters applied); returns its id."""
    import subprocess

    proc = subprocess.run(["git", "-C", str(root), "hash-object", "-w", "--stdin", f"--path={path}"], input=data,
                          capture_output=True, check=False,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    if proc.returncode != 0:
        raise BiocortexError(f"git hash-object failed: {reason(proc.stderr.decode(errors='replace'))}", path=str(root),
                             hint="check `git status` in the vault; nothing was committed")
    return proc.stdout.decode().strip()


def commit_blobs(root: Path, blobs: dict[str, str | None], message: str, author: Author, committer: Author, *,
                 index: Path, sign: bool) -> tuple[str, str]:
    """A commit whose parent is HEAD and whose tree is HEAD's with these files changed (path from
    the top -> blob id, None: no file), built in the temporary index file ``index``: the
    repository's index and the work tree are left alone. HEAD does not move (:func:`advance_head`).
    Returns (the new commit, its parent)."""
    parent = head(root)
    if not parent:
        raise BiocortexError("the vault's repository has no commit yet", path=str(root))
    env = {**_ident(author, committer), "GIT_INDEX_FILE": str(index)}
    index.unlink(missing_ok=True)
    try:
        run(root, "read-tree", parent, env=env)
        lines = "".join(f"100644 {blob}\t{path}\0" if blob else f"0 {'0' * 40}\t{path}\0"
                        for path, blob in sorted(blobs.items()))
        run_stdin(root, ["update-index", "-z", "--index-info"], lines, env)
        tree = run(root, "write-tree", env=env).strip()
    finally:
        index.unlink(missing_ok=True)
    proc = _commit_tree(root, tree, parent, message, env, sign)
    if proc.returncode != 0:
        raise BiocortexError(f"git commit-tree failed: {reason(proc.stderr)}", path=str(root),
                             hint=SIGNING_HINT.format(root=root) if sign else "check `git status` in the vault")
    return proc.stdout.strip(), parent


def advance_head(root: Path, new: str, parent: str, message: str, env: dict[str, str] | None = None) -> None:
    """Move HEAD (its branch) from ``parent`` to the commit ``new``, as ``git commit`` logs it."""
    run(root, "update-ref", "-m", f"commit: {message.splitlines()[0]}", "HEAD", new, parent, env=env)


def _commit_tree(root: Path, tree: str, parent: str, message: str, env: dict[str, str],
                 sign: bool) -> subprocess.CompletedProcess[str]:
    # commit-tree ignores commit.gpgsign (git commit honours it): -S asks for the signature
    import subprocess

    return subprocess.run(["git", "-C", str(root), "commit-tree", tree, "-p", parent, *(["-S"] if sign else []),
                           "-F", "-"], input=message, capture_output=True, text=True, check=False,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **env})


SIGNING_HINT = ("commit.gpgsign is on for this repository: make the signing key usable without a prompt "
                "(gpg-agent or ssh-agent, user.signingkey), or turn signing off for the vault "
                "(git -C {root} config commit.gpgsign false); nothing was committed")


def _commit_staged(root: Path, paths: Sequence[str], names: set[str], message: str, ident: dict[str, str],
                   sign: bool, ready: Callable[[], None] | None) -> bool:
    """Commit the index as it is, with plumbing, when it holds exactly our staged paths (``names``:
    what it changes against HEAD).

    ``git commit -- paths`` builds a temporary index (two passes over every entry): at 100k notes
    it took 0.96 s here, against 0.16 s for write-tree + commit-tree + update-ref. When anything
    else is staged (a person's work in progress), or there is no HEAD yet, returns False and the
    pathspec commit runs instead, so nobody else's staged change ever rides along."""
    parent = head(root)  # read from the files: one git process fewer per commit
    if not parent:
        return False
    if not names or not names <= set(paths):
        return False  # nothing staged (the porcelain commit says so), or someone else's changes
    tree = run(root, "write-tree", env=ident).strip()
    proc = _commit_tree(root, tree, parent, message, ident, sign)
    if proc.returncode != 0:
        if sign:  # without -S commit-tree has nothing left to fail on here
            raise BiocortexError(f"the commit could not be signed: {reason(proc.stderr)}", path=str(root),
                                 hint=SIGNING_HINT.format(root=root))
        return False
    if ready is not None:
        ready()
    advance_head(root, proc.stdout.strip(), parent, message, ident)
    return True


def run_stdin(root: Path, args: list[str], stdin: str, env: dict[str, str] | None = None, *,
              check: bool = True) -> None:
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}
    import subprocess

    proc = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True,
                          text=True, env=full_env, check=False)
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise BiocortexError(f"git {args[0] if args[0] != '-c' else args[2]} failed: "
                             f"{msg[-1] if msg else proc.returncode}", path=str(root),
                             hint="check `git status` in the vault; nothing was committed")


#: a write of at least this many files packs what it added at once (``git repack -d``)
PACK_AFTER_FILES = 500
#: loose objects beyond which any write packs them, as ``git gc --auto`` would (git's own default)
LOOSE_LIMIT = 6700


def _objects_dir(root: Path) -> Path:
    from pathlib import Path

    if (root / ".git").is_dir():
        return root / ".git" / "objects"
    found = Path(run(root, "rev-parse", "--git-path", "objects", check=False).strip() or ".git/objects")
    return found if found.is_absolute() else root / found  # a worktree or a separate git dir


def loose_estimate(root: Path) -> int:
    """Loose objects in the repository, estimated as git's ``gc --auto`` does: the objects of one
    of the 256 fan-out folders (``objects/17``) times 256 — one directory listing, no process."""
    try:
        return 256 * sum(1 for e in os.scandir(_objects_dir(root) / "17") if len(e.name) == 38)
    except OSError:
        return 0


def _loose_ids(objects: Path) -> list[str]:
    """The ids of the loose objects under ``objects``: 256 folder listings, no process."""
    found: list[str] = []
    for fan in range(256):
        try:
            with os.scandir(objects / f"{fan:02x}") as entries:
                found.extend(f"{fan:02x}{e.name}" for e in entries if len(e.name) == 38)
        except OSError:
            continue
    return found


def maintain(root: Path, written: int) -> bool:
    """Keep history packed after a commit of ``written`` files (issue 15: one loose object per
    file, tree and commit otherwise piles up to ~50 KB of history per fact). A large write packs
    its objects at once (the loose ones as listed, when few are: its notes were packed as they
    were written, ``preload``; else ``repack -d``); otherwise loose objects are packed when the estimate passes
    ``LOOSE_LIMIT`` more than the last packing left (unreachable ones stay loose until
    ``git gc`` prunes them: they must not make every write pack again), and ``git gc --auto``
    then also merges packs when there are too many. Best effort: a failure is never the write's
    (the commit has landed). True when it packed."""
    estimate = loose_estimate(root)
    mark = _objects_dir(root) / "info" / "biocortex-packed"
    try:
        left = int(mark.read_text())
    except (OSError, ValueError):
        left = 0
    if written < PACK_AFTER_FILES and estimate < left + LOOSE_LIMIT:
        return False
    import subprocess

    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **BULK_ENV}
    steps: list[tuple[list[str], str | None]] = [(["repack", "-d", "-q"], None)]
    if estimate < left + LOOSE_LIMIT:
        # a large write with few loose objects (its blobs were packed first: preload): pack the
        # loose objects as listed, not as `repack -d` finds them by walking all of history
        objects = _objects_dir(root)
        steps = [(["pack-objects", "--incremental", "-q", str(objects / "pack" / "pack")],
                  "".join(f"{name}\n" for name in _loose_ids(objects))),
                 (["prune-packed", "-q"], None)]
    steps.append((["-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"], None))
    for args, stdin in steps:
        try:
            subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, check=False, env=env,
                           timeout=600, text=True)
        except (OSError, subprocess.TimeoutExpired):
            return False
    try:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.write_text(str(loose_estimate(root)))
    except OSError:
        pass
    return True


def have_blobs(root: Path, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` that are blobs in the repository's object store (one ``cat-file``)."""
    if not ids:
        return set()
    import subprocess

    proc = subprocess.run(["git", "-C", str(root), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
                          input="".join(f"{i}\n" for i in ids), capture_output=True, text=True, check=False,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    if proc.returncode != 0:
        return set()
    return {line.split(" ", 1)[0] for line in proc.stdout.splitlines() if line.endswith(" blob")}


def blobs(root: Path | str, names: Sequence[str]) -> list[bytes | None]:
    """The bytes of each of ``names`` (an object id, or ``rev:path``), in order, in one ``cat-file
    --batch``; None for a name that is missing or not a blob."""
    if not names:
        return []
    import subprocess

    proc = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"],
                          input="".join(f"{n}\n" for n in names).encode(), capture_output=True, check=False,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    data, pos = proc.stdout, 0
    out: list[bytes | None] = []
    for _name in names:
        nl = data.find(b"\n", pos)
        if nl == -1:
            out.append(None)
            continue
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) != 3:  # "<name> missing" (or ambiguous): no contents follow
            out.append(None)
            continue
        size = int(header[2])
        out.append(data[pos:pos + size] if header[1] == b"blob" else None)
        pos += size + 1
    return out


def blob(root: Path, ident: str) -> bytes | None:
    """The bytes of the blob ``ident``, None when the object store lacks it."""
    import subprocess

    proc = subprocess.run(["git", "-C", str(root), "cat-file", "blob", ident], capture_output=True, check=False,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    return proc.stdout if proc.returncode == 0 else None


#: the ref a preload's commit is made on, deleted in the same stream (it never outlives the preload)
PRELOAD_REF = "refs/biocortex/preload"


def preload(root: Path, notes: Sequence[tuple[str, bytes]], parent: str | None = None) -> bool:
    """Write the blobs of ``notes`` ((path from the repository's top, bytes)) into the object
    store as one pack (``git fast-import``) before a large write stages their files, together
    with the trees of ``parent``'s tree holding them: ``update-index`` then finds each blob there
    and writes no loose object, and the commit's ``write-tree`` finds its trees there when the
    index holds ``parent`` and these files (what a batch write stages), so it writes none either
    — no loose objects to pack and delete afterwards (each file created or deleted costs, and
    ext4 skips recently freed inodes when it makes new ones). The trees come with a commit on
    :data:`PRELOAD_REF`, deleted by the same stream. Harmless when the write fails or stages
    something else: the objects are unreachable and ``git gc`` prunes them. Best effort: False
    if git refused."""
    import subprocess

    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **BULK_ENV}
    try:
        proc = subprocess.Popen(["git", "-C", str(root), "fast-import", "--quiet", "--done"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        assert proc.stdin is not None
        out = proc.stdin
        for mark, (_path, blob) in enumerate(notes, 1):
            out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(blob), blob))
        out.write(b"commit %s\ncommitter biocortex <biocortex@localhost> 0 +0000\ndata 0\n" % PRELOAD_REF.encode())
        if parent:
            out.write(b"from %s\n" % parent.encode())
        for mark, (path, _blob) in enumerate(notes, 1):
            out.write(b"M 100644 :%d %s\n" % (mark, _quoted(path)))
        out.write(b"\nreset %s\nfrom %s\n\ndone\n" % (PRELOAD_REF.encode(), b"0" * 40))
        out.close()
        return proc.wait(timeout=600) == 0
    except (OSError, subprocess.TimeoutExpired, BrokenPipeError):
        return False


def _quoted(path: str) -> bytes:
    """``path`` as fast-import reads it: as it is, or C-quoted when it starts with a quote or
    holds a newline or a backslash."""
    raw = path.encode("utf-8", "surrogateescape")
    if not raw.startswith(b'"') and b"\n" not in raw and b"\\" not in raw:
        return raw
    return b'"' + raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n") + b'"'
