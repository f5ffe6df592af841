"""``biocortex lessons``: lessons clustered across episodes, promoted to lesson notes, refreshed.

The clustering is :mod:`biocortex_cli.lessons.cluster` over the lessons the index holds; the notes
are :mod:`biocortex_cli.lessons.notes`. Archived episodes never count as support: they are listed
apart (``archived_support``), so a lesson that only archived episodes state has no support, is
not listed, and cannot be promoted.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from biocortex_cli.errors import DataError, NotFoundError, UsageError
from biocortex_cli.lessons.cluster import Clustering, LessonCluster, cluster_lessons, read_episode_lessons
from biocortex_cli.lessons.notes import (
    ID_HINT,
    Evidence,
    LessonNote,
    Promotion,
    lesson_file_text,
    lesson_update,
    new_lesson_id,
    read_lessons,
    write_lesson,
)
from biocortex_cli.store.episodes import ID_RE
from biocortex_cli.store.git import Author
from biocortex_cli.store.vault import Vault

SUMMARY_TOKENS = 120  # what a --summarizer may print for one lesson


@dataclass(frozen=True)
class LessonsReport:
    clusters: list[LessonCluster]  # those shown (after --min-support and --limit)
    total: int  # clusters with at least the minimum support, before --limit
    lessons: int  # lessons read from episodes
    seconds: float
    warnings: tuple[str, ...] = ()  # lesson notes that could not be read

    def as_json(self) -> dict[str, Any]:
        return {"clusters": [c.as_json() for c in self.clusters], "total": self.total,
                "lessons": self.lessons}


def _open(vault: Vault) -> sqlite3.Connection:
    from biocortex_cli.index.build import refresh, warn_problems

    conn, report = refresh(vault, vault.config.tokenizer.encoding)
    warn_problems(report)
    return conn


def _mark_promoted(clustering: Clustering, notes: Sequence[LessonNote]) -> dict[int, LessonNote]:
    """cluster index -> the lesson note that holds it (a phrasing or its text is near-identical)."""
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.lessons.cluster import lesson_fingerprints

    out: dict[int, LessonNote] = {}
    for note in notes:
        for phrase in [note.lesson, *note.strings("phrasings")]:
            tokens = tuple(tokenize(phrase))
            hits = set(clustering.matcher.similar(lesson_fingerprints(tokens)))
            if tokens in clustering.keys:
                hits.add(clustering.keys[tokens])
            for k in hits:
                out.setdefault(clustering.cluster_of[k], note)
    return out


def _broken_lessons(problems: Sequence[DataError]) -> list[str]:
    """One warning per lesson note that could not be read (it cannot mark its cluster promoted)."""
    return [f"biocortex: warning: {p.location()}{p.message} (lesson note not read; run `biocortex check`)"
            for p in problems]


def _refuse_broken(problems: Sequence[DataError]) -> None:
    """Promote refuses while a lesson note cannot be read: it may hold this very lesson, and
    promoting would then write a duplicate of it."""
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DataError(f"lesson note cannot be read: {first.message}{more}", path=first.path, line=first.line,
                        hint="fix it (`biocortex check` lists every problem) and promote again: "
                             "it may hold this lesson, and promoting now could write a duplicate")


def _clustering(vault: Vault, conn: sqlite3.Connection,
                domain: str | None) -> tuple[Clustering, list[LessonCluster], list[DataError]]:
    from biocortex_cli.index.feedback import own_evidence, pooled_utility

    clustering = cluster_lessons(read_episode_lessons(conn, domain))
    notes, problems = read_lessons(vault)
    owners = _mark_promoted(clustering, notes)
    judged = own_evidence(conn, subjects={n.id: n.lesson for n in notes})  # votes on each one's own subject
    clusters = []
    for n, cluster in enumerate(clustering.clusters):
        note = owners.get(n)
        if note is not None:
            listed = set(note.strings("supporting"))
            cluster = replace(cluster, promoted=note.id,
                              new_support=tuple(e for e in cluster.support if e not in listed))
        ids = [*cluster.support, *([note.id] if note is not None else [])]
        clusters.append(replace(cluster, utility=round(pooled_utility(judged, ids), 4)))
    return clustering, clusters, problems


def list_lessons(vault: Vault, *, min_support: int = 2, domain: str | None = None,
                 limit: int | None = None) -> LessonsReport:
    conn = _open(vault)
    try:
        clustering, clusters, problems = _clustering(vault, conn, domain)
    finally:
        conn.close()
    shown = [c for c in clusters if len(c.support) >= min_support]
    total = len(shown)
    return LessonsReport(shown[:limit] if limit is not None else shown, total, clustering.lessons,
                         clustering.seconds, tuple(_broken_lessons(problems)))


def _pick(clusters: list[LessonCluster], clustering: Clustering, target: str) -> LessonCluster:
    by_id = [c for c in clusters if c.id == target]
    if by_id:
        return by_id[0]
    ids = {c.id: c for c in clusters}
    found = [ids[c.id] for c in clustering.find(target)]
    if not found:
        raise NotFoundError(f"no lesson cluster {target!r}, and no episode states a lesson like it",
                            hint="run `biocortex lessons --min-support 1` to see the clusters and their ids")
    return found[0]


def _summarize(command: str, cluster: LessonCluster, encoding: str) -> tuple[str | None, str | None]:
    """The summarizer's phrasing, or (None, warning) when it fails (the representative is used)."""
    from biocortex_cli.compress.summarize import CommandFailed, _run_command, summarizer_argv
    from biocortex_cli.tokens import get_counter

    argv = summarizer_argv(command)
    prompt = ("Write one short, general lesson (one sentence) that all of these lessons from past "
              "analyses state:\n" + "".join(f"- {v}\n" for v in cluster.variants))
    try:
        out = _run_command(argv, prompt, SUMMARY_TOKENS, 1, (0, len(cluster.variants)), 60.0, get_counter(encoding))
    except CommandFailed as exc:
        return None, f"biocortex: warning: summarizer {command!r} {exc}; using the most frequent phrasing"
    return " ".join(out.split()), None


