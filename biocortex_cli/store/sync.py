"""Team sync: bring the vault level with its git remote, both ways (``biocortex sync``).

Under the vault's write lock (so no local write races it): fetch, rebase our commits onto the
remote's, push; when the push is refused because the remote moved meanwhile, fetch, rebase and
push again, a bounded number of times. The feedback logs are append-only and merged with
``merge=union`` (``.gitattributes``), which git applies during a rebase too, so two clones
appending to one file never conflict. Entity notes that both sides created for the same new
name differ only in ``created`` and ``author``: the remote's copy is kept. Any other conflict
is a person's to solve: the rebase is aborted, the vault is left exactly as it was, and the
error names the files.

git never prompts (no terminal, ssh in batch mode) and every network call has a time limit.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from biocortex_cli.errors import BiocortexError
from biocortex_cli.store import files, git
from biocortex_cli.store.history import Digest, digest
from biocortex_cli.store.notes import parse_note
from biocortex_cli.store.vault import CONTENT_DIRS, Vault, recover_killed_transaction

#: pushes refused because another clone pushed first, before giving up
MAX_ATTEMPTS = 5
DEFAULT_TIMEOUT = 60.0
#: what git says when another clone pushed first (retry); any other refusal — a server hook, a
#: protected branch ("[remote rejected] … declined") — is final
_REJECTED = ("[rejected]", "fetch first", "non-fast-forward", "cannot lock ref", "failed to update ref",
             "incorrect old value")
#: frontmatter keys in which two generated copies of one entity note may differ
_GENERATED_KEYS = ("created", "author")


@dataclass(frozen=True)
class SyncReport:
    remote: str
    url: str
    branch: str
    before: str | None
    after: str | None
    pulled: int  # commits that arrived from the remote
    pushed: int  # our commits the remote now has
    attempts: int
    merged_notes: list[str]  # settled without a person: entity notes (remote copy), facts (merged)
    arrived: Digest

    def as_json(self) -> dict[str, object]:
        return {"remote": self.remote, "url": self.url, "branch": self.branch, "before": self.before,
                "after": self.after, "pulled": self.pulled, "pushed": self.pushed, "attempts": self.attempts,
                "merged_notes": self.merged_notes, "arrived": self.arrived.as_json()}


class SyncConflict(BiocortexError):
    """Our commits and the remote's change the same lines of a note: a person decides."""


def sync(vault: Vault, *, author: git.Author, remote: str | None = None,
         timeout: float = DEFAULT_TIMEOUT, limit: int | None = None) -> SyncReport:
    """Rebase on the remote, push, and say what arrived (``limit``: see :func:`history.digest`)."""
    root = vault.git_root
    if _rebasing(root):  # before the detached check: a paused rebase detaches HEAD
        raise BiocortexError("a rebase is in progress in the vault; nothing was synced", path=str(root),
                             hint="finish it (git rebase --continue) or undo it (git rebase --abort)")
    branch = git.run(root, "symbolic-ref", "--short", "-q", "HEAD", check=False).strip()
    if not branch:
        raise BiocortexError("the vault's HEAD is detached: there is no branch to sync", path=str(root),
                             hint="check out the vault's branch first (git switch main)")
    name = _remote(root, branch, remote)
    url = git.run(root, "remote", "get-url", name, check=False).strip()
    ident = {"GIT_COMMITTER_NAME": author.name, "GIT_COMMITTER_EMAIL": author.email}
    net = {**ident, "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND")
           or "ssh -o BatchMode=yes -o ConnectTimeout=15", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    with files.write_lock(vault.state_dir / "write.lock"):
        recover_killed_transaction(vault)
        git.clear_stale_locks(root)
        _refuse_unclean(vault, root)
        before = git.head(root)
        merged: list[str] = []
        upstream: str | None = None
        pushed = 0
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                upstream = _fetch(root, name, url, branch, net, timeout)
            except BiocortexError as exc:
                if attempt > 1:  # our commits were already rebased on the remote's: say so
                    exc.hint = "nothing is lost: your commits are in the vault, on top of the remote's; " \
                               "run `biocortex sync` again when the remote answers"
                raise
            if upstream is not None:
                _refuse_links(root, upstream, name)
                if not _is_ancestor(root, upstream, "HEAD"):
                    merged += _rebase(vault, root, upstream, before, ident)
                ahead = int(git.run(root, "rev-list", "--count", f"{upstream}..HEAD").strip())
            else:  # an empty remote: everything we have goes up
                ahead = int(git.run(root, "rev-list", "--count", "HEAD").strip())
            if ahead == 0:
                break
            proc = git.call(root, "-c", "credential.interactive=never", "push", "--porcelain", name,
                            f"HEAD:refs/heads/{branch}", env=net, timeout=timeout)
            if proc.returncode == 0:
                pushed = ahead
                break
            said = proc.stdout + proc.stderr
            if not any(word in said for word in _REJECTED):
                raise BiocortexError(
                    f"could not push to {name} ({url}): {_last_line(said)}", path=str(vault.root),
                    hint="your commits are safe in the vault and already on top of the remote's; "
                         "fix access to the remote and run `biocortex sync` again")
            time.sleep(random.uniform(0.05, 0.3) * attempt)  # another clone pushed first: again
        else:
            raise BiocortexError(f"the remote {name} kept moving: {MAX_ATTEMPTS} pushes were refused",
                                 path=str(vault.root),
                                 hint="nothing is lost (your commits are in the vault); run `biocortex sync` again")
        after = git.head(root)
        base = _merge_base(root, before, upstream) if upstream and before else None
        arrived = digest(vault, base, upstream, limit=limit) if upstream else digest(vault, after, after)
    return SyncReport(remote=name, url=url, branch=branch, before=before, after=after,
                      pulled=len(arrived.commits), pushed=pushed, attempts=attempt,
                      merged_notes=sorted(set(merged)), arrived=arrived)


