"""The vault as a whole through the library API: the index, checks, history, sharing,
forgetting, the agent guide, and making a vault (``init``, ``clone``).

Each function returns an immutable record (a NamedTuple: ``log`` is a hot command, and
``dataclasses`` costs it ~10 ms of imports) whose ``as_json()`` is what the command of the same
name prints with ``--json`` (``log`` is also an MCP tool).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from biocortex_cli.api.checks import UNIT, Bounds, checked, repairs_index

if TYPE_CHECKING:
    from biocortex_cli.index.build import RefreshReport
    from biocortex_cli.ops.check import CheckReport
    from biocortex_cli.ops.clone import CloneReport
    from biocortex_cli.ops.doctor import Finding
    from biocortex_cli.ops.forget import ForgetResult, Moved
    from biocortex_cli.ops.history import Digest
    from biocortex_cli.ops.sync import SyncReport
    from biocortex_cli.progress import Sink
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault


class IndexReport(NamedTuple):
    rebuilt: bool
    added: int
    updated: int
    removed: int
    episodes: int
    facts: int
    problems: tuple[tuple[str, int, str], ...]  # (path, line, message) of notes not indexed
    seconds: float

    def as_json(self) -> dict[str, Any]:
        return {"rebuilt": self.rebuilt, "added": self.added, "updated": self.updated, "removed": self.removed,
                "episodes": self.episodes, "facts": self.facts,
                "problems": [{"path": p, "line": ln, "message": m} for p, ln, m in self.problems],
                "seconds": round(self.seconds, 3)}


class Staleness(NamedTuple):
    stale: bool
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {"stale": self.stale, "reason": self.reason}


class Diagnosis(NamedTuple):
    findings: tuple[Finding, ...]

    @property
    def problems(self) -> int:
        return sum(f.problem for f in self.findings)

    def as_json(self) -> dict[str, Any]:
        return {"ok": not self.problems, "findings": [f.as_json() for f in self.findings]}


class Synced(NamedTuple):
    report: SyncReport
    refreshed: RefreshReport  # the refresh after the new commits arrived

    def as_json(self) -> dict[str, Any]:
        index = self.refreshed
        return {**self.report.as_json(), "index": {"episodes": index.total, "added": index.added,
                                                   "updated": index.updated, "removed": index.removed}}


class Restored(NamedTuple):
    moved: tuple[Moved, ...]

    def as_json(self) -> list[dict[str, Any]]:
        return [m.as_json() for m in self.moved]


class Guide(NamedTuple):
    path: Path
    text: str

    def as_json(self) -> dict[str, Any]:
        from biocortex_cli.tokens import get_counter

        return {"path": str(self.path), "tokens": get_counter().count(self.text), "text": self.text}


class Created(NamedTuple):
    vault: Vault
    branch: str

    def as_json(self) -> dict[str, Any]:
        return {"path": str(self.vault.root), "git_root": str(self.vault.git_root),
                "in_repo": self.vault.git_root != self.vault.root, "branch": self.branch,
                "commit": self.vault.head()}


@repairs_index()
def _refresh_all(vault: Vault, *, full: bool = False, rebuild: bool = False,
                 edits: bool = False) -> tuple[RefreshReport, int, list[Any]]:
    """Refresh (or rebuild) the episode index, then the fact and lesson tables: the report (its
    ``problems`` every note the index could not read: episodes, feedback, facts, entities and
    lessons), the number of facts, and the fact and entity notes that could not be read.
    ``edits``: ask git for notes edited in place whatever that check costs (else it is
    throttled: index/build.py)."""
    from biocortex_cli.facts.index import refresh_facts
    from biocortex_cli.index.build import problems_of, refresh
    from biocortex_cli.index.build import rebuild as rebuild_index
    from biocortex_cli.lessons.index import lesson_problems, refresh_lessons

    encoding = vault.config.tokenizer.encoding
    rebuilt = rebuild_index(vault, encoding, "--rebuild") if rebuild else None
    conn, refreshed = refresh(vault, encoding, full=full, edits=edits)
    report = rebuilt or refreshed
    try:
        fact_problems = refresh_facts(conn, vault, encoding, full=full)
        refresh_lessons(conn, vault, encoding)
        facts = int(conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0])
        # all of them, also when nothing changed since the last refresh
        report.problems = sorted([*problems_of(conn), *((p.path or "", p.line or 1, p.message) for p in fact_problems),
                                  *lesson_problems(conn)])
    finally:
        conn.close()
    return report, facts, fact_problems


def index(vault: Vault, *, rebuild: bool = False, full: bool = False) -> IndexReport:
    """Build (``rebuild``) or refresh the sidecar index of episodes and facts, notes edited in place
    and not committed included (git sees them); ``full`` stats every note. Notes it cannot read are
    warned about on stderr and listed in the report."""
    from biocortex_cli.index.build import warn_problems

    report, facts, _fact_problems = _refresh_all(vault, full=full, rebuild=rebuild, edits=True)
    warn_problems(report)
    return IndexReport(report.rebuilt, report.added, report.updated, report.removed, report.total, facts,
                       tuple(report.problems), report.seconds)


def index_stale(vault: Vault) -> Staleness:
    """Whether the index is stale, and why (stats every note)."""
    from biocortex_cli.index.build import is_stale

    return Staleness(*is_stale(vault, vault.config.tokenizer.encoding))


def check(vault: Vault) -> CheckReport:
    """Every problem of every note (``severity`` error or warning), as values."""
    from biocortex_cli.ops.check import check_vault

    return check_vault(vault)


def doctor(vault: Vault) -> Diagnosis:
    """The vault's health: git state, locks, config, template, index, notes."""
    from biocortex_cli.ops.doctor import diagnose

    return Diagnosis(tuple(diagnose(vault)))


