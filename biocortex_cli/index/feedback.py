"""Feedback in the sidecar index: what every vote said, and the question it was given on
(docs/learning.md).

At every refresh the feedback files' names, mtimes and sizes are hashed; when the hash changed,
every file is read again and three tables rebuilt (thousands of lines take milliseconds):
``questions``, every distinct question feedback was given on (the fingerprints of its words);
``question_words``, for each word, the questions that have it; and ``question_evidence``, what
the records given on a question say of each memory id they name or injected, summed (the same
record twice counts once; a record a retraction withdrew, not at all).
Lines that cannot be read go to ``feedback_problems`` as ``path:line: message``; the other
lines still count. Any id is aggregated — episodes and lessons alike.

What a record says of a memory:

* evidence for: ``1`` when it names it helpful, ``CREDIT`` when it injected it without naming
  it and the outcome was success;
* evidence against: ``1`` when it names it unhelpful, ``CREDIT`` when it injected it without
  naming it and the outcome was failure.

A memory's utility for a question ``q`` weighs each record by how alike its question ``v`` and
``q`` are — the IDF-weighted Jaccard similarity of their words,
``sim(q, v) = sum(idf, q & v) / sum(idf, q | v)`` over the indexed episodes (1 for a record
without a question) — so a vote counts in full for the question it was given on and not at all
for an unrelated one:

* ``for = sum(sim * for_r)``, ``against = sum(sim * against_r)``, ``n = for + against``;
* utility = ``(for + PRIOR) / (n + 2 * PRIOR) - EXPLORE * (1 - 1 / sqrt(1 + n))``, clipped to
  0-1. The Beta(PRIOR, PRIOR) prior keeps one vote from swinging it; the exploration term is 0
  for a memory nobody judged yet and tends to ``-EXPLORE`` as votes accumulate, so a new memory
  (0.5) keeps a small edge over one whose record is known to be merely average (an
  upper-confidence-bound bonus, shifted so that "no feedback" is exactly 0.5).

Without a question of its own (``forget --utility-below``, ``biocortex lessons``) a memory's
utility is the one for its own subject — its task, as the index holds it — so a vote given on an
unrelated question counts as little there as in a recall (:func:`own_evidence`).
The IDF is read from the index when the utility is asked for, never stored with the votes, so
the same vault commit gives the same utilities however the index was built.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
import sys
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PRIOR = 2.0
CREDIT = 0.25
EXPLORE = 0.05
NEUTRAL = 0.5
#: the ``question_words`` key of the records without a question (fingerprints are 48-bit, never negative)
NO_QUESTION = -1


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


def question_fingerprints(query: str) -> list[int]:
    """The fingerprints of a question's words (recall's tokens, each once, sorted)."""
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.fingerprints import fingerprint
    from biocortex_cli.index.weights import MAX_QUERY_TERMS

    return sorted({fingerprint(token) for token in tokenize(query)[:MAX_QUERY_TERMS]})


def refresh_feedback(conn: sqlite3.Connection, root: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Re-read the feedback files if they changed (inside the refresh's write transaction);
    returns the meta values to store."""
    from biocortex_cli.index.store import to_array, to_blob
    from biocortex_cli.store.feedback import live, read_feedback

    _rels, digest = _stamps(root)
    if meta.get("feedback_digest") == digest:
        return {}
    said: dict[tuple[int, str], list[float]] = {}  # (question, id) -> [for, against]
    questions: dict[tuple[int, ...], int] = {}  # a question's word fingerprints -> its number
    seen: set[tuple[Any, ...]] = set()
    records, bad = read_feedback(root)
    problems = [(p.path or "", p.line or 1, p.message) for p in bad]
    for record in live(records):  # retracted votes do not count
        if record.key() in seen:
            continue
        seen.add(record.key())
        question = questions.setdefault(tuple(question_fingerprints(record.query)), len(questions))
        named = set(record.helpful) | set(record.unhelpful)
        for ident in record.helpful:
            _add(said, question, ident, 1.0, 0.0)
        for ident in record.unhelpful:
            _add(said, question, ident, 0.0, 1.0)
        success = record.outcome == "success"
        for ident in dict.fromkeys(record.injected):
            if ident not in named:
                _add(said, question, ident, CREDIT if success else 0.0, 0.0 if success else CREDIT)
    for table in ("questions", "question_words", "question_evidence", "feedback_problems"):
        conn.execute(f"DELETE FROM {table}")
    conn.executemany("INSERT INTO questions(question, fps) VALUES (?, ?)",
                     [(n, _pack(fps)) for fps, n in questions.items()])
    by_word: dict[int, array[int]] = {}
    for fps, n in questions.items():
        for fp in fps or (NO_QUESTION,):
            by_word.setdefault(fp, to_array(None)).append(n)
    conn.executemany("INSERT INTO question_words(fp, questions) VALUES (?, ?)",
                     [(fp, to_blob(numbers)) for fp, numbers in sorted(by_word.items())])
    conn.executemany("INSERT INTO question_evidence(question, id, pro, con) VALUES (?, ?, ?, ?)",
                     [(question, ident, f, a) for (question, ident), (f, a) in sorted(said.items())])
    conn.executemany("INSERT OR REPLACE INTO feedback_problems(rel, line, message) VALUES (?, ?, ?)", problems)
    return {"feedback_digest": digest, "feedback_ids": len({ident for _question, ident in said})}


