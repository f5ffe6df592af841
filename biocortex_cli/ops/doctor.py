"""``biocortex doctor``: the vault's health in one go, each problem with how to fix it.

Every check returns findings as values; one failing check never stops the others. A finding's
``severity`` is ``error`` (something is broken), ``warning`` (something needs attention) or
``info`` (worth knowing, nothing to do). Any error or warning makes ``doctor`` exit 1.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from biocortex_cli.errors import BiocortexError, DataError
from biocortex_cli.progress import plural
from biocortex_cli.store import git
from biocortex_cli.store.config import CONFIG_REL
from biocortex_cli.store.files import TEMP_NAME, read_note_text, read_regular
from biocortex_cli.store.vault import CONTENT_DIRS, JOURNAL_NAME, Vault, read_journal, template_dir

SHOW = 5  # how many paths a finding names before "and N more"


@dataclass(frozen=True)
class Finding:
    check: str  # git, lock, config, template, index, datasets, notes
    severity: str  # error, warning or info
    message: str
    hint: str = ""

    @property
    def problem(self) -> bool:
        return self.severity in ("error", "warning")

    def as_json(self) -> dict[str, str]:
        return {"check": self.check, "severity": self.severity, "message": self.message, "hint": self.hint}


def line_is_temp(path: str) -> bool:
    """Whether a path ``git status`` lists is an atomic write's temporary file."""
    return bool(re.match(TEMP_NAME, path.rstrip("/").rsplit("/", 1)[-1]))


def _some(items: list[str]) -> str:
    more = f" and {len(items) - SHOW} more" if len(items) > SHOW else ""
    return ", ".join(items[:SHOW]) + more


def check_git(vault: Vault) -> list[Finding]:
    top = git.toplevel(vault.root)
    if top is None:
        return [Finding("git", "error", "the vault is not a git repository",
                        "run `git init && git add -A && git commit -m 'vault'` in the vault")]
    out: list[Finding] = []
    waiting = git.unfinished(top)
    if waiting is not None:  # biocortex refuses every write until it is finished
        out.append(Finding("git", "error", f"{waiting[0]} is in progress: no biocortex write is possible",
                           f"finish it ({waiting[1]}), then run doctor again"))
    head_file = top / ".git" / "HEAD"
    if waiting is None and head_file.is_file() and not head_file.read_text().startswith("ref: "):
        out.append(Finding("git", "warning", "HEAD is detached: new commits belong to no branch",
                           "run `git switch main` (or the vault's branch) in the vault"))
    if git.head(top) is None:
        out.append(Finding("git", "error", "the repository has no commit yet",
                           "run `git add -A && git commit -m 'vault'` in the vault"))
        return out
    status = git.run(vault.root, "status", "--porcelain", "--untracked-files=all", "--",
                     *CONTENT_DIRS, "feedback", check=False).splitlines()
    changed = [line[3:] for line in status if line.strip()]
    temps = [p for p in changed if line_is_temp(p)]
    pending = set(_journaled(vault))  # a killed write's files: the lock check says what happens to them
    changed = [p for p in changed if p not in temps and p not in pending]
    if temps:  # never "commit them": half-written copies of notes
        out.append(Finding("git", "warning",
                           f"{plural(len(temps), 'temporary file')} left by a killed write: {_some(temps)}",
                           "the next biocortex write removes them (or delete them: they are half-written "
                           "copies, never commit them)"))
    if changed:
        out.append(Finding("git", "warning",
                           f"{plural(len(changed), 'uncommitted change')} in the memory folders: {_some(changed)}",
                           "commit them (`git add -A && git commit`) or discard them "
                           "(`git checkout -- FILE`, `git clean -i`); other agents do not see them"))
    if git.signing(top):
        out.append(Finding("git", "info", "commits are signed (commit.gpgsign is on): biocortex signs its "
                           "commits too, so the key must sign without a prompt",
                           "use gpg-agent or ssh-agent for the signing key; a write that cannot sign "
                           "fails and commits nothing"))
    skipped = git.hooks(top)
    if skipped:
        out.append(Finding("git", "info", f"biocortex's commits do not run the repository's git hooks "
                           f"({', '.join(skipped)}): they validate what they write themselves",
                           "run the hooks over the vault yourself (e.g. `pre-commit run --all-files`, "
                           "or in CI); `biocortex check` validates every note"))
    for lock in git.git_locks(top):
        try:
            age = time.time() - lock.stat().st_mtime
        except FileNotFoundError:
            continue
        if age >= git.STALE_LOCK_SECONDS or git.lock_in_use(lock, top) is False:
            out.append(Finding("git", "error", f"stale git lock {lock} ({age:.0f} s old) blocks git",
                               f"if no git process is running, remove it: rm {lock} "
                               "(the next biocortex write also removes it)"))
        else:
            out.append(Finding("git", "info", f"git is writing right now ({lock} is {age:.1f} s old)",
                               "run doctor again in a few seconds"))
    return out


