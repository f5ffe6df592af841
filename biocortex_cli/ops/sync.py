"""Team sync: bring the vault level with its git remote, both ways (``biocortex sync``).

Fetch, rebase our commits onto the remote's, push; when the push is refused because the remote
moved meanwhile, fetch, rebase and push again, a bounded number of times. Only the rebase holds
the vault's write lock: the network calls do not, so a slow or unreachable remote never keeps an
agent's writes waiting (a fetch changes only the remote-tracking ref; the push sends the commit
the rebase made; a commit written during the fetch is rebased and sent with the rest, one written
during the push goes with the next sync). The feedback logs are append-only and merged with
``merge=union`` (``.gitattributes``), which git applies during a rebase too, so two clones
appending to one file never conflict. Entity notes that both sides created for the same new
name (and lessons both promoted) differ only in ``created`` and ``author``: the remote's copy is
kept. Any other conflict is a person's to solve: the rebase is aborted, the vault is left exactly
as it was, and the error names the files. A note committed with git's conflict markers is never
pushed; a sync killed during its rebase is undone by the next write or sync; a clone on another
branch than the remote's vault never forks it (docs/teams.md).

git never prompts (no terminal, ssh in batch mode) and every network call has a time limit.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from biocortex_cli.errors import BiocortexError
from biocortex_cli.ops.history import Digest, digest
from biocortex_cli.progress import Progress, plural, report
from biocortex_cli.store import files, git
from biocortex_cli.store.notes import parse_note
from biocortex_cli.store.vault import CONTENT_DIRS, Vault, recover_killed_transaction

#: pushes refused because another clone pushed first, before giving up
MAX_ATTEMPTS = 5
DEFAULT_TIMEOUT = 60.0
#: what git says when another clone pushed first (retry); any other refusal — a server hook, a
#: protected branch ("[remote rejected] … declined") — is final
_REJECTED = ("[rejected]", "fetch first", "non-fast-forward", "cannot lock ref", "failed to update ref",
             "incorrect old value")
#: frontmatter keys in which two generated copies of one entity note or lesson may differ
_GENERATED_KEYS = ("created", "author", "updated")


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
    #: what sync did or advises about the remote's default branch (see :func:`remote_head`)
    notices: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {"remote": self.remote, "url": self.url, "branch": self.branch, "before": self.before,
                "after": self.after, "pulled": self.pulled, "pushed": self.pushed, "attempts": self.attempts,
                "merged_notes": self.merged_notes, "arrived": self.arrived.as_json(),
                "notices": list(self.notices)}


class SyncConflict(BiocortexError):
    """Our commits and the remote's change the same lines of a note: a person decides."""

    code = "conflict"


def sync(vault: Vault, *, author: git.Author, remote: str | None = None,
         timeout: float = DEFAULT_TIMEOUT, limit: int | None = None) -> SyncReport:
    """Rebase on the remote, push, and say what arrived (``limit``: see :func:`history.digest`)."""
    root = vault.git_root
    lock = vault.state_dir / "write.lock"
    notices: list[str] = []
    if (root / ".git" / git.SYNC_REBASE).is_file():  # a sync killed during its rebase: undo it
        with files.write_lock(lock):
            back = git.undo_killed_sync(root)
        if back:
            notices.append(f"a sync was stopped during its rebase: it was undone, the vault was back at "
                           f"{back[:7]} (every commit kept) before this sync")
    if _rebasing(root):  # before the detached check: a paused rebase detaches HEAD
        killed = (root / ".git" / git.SYNC_REBASE).is_file()
        raise BiocortexError("a rebase is in progress in the vault; nothing was synced", path=str(root),
                             hint=git._KILLED_SYNC_HINT if killed else
                             "finish it (git rebase --continue) or undo it (git rebase --abort)")
    branch = git.run(root, "symbolic-ref", "--short", "-q", "HEAD", check=False).strip()
    if not branch:
        raise BiocortexError("the vault's HEAD is detached: there is no branch to sync", path=str(root),
                             hint="check out the vault's branch first (git switch main)")
    name = _remote(root, branch, remote)
    url = git.run(root, "remote", "get-url", name, check=False).strip()
    ident = {"GIT_COMMITTER_NAME": author.name, "GIT_COMMITTER_EMAIL": author.email}
    net = {**ident, "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND")
           or "ssh -o BatchMode=yes -o ConnectTimeout=15", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    # two syncs of one clone take turns (their fetches would race for the remote-tracking ref);
    # writes wait only for the rebase, under the write lock
    with files.write_lock(vault.state_dir / "sync.lock"):
        return _sync(vault, root, branch, name, url, ident, net, lock, timeout, limit, notices)


