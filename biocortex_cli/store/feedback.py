"""Feedback files (docs/learning.md): ``feedback/YYYY/MM/YYYY-MM-DD.<writer>.jsonl``, committed,
one file per writer and day, one JSON object per line. Each writer only appends to its own
files and git merges concurrent appends with the ``merge=union`` rule of ``.gitattributes``, so
feedback recorded in two clones never conflicts. Feedback copies what the recall injected from
the recall log (store/recall_log.py), which recall writes without importing this module.

A vote is undone by a *retraction*, another line (``"retract": [{"author", "created"}, …]``) that
names the records it withdraws: nothing is removed from a file. (``git revert`` cannot undo a
vote: under ``merge=union`` the reverted line comes back.) :func:`live` is what counts.
"""

from __future__ import annotations

import calendar
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import DataError, NotFoundError, UsageError
from biocortex_cli.store.files import read_regular
from biocortex_cli.store.recall_log import find_recall

if TYPE_CHECKING:
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

FEEDBACK_DIR = "feedback"
OUTCOMES = ("success", "failure")
#: "r" + 12 digits; "r" + 10 hex digits is how recall ids were printed before (still in older logs)
RECALL_ID_RE = re.compile(r"r[0-9]{12}|r[0-9a-f]{10}")
_SLUG = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class FeedbackRecord:
    """One line of a feedback file."""

    recall_id: str
    outcome: str
    helpful: tuple[str, ...] = ()
    unhelpful: tuple[str, ...] = ()
    injected: tuple[str, ...] = ()
    query: str = ""
    note: str = ""
    author: str = ""
    created: str = ""
    retracts: tuple[tuple[str, str], ...] = ()  # a retraction: the (author, created) of the records it withdraws
    path: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)

    def key(self) -> tuple[Any, ...]:
        """What makes two records the same feedback (recording it again adds nothing)."""
        return (self.recall_id, self.author, self.outcome, tuple(sorted(self.helpful)),
                tuple(sorted(self.unhelpful)), self.note, self.retracts)

    def as_json(self) -> dict[str, Any]:
        if self.retracts:
            return {"recall_id": self.recall_id,
                    "retract": [{"author": a, "created": c} for a, c in self.retracts],
                    "note": self.note, "author": self.author, "created": self.created}
        return {"recall_id": self.recall_id, "outcome": self.outcome, "helpful": list(self.helpful),
                "unhelpful": list(self.unhelpful), "injected": list(self.injected), "query": self.query,
                "note": self.note, "author": self.author, "created": self.created}


@dataclass(frozen=True)
class FeedbackRetraction:
    record: FeedbackRecord  # the retraction line
    path: str
    withdrawn: tuple[FeedbackRecord, ...]  # the records it withdraws

    def as_json(self) -> dict[str, Any]:
        return {**self.record.as_json(), "path": self.path,
                "withdrawn": [{**r.as_json(), "path": r.path} for r in self.withdrawn]}


@dataclass(frozen=True)
class FeedbackWrite:
    record: FeedbackRecord
    path: str
    recorded: bool  # False: the same feedback was already there, nothing was written
    recall_known: bool  # False: the recall id was not in this clone's log

    def as_json(self) -> dict[str, Any]:
        return {**self.record.as_json(), "path": self.path, "recorded": self.recorded,
                "recall_known": self.recall_known}


# --- feedback files -------------------------------------------------------------------------------

def writer_slug(author: Author) -> str:
    """A file-name-safe slug of the author's email (else name): ``ada@lab.org`` -> ``ada-lab.org``."""
    base = author.email if author.email and author.email != "biocortex@localhost" else author.name
    slug = _SLUG.sub("-", base.casefold()).strip("-.")
    return slug[:64] or "anonymous"


def feedback_rel(author: Author, when: time.struct_time) -> str:
    day = time.strftime("%Y-%m-%d", when)
    return f"{FEEDBACK_DIR}/{day[:4]}/{day[5:7]}/{day}.{writer_slug(author)}.jsonl"


def _strings(value: Any, key: str, rel: str, line: int) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(f"'{key}' must be a list of ids", path=rel, line=line)
    return tuple(value)