def check_lock(vault: Vault) -> list[Finding]:
    import fcntl

    out: list[Finding] = []
    path = vault.state_dir / "write.lock"
    if path.exists():
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
        except BlockingIOError:
            out.append(Finding("lock", "info", "a biocortex write is in progress (the write lock is held)",
                               "nothing to do: the lock is released when that write ends or its process dies"))
        finally:
            os.close(fd)
    journal = vault.state_dir / JOURNAL_NAME
    if journal.exists() or journal.is_symlink():
        try:
            listed = _journaled(vault, strict=True)
        except DataError as exc:
            return [*out, Finding("lock", "error", exc.message, exc.hint or "")]
        if not out:  # no writer holds the lock: the journal belongs to one that was killed
            out.append(Finding("lock", "error",
                               f"a write was killed before its commit; it had begun to change "
                               f"{plural(len(listed), 'file')}: {_some(listed)}",
                               "the next biocortex write puts back what that write changed, and nothing else "
                               "(a hand edit made since is kept)"))
    return out


def _journaled(vault: Vault, *, strict: bool = False) -> list[str]:
    """The files a killed write's journal names (none when there is no journal)."""
    try:
        text = read_regular(vault.state_dir / JOURNAL_NAME) or b""
    except DataError:
        if strict:
            raise
        return []
    entries, legacy = read_journal(text.decode("utf-8", errors="replace"))
    return sorted({*entries, *legacy})


def check_config(vault: Vault) -> list[Finding]:
    try:
        vault.config  # noqa: B018 - loading is the check
    except DataError as exc:
        where = f"{exc.path or CONFIG_REL}:{exc.line or 1}: "
        return [Finding("config", "error", where + exc.message,
                        exc.hint or "fix the setting; docs/configuration.md lists every setting")]
    return []


def check_template(vault: Vault) -> list[Finding]:
    from biocortex_cli.store.notes import load_yaml

    template = template_dir()
    out: list[Finding] = []
    missing = sorted(p.relative_to(template).as_posix() for p in template.rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts
                     and not (vault.root / p.relative_to(template)).exists())
    if missing:
        out.append(Finding("template", "warning", f"{plural(len(missing), 'file')} of the vault template "
                           f"{'is' if len(missing) == 1 else 'are'} missing: "
                           f"{_some(missing)}",
                           f"copy them back from {template} and commit them"))
    try:
        ours = load_yaml((template / CONFIG_REL).read_text(), "template config") or {}
        theirs = load_yaml(read_note_text(vault.root / CONFIG_REL, CONFIG_REL),
                           "config") or {}  # never through a symbolic link
    except (DataError, OSError):
        return out  # a broken config is reported by check_config
    want, have = ours.get("version"), theirs.get("version") if isinstance(theirs, dict) else None
    if want is not None and have != want:
        out.append(Finding("template", "warning",
                           f"the vault was made from template version {have}, this biocortex ships {want}",
                           "compare .biocortex/config.yaml, AGENTS.md and templates/ with "
                           f"{template} and merge what is new; then set version: {want}"))
    return out


