"""Feedback in the sidecar index: one utility estimate per memory id (docs/learning.md).

At every refresh the feedback files' names, mtimes and sizes are hashed; when the hash changed,
every file is read again and the ``utility`` table rebuilt (thousands of lines take
milliseconds). Lines that cannot be read go to ``feedback_problems`` as ``path:line: message``;
the other lines still count. Any id is aggregated — episodes and lessons alike.

The model, per id, from every distinct feedback record (the same record twice counts once):

* evidence for: ``+1`` per record naming it helpful, ``+CREDIT`` per record that injected it
  without naming it, with outcome success;
* evidence against: ``+1`` per record naming it unhelpful, ``+CREDIT`` per record that injected
  it without naming it, with outcome failure;
* utility = ``(for + PRIOR) / (for + against + 2 * PRIOR) - EXPLORE * (1 - 1 / sqrt(1 + n))``,
  ``n = for + against``, clipped to 0-1. The Beta(PRIOR, PRIOR) prior keeps one vote from
  swinging it; the exploration term is 0 for a memory nobody judged yet and tends to
  ``-EXPLORE`` as votes accumulate, so a new memory (0.5) keeps a small edge over one whose
  record is known to be merely average (an upper-confidence-bound bonus, shifted so that
  "no feedback" is exactly 0.5).
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PRIOR = 2.0
CREDIT = 0.25
EXPLORE = 0.05
NEUTRAL = 0.5


def utility_value(evidence_for: float, evidence_against: float) -> float:
    n = evidence_for + evidence_against
    mean = (evidence_for + PRIOR) / (n + 2 * PRIOR)
    return min(1.0, max(0.0, mean - EXPLORE * (1 - 1 / math.sqrt(1 + n))))


def _stamps(root: Path) -> tuple[list[str], str]:
    from biocortex_cli.store.feedback import feedback_files

    rels = feedback_files(root)
    text = "\n".join(f"{rel}\0{st.st_mtime_ns}\0{st.st_size}" for rel in rels for st in [(root / rel).stat()])
    return rels, hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def feedback_digest(root: Path) -> str:
    """The hash of the feedback files' names, mtimes and sizes (``index --check`` compares it)."""
    return _stamps(root)[1]


def refresh_feedback(conn: sqlite3.Connection, root: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Re-aggregate the feedback files if they changed (inside the refresh's write transaction);
    returns the meta values to store."""
    from biocortex_cli.store.feedback import parse_feedback

    rels, digest = _stamps(root)
    if meta.get("feedback_digest") == digest:
        return {}
    votes: dict[str, list[float]] = {}  # id -> [for, against, records]
    seen: set[tuple[Any, ...]] = set()
    problems: list[tuple[str, int, str]] = []
    for rel in rels:
        try:
            data = (root / rel).read_bytes()
        except OSError as exc:
            problems.append((rel, 1, f"cannot read the file ({exc})"))
            continue
        records, bad = parse_feedback(data, rel)
        problems += [(p.path or rel, p.line or 1, p.message) for p in bad]
        for record in records:
            if record.key() in seen:
                continue
            seen.add(record.key())
            named = set(record.helpful) | set(record.unhelpful)
            for ident in record.helpful:
                _add(votes, ident, 1.0, 0.0)
            for ident in record.unhelpful:
                _add(votes, ident, 0.0, 1.0)
            success = record.outcome == "success"
            for ident in dict.fromkeys(record.injected):
                if ident not in named:
                    _add(votes, ident, CREDIT if success else 0.0, 0.0 if success else CREDIT)
    conn.execute("DELETE FROM utility")
    conn.execute("DELETE FROM feedback_problems")
    conn.executemany("INSERT INTO utility(id, helpful, unhelpful, votes, value) VALUES (?, ?, ?, ?, ?)",
                     [(ident, f, a, int(n), utility_value(f, a)) for ident, (f, a, n) in sorted(votes.items())])
    conn.executemany("INSERT OR REPLACE INTO feedback_problems(rel, line, message) VALUES (?, ?, ?)", problems)
    return {"feedback_digest": digest, "feedback_ids": len(votes)}


def _add(votes: dict[str, list[float]], ident: str, evidence_for: float, evidence_against: float) -> None:
    entry = votes.setdefault(ident, [0.0, 0.0, 0])
    entry[0] += evidence_for
    entry[1] += evidence_against
    entry[2] += 1


def utilities(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, float]:
    """id -> utility (0-1) for each of ``ids``; NEUTRAL (0.5) for an id without feedback."""
    out = dict.fromkeys(ids, NEUTRAL)
    unique = list(out)
    for i in range(0, len(unique), 500):
        chunk = unique[i : i + 500]
        out.update(conn.execute(f"SELECT id, value FROM utility WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return out


def evidence(conn: sqlite3.Connection) -> dict[str, tuple[float, float]]:
    """id -> (evidence for, evidence against) of every id with feedback (few: only judged ids)."""
    return {str(i): (float(f), float(a)) for i, f, a in conn.execute("SELECT id, helpful, unhelpful FROM utility")}


def pooled_utility(table: dict[str, tuple[float, float]], ids: Sequence[str]) -> float:
    """The utility of a group of memories (a lesson and the episodes behind it): their evidence
    pooled, then the same formula as one id's. NEUTRAL when none of them was judged."""
    evidence_for = sum(table[i][0] for i in ids if i in table)
    evidence_against = sum(table[i][1] for i in ids if i in table)
    return utility_value(evidence_for, evidence_against)


def feedback_problems(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
    return [(rel, line, message) for rel, line, message in
            conn.execute("SELECT rel, line, message FROM feedback_problems ORDER BY rel, line")]