def _add(said: dict[tuple[int, str], list[float]], question: int, ident: str, evidence_for: float,
         evidence_against: float) -> None:
    entry = said.setdefault((question, ident), [0.0, 0.0])
    entry[0] += evidence_for
    entry[1] += evidence_against


def _pack(fps: Sequence[int]) -> bytes:
    packed = array("q", fps)
    if sys.byteorder != "little":  # pragma: no cover - big-endian machines
        packed.byteswap()
    return packed.tobytes()


def _unpack(blob: bytes) -> array[int]:
    out = array("q")
    out.frombytes(blob)
    if sys.byteorder != "little":  # pragma: no cover - big-endian machines
        out.byteswap()
    return out


def evidence(conn: sqlite3.Connection, ids: Sequence[str] | None = None, *,
             question: Sequence[int] | None = None) -> dict[str, tuple[float, float]]:
    """id -> (evidence for, evidence against) of each of ``ids`` with feedback (every judged id
    when None), each record weighed by the similarity of its question to ``question`` (the
    fingerprints of the question's words, :func:`question_fingerprints`), 1 each without one.

    With a question, only the records whose question shares a word with it (or that have none)
    are read: the others weigh 0 (``question_words`` lists the questions by word)."""
    wanted = None if ids is None else set(ids)
    weight: dict[int, float] = {}
    if question is None:
        rows = conn.execute("SELECT question, id, pro, con FROM question_evidence").fetchall()
    else:
        weight = _similarities(conn, question)
        numbers = sorted(weight)
        rows = []
        for i in range(0, len(numbers), 500):
            chunk = numbers[i : i + 500]
            rows += conn.execute(f"SELECT question, id, pro, con FROM question_evidence WHERE question IN"
                                 f" ({','.join('?' * len(chunk))})", chunk).fetchall()
    out: dict[str, tuple[float, float]] = {}
    for number, ident, pro, con in rows:  # in (question, id) order: the same sums in the same order
        if wanted is not None and ident not in wanted:
            continue
        w = weight.get(number, 1.0)
        f, a = out.get(ident, (0.0, 0.0))
        out[ident] = (f + w * pro, a + w * con)
    return out


def own_evidence(conn: sqlite3.Connection, ids: Sequence[str] | None = None, *,
                 subjects: Mapping[str, str] | None = None) -> dict[str, tuple[float, float]]:
    """As :func:`evidence` (every judged id when ``ids`` is None), each memory's records weighed
    by how alike their question is to the memory's own subject — ``subjects[id]`` (a lesson
    note's statement), else the ``task`` the index holds for it (an episode's) — taken as the
    question: the same sums as ``evidence(conn, [id], question=question_fingerprints(subject))``,
    in one pass (only the questions a memory was judged on are compared with its subject). An id
    with no subject keeps every record at 1."""
    wanted = None if ids is None else set(ids)
    rows = [row for row in conn.execute("SELECT question, id, pro, con FROM question_evidence ORDER BY question, id")
            if wanted is None or row[1] in wanted]  # in (question, id) order, as evidence() sums
    names = sorted({ident for _q, ident, _p, _c in rows})
    words = {ident: question_fingerprints(text) for ident, text in (subjects or {}).items() if ident in names}
    for i in range(0, len(names), 500):
        chunk = names[i : i + 500]
        for ident, task in conn.execute(f"SELECT id, task FROM docs WHERE id IN ({','.join('?' * len(chunk))})"
                                        " ORDER BY doc", chunk):
            if ident not in words:
                words[ident] = question_fingerprints(task)
    numbers = sorted({q for q, _i, _p, _c in rows})
    asked: dict[int, array[int]] = {}
    for i in range(0, len(numbers), 500):
        chunk = numbers[i : i + 500]
        asked.update((n, _unpack(blob)) for n, blob in conn.execute(
            f"SELECT question, fps FROM questions WHERE question IN ({','.join('?' * len(chunk))})", chunk))
    weight = _idf_weights(conn, sorted(set().union(*words.values(), *asked.values())))
    mine = {ident: (set(fps), sum(weight[fp] for fp in fps)) for ident, fps in words.items()}
    out: dict[str, tuple[float, float]] = {}
    for number, ident, pro, con in rows:
        own = mine.get(ident)
        w = 1.0 if own is None else _similarity(asked.get(number, array("q")), *own, weight)
        f, a = out.get(ident, (0.0, 0.0))
        out[ident] = (f + w * pro, a + w * con)
    return out


