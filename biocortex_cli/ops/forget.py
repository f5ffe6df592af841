"""Forgetting without loss: move episodes to ``archive/`` (and back), never delete them.

``forget`` picks live episodes that match every given criterion (older than, utility below,
quality below, failed), reading the index, and moves each ``episodes/YYYY/MM/<id>.md`` to
``archive/episodes/YYYY/MM/<id>.md`` in one commit whose body lists every id and why. Archived
episodes stay indexed with an ``archived`` flag: out of default recall, back with
``--include-archived``; ``restore`` moves them back.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import DataError, NotFoundError, UsageError

if TYPE_CHECKING:
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

ARCHIVE = "archive/"


@dataclass(frozen=True)
class Criteria:
    older_than: str | None = None
    utility_below: float | None = None
    quality_below: float | None = None
    failed: bool = False

    def describe(self) -> str:
        parts = []
        if self.older_than:
            parts.append(f"older than {self.older_than}")
        if self.utility_below is not None:
            parts.append(f"utility below {self.utility_below:g}")
        if self.quality_below is not None:
            parts.append(f"quality below {self.quality_below:g}")
        if self.failed:
            parts.append("failed")
        return ", ".join(parts)


@dataclass(frozen=True)
class Moved:
    id: str
    path: str  # where it was
    to: str  # where it is now
    reasons: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "to": self.to, "reasons": list(self.reasons)}


@dataclass(frozen=True)
class ForgetResult:
    criteria: str
    dry_run: bool
    episodes: tuple[Moved, ...]

    def as_json(self) -> dict[str, Any]:
        return {"criteria": self.criteria, "dry_run": self.dry_run, "archived": len(self.episodes),
                "episodes": [m.as_json() for m in self.episodes]}


def cutoff(older_than: str, now: dt.datetime) -> str:
    """The time ``older_than`` names (:mod:`biocortex_cli.dates`: an age before ``now`` or a
    date), as the index stores ``created``."""
    from biocortex_cli.dates import parse_time

    when = parse_time(older_than, option="--older-than", now=now)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _matches(row: tuple[str, str, str, int | None, float | None], utility: float, criteria: Criteria,
             before: str | None) -> list[str]:
    """Why the episode matches every criterion (empty: it does not)."""
    _ident, _rel, created, success, quality = row
    reasons = []
    if before is not None:
        if created >= before:
            return []
        reasons.append(f"created {created[:10]}, before {before[:10]}")
    if criteria.utility_below is not None:
        if not utility < criteria.utility_below:
            return []
        reasons.append(f"utility {utility:.2f} < {criteria.utility_below:g}")
    if criteria.quality_below is not None:
        if quality is None or not quality < criteria.quality_below:
            return []
        reasons.append(f"quality {quality:.2f} < {criteria.quality_below:g}")
    if criteria.failed:
        if success != 0:
            return []
        reasons.append("failed")
    return reasons


def forget(vault: Vault, criteria: Criteria, *, author: Author, dry_run: bool = False,
           now: dt.datetime | None = None) -> ForgetResult:
    """Archive the live episodes matching every criterion (AND), in one commit; none: refuse."""
    if not criteria.describe():
        raise UsageError("forget needs at least one criterion; nothing was archived",
                         hint="e.g. biocortex forget --older-than 365d --utility-below 0.3 --dry-run")
    now = now or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    before = cutoff(criteria.older_than, now) if criteria.older_than else None
    picked = _candidates(vault, criteria, before)
    result = ForgetResult(criteria.describe(), dry_run, tuple(picked))
    if dry_run or not picked:
        return result
    body = "\n".join(f"- {m.id}: {'; '.join(m.reasons)}" for m in picked)
    plural = "s" if len(picked) != 1 else ""
    message = f"forget: archive {len(picked)} episode{plural} — {criteria.describe()}\n\n{body}"
    with vault.transaction(message, author) as txn:
        for m in picked:
            if not vault.path(m.path).is_file():
                raise NotFoundError(f"episode {m.id} moved while forgetting; nothing was archived", path=m.path,
                                    hint="run the command again")
            txn.move(m.path, m.to)
    return result


def _candidates(vault: Vault, criteria: Criteria, before: str | None) -> list[Moved]:
    from biocortex_cli.index.build import refresh, warn_problems
    from biocortex_cli.index.feedback import utilities

    conn, report = refresh(vault, vault.config.tokenizer.encoding)
    try:
        warn_problems(report)
        rows = conn.execute("SELECT id, rel, created, success, quality FROM docs"
                            " WHERE kind = 'episode' AND archived = 0 ORDER BY created, id").fetchall()
        utility = utilities(conn, [r[0] for r in rows]) if criteria.utility_below is not None else {}
    finally:
        conn.close()
    out = []
    for row in rows:
        reasons = _matches(row, utility.get(row[0], 0.5), criteria, before)
        if reasons and row[1].startswith("episodes/"):
            out.append(Moved(row[0], row[1], ARCHIVE + row[1], tuple(reasons)))
    return out


def restore(vault: Vault, ids: Iterable[str], *, author: Author) -> list[Moved]:
    """Move archived episodes back to ``episodes/``, in one commit."""
    from biocortex_cli.store.episodes import episode_path

    wanted = list(dict.fromkeys(ids))
    if not wanted:
        raise UsageError("name at least one episode id to restore")
    moves: list[Moved] = []
    for ident in wanted:
        rel = episode_path(vault, ident)
        if rel is None:
            raise NotFoundError(f"no episode with id {ident}", hint="`biocortex episode list` shows the ids")
        if not rel.startswith(ARCHIVE):
            raise DataError(f"episode {ident} is not archived", path=rel, hint="nothing to restore")
        to = rel[len(ARCHIVE):]
        if vault.path(to).exists():
            raise DataError(f"{to} already exists; nothing was restored", path=rel,
                            hint="move one of the two notes by hand")
        moves.append(Moved(ident, rel, to, ("restored",)))
    if len(moves) == 1:
        message = f"episode: restore {moves[0].id} — back from the archive"
    else:
        message = f"episode: restore {len(moves)} episodes — {', '.join(m.id for m in moves)}"
    with vault.transaction(message, author) as txn:
        for m in moves:
            txn.move(m.path, m.to)
    return moves
