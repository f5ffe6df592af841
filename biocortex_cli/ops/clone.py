"""Joining a team's memory: ``biocortex clone URL [DIR]``.

``git clone`` checks out whatever branch the remote's HEAD names. A bare repository made with
``git init --bare`` on a machine whose default branch is ``master`` names ``master`` while the
vault lives on ``main``, and a plain clone is an empty folder ("remote HEAD refers to nonexistent
ref"). So this clones without a checkout, finds the branch that holds the vault
(``.biocortex/config.yaml``) — the one asked for, else the remote's HEAD branch, else ``main``,
``master``, then any other — checks it out, builds the clone's index and says what it holds.

Stages are reported as :class:`biocortex_cli.progress.Progress` events (a progress bar on a
terminal; off one, a line for the clone and one for the index build), or to ``progress`` if given.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from biocortex_cli.errors import BiocortexError, UsageError
from biocortex_cli.progress import Progress, Sink, plural, report
from biocortex_cli.store import git
from biocortex_cli.store.config import CONFIG_REL
from biocortex_cli.store.vault import Vault

DEFAULT_TIMEOUT = 600.0
USUAL_BRANCHES = ("main", "master")
#: folders whose notes the summary counts, in the order it names them
COUNTED = ("episodes", "archive", "facts", "lessons", "entities")


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str
    author: str
    subject: str

    def as_json(self) -> dict[str, str]:
        return {"sha": self.sha, "date": self.date, "author": self.author, "subject": self.subject}


@dataclass(frozen=True)
class CloneReport:
    url: str
    path: str  # the vault's folder (the clone, or a folder inside it)
    branch: str
    remote_head: str | None  # the branch the remote's HEAD names, when it names one that exists
    notes: dict[str, int]  # folder -> notes (episodes, archive, facts, lessons, entities)
    last_commit: Commit
    indexed_episodes: int
    indexed_facts: int

    def as_json(self) -> dict[str, object]:
        return {"url": self.url, "path": self.path, "branch": self.branch, "remote_head": self.remote_head,
                "notes": self.notes, "last_commit": self.last_commit.as_json(),
                "index": {"episodes": self.indexed_episodes, "facts": self.indexed_facts}}


def default_folder(url: str) -> str:
    """The folder ``git clone URL`` would make: the last part of the address, without ``.git``."""
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    tail = tail[:-4] if tail.endswith(".git") else tail
    if not tail or tail in (".", ".."):
        raise UsageError(f"cannot tell a folder name from {url!r}", hint="name it: biocortex clone URL DIR")
    return tail


def clone(url: str, dest: Path | None = None, *, branch: str | None = None, timeout: float = DEFAULT_TIMEOUT,
          progress: Sink | None = None) -> CloneReport:
    """Clone the vault at ``url`` into ``dest`` (default: like git), on the vault's branch, and
    build its index. Nothing is left behind when it fails."""
    say = progress or report
    target = (dest if dest is not None else Path(default_folder(url))).expanduser()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BiocortexError(f"{target} already exists and is not an empty folder; nothing was cloned",
                             hint="choose another folder: biocortex clone URL DIR")
    made = not target.exists()
    say(Progress("clone", 0, 0, f"cloning {url} into {target}", notice=True))
    try:
        return _clone(url, target, branch, timeout, say)
    except BaseException:
        if made:
            shutil.rmtree(target, ignore_errors=True)
        else:
            for child in target.iterdir():
                with contextlib.suppress(OSError):
                    shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
        raise


def _clone(url: str, target: Path, wanted: str | None, timeout: float, say: Sink) -> CloneReport:
    env = {"GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND") or "ssh -o BatchMode=yes -o ConnectTimeout=15",
           "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    target.resolve().parent.mkdir(parents=True, exist_ok=True)
    proc = git.call(Path.cwd(), "-c", "credential.interactive=never", "clone", "--quiet", "--no-checkout",
                    "--origin", "origin", "--", url, str(target.resolve()), env=env, timeout=timeout)
    if proc.returncode != 0:
        raise BiocortexError(f"cannot clone {url}: {git.reason(proc.stderr + proc.stdout)}",
                             hint="check the address, the network and your access (git ls-remote URL)")
    say(Progress("clone", 1, 1, "cloned"))
    root = target.resolve()
    branches = [b for b in git.run(root, "for-each-ref", "--format=%(refname:strip=3)",
                                   "refs/remotes/origin").split() if b != "HEAD"]
    if not branches:
        raise BiocortexError(f"{url} is empty: nobody has pushed a vault to it yet",
                             hint="whoever set it up runs `biocortex sync` in their vault first (docs/teams.md)")
    remote_head = git.run(root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD",
                          check=False).strip().removeprefix("origin/") or None
    branch, prefix = _vault_branch(root, branches, wanted, remote_head, url)
    say(Progress("checkout", 0, 0, f"checking out {branch}"))
    git.run(root, "checkout", "--quiet", "-B", branch, "--track", f"origin/{branch}")
    say(Progress("checkout", 1, 1, f"checked out {branch}"))
    git.run(root, "remote", "set-head", "origin", branch)
    vault = Vault(root / prefix if prefix else root)
    notes = _count_notes(root, prefix)
    total = sum(n for folder, n in notes.items() if folder != "entities")
    say(Progress("index", 0, total, f"building the index of {plural(total, 'note')}…", notice=True))
    episodes, facts = _build_index(vault)
    say(Progress("index", max(total, 1), max(total, 1), "index built"))
    sha, date, author, subject = git.run(root, "log", "-1", "--format=%h%x00%cI%x00%an%x00%s").strip().split("\0")
    return CloneReport(url=url, path=str(vault.root), branch=branch, remote_head=remote_head, notes=notes,
                       last_commit=Commit(sha, date, author, subject), indexed_episodes=episodes,
                       indexed_facts=facts)


def _vault_branch(root: Path, branches: list[str], wanted: str | None, remote_head: str | None,
                  url: str) -> tuple[str, str]:
    """(branch, folder of the vault inside the repository, "" at its top) to check out."""
    if wanted is not None:
        if wanted not in branches:
            raise BiocortexError(f"{url} has no branch {wanted!r}",
                                 hint=f"its branches: {', '.join(sorted(branches))}")
        order = [wanted]
    else:
        first = [b for b in (remote_head, *USUAL_BRANCHES) if b in branches]
        order = list(dict.fromkeys([*first, *sorted(branches)]))
    for name in order:
        if git.call(root, "cat-file", "-e", f"origin/{name}:{CONFIG_REL}").returncode == 0:
            return name, ""
    for name in order[:5]:  # a vault in a folder of a larger repository (biocortex init --in-repo)
        listed = git.run(root, "ls-tree", "-r", "--name-only", f"origin/{name}", check=False).splitlines()
        nested = sorted(p[: -len(CONFIG_REL) - 1] for p in listed if p.endswith("/" + CONFIG_REL))
        if nested:
            return name, nested[0]
    shown = ", ".join(order[:10]) + (" …" if len(order) > 10 else "")
    raise BiocortexError(f"{url} holds no biocortex vault: no {CONFIG_REL} on {shown}",
                         hint="check the address; a vault is made with `biocortex init` and shared with "
                              "`biocortex sync` (docs/teams.md)")


def _count_notes(root: Path, prefix: str) -> dict[str, int]:
    """Notes per memory folder, from the checked-out tree (git's list: no file is read)."""
    counts = dict.fromkeys(COUNTED, 0)
    base = f"{prefix}/" if prefix else ""
    listed = git.run(root, "ls-files", "-z", "--", *(f"{base}{folder}/" for folder in COUNTED))
    for path in listed.split("\0"):
        if path.endswith(".md") and not path.endswith("/README.md"):
            folder = path[len(base):].split("/", 1)[0]
            if folder in counts:
                counts[folder] += 1
    return counts


def _build_index(vault: Vault) -> tuple[int, int]:
    """Build the new clone's index (episodes and facts); how many of each it holds."""
    from biocortex_cli.facts.index import refresh_facts
    from biocortex_cli.index.build import refresh

    encoding = vault.config.tokenizer.encoding
    conn, report = refresh(vault, encoding)
    try:
        refresh_facts(conn, vault, encoding)
        facts = int(conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0])
    finally:
        conn.close()
    return report.total, facts