def _remote(root: Path, branch: str, wanted: str | None) -> str:
    names = git.run(root, "remote", check=False).split()
    if wanted:
        if wanted not in names:
            raise BiocortexError(f"the vault has no remote named {wanted!r}", path=str(root),
                                 hint=f"its remotes: {', '.join(names) or 'none'} (git remote -v)")
        return wanted
    configured = git.run(root, "config", f"branch.{branch}.remote", check=False).strip()
    if configured in names:
        return configured
    if "origin" in names:
        return "origin"
    if len(names) == 1:
        return names[0]
    if not names:
        raise BiocortexError("the vault has no git remote to sync with", path=str(root),
                             hint="add the team's shared repository: `git remote add origin URL` "
                                  "(e.g. a bare repository: git init --bare /shared/lab-memory.git)")
    raise BiocortexError(f"the vault has several remotes ({', '.join(names)}) and none is 'origin'",
                         path=str(root), hint="name one: biocortex sync --remote NAME")


def _refuse_unclean(vault: Vault, root: Path) -> None:
    """Stop when a change is not committed: any tracked file (a rebase needs a clean tree), or a
    new file in the memory folders (a note someone has not committed yet). Other untracked files
    (an Obsidian plugin) do not matter unless the remote brings the same path: git then refuses
    the rebase before touching anything."""
    prefix = vault.root.resolve().relative_to(root.resolve()).as_posix()
    memory = tuple(f"{d}/" if prefix == "." else f"{prefix}/{d}/" for d in (*CONTENT_DIRS, "feedback"))
    status = git.run(root, "status", "--porcelain", "-z", "--untracked-files=all")
    dirty = [entry[3:] for entry in status.split("\0")
             if len(entry) > 3 and (not entry.startswith("??") or entry[3:].startswith(memory))]
    if not dirty:
        return
    shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
    if all("/.obsidian/" in f"/{p}" for p in dirty):
        hint = ("Obsidian rewrote its settings: keep them (git commit -am 'obsidian: settings') or "
                "drop them (git checkout -- .obsidian), and sync again")
    else:
        hint = ("sync commits nothing of yours: run `biocortex check`, then commit them "
                "(git add … && git commit -m '…') or put them aside (git stash -u), and sync again")
    raise BiocortexError(f"the vault has {len(dirty)} uncommitted change(s): {shown}; nothing was synced",
                         path=str(root), hint=hint)


def _refuse_links(root: Path, upstream: str, name: str) -> None:
    """Refuse a remote that would bring symbolic links into the vault: biocortex never follows
    one, and a link committed by a teammate (``AGENTS.md -> ~/.ssh/id_rsa``, ``.biocortex/logs ->
    /elsewhere``) is an attack on every clone. Nothing is merged; the fetch alone happened."""
    raw = git.run(root, "diff", "--raw", "--no-renames", "-z", "HEAD", upstream, check=False).split("\0")
    links = [raw[i + 1] for i in range(0, len(raw) - 1, 2) if raw[i].startswith(":") and
             raw[i].split()[1] == "120000"]
    if links:
        shown = ", ".join(links[:5]) + (f" and {len(links) - 5} more" if len(links) > 5 else "")
        raise BiocortexError(f"the remote {name} brings {len(links)} symbolic link(s): {shown}; nothing was synced",
                             path=str(root),
                             hint="biocortex never follows a link in a vault; ask who committed them to replace "
                                  "them by real files (git rm --cached PATH), then sync again")


def _fetch(root: Path, name: str, url: str, branch: str, env: dict[str, str], timeout: float) -> str | None:
    """Fetch the remote's branch; its commit, or None when the remote has no such branch yet."""
    tracking = f"refs/remotes/{name}/{branch}"
    proc = git.call(root, "-c", "credential.interactive=never", "fetch", "--quiet", "--no-tags", name,
                    f"+refs/heads/{branch}:{tracking}", env=env, timeout=timeout)
    if proc.returncode != 0:
        said = proc.stderr + proc.stdout
        if "couldn't find remote ref" in said:
            return None
        raise BiocortexError(f"cannot reach the remote {name} ({url}): {_last_line(said)}",
                             path=str(root),
                             hint="check the address (git remote -v), the network and your access; "
                                  "the vault was not changed")
    return git.run(root, "rev-parse", "--verify", "-q", tracking).strip() or None