def _sync(vault: Vault, root: Path, branch: str, name: str, url: str, ident: dict[str, str], net: dict[str, str],
          lock: Path, timeout: float, limit: int | None, notices: list[str]) -> SyncReport:
    with files.write_lock(lock):
        recover_killed_transaction(vault)
        git.clear_stale_locks(root)
        _refuse_unclean(vault, root)
        before = git.head(root)
    merged: list[str] = []
    scanned: set[str] = set()  # blobs of outgoing commits already scanned for secrets
    upstream: str | None = None
    pushed = 0
    tracked = git.run(root, "rev-parse", "--verify", "-q", f"refs/remotes/{name}/{branch}^{{commit}}",
                      check=False).strip() or None  # the remote's branch when this clone last fetched it
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report(Progress("sync", 0, 0, f"fetching {branch} from {name}…"))
        try:
            upstream = _fetch(root, name, url, branch, net, timeout)
        except BiocortexError as exc:
            if attempt > 1:  # our commits were already rebased on the remote's: say so
                exc.hint = "nothing is lost: your commits are in the vault, on top of the remote's; " \
                           "run `biocortex sync` again when the remote answers"
            raise
        if attempt == 1:
            if upstream is None:
                _refuse_new_branch(root, name, branch, net, timeout)
            elif tracked and not _is_ancestor(root, tracked, upstream):
                notices.append(_rewritten(root, name, branch, tracked, upstream))
        with files.write_lock(lock):  # a write may have landed while we fetched: it is rebased too
            recover_killed_transaction(vault)
            _refuse_unclean(vault, root)
            if upstream is not None:
                _refuse_links(root, upstream, name)
                if not _is_ancestor(root, upstream, "HEAD"):
                    report(Progress("sync", 0, 0, f"rebasing on {name}'s commits…"))
                    merged += _rebase(vault, root, upstream, git.head(root), ident, f"{name}/{branch}")
                ahead = int(git.run(root, "rev-list", "--count", f"{upstream}..HEAD").strip())
            else:  # an empty remote: everything we have goes up
                ahead = int(git.run(root, "rev-list", "--count", "HEAD").strip())
            tip = git.head(root)
            if ahead:
                _refuse_conflict_markers(vault, root, upstream)
                _refuse_secrets(vault, root, upstream, scanned)
        if ahead == 0:
            break
        report(Progress("sync", 0, 0, f"pushing {ahead:,} commit{'' if ahead == 1 else 's'} to {name}…"))
        proc = git.call(root, "-c", "credential.interactive=never", "push", "--porcelain", name,
                        f"{tip}:refs/heads/{branch}", env=net, timeout=timeout)
        if proc.returncode == 0:
            pushed = ahead
            _track(root, name, branch)
            break
        said = proc.stdout + proc.stderr
        if not any(word in said for word in _REJECTED):
            raise BiocortexError(
                f"could not push to {name} ({url}): {git.reason(said)}", path=str(vault.root),
                hint="your commits are safe in the vault and already on top of the remote's; "
                     "fix access to the remote and run `biocortex sync` again")
        time.sleep(random.uniform(0.05, 0.3) * attempt)  # another clone pushed first: again
    else:
        raise BiocortexError(f"the remote {name} kept moving: {MAX_ATTEMPTS} pushes were refused",
                             path=str(vault.root),
                             hint="nothing is lost (your commits are in the vault); run `biocortex sync` again")
    report(Progress("sync", 1, 1, "synced"))
    after = tip
    base = _merge_base(root, before, upstream) if upstream and before else None
    arrived = digest(vault, base, upstream, limit=limit) if upstream else digest(vault, after, after)
    if base and upstream and base != upstream:
        notices.extend(_arrived_with_markers(vault, root, base, upstream))
    notice = remote_head(root, name, url, branch, first_push=upstream is None and pushed > 0, env=net,
                         timeout=timeout)
    return SyncReport(remote=name, url=url, branch=branch, before=before, after=after,
                      pulled=len(arrived.commits), pushed=pushed, attempts=attempt,
                      merged_notes=sorted(set(merged)), arrived=arrived,
                      notices=(*notices, notice) if notice else tuple(notices))


