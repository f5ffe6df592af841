"""What changed in memory between two commits: the digest behind ``biocortex log`` and ``sync``.

Counts come from the changed paths (``git diff --name-status``), so commits made by hand count
the same as the tool's; the records are read back from git at the newer commit (one
``git cat-file --batch`` for all of them), so the digest shows the state that arrived. Commit
subjects (docs/json.md, "Commits": ``<kind>: <verb> <id> — <summary>``) are parsed for the per-author summary.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.store import git
from biocortex_cli.store.vault import Vault

#: git's empty tree: the "before" of a range that starts before the first commit
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
FOLDERS = ("episodes", "facts", "entities", "lessons", "archive", "feedback")
_SUBJECT = re.compile(r"^([a-z][a-z_-]*): ([a-z]+)\b ?(.*)$")
_HEX = re.compile(r"[0-9a-f]{7,40}")
_FEEDBACK_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.(.+)\.jsonl$")


class Commit(NamedTuple):
    sha: str
    author: str
    date: str
    subject: str
    kind: str  # episode, fact, feedback, lesson, forget, entity, … or "" for a hand-written subject
    verb: str

    def as_json(self) -> dict[str, Any]:
        return {"sha": self.sha, "author": self.author, "date": self.date, "subject": self.subject,
                "kind": self.kind, "verb": self.verb}


class Record(NamedTuple):
    """One note the range added or changed, as it is at the newer commit."""

    id: str
    path: str
    text: str  # episode task, fact sentence, lesson text
    author: str = ""
    success: bool | None = None
    quality: float | None = None
    status: str = ""
    why: str = ""  # retraction reason, superseding fact

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "path": self.path, "text": self.text, "author": self.author}
        if self.path.startswith("episodes/") or self.success is not None:
            out.update(success=self.success, quality=self.quality)
        if self.status:
            out.update(status=self.status, why=self.why)
        return out


class Contradiction(NamedTuple):
    fact: str
    other: str
    text: str

    def as_json(self) -> dict[str, str]:
        return {"fact": self.fact, "other": self.other, "text": self.text}


class Digest(NamedTuple):
    """What a range of commits changed in memory, grouped by kind."""

    old: str | None
    new: str | None
    commits: list[Commit]
    counts: dict[str, dict[str, int]]  # folder -> added / modified / removed notes
    episodes: list[Record]
    facts: list[Record]
    retracted: list[Record]  # retracted or superseded in the range
    contradictions: list[Contradiction]
    lessons: list[Record]
    archived: list[str]
    restored: list[str]
    feedback: dict[str, int]  # author -> entries added (retractions included)
    #: how many new episodes and lessons there are (the lists above may hold only the first few)
    totals: dict[str, int]
    feedback_retractions: dict[str, int]  # author -> retractions among their entries
    vocabulary: dict[str, list[str]]  # "added" / "removed" -> groups of vocabulary.md, as written

    @property
    def empty(self) -> bool:
        return not self.commits and not any(sum(c.values()) for c in self.counts.values())

    def authors(self) -> dict[str, int]:
        return dict(Counter(c.author for c in self.commits).most_common())

    def as_json(self) -> dict[str, Any]:
        return {"from": self.old, "to": self.new, "commits": len(self.commits), "authors": self.authors(),
                "counts": self.counts,
                "episodes": [r.as_json() for r in self.episodes],
                "facts": [r.as_json() for r in self.facts],
                "retracted": [r.as_json() for r in self.retracted],
                "contradictions": [c.as_json() for c in self.contradictions],
                "lessons": [r.as_json() for r in self.lessons],
                "archived": self.archived, "restored": self.restored,
                "feedback": self.feedback, "feedback_retractions": self.feedback_retractions,
                "vocabulary": {"added": self.vocabulary.get("added", []),
                               "removed": self.vocabulary.get("removed", [])},
                "totals": self.totals,
                "log": [c.as_json() for c in self.commits]}


def resolve_since(vault: Vault, since: str) -> str | None:
    """The commit a ``--since`` value names: a time in the grammar of :mod:`biocortex_cli.dates`
    (``7d``, ``12h``, ``2026-11-01``), or a commit. None: the range starts before the first commit."""
    from biocortex_cli.dates import FORMS, match_time

    root = vault.git_root
    text = since.strip()
    if _HEX.fullmatch(text):  # an abbreviated commit such as 1234567d reads like an age too
        out = git.run(root, "rev-parse", "--verify", "-q", f"{text}^{{commit}}", check=False).strip()
        if out:
            return out
    cutoff = match_time(text, option="--since")
    if cutoff is not None:
        if cutoff >= dt.datetime.now(dt.timezone.utc):
            return vault.head()  # nothing can be newer than now
        out = git.run(root, "rev-list", "-1", "--first-parent", f"--before={cutoff.isoformat()}", "HEAD",
                      check=False).strip()
        return out or None
    if text and not text.startswith("-") and ".." not in text:  # one commit, not a range
        out = git.run(root, "rev-parse", "--verify", "-q", f"{text}^{{commit}}", check=False).strip()
        if out:
            return out
    raise UsageError(f"--since takes {FORMS} or a commit, not {since!r}",
                     hint="e.g. --since 7d, --since 12h, --since 2026-11-01 or --since <commit> "
                          "(docs/cli.md, 'Dates and ages')")


def digest(vault: Vault, old: str | None, new: str | None = None, *, limit: int | None = None,
           from_index: bool = True) -> Digest:
    """What changed in the vault's folders from ``old`` (exclusive) to ``new`` (default HEAD).

    ``limit`` reads only the first new episodes and lessons (their totals are still exact): a
    digest of 100k new episodes read them all in 70 s, for a text that shows 20. ``from_index``:
    new episodes the index holds as committed are read from it (:func:`_indexed_records`)."""
    root = vault.git_root
    new = new or vault.head()
    if new is None:
        return Digest(old, new, [], {}, [], [], [], [], [], [], [], {}, {}, {}, {})
    prefix = vault.root.resolve().relative_to(root.resolve()).as_posix()
    spec = "." if prefix == "." else prefix
    cut = 0 if prefix == "." else len(prefix) + 1
    commits = _commits(root, old, new, spec)
    changes = _changes(root, old or EMPTY_TREE, new, spec, cut)
    counts: dict[str, dict[str, int]] = {}
    for status, rel in changes:
        top = rel.split("/", 1)[0]
        if top in FOLDERS and rel.count("/") and not rel.endswith("/README.md"):
            bucket = counts.setdefault(top, {"added": 0, "modified": 0, "removed": 0})
            bucket[{"A": "added", "D": "removed"}.get(status, "modified")] += 1
    added = {rel for s, rel in changes if s == "A" and rel.endswith(".md")}
    removed = {rel for s, rel in changes if s == "D" and rel.endswith(".md")}
    modified_facts = [rel for s, rel in changes if s == "M" and rel.startswith("facts/") and rel.endswith(".md")]
    from_archive = {_stem(r) for r in removed if r.startswith("archive/")}
    restored = sorted(r for r in added if r.startswith("episodes/") and _stem(r) in from_archive) \
        if from_archive else []
    archived = sorted(r for r in added if r.startswith("archive/") and not r.endswith("/README.md"))
    wanted = sorted(r for r in added if r.split("/", 1)[0] in ("episodes", "facts", "lessons")
                    and r not in restored and not r.endswith("/README.md"))
    new_episodes = [r for r in wanted if r.startswith("episodes/")]
    new_lessons = [r for r in wanted if r.startswith("lessons/")]
    wanted = [r for r in wanted if r.startswith("facts/")] + new_episodes[:limit] + new_lessons[:limit]
    indexed = _indexed_records(vault, new, new_episodes[:limit]) if from_index else {}
    full = (lambda rel: rel) if prefix == "." else (lambda rel: f"{prefix}/{rel}")
    read = [r for r in [*wanted, *modified_facts] if r not in indexed]
    blobs = _blobs(root, [(new, full(r)) for r in read] + [(old, full(r)) for r in modified_facts if old])
    records = {**indexed, **{rel: _record(rel, blobs.get((new, full(rel)))) for rel in read}}
    facts = [records[r] for r in wanted if r.startswith("facts/")]
    retracted = []  # retracted or superseded within the range, whenever the fact was added
    for rel in [*(r for r in wanted if r.startswith("facts/")), *modified_facts]:
        now_status = records[rel].status
        before = _record(rel, blobs.get((old, full(rel)))) if old and rel in modified_facts else None
        if now_status in ("retracted", "superseded") and (before is None or before.status != now_status):
            retracted.append(records[rel])
    feedback, retractions = _feedback(root, old or EMPTY_TREE, new, spec)
    changed_current = [records[r] for r in [*wanted, *modified_facts]
                       if r.startswith("facts/") and records[r].status == "current"]
    return Digest(
        old=old, new=new, commits=commits, counts=counts,
        episodes=[records[r] for r in wanted if r.startswith("episodes/")],
        facts=facts, retracted=retracted,
        contradictions=_contradictions(vault, changed_current),
        lessons=[records[r] for r in wanted if r.startswith("lessons/")],
        archived=[PurePosixPath(r).stem for r in archived],
        restored=[PurePosixPath(r).stem for r in restored],
        feedback=feedback, feedback_retractions=retractions,
        totals={"episodes": len(new_episodes), "lessons": len(new_lessons)},
        vocabulary=_vocabulary(root, old, new, full, changes))


def _stem(rel: str) -> str:
    """``PurePosixPath(rel).stem`` of a note's path, without building a path object (a digest
    of a range with 100k new notes asked it of each)."""
    name = rel.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else PurePosixPath(name).stem


def _commits(root: Any, old: str | None, new: str, spec: str) -> list[Commit]:
    rng = f"{old}..{new}" if old else new
    out = git.run(root, "log", "--reverse", "--no-merges", "--format=%H%x1f%an%x1f%aI%x1f%s%x1e", rng,
                  "--", spec)
    commits = []
    for chunk in out.split("\x1e"):
        parts = chunk.strip("\n").split("\x1f")
        if len(parts) != 4:
            continue
        sha, author, date, subject = parts
        m = _SUBJECT.match(subject)
        commits.append(Commit(sha, author, date, subject, m.group(1) if m else "", m.group(2) if m else ""))
    return commits


def _changes(root: Any, old: str, new: str, spec: str, cut: int) -> list[tuple[str, str]]:
    out = git.run(root, "diff", "--name-status", "--no-renames", "-z", old, new, "--", spec)
    fields = out.split("\0")
    pairs = []
    for i in range(0, len(fields) - 1, 2):
        pairs.append((fields[i][:1], fields[i + 1][cut:]))
    return pairs


def _blobs(root: Any, wanted: Sequence[tuple[str | None, str]]) -> dict[tuple[str | None, str], str]:
    """The text of many files at given commits, in one ``git cat-file --batch``."""
    found = git.blobs(root, [f"{rev}:{path}" for rev, path in wanted])
    return {key: data.decode("utf-8", "replace") for key, data in zip(wanted, found, strict=True) if data is not None}


#: ids that ``_record`` replaces by the file's name (``meta.get("id") or stem``), as the index keeps them
_FALSY_IDS = frozenset({"", "0", "0.0", "False", "None", "[]", "{}"})


def _indexed_records(vault: Vault, new: str, rels: Sequence[str]) -> dict[str, Record]:
    """The records of new episodes ``rels`` that the index can give as they are at ``new``: when
    ``new`` is the vault's HEAD, the notes the working tree holds as committed, read from the
    index (index/listing.py) instead of parsing each note: ``log --json`` parsed 8k notes' YAML in
    ~10 s. The rest are read from git.

    Which notes are as committed: for a few (the text shows 20), their bytes hashed as git hashes
    a blob, against the blob ids at HEAD (one ``git cat-file --batch-check``), and their stamps
    against the index's — git's own index is not read, 28 MB at 100k episodes, ~50 ms for any git
    command that loads it; for many, ``git status`` of the folder."""
    if not rels or new != vault.head():
        return {}
    from biocortex_cli.index.listing import episode_rows, fresh_index

    conn = fresh_index(vault)
    try:
        if len(rels) <= 1000:
            kept = _as_committed(vault, new, rels, conn)
        else:
            from biocortex_cli.index.build import uncommitted

            changed = uncommitted(vault, ("episodes",))
            kept = None if changed is None else [r for r in rels if r not in changed]
        rows = episode_rows(conn, kept) if kept else {}
    finally:
        conn.close()
    return {rel: Record(id=ident, path=rel, text=" ".join(task.split()), author=author, success=success,
                        quality=quality)
            for rel, (ident, task, author, success, quality) in rows.items() if ident not in _FALSY_IDS}


def _as_committed(vault: Vault, new: str, rels: Sequence[str], conn: Any) -> list[str] | None:
    """Those of ``rels`` whose file is the blob committed at ``new`` and has the stamp (mtime,
    size) the index read it at; None when git cannot say. A note filtered on checkout (line
    endings, a clean filter) hashes otherwise: it is read from git, as any changed note."""
    import hashlib
    import os

    root = vault.git_root
    prefix = vault.root.resolve().relative_to(root.resolve()).as_posix()
    full = (lambda rel: rel) if prefix == "." else (lambda rel: f"{prefix}/{rel}")
    proc = subprocess.run(["git", "-C", str(root), "cat-file", "--batch-check"],
                          input="".join(f"{new}:{full(r)}\n" for r in rels).encode(), capture_output=True,
                          check=False)
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode != 0 or len(lines) != len(rels):
        return None
    stamps = {rel: (mtime, size) for rel, mtime, size in conn.execute(
        f"SELECT rel, mtime_ns, size FROM docs WHERE rel IN ({','.join('?' * len(rels))})", list(rels))}
    kept = []
    for rel, line in zip(rels, lines, strict=True):
        parts = line.split()
        if len(parts) != 3 or parts[1] != "blob" or rel not in stamps:
            continue
        try:
            with open(vault.root / rel, "rb") as fh:
                data = fh.read()
                st = os.fstat(fh.fileno())
        except OSError:
            continue
        algorithm = hashlib.sha1 if len(parts[0]) == 40 else hashlib.sha256
        if (st.st_mtime_ns, st.st_size) == stamps[rel] and \
                algorithm(b"blob %d\0" % len(data) + data).hexdigest() == parts[0]:
            kept.append(rel)
    return kept


def _record(rel: str, text: str | None) -> Record:
    from biocortex_cli.store.notes import parse_note  # only for notes the index cannot give

    stem = PurePosixPath(rel).stem
    if text is None:
        return Record(id=stem, path=rel, text="(not readable at this commit)")
    try:
        meta = parse_note(text, rel).meta
    except DataError as exc:
        return Record(id=stem, path=rel, text=f"(unreadable: {exc.message})")
    ident, author = str(meta.get("id") or stem), str(meta.get("author") or "")
    if rel.startswith("facts/"):
        sentence = f"{meta.get('subject', '?')} {str(meta.get('predicate', '?')).replace('_', ' ')} " \
                   f"{meta.get('object', '?')}"
        status = str(meta.get("status") or "current")
        why = ""
        retracted = meta.get("retracted")
        if status == "retracted" and isinstance(retracted, dict):
            why = str(retracted.get("reason") or "")
        elif status == "superseded":
            why = f"superseded by {meta.get('superseded_by', '?')}"
        return Record(id=ident, path=rel, text=sentence, author=author, status=status, why=why)
    if rel.startswith("lessons/"):
        body = parse_note(text, rel).body
        heading = next((ln.lstrip("# ").strip() for ln in body.splitlines() if ln.strip()), "")
        words = next((str(meta[k]) for k in ("lesson", "title", "text", "summary") if meta.get(k)), heading)
        return Record(id=ident, path=rel, text=words, author=author)
    success = meta.get("success")
    quality = meta.get("quality")
    return Record(id=ident, path=rel, text=" ".join(str(meta.get("task") or "").split()), author=author,
                  success=success if isinstance(success, bool) else None,
                  quality=float(quality) if isinstance(quality, int | float) and not isinstance(quality, bool)
                  else None)


def _contradictions(vault: Vault, changed: list[Record]) -> list[Contradiction]:
    """Open contradictions between a fact the range added or changed and any current fact with the
    same subject (facts of one subject share a folder: ``facts/<subject>/``)."""
    if not changed:
        return []
    from biocortex_cli.facts.model import FactRules, fact_from_note
    from biocortex_cli.store.notes import read_note
    from biocortex_cli.store.walk import list_folder

    rules = FactRules.from_config(vault)
    out: list[Contradiction] = []
    seen: set[tuple[str, str]] = set()
    for record in changed:
        folder = vault.root / PurePosixPath(record.path).parent
        try:
            here = fact_from_note(read_note(vault.root / record.path, record.path))
        except (DataError, OSError):
            continue
        try:
            siblings = sorted(list_folder(vault.root, vault.rel(folder)).notes)
        except OSError:
            continue
        for rel in siblings:
            try:
                other = fact_from_note(read_note(vault.root / rel, rel))
            except (DataError, OSError):
                continue
            pair = tuple(sorted((here.id, other.id)))
            if rules.conflicts(here, other) and pair not in seen:
                seen.add(pair)  # type: ignore[arg-type]
                out.append(Contradiction(here.id, other.id, f"{here.sentence()} / {other.sentence()}"))
    return out


def _feedback(root: Any, old: str, new: str, spec: str) -> tuple[dict[str, int], dict[str, int]]:
    """Feedback entries added, by author (the name in the entry's ``author``, else the writer in
    the file name), and how many of them are retractions (docs/learning.md)."""
    folder = "feedback" if spec == "." else f"{spec}/feedback"
    out = git.run(root, "diff", "-U0", "--no-color", "--no-renames", "--no-ext-diff", old, new, "--", folder,
                  check=False)
    counts: Counter[str] = Counter()
    retractions: Counter[str] = Counter()
    writer = ""
    for line in out.splitlines():
        if line.startswith("+++ "):
            name = PurePosixPath(line[4:].strip()).name
            m = _FEEDBACK_NAME.match(name)
            writer = m.group(1) if m else name if name.endswith(".jsonl") else ""
        elif writer and line.startswith("+") and line[1:].strip():
            who = writer
            try:
                entry = json.loads(line[1:])
            except ValueError:
                entry = None
            if isinstance(entry, dict) and isinstance(entry.get("author"), str) and entry["author"].strip():
                who = entry["author"].split(" <", 1)[0].strip() or writer  # "Name <email>" -> Name
            counts[who] += 1
            if isinstance(entry, dict) and "retract" in entry:
                retractions[who] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))), dict(sorted(retractions.items()))


def _vocabulary(root: Any, old: str | None, new: str, full: Any, changes: Sequence[tuple[str, str]]
                ) -> dict[str, list[str]]:
    """The groups of vocabulary.md the range added and removed, as the note writes them (an edited
    group is one removed and one added)."""
    from biocortex_cli.store.vocabulary import VOCABULARY_REL, parse

    if not any(rel == VOCABULARY_REL for _status, rel in changes):
        return {}
    path = full(VOCABULARY_REL)
    blobs = _blobs(root, [(new, path)] + ([(old, path)] if old else []))
    before, after = ([g.text() for g in parse(blobs.get((rev, path), "")).groups] for rev in (old, new))
    return {"added": [g for g in after if g not in before], "removed": [g for g in before if g not in after]}