def parse_record(text: str, rel: str, line: int) -> FeedbackRecord:
    """One line of a feedback file. Raises DataError with ``rel:line``."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DataError(f"not a JSON object ({exc})", path=rel, line=line,
                        hint="each line of a feedback file is one JSON object (docs/learning.md)") from None
    if not isinstance(data, dict):
        raise DataError("not a JSON object", path=rel, line=line)
    rid, outcome = data.get("recall_id"), data.get("outcome")
    if not isinstance(rid, str) or not rid:
        raise DataError("'recall_id' is missing", path=rel, line=line)
    if "retract" in data:
        return _retraction(data, rid, rel, line)
    if outcome not in OUTCOMES:
        raise DataError(f"'outcome' must be success or failure, not {outcome!r}", path=rel, line=line)
    t = _texts(data, rel, line)
    return FeedbackRecord(rid, outcome, _strings(data.get("helpful"), "helpful", rel, line),
                          _strings(data.get("unhelpful"), "unhelpful", rel, line),
                          _strings(data.get("injected"), "injected", rel, line),
                          query=t["query"], note=t["note"], author=t["author"], created=t["created"],
                          path=rel, line=line)


def _texts(data: dict[str, Any], rel: str, line: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in ("query", "note", "author", "created"):
        value = data.get(key) or ""
        if not isinstance(value, str):
            raise DataError(f"'{key}' must be a string", path=rel, line=line)
        out[key] = value
    return out


def _retraction(data: dict[str, Any], rid: str, rel: str, line: int) -> FeedbackRecord:
    withdrawn = data["retract"]
    pairs: list[tuple[str, str]] = []
    if isinstance(withdrawn, list):
        for item in withdrawn:
            if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("author", "created")):
                break
            pairs.append((item["author"], item["created"]))
    if not pairs or len(pairs) != len(withdrawn):
        raise DataError("'retract' must be a list of the withdrawn records' {\"author\", \"created\"}", path=rel,
                        line=line, hint="write it with `biocortex feedback RECALL_ID --retract` (docs/learning.md)")
    t = _texts(data, rel, line)
    return FeedbackRecord(rid, "", retracts=tuple(pairs), note=t["note"], author=t["author"], created=t["created"],
                          path=rel, line=line)


def withdrawn(records: Iterable[FeedbackRecord]) -> set[tuple[str, str, str]]:
    """(recall id, author, created) of every record a retraction among ``records`` withdraws."""
    return {(r.recall_id, *pair) for r in records for pair in r.retracts}


def live(records: Iterable[FeedbackRecord]) -> list[FeedbackRecord]:
    """The records that count: neither retractions nor withdrawn by one (whichever file holds it)."""
    records = list(records)
    gone = withdrawn(records)
    return [r for r in records if not r.retracts and (r.recall_id, r.author, r.created) not in gone]


def read_feedback(root: Path, pattern: str = "*.jsonl") -> tuple[list[FeedbackRecord], list[DataError]]:
    """Every record of every feedback file (those ``pattern`` names), in file order, and the lines
    (or files) that could not be read; :func:`live` gives those that count."""
    records: list[FeedbackRecord] = []
    problems: list[DataError] = []
    for rel in feedback_files(root, pattern):
        try:
            data = read_regular(root / rel) or b""
        except DataError as exc:
            problems.append(DataError(exc.message, path=rel, line=1, hint=exc.hint))
            continue
        except OSError as exc:
            problems.append(DataError(f"cannot read the file ({exc})", path=rel, line=1))
            continue
        found, bad = parse_feedback(data, rel)
        records += found
        problems += bad
    return records, problems


def parse_feedback(data: bytes, rel: str) -> tuple[list[FeedbackRecord], list[DataError]]:
    """Every record of a feedback file, and the lines that could not be read (the others count).

    Lines are decoded one by one: a line that is not UTF-8 (a hand edit) is a problem of its own."""
    records: list[FeedbackRecord] = []
    problems: list[DataError] = []
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(DataError(f"not UTF-8 (byte {exc.start + 1} of the line)", path=rel, line=number,
                                      hint="re-save the line as UTF-8, or delete it"))
            continue
        try:
            records.append(parse_record(text, rel, number))
        except DataError as exc:
            problems.append(exc)
    return records, problems


def feedback_files(root: Path, pattern: str = "*.jsonl") -> list[str]:
    """Feedback files (relative to the vault), in name order."""
    base = root / FEEDBACK_DIR
    return sorted(p.relative_to(root).as_posix() for p in base.glob(f"*/*/{pattern}")
                  if p.is_file() and not p.is_symlink())  # a link is never followed (check reports it)


def _known_id(vault: Vault, ident: str) -> bool:
    from biocortex_cli.store.episodes import episode_path

    if episode_path(vault, ident) is not None:
        return True
    from biocortex_cli.store.walk import note_paths

    return any(rel.endswith(f"/{ident}.md") for rel in note_paths(vault.root, ("lessons",)))


def record_feedback(vault: Vault, *, recall_id: str, outcome: str, helpful: Iterable[str] = (),
                    unhelpful: Iterable[str] = (), note: str = "", author: Author) -> FeedbackWrite:
    """Record how a recall went, as one line of the author's feedback file of the day, in one commit.

    The recall id is looked up in this clone's recall log for the query and the ids it injected.
    An id not in the log is refused unless helpful or unhelpful ids are named (they must exist):
    then only those count. Recording the same feedback again writes nothing."""
    if outcome not in OUTCOMES:
        raise UsageError(f"--outcome must be success or failure, not {outcome!r}")
    if not RECALL_ID_RE.fullmatch(recall_id):
        raise UsageError(f"{recall_id!r} is not a recall id (r and 12 digits)",
                         hint="copy it from the header of recall's output, or `recall_id` in its JSON")
    helpful_ids = tuple(dict.fromkeys(helpful))
    unhelpful_ids = tuple(dict.fromkeys(unhelpful))
    both = set(helpful_ids) & set(unhelpful_ids)
    if both:
        raise UsageError(f"{sorted(both)[0]} is both helpful and unhelpful", hint="name each id once")
    for ident in (*helpful_ids, *unhelpful_ids):
        if not _known_id(vault, ident):
            raise NotFoundError(f"no episode or lesson with id {ident}",
                                hint="use the ids recall printed (`biocortex episode list` shows them)")
    logged = find_recall(vault.state_dir, recall_id)
    if logged is None and not (helpful_ids or unhelpful_ids):
        raise NotFoundError(f"no recall {recall_id} in this clone's recall log",
                            path=".biocortex/logs/",
                            hint="give the feedback in the clone that ran the recall, or name the memories "
                                 "with --helpful/--unhelpful")
    injected = [str(i) for i in (logged or {}).get("injected") or [] if isinstance(i, str)]
    now = time.gmtime()
    record = FeedbackRecord(recall_id, outcome, helpful_ids, unhelpful_ids, tuple(injected),
                            query=str((logged or {}).get("query") or ""), note=note, author=str(author),
                            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", now))
    rel = feedback_rel(author, now)
    message = (f"feedback: record {recall_id} — {outcome}, {len(helpful_ids)} helpful, "
               f"{len(unhelpful_ids)} unhelpful")
    with vault.transaction(message, author) as txn:
        # The writer's own files hold any record this one could repeat or share a second with;
        # only then do retractions (anyone's, in any file) matter, and every file is read. Reading
        # them all for every vote made a vote 3x slower (benchmarks/feedback_write.py, performance.md).
        records = read_feedback(vault.root, f"*.{writer_slug(author)}.jsonl")[0]
        if any(r.recall_id == recall_id and (r.key() == record.key() or r.created == record.created)
               for r in records):
            records = read_feedback(vault.root)[0]
        same = next((r for r in live(records) if r.key() == record.key()), None)
        if same is not None:  # a withdrawn record does not count: the same vote again is recorded
            return FeedbackWrite(same, same.path, recorded=False, recall_known=logged is not None)
        gone, stamp = withdrawn(records), calendar.timegm(now)
        while (recall_id, record.created) in {(r, c) for r, a, c in gone if a == record.author}:
            stamp += 1  # recorded in the second of a vote retracted since: a later stamp, so it counts
            record = replace(record, created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp)))
        # a temporary file renamed over the old one, whose bytes it keeps
        txn.append(rel, json.dumps(record.as_json(), ensure_ascii=False) + "\n")
    return FeedbackWrite(record, rel, recorded=True, recall_known=logged is not None)


def retract_feedback(vault: Vault, *, recall_id: str, note: str = "", author: Author) -> FeedbackRetraction:
    """Withdraw every record given on ``recall_id`` (by any author) that still counts, with one
    line in the author's feedback file of the day naming them, in one commit. The records stay
    where they are; recording feedback on the same recall afterwards counts again."""
    if not RECALL_ID_RE.fullmatch(recall_id):
        raise UsageError(f"{recall_id!r} is not a recall id (r and 12 digits)",
                         hint="the recall id of the feedback to withdraw (`biocortex log --json` lists feedback)")
    now = time.gmtime()
    rel = feedback_rel(author, now)
    with vault.transaction(f"feedback: retract {recall_id}", author) as txn:
        records = read_feedback(vault.root)[0]
        counted = [r for r in live(records) if r.recall_id == recall_id]
        if not counted:
            retracted = any(r.recall_id == recall_id for r in records if not r.retracts)
            raise NotFoundError(f"no feedback on {recall_id} left to retract" + (" (it is retracted already)"
                                                                                if retracted else ""),
                                path=FEEDBACK_DIR,
                                hint="copy the recall id from the feedback record (`git log -- feedback`)")
        pairs = tuple(dict.fromkeys((r.author, r.created) for r in counted))
        retraction = FeedbackRecord(recall_id, "", retracts=pairs, note=note, author=str(author),
                                    created=time.strftime("%Y-%m-%dT%H:%M:%SZ", now))
        who = ", ".join(dict.fromkeys(a.split(" <", 1)[0] for a, _created in pairs))
        txn.message = f"feedback: retract {recall_id} — {len(pairs)} record{'s' if len(pairs) > 1 else ''} by {who}"
        txn.append(rel, json.dumps(retraction.as_json(), ensure_ascii=False) + "\n")
    return FeedbackRetraction(retraction, rel, tuple(counted))