def remote_head(root: Path, name: str, url: str, branch: str, *, first_push: bool, env: dict[str, str],
                timeout: float) -> str | None:
    """Make the remote cloneable: its HEAD must name the vault's branch, or ``git clone URL`` checks
    out nothing ("remote HEAD refers to nonexistent ref": ``git init --bare`` names ``master``
    where git's default branch is master, and the vault's branch is ``main``).

    A bare repository on this machine (a path or ``file://``) whose HEAD names a branch it does not
    have is pointed at ``branch`` (``git symbolic-ref``), at every sync, so remotes made before this
    was done are repaired too. On a server, after the first push of ``branch``, the remote's HEAD
    is read (``git ls-remote --symref``) and, when it names another branch, the sentence returned
    says exactly what to do. None: nothing to say."""
    clone_hint = f"teammates can join with `biocortex clone {url}`, which finds the vault's branch"
    bare = _local_bare(root, url)
    if bare is not None:
        head = git.run(bare, "symbolic-ref", "-q", "HEAD", check=False).strip()
        if head == f"refs/heads/{branch}":
            return None
        if head and git.call(bare, "rev-parse", "--verify", "-q", head).returncode == 0:
            return (f"the remote's default branch is {head.removeprefix('refs/heads/')}, not {branch}: "
                    f"`git clone {url}` checks that branch out; {clone_hint} (or `git clone -b {branch} {url}`)")
        if git.call(bare, "symbolic-ref", "HEAD", f"refs/heads/{branch}").returncode != 0:
            return (f"could not set the default branch (HEAD) of {url} to {branch}: a plain `git clone {url}` "
                    f"will not check out the vault; run `git --git-dir={bare} symbolic-ref HEAD "
                    f"refs/heads/{branch}` with write access there; meanwhile {clone_hint}")
        return (f"set the default branch (HEAD) of {url} to {branch}, which holds the vault "
                f"(it named {head.removeprefix('refs/heads/') or 'nothing'}), so `git clone {url}` checks it out")
    if not first_push:
        return None
    proc = git.call(root, "-c", "credential.interactive=never", "ls-remote", "--symref", name, "HEAD", env=env,
                    timeout=timeout)
    named = next((line.split()[1] for line in proc.stdout.splitlines() if line.startswith("ref: ")), "")
    if proc.returncode != 0 or named == f"refs/heads/{branch}":
        return None
    said = f"is {named.removeprefix('refs/heads/')}" if named else "names no branch the remote has"
    return (f"the default branch (HEAD) of {url} {said}, not {branch}: "
            f"a plain `git clone {url}` will not check out the vault. Make {branch} the default branch on the "
            f"server (GitLab, GitHub, Gitea: the repository's settings; a bare repository: `git --git-dir=PATH "
            f"symbolic-ref HEAD refs/heads/{branch}` there); meanwhile {clone_hint}")