def _idf_weights(conn: sqlite3.Connection, words: Sequence[int]) -> dict[int, float]:
    """fingerprint -> its IDF over the indexed notes (a word no note has: the largest)."""
    from biocortex_cli.index.store import document_frequencies
    from biocortex_cli.index.weights import idf

    row = conn.execute("SELECT value FROM meta WHERE key = 'n_docs'").fetchone()
    n_docs = int(row[0]) if row else 0
    dfs = document_frequencies(conn, words)
    return {fp: idf(n_docs, dfs.get(fp, 0)) for fp in words}


def _similarity(fps: Sequence[int], mine: set[int], total: float, weight: dict[int, float]) -> float:
    """The IDF-weighted Jaccard similarity of a recorded question's words ``fps`` and a question
    whose words are ``mine`` (``total``: the sum of their weights, in sorted order); 1 for a
    record without a question."""
    if not fps:
        return 1.0  # records without a question count whatever the question
    shared = sum(weight[fp] for fp in fps if fp in mine)
    union = total + sum(weight[fp] for fp in fps if fp not in mine)
    return shared / union if union > 0 else 0.0


def _similarities(conn: sqlite3.Connection, question: Sequence[int]) -> dict[int, float]:
    """question number -> the IDF-weighted Jaccard similarity of its words and ``question``'s,
    for every recorded question that shares a word with it; 1 for records without a question."""
    from biocortex_cli.index.store import to_array

    mine = set(question)
    keys = [NO_QUESTION, *sorted(mine)]
    found: set[int] = set()
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        for (blob,) in conn.execute(f"SELECT questions FROM question_words WHERE fp IN"
                                    f" ({','.join('?' * len(chunk))})", chunk):
            found.update(to_array(blob))
    numbers = sorted(found)
    asked: dict[int, array[int]] = {}
    for i in range(0, len(numbers), 500):
        chunk = numbers[i : i + 500]
        for number, blob in conn.execute(f"SELECT question, fps FROM questions WHERE question IN"
                                         f" ({','.join('?' * len(chunk))})", chunk):
            asked[number] = _unpack(blob)
    if not asked:
        return {}
    weight = _idf_weights(conn, sorted(mine.union(*asked.values())))
    total = sum(weight[fp] for fp in sorted(mine))
    return {number: _similarity(asked[number], mine, total, weight) for number in numbers}


def utilities(conn: sqlite3.Connection, ids: Sequence[str], *,
              question: Sequence[int] | None = None) -> dict[str, float]:
    """id -> utility (0-1) for each of ``ids``, for ``question``, else for each one's own subject
    (module docstring); NEUTRAL (0.5) for an id without feedback."""
    out = dict.fromkeys(ids, NEUTRAL)
    found = own_evidence(conn, ids) if question is None else evidence(conn, ids, question=question)
    for ident, (f, a) in found.items():
        out[ident] = utility_value(f, a)
    return out


def pooled_utility(table: dict[str, tuple[float, float]], ids: Sequence[str]) -> float:
    """The utility of a group of memories (a lesson and the episodes behind it): their evidence
    pooled, then the same formula as one id's. NEUTRAL when none of them was judged."""
    evidence_for = sum(table[i][0] for i in ids if i in table)
    evidence_against = sum(table[i][1] for i in ids if i in table)
    return utility_value(evidence_for, evidence_against)


def feedback_problems(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
    return [(rel, line, message) for rel, line, message in
            conn.execute("SELECT rel, line, message FROM feedback_problems ORDER BY rel, line")]