def check_index(vault: Vault) -> list[Finding]:
    from biocortex_cli.index.build import is_stale
    from biocortex_cli.index.store import index_path
    from biocortex_cli.store.config import Config
    from biocortex_cli.store.files import exists

    if not exists(index_path(vault.state_dir)):
        return [Finding("index", "info", "no index yet", "the first `biocortex recall` or `biocortex index` builds it")]
    try:
        encoding = vault.config.tokenizer.encoding
    except DataError:
        encoding = Config().tokenizer.encoding
    stale, why = is_stale(vault, encoding)
    if not stale:
        return []
    unusable = "since the last index" not in why and "HEAD moved" not in why
    if unusable:
        return [Finding("index", "error", f"the index is unusable: {why}",
                        "run `biocortex index --rebuild` (recall also rebuilds it, more slowly)")]
    return [Finding("index", "warning", f"the index is stale: {why}",
                    "run `biocortex index` (recall also refreshes it on its own)")]


def check_notes(vault: Vault) -> list[Finding]:
    from biocortex_cli.ops.check import check_vault

    report = check_vault(vault)
    if report.ok:
        return []
    shown = [str(p) for p in report.errors]
    found = f"{plural(len(report.errors), 'problem')} in {plural(report.notes, 'note')}"
    return [Finding("notes", "error", f"{found}: {_some(shown)}",
                    "run `biocortex check` for the full list, fix each note, then commit")]


def check_datasets(vault: Vault) -> list[Finding]:
    """Each registered dataset that cannot answer here: a file missing (warning) or changed
    (error: its index would give answers the note does not vouch for); not yet indexed (info)."""
    from biocortex_cli.store.walk import has_notes

    if not has_notes(vault.root, "datasets"):
        return []
    from biocortex_cli.facts.datasets_registry import statuses

    found, problems = statuses(vault)
    out = [Finding("datasets", "error", f"{p.location()}{p.message}", p.hint or "fix the note, then commit")
           for p in problems]
    for status in found:
        if status.state == "ok":
            continue
        severity = {"changed": "error", "missing": "warning"}.get(status.state, "info")
        hint = status.hint if severity != "info" else (
            "the first fact query, verify or recall indexes it; `biocortex dataset refresh` does it now")
        out.append(Finding("datasets", severity, status.message, hint))
    return out


def check_history(vault: Vault) -> list[Finding]:
    """Loose objects piling up in .git (one per file, tree and commit written): biocortex packs
    after large writes and when they pass git's own limit (store/git.py ``maintain``), but a
    vault written by other tools, or by an older biocortex, may not be packed."""
    top = git.toplevel(vault.root)
    if top is None:
        return []  # check_git says so
    counts = dict(line.split(": ", 1) for line in git.run(top, "count-objects", "-v", check=False).splitlines()
                  if ": " in line)
    loose, size_kib = int(counts.get("count", 0)), int(counts.get("size", 0))
    if loose < git.LOOSE_LIMIT:
        return []
    packed = int(counts.get("size-pack", 0))
    return [Finding("git", "warning", f"{loose:,} loose objects in the vault's history ({size_kib / 1024:.0f} MiB; "
                    f"packed: {packed / 1024:.0f} MiB): history is not packed",
                    f"run `git -C {top} gc` once (biocortex packs after large writes and when loose objects "
                    "pass git's own limit)")]


CHECKS: tuple[Callable[[Vault], list[Finding]], ...] = (
    check_git, check_lock, check_config, check_template, check_index, check_datasets, check_notes,
    check_history)


def diagnose(vault: Vault) -> list[Finding]:
    """Run every check; a check that fails outright becomes a finding, not an abort."""
    findings: list[Finding] = []
    for check in CHECKS:
        name = check.__name__.removeprefix("check_")
        try:
            findings.extend(check(vault))
        except (BiocortexError, OSError) as exc:
            findings.append(Finding(name, "error", f"could not check: {exc}",
                                    getattr(exc, "hint", "") or "run with --debug and report it"))
    return findings