def _local_bare(root: Path, url: str) -> Path | None:
    """The bare repository ``url`` names on this machine (a path, relative to the vault's repository,
    or a ``file://`` address), or None (a server, or not a bare repository)."""
    if url.startswith("file://"):
        path = Path(url[len("file://"):])
    elif "://" in url or ":" in url.split("/", 1)[0]:
        return None  # ssh://, https://, or scp-like host:path (a colon before the first slash, as git reads it)
    else:
        path = Path(url).expanduser()
    path = path if path.is_absolute() else root / path
    try:
        is_bare = (path / "HEAD").is_file() and (path / "objects").is_dir() and not (path / ".git").exists()
    except OSError:
        return None
    return path if is_bare else None


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
    raise BiocortexError(f"the vault has {plural(len(dirty), 'uncommitted change')}: {shown}; nothing was synced",
                         path=str(root), hint=hint)


#: a file of an outgoing commit larger than this is not scanned for secrets (a note is far smaller)
_SCAN_CAP = 4 << 20


def _refuse_secrets(vault: Vault, root: Path, upstream: str | None, scanned: set[str]) -> None:
    """Refuse to push commits that carry a credential: every write of biocortex is scanned before
    it commits (store/secrets.py), but a note edited by hand and committed with git is not, and a
    push would send it to every clone. Every file an outgoing commit adds or changes is scanned as
    a write scans it (each version once: ``scanned`` holds the blobs seen). ``--allow-secret``
    pushes anyway. The secret itself is never printed."""
    from biocortex_cli.store import secrets

    if vault.secret_policy == secrets.ALLOW:
        return
    span = f"{upstream}..HEAD" if upstream else "HEAD"
    raw = git.run(root, "log", "--no-renames", "--no-abbrev", "--raw", "-z", "--diff-filter=AM",
                  "--format=%x01%H", span).split("\0")
    wanted: dict[str, tuple[str, str]] = {}  # blob -> (commit, path)
    commit = ""
    for i, token in enumerate(raw):
        token = token.lstrip("\n")
        if token.startswith("\x01"):
            commit = token[1:]
        elif token.startswith(":") and i + 1 < len(raw):
            fields = token[1:].split()
            if len(fields) >= 4 and fields[1] != "160000" and fields[3] not in scanned:
                wanted.setdefault(fields[3], (commit, raw[i + 1]))
    scanned.update(wanted)
    _refuse_secret_messages(root, span)
    ids = sorted(wanted)
    contents = dict(zip(ids, git.blobs(root, ids), strict=True))
    for blob, (commit, path) in sorted(wanted.items(), key=lambda item: item[1][1]):
        data = contents.get(blob)
        if data is None or len(data) > _SCAN_CAP or b"\0" in data[:8000]:
            continue  # gone, too large, or binary (an image in an attachments folder)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        findings = secrets.inspect(path, text)
        if findings:
            first = findings[0]
            more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
            raise BiocortexError(
                f"{first.kind} in field '{first.field}'{more}, committed in {commit[:7]}: a push would send it "
                "to every clone; nothing was pushed", path=secrets.masked_path(path, findings), line=first.line,
                hint="take it out of that commit before syncing (remove it from the note and "
                     "`git commit --amend` if it is the last commit, else `git rebase -i`); if it is no "
                     "secret, `biocortex --allow-secret sync` pushes anyway")


def _refuse_secret_messages(root: Path, span: str) -> None:
    """The messages and authors of the commits ``span`` holds, scanned as biocortex scans its own
    (store/secrets.py ``guard_commit``): a commit made by hand is not."""
    from biocortex_cli.store import secrets

    raw = git.run(root, "log", "--format=%H%x00%an <%ae>%x00%B%x1e", span)
    for entry in raw.split("\x1e"):
        commit, _, rest = entry.strip("\n").partition("\0")
        author, _, message = rest.partition("\0")
        for field, text in (("the commit author", author), ("the commit message", message)):
            findings = secrets.scan(text, field)
            if findings:
                raise BiocortexError(
                    f"{findings[0].kind} in {field} of {commit[:7]}: a push would send it to every clone; "
                    "nothing was pushed", path=str(root),
                    hint="reword that commit before syncing (`git commit --amend` if it is the last commit, "
                         "else `git rebase -i`); if it is no secret, `biocortex --allow-secret sync` pushes anyway")