@dataclass(frozen=True)
class PromoteResult:
    promotion: Promotion
    cluster: LessonCluster
    warnings: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"lesson": self.promotion.lesson.as_json(), "created": self.promotion.created,
                "added": list(self.promotion.added), "cluster": self.cluster.as_json()}


def _episodes(conn: sqlite3.Connection, vault: Vault,
              ids: Sequence[str]) -> tuple[list[dict[str, Any]], list[Evidence]]:
    """The records of the episodes ``ids`` (read from their notes) and their evidence lines."""
    from biocortex_cli.store.episodes import load_episode

    rels: dict[str, str] = {}
    wanted = sorted(set(ids))
    for i in range(0, len(wanted), 500):
        chunk = wanted[i:i + 500]
        rels.update(conn.execute(f"SELECT id, rel FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    records, evidence = [], []
    for ident in wanted:
        rel = rels.get(ident)
        if rel is None:
            evidence.append(Evidence(ident, "(episode not found)", None))
            continue
        try:
            ep = load_episode(vault, rel)
        except (DataError, OSError):
            evidence.append(Evidence(ident, "(episode unreadable)", None))
            continue
        records.append(ep.record)
        evidence.append(Evidence(ident, ep.task, ep.success))
    return records, evidence


def promote(vault: Vault, target: str, *, author: Author, text: str | None = None,
            summarizer: str | None = None, ident: str | None = None) -> PromoteResult:
    """Write (or update) the lesson note of the cluster ``target`` (a cluster id, or a lesson's text)."""
    if text is not None and not text.strip():
        raise UsageError("--text is empty", hint='e.g. --text "Call doublets per modality"')
    if ident is not None and not ID_RE.fullmatch(ident):
        raise UsageError(f"--id {ident!r} is not a valid id", hint=ID_HINT)
    conn = _open(vault)
    try:
        clustering, clusters, problems = _clustering(vault, conn, None)
        _refuse_broken(problems)
        cluster = _pick(clusters, clustering, target)
        if not cluster.support:
            raise DataError(f"every episode that states this lesson is archived ({len(cluster.archived_support)})",
                            hint="archived memory does not support lessons; restore an episode first")
        warnings: list[str] = []
        if text is None and summarizer is not None:
            text, warning = _summarize(summarizer, cluster, vault.config.tokenizer.encoding)
            warnings += [warning] if warning else []
        notes, _problems = read_lessons(vault)
        existing = next((n for n in notes if n.id == cluster.promoted), None)
        if existing is not None and ident is not None and ident != existing.id:
            raise DataError(f"this lesson is already promoted as {existing.id}",
                            hint=f"leave out --id to update {existing.id}")
        lesson_text = text if text is not None else (None if existing is not None else cluster.text)
        new_id = existing.id if existing else new_lesson_id(vault, lesson_text or cluster.text, ident,
                                                             {n.id for n in notes})
        supporting = sorted(set(cluster.support) | set(existing.strings("supporting") if existing else ()))
        records, evidence = _episodes(conn, vault, supporting)
    finally:
        conn.close()
    record = lesson_update(existing, text=lesson_text, supporting=cluster.support, phrasings=cluster.variants,
                           episodes=records, ident=new_id, author=author, now=dt.datetime.now(dt.timezone.utc))
    added = tuple(e for e in cluster.support if existing is None or e not in existing.strings("supporting"))
    from biocortex_cli.store.episodes import one_line

    if existing is not None:
        _rel, new_text, old_text = lesson_file_text(vault, existing, record, evidence)
        if new_text == old_text:  # promoted again with nothing new: no commit
            return PromoteResult(Promotion(existing, False, (), changed=False), cluster, tuple(warnings))
    with vault.transaction(f"lesson: promote {new_id} — {one_line(str(record['lesson']))}", author) as txn:
        note = write_lesson(vault, txn, existing, record, evidence)
    return PromoteResult(Promotion(note, existing is None, added), cluster, tuple(warnings))


def refresh_promoted(vault: Vault, *, author: Author) -> list[Promotion]:
    """Add to every lesson note the episodes that state it since it was promoted (one commit)."""
    conn = _open(vault)
    try:
        _unused, clusters, _problems = _clustering(vault, conn, None)
        notes, _problems = read_lessons(vault)
        by_id = {n.id: n for n in notes}
        gains: dict[str, set[str]] = {}
        phrasings: dict[str, list[str]] = {}
        for cluster in clusters:
            if cluster.promoted and cluster.new_support:
                gains.setdefault(cluster.promoted, set()).update(cluster.new_support)
                phrasings.setdefault(cluster.promoted, []).extend(cluster.variants)
        plans = []
        for lesson_id in sorted(gains):
            note = by_id[lesson_id]
            supporting = sorted(set(note.strings("supporting")) | gains[lesson_id])
            records, evidence = _episodes(conn, vault, supporting)
            plans.append((note, supporting, records, evidence))
    finally:
        conn.close()
    if not plans:
        return []
    now = dt.datetime.now(dt.timezone.utc)
    new = sum(len(gains[n.id]) for n, *_ in plans)
    subject = plans[0][0].id if len(plans) == 1 else f"{len(plans)} lessons"
    out = []
    with vault.transaction(f"lesson: refresh {subject} — {new} new supporting episode{'s' if new != 1 else ''}",
                           author) as txn:
        for note, supporting, records, evidence in plans:
            record = lesson_update(note, text=None, supporting=supporting, phrasings=phrasings[note.id],
                                   episodes=records, ident=note.id, author=author, now=now)
            written = write_lesson(vault, txn, note, record, evidence)
            out.append(Promotion(written, False, tuple(sorted(gains[note.id]))))
    return out