def _is_ancestor(root: Path, a: str, b: str) -> bool:
    return git.call(root, "merge-base", "--is-ancestor", a, b).returncode == 0


def _merge_base(root: Path, a: str, b: str) -> str | None:
    return git.run(root, "merge-base", a, b, check=False).strip() or None


def _rebase(vault: Vault, root: Path, upstream: str, before: str | None, ident: dict[str, str]) -> list[str]:
    """Put our commits on top of ``upstream``; entity notes and facts merged. On a real conflict, abort:
    HEAD and the files are back at ``before``, and SyncConflict names the files."""
    if before and _merge_base(root, before, upstream) is None:
        raise BiocortexError("the vault and its remote share no history; nothing was synced", path=str(root),
                             hint="clone the remote instead (git clone URL) and write there")
    env = {**ident, "GIT_EDITOR": "true"}
    merged: list[str] = []
    proc = git.call(root, "-c", "rebase.autoStash=false", "-c", "core.hooksPath=/dev/null", "rebase",
                    "--no-autostash", "--quiet", upstream, env=env)
    while proc.returncode != 0:
        conflicted = [p for p in git.run(root, "diff", "--name-only", "--diff-filter=U", "-z").split("\0") if p]
        said = proc.stdout + proc.stderr
        resolutions = {p: _resolve(vault, root, p) for p in conflicted}
        if conflicted and all(r is not None for r in resolutions.values()):
            for path, text in resolutions.items():
                if text == "":  # generated entity notes: rebasing, "ours" is the remote's copy
                    git.run(root, "checkout", "--ours", "--", path)
                else:  # a fact both sides added or confirmed: the evidence of both
                    files.atomic_write(root / path, text or "")
                git.run(root, "add", "--", path)
            merged += conflicted
            proc = git.call(root, "rebase", "--continue", env=env)
            if proc.returncode != 0 and "nothing to commit" in proc.stdout + proc.stderr:
                proc = git.call(root, "rebase", "--skip", env=env)
            continue
        if _rebasing(root):
            git.call(root, "rebase", "--abort", env=env)
        if before and git.head(root) != before:  # never expected: put HEAD back where it was
            git.run(root, "reset", "--hard", "-q", before)
        if not conflicted:
            raise BiocortexError(f"git rebase failed: {_last_line(said)}; the vault was left as it was",
                                 path=str(root), hint="run `git status` in the vault")
        shown = ", ".join(conflicted[:10]) + (f" and {len(conflicted) - 10} more" if len(conflicted) > 10 else "")
        raise SyncConflict(
            f"your commits and the remote's change the same lines of {shown}; nothing was synced, "
            "the vault was left as it was",
            path=str(root),
            hint="solve it by hand: `git pull --rebase`, edit each file named above (keep what both "
                 "sides meant; `biocortex check` validates it), `git add` it, `git rebase --continue`, "
                 "then `biocortex sync`")
    return merged


def _rebasing(root: Path) -> bool:
    return (root / ".git" / "rebase-merge").exists() or (root / ".git" / "rebase-apply").exists()


def _resolve(vault: Vault, root: Path, path: str) -> str | None:
    """How to settle a conflicted ``path`` without a person: "" to keep the remote's copy of a
    generated entity note, the merged text of a fact note both sides wrote, None to stop."""
    if _same_generated_note(root, path):
        return ""
    if "facts/" not in path or not path.endswith(".md"):
        return None
    ours, theirs = git.call(root, "show", f":2:{path}"), git.call(root, "show", f":3:{path}")
    if ours.returncode != 0 or theirs.returncode != 0:
        return None  # one side deleted it
    from biocortex_cli.store.facts import merged_fact_text

    rel = vault.rel(root / path)
    return merged_fact_text(vault, rel, ours.stdout, theirs.stdout)


def _same_generated_note(root: Path, path: str) -> bool:
    """Whether both sides added entity note ``path`` and the copies differ only in when and by whom."""
    if "entities/" not in path or not path.endswith(".md"):
        return False
    versions = []
    for stage in (2, 3):
        proc = git.call(root, "show", f":{stage}:{path}")
        if proc.returncode != 0:
            return False  # not an add/add conflict (one side deleted it)
        try:
            note = parse_note(proc.stdout, path)
        except BiocortexError:
            return False
        meta = {k: v for k, v in note.meta.items() if k not in _GENERATED_KEYS}
        versions.append((meta, note.body))
    return versions[0] == versions[1]


def _last_line(text: str) -> str:
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