def _refuse_links(root: Path, upstream: str, name: str) -> None:
    """Refuse a remote that would bring symbolic links into the vault: biocortex never follows
    one, and a link committed by a teammate (``AGENTS.md -> ~/.ssh/id_rsa``, ``.biocortex/logs ->
    /elsewhere``) is an attack on every clone. Nothing is merged; the fetch alone happened."""
    raw = git.run(root, "diff", "--raw", "--no-renames", "-z", "HEAD", upstream, check=False).split("\0")
    links = [raw[i + 1] for i in range(0, len(raw) - 1, 2) if raw[i].startswith(":") and
             raw[i].split()[1] == "120000"]
    if links:
        shown = ", ".join(links[:5]) + (f" and {len(links) - 5} more" if len(links) > 5 else "")
        raise BiocortexError(f"the remote {name} brings {plural(len(links), 'symbolic link')}: {shown}; "
                             "nothing was synced",
                             path=str(root),
                             hint="biocortex never follows a link in a vault; ask who committed them to replace "
                                  "them by real files (git rm --cached PATH), then sync again")


def _with_markers(vault: Vault, root: Path, *span: str) -> list[tuple[str, int]]:
    """The vault's text files that ``git <span>`` names (a diff or ``ls-files``, ``-z``) and that
    hold git's conflict markers now, each with the line of its first marker."""
    prefix = vault.root.resolve().relative_to(root.resolve()).as_posix()
    found = []
    for path in sorted(p for p in git.run(root, *span).split("\0") if p):
        if not path.endswith((".md", ".jsonl", ".yaml", ".yml")) or \
                (prefix != "." and not path.startswith(f"{prefix}/")):
            continue
        try:
            data = (root / path).read_bytes()
        except OSError:
            continue
        if len(data) <= _SCAN_CAP and b"<<<<<<<" in data:
            lines = git.conflict_markers(data.decode("utf-8", errors="replace"))
            if lines:
                found.append((path, lines[0]))
    return found


def _arrived_with_markers(vault: Vault, root: Path, base: str, upstream: str) -> list[str]:
    """A notice per note the remote brought with git's conflict markers in it (committed with plain
    git and pushed without sync): it is skipped by the index until someone solves it."""
    found = _with_markers(vault, root, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=AM", base,
                          upstream)
    return [f"{path}:{line}: arrived with a git conflict marker (<<<<<<< … >>>>>>>), committed by hand: recall "
            "skips this note until someone keeps what both sides meant, takes out the marker lines and commits "
            "it (`biocortex check` lists it)" for path, line in found]


def _refuse_conflict_markers(vault: Vault, root: Path, upstream: str | None) -> None:
    """Refuse to push a note that holds git's conflict markers: a person who solved a conflict with
    plain git and committed the file as git left it. Pushed, it would reach every clone as a note
    that does not parse (its YAML broken) or that shows both versions, and recall would skip or
    garble it. The files the outgoing commits change are read as they are now (sync runs on a
    clean tree, so as committed)."""
    span = ("diff", "--name-only", "-z", "--no-renames", "--diff-filter=AM", upstream, "HEAD") if upstream \
        else ("ls-files", "-z")
    found = _with_markers(vault, root, *span)
    if found:
        path, line = found[0]
        more = f" (and {plural(len(found) - 1, 'more note')})" if len(found) > 1 else ""
        raise BiocortexError(
            f"a git conflict marker (<<<<<<< … >>>>>>>) is committed in this note{more}: a push would send both "
            "versions, unmerged, to every clone; nothing was pushed", path=path, line=line,
            hint="edit the note to keep what both sides meant, take out the lines <<<<<<<, ======= and "
                 ">>>>>>>, run `biocortex check`, commit it (git commit -am '…'), and sync again")