@checked(limit=Bounds(1))
@repairs_index()
def log(vault: Vault, *, since: str = "7d", limit: int | None = None) -> Digest:
    """What changed in memory since ``since`` (an age such as 12h or 7d, a date, or a commit): new
    episodes, facts, retractions, contradictions, lessons, archived notes and feedback, by author.
    ``limit`` reads only the first new episodes and lessons (the totals stay exact)."""
    from biocortex_cli.ops.history import digest, resolve_since

    return digest(vault, resolve_since(vault, since), limit=limit)


@checked(timeout=Bounds(1))
def sync(vault: Vault, *, author: Author, remote: str | None = None, timeout: float = 60.0,
         limit: int | None = None) -> Synced:
    """Rebase on the remote's commits, push ours, refresh the index; what arrived."""
    from biocortex_cli.ops.sync import sync as sync_vault

    report = sync_vault(vault, author=author, remote=remote, timeout=timeout, limit=limit)
    refreshed, _facts, _problems = _refresh_all(vault)
    return Synced(report, refreshed)


@checked(utility_below=UNIT, quality_below=UNIT)
@repairs_index(writes=True)
def forget(vault: Vault, *, author: Author, older_than: str | None = None, utility_below: float | None = None,
           quality_below: float | None = None, failed: bool = False, dry_run: bool = False) -> ForgetResult:
    """Archive the episodes matching every criterion given, in one commit (``dry_run``: say which)."""
    from biocortex_cli.ops.forget import Criteria
    from biocortex_cli.ops.forget import forget as forget_episodes

    criteria = Criteria(older_than=older_than, utility_below=utility_below, quality_below=quality_below,
                        failed=failed)
    return forget_episodes(vault, criteria, author=author, dry_run=dry_run)


@repairs_index(writes=True)
def restore(vault: Vault, *, ids: Sequence[str], author: Author) -> Restored:
    """Bring archived episodes back, in one commit."""
    from biocortex_cli.ops.forget import restore as restore_episodes

    return Restored(tuple(restore_episodes(vault, ids, author=author)))


def guide(vault: Vault | None) -> Guide:
    """The agent guide: the vault's ``AGENTS.md``, else (no vault, or one made before the guide
    existed) the one biocortex ships. This text goes into an agent's system prompt: a symbolic
    link there is refused with a warning, never followed, and the shipped guide is given."""
    import sys

    from biocortex_cli.errors import DataError
    from biocortex_cli.store.files import read_note_text
    from biocortex_cli.store.vault import template_dir

    shipped = template_dir() / "AGENTS.md"
    mine = vault.root / "AGENTS.md" if vault is not None else None
    if mine is not None and (mine.exists() or mine.is_symlink()):
        try:
            return Guide(mine, read_note_text(mine, "AGENTS.md"))
        except DataError as exc:
            sys.stderr.write(f"biocortex: warning: {exc.location()}{exc.message}; using the guide biocortex ships\n")
    return Guide(shipped, shipped.read_text(encoding="utf-8"))


def init(*, path: Path, author: str | None = None, in_repo: bool = False) -> Created:
    """A new vault from the template, in a git repository of its own (``in_repo``: or inside
    the one ``path`` is in), with a first commit."""
    from biocortex_cli.store import git
    from biocortex_cli.store.vault import init_vault

    vault = init_vault(path, author, in_repo=in_repo)
    branch = git.run(vault.git_root, "symbolic-ref", "--short", "-q", "HEAD", check=False).strip()
    return Created(vault, branch)


@checked(timeout=Bounds(1))
def clone(*, url: str, folder: Path | None = None, branch: str | None = None, timeout: float = 600.0,
          progress: Sink | None = None) -> CloneReport:
    """Clone a team's vault on the vault's branch, whatever the remote's HEAD says, and index it.
    Its stages are reported as progress (biocortex_cli/progress.py), or to ``progress`` if given."""
    from biocortex_cli.ops.clone import clone as clone_vault

    return clone_vault(url, folder, branch=branch, timeout=timeout, progress=progress)