def _refuse_new_branch(root: Path, name: str, branch: str, env: dict[str, str], timeout: float) -> None:
    """Refuse to push this clone's branch as a new branch of a remote whose default branch holds
    this vault (a clone where someone ran `git switch -c master`): the push would fork the team's
    memory, and nobody would see what this clone adds. A remote that is empty, or whose branches
    hold something else (a lab's code), takes the branch."""
    proc = git.call(root, "-c", "credential.interactive=never", "ls-remote", "--symref", name, "HEAD", env=env,
                    timeout=timeout)
    other = next((line.split()[1] for line in proc.stdout.splitlines() if line.startswith("ref: ")), "")
    other = other.removeprefix("refs/heads/")
    if proc.returncode != 0 or not other or other == branch:
        return
    theirs = [f"refs/remotes/{name}/{other}",
              *(line.split()[0] for line in proc.stdout.splitlines() if line.endswith("\tHEAD")
                and not line.startswith("ref: "))]
    for rev in theirs:
        known = git.run(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False).strip()
        if known and _merge_base(root, known, "HEAD"):
            raise BiocortexError(
                f"the remote {name} has no branch {branch}: the team's vault is on {other}, and this clone is on "
                f"{branch}; nothing was pushed (a push would start a second vault nobody else sees)",
                path=str(root),
                hint=f"bring your commits to {other}: `git switch {other} && git merge {branch}` (or, if this clone "
                     f"has no {other}, `git branch -m {branch} {other}`), then `biocortex sync`; to publish "
                     f"{branch} as a branch of its own, push it once with git (git push -u {name} {branch})")


def _rewritten(root: Path, name: str, branch: str, tracked: str, upstream: str) -> str:
    """What to say when the remote's branch no longer holds what this clone last fetched from it
    (someone force-pushed): the commits it dropped are still here, and the rebase sends them back."""
    dropped = int(git.run(root, "rev-list", "--count", f"{upstream}..{tracked}").strip() or 0)
    they = "it" if dropped == 1 else "they"
    return (f"{name}'s {branch} was rewritten (force-pushed) since this clone last synced: it dropped "
            f"{plural(dropped, 'commit')}, which this clone still has and this sync sends back (sync deletes "
            f"nothing); if {they} were meant to go, take their notes out with a new commit (`biocortex forget`, "
            "`git revert`)")


def _track(root: Path, name: str, branch: str) -> None:
    """Make ``branch`` track ``name``'s branch when nothing is set (the vault that made the first
    push), so `git status`, `git pull` and `git rebase` know the remote as they do in a clone."""
    if not git.run(root, "config", "--get", f"branch.{branch}.merge", check=False).strip():
        git.call(root, "config", f"branch.{branch}.remote", name)
        git.call(root, "config", f"branch.{branch}.merge", f"refs/heads/{branch}")


def _fetch(root: Path, name: str, url: str, branch: str, env: dict[str, str], timeout: float) -> str | None:
    """Fetch the remote's branch; its commit, or None when the remote has no such branch yet."""
    tracking = f"refs/remotes/{name}/{branch}"
    proc = git.call(root, "-c", "credential.interactive=never", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
                    "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", name,
                    f"+refs/heads/{branch}:{tracking}", env=env, timeout=timeout)
    if proc.returncode != 0:
        said = proc.stderr + proc.stdout
        if "couldn't find remote ref" in said:
            return None
        raise BiocortexError(f"cannot reach the remote {name} ({url}): {git.reason(said)}",
                             path=str(root),
                             hint="check the address (git remote -v), the network and your access; "
                                  "the vault was not changed")
    return git.run(root, "rev-parse", "--verify", "-q", tracking).strip() or None


def _is_ancestor(root: Path, a: str, b: str) -> bool:
    return git.call(root, "merge-base", "--is-ancestor", a, b).returncode == 0


def _merge_base(root: Path, a: str, b: str) -> str | None:
    return git.run(root, "merge-base", a, b, check=False).strip() or None


def _rebase(vault: Vault, root: Path, upstream: str, before: str | None, ident: dict[str, str],
            tracking: str) -> list[str]:
    """Put our commits on top of ``upstream`` (``tracking``: its remote-tracking branch, for the hint);
    entity notes, lessons and facts merged. On a real conflict, abort: HEAD and the files are back at
    ``before``, and SyncConflict names the files. While it runs, :data:`git.SYNC_REBASE` marks the
    rebase as sync's: if sync is killed, the next sync or write undoes it (:func:`git.undo_killed_sync`)."""
    if before and _merge_base(root, before, upstream) is None:
        raise BiocortexError("the vault and its remote share no history; nothing was synced", path=str(root),
                             hint="clone the remote instead (git clone URL) and write there")
    mark = root / ".git" / git.SYNC_REBASE
    if mark.parent.is_dir():
        files.atomic_write(mark, f"{before or ''}\n")
    try:
        return _rebase_marked(vault, root, upstream, before, ident, tracking)
    finally:
        if not _rebasing(root):
            mark.unlink(missing_ok=True)


def _rebase_marked(vault: Vault, root: Path, upstream: str, before: str | None, ident: dict[str, str],
                   tracking: str) -> list[str]:
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
            raise BiocortexError(f"git rebase failed: {git.reason(said)}; the vault was left as it was",
                                 path=str(root), hint="run `git status` in the vault")
        shown = ", ".join(conflicted[:10]) + (f" and {len(conflicted) - 10} more" if len(conflicted) > 10 else "")
        raise SyncConflict(
            f"your commits and the remote's change the same lines of {shown}; nothing was synced, "
            "the vault was left as it was",
            path=str(root),
            hint=f"solve it by hand: `git rebase {tracking}` (sync fetched it), edit each file named above "
                 "(keep what both sides meant, and take out the lines <<<<<<<, ======= and >>>>>>>; "
                 "`biocortex check` validates it), `git add` it, `git rebase --continue`, then `biocortex sync`")
    return merged


def _rebasing(root: Path) -> bool:
    return (root / ".git" / "rebase-merge").exists() or (root / ".git" / "rebase-apply").exists()


def _resolve(vault: Vault, root: Path, path: str) -> str | None:
    """How to settle a conflicted ``path`` without a person: "" to keep the remote's copy of a
    generated entity note or lesson, the merged text of a fact note both sides wrote or of an entity note
    both sides gave new aliases, None to stop."""
    if _same_generated_note(root, path):
        return ""
    if ("facts/" not in path and "entities/" not in path) or not path.endswith(".md"):
        return None
    ours, theirs = git.call(root, "show", f":2:{path}"), git.call(root, "show", f":3:{path}")
    if ours.returncode != 0 or theirs.returncode != 0:
        return None  # one side deleted it
    rel = vault.rel(root / path)
    if "entities/" in path:  # aliases both sides added: all of them
        from biocortex_cli.facts.aliases import merged_alias_text

        base = git.call(root, "show", f":1:{path}")
        return merged_alias_text(rel, base.stdout if base.returncode == 0 else None, ours.stdout, theirs.stdout)
    from biocortex_cli.facts.notes import merged_fact_text

    return merged_fact_text(vault, rel, ours.stdout, theirs.stdout)


def _same_generated_note(root: Path, path: str) -> bool:
    """Whether both sides wrote entity note or lesson ``path`` (``lessons promote`` of one cluster in
    two clones) and the copies differ only in when and by whom."""
    if ("entities/" not in path and "lessons/" not in path) or not path.endswith(".md"):
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
