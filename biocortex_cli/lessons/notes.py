"""Lesson notes: ``lessons/<id>.md``, a lesson promoted from the episodes that state it.

Frontmatter: ``id``, ``type: lesson``, ``created``, ``author``, ``lesson`` (the text), ``supporting``
(ids of the episodes it was drawn from), ``success_rate`` and ``quality`` of those episodes when it
was last promoted or refreshed, the union of their ``domains``, ``tools`` and ``entities``, and
``phrasings`` (the lessons as the episodes wrote them: how later episodes are recognised). The
body links every supporting episode (``[[episode-id]]``), so Obsidian's backlinks show the
evidence; its ``## Evidence`` section is rewritten when support grows, the rest is left alone.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.store.episodes import ID_RE
from biocortex_cli.store.git import Author
from biocortex_cli.store.notes import Note, edit_frontmatter, iso_utc, read_note, render_note
from biocortex_cli.store.vault import Vault

LESSONS_DIR = "lessons"
MAX_PHRASINGS = 20
ID_HINT = "ids are letters, digits, '.', '_' or '-' (1-128)"
_LIST_KEYS = ("supporting", "domains", "tools", "entities", "phrasings")
_EVIDENCE = re.compile(r"^## Evidence[ \t]*\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class LessonNote:
    record: dict[str, Any]
    path: str

    @property
    def id(self) -> str:
        return str(self.record["id"])

    @property
    def lesson(self) -> str:
        return str(self.record.get("lesson", ""))

    def strings(self, key: str) -> list[str]:
        value = self.record.get(key) or []
        return [str(v) for v in value] if isinstance(value, list) else []

    def as_json(self) -> dict[str, Any]:
        return {**self.record, "path": self.path}


def lesson_problems(meta: Mapping[str, Any], note: Note) -> list[DataError]:
    """What is wrong with a lesson note's fields (``check`` and the index report them)."""
    out = []
    lesson = meta.get("lesson")
    if not isinstance(lesson, str) or not lesson.strip():
        out.append(DataError("lesson is required text", path=note.rel, line=note.line_of("lesson"),
                             hint="write lesson: what to do or avoid next time"))
    for key in _LIST_KEYS:
        value = meta.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            out.append(DataError(f"{key} must be a list of strings", path=note.rel, line=note.line_of(key),
                                 hint=f"write {key}: [a, b]"))
    supporting = meta.get("supporting")
    for ident in supporting if isinstance(supporting, list) else []:
        if isinstance(ident, str) and not ID_RE.fullmatch(ident):
            out.append(DataError(f"supporting id {ident!r} is not a valid episode id", path=note.rel,
                                 line=note.line_of("supporting"), hint="list episode ids"))
    for key in ("success_rate", "quality"):
        value = meta.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                  or not 0 <= value <= 1):
            out.append(DataError(f"{key} must be a number from 0 to 1, not {value!r}", path=note.rel,
                                 line=note.line_of(key), hint=f"write {key}: 0.8, or leave it out"))
    return out


def lesson_from_note(note: Note) -> LessonNote:
    """A lesson note, validated; raises the first problem as a DataError."""
    if note.meta.get("type") != "lesson":
        raise DataError(f"type must be 'lesson', not {note.meta.get('type')!r}", path=note.rel,
                        line=note.line_of("type"))
    if not isinstance(note.meta.get("id"), str) or not ID_RE.fullmatch(note.meta["id"]):
        raise DataError(f"invalid or missing id {note.meta.get('id')!r}", path=note.rel, line=note.line_of("id"))
    problems = lesson_problems(note.meta, note)
    if problems:
        raise problems[0]
    return LessonNote(record=dict(note.meta), path=note.rel)


def read_lessons(vault: Vault) -> tuple[list[LessonNote], list[DataError]]:
    """Every lesson note of the vault (sorted by path), and the notes that could not be read."""
    from biocortex_cli.store.walk import note_paths

    notes: list[LessonNote] = []
    problems: list[DataError] = []
    for rel in note_paths(vault.root, (LESSONS_DIR,)):
        try:
            notes.append(lesson_from_note(read_note(vault.root / rel, rel)))
        except DataError as exc:
            problems.append(exc)
    return notes, problems


@dataclass(frozen=True)
class Evidence:
    """A supporting episode as the lesson note lists it."""

    id: str
    task: str
    success: bool | None


def slug_id(text: str) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower())
             if w not in {"a", "an", "the", "of", "to", "and", "or", "for", "in", "on", "with"}]
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > 48:
            break
        slug = f"{slug}-{word}" if slug else word
    return f"lesson-{slug or 'untitled'}"


def _short(task: str, limit: int = 100) -> str:
    """A task on one line, at most ``limit`` characters: cut at a word, then "…"."""
    text = " ".join(task.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] if " " in text[: limit - 1] else text[: limit - 1]
    return cut.rstrip(" ,;:") + "…"


def _evidence_section(evidence: Sequence[Evidence]) -> str:
    mark = {True: "success", False: "failure", None: "outcome unknown"}
    lines = [f"- [[{e.id}]] — {_short(e.task)} ({mark[e.success]})" for e in evidence]
    return "## Evidence\n\n" + "\n".join(lines) + "\n\n"


def render_body(record: Mapping[str, Any], evidence: Sequence[Evidence]) -> str:
    lesson = " ".join(str(record.get("lesson", "")).split())
    rate = record.get("success_rate")
    head = f"Drawn from {len(evidence)} episode{'s' if len(evidence) != 1 else ''}"
    if isinstance(rate, int | float):
        head += f" · {rate:.0%} of them succeeded"
    phrasings = [str(p) for p in record.get("phrasings") or []]
    body = f"# {lesson}\n\n> [!tip] {head}\n\n" + _evidence_section(evidence)
    if phrasings:
        body += "## As the episodes put it\n\n" + "".join(f"- {' '.join(p.split())}\n" for p in phrasings) + "\n"
    return body


def _union(lists: Sequence[Sequence[str]]) -> list[str]:
    seen: dict[str, str] = {}
    for values in lists:
        for v in values:
            seen.setdefault(v.casefold(), v)
    return sorted(seen.values(), key=str.casefold)


@dataclass(frozen=True)
class Promotion:
    """What a promote or refresh wrote for one lesson."""

    lesson: LessonNote
    created: bool  # a new note (else an existing one was updated)
    added: tuple[str, ...]  # supporting episodes new to the note
    changed: bool = True  # False: the note already said all this, nothing was written


def lesson_update(existing: LessonNote | None, *, text: str | None, supporting: Sequence[str],
                  phrasings: Sequence[str], episodes: Sequence[Mapping[str, Any]],
                  ident: str, author: Author, now: dt.datetime) -> dict[str, Any]:
    """The lesson note's frontmatter after promoting (or refreshing) it with this support.

    ``episodes`` are the records of every supporting episode that could be read."""
    old = existing.record if existing is not None else {}
    ids = sorted(set(existing.strings("supporting") if existing else []) | set(supporting))
    outcomes = [e["success"] for e in episodes if isinstance(e.get("success"), bool)]
    qualities = [float(e["quality"]) for e in episodes
                 if isinstance(e.get("quality"), int | float) and not isinstance(e.get("quality"), bool)]
    record: dict[str, Any] = {
        "id": old.get("id", ident), "type": "lesson", "created": old.get("created", iso_utc(now)),
        "author": old.get("author", str(author)),
        "lesson": text if text is not None else old.get("lesson", ""),
        "supporting": ids,
        "success_rate": round(sum(outcomes) / len(outcomes), 4) if outcomes else None,
        "quality": round(sum(qualities) / len(qualities), 4) if qualities else None,
    }
    for key in ("domains", "tools", "entities"):
        record[key] = _union([existing.strings(key) if existing else []]
                             + [[str(v) for v in e.get(key) or [] if isinstance(v, str)] for e in episodes])
    record["phrasings"] = list(dict.fromkeys([*(existing.strings("phrasings") if existing else []),
                                              *phrasings]))[:MAX_PHRASINGS]
    return {k: v for k, v in record.items() if v is not None or k in old}


def lesson_file_text(vault: Vault, existing: LessonNote | None, record: dict[str, Any],
                evidence: Sequence[Evidence]) -> tuple[str, str, str | None]:
    """(path, the note's new text, its current text or None): a new file, or the existing one
    with its frontmatter and Evidence section updated."""
    rel = existing.path if existing is not None else f"{LESSONS_DIR}/{record['id']}.md"
    if existing is None:
        return rel, render_note(record, render_body(record, evidence)), None
    text = (vault.root / rel).read_text(encoding="utf-8")
    updated = edit_frontmatter(text, {k: v for k, v in record.items() if existing.record.get(k) != v}, rel)
    head, sep, body = updated.partition("\n---\n")
    section = _evidence_section(evidence)
    body = _EVIDENCE.sub(lambda _m: section, body, count=1) if _EVIDENCE.search(body) else (
        body.rstrip("\n") + "\n\n" + section if body.strip() else section)
    return rel, head + sep + body, text


def write_lesson(vault: Vault, txn: Any, existing: LessonNote | None, record: dict[str, Any],
                 evidence: Sequence[Evidence]) -> LessonNote:
    """Write the note (a new file, or the existing one's frontmatter and Evidence section)."""
    rel, text, _old = lesson_file_text(vault, existing, record, evidence)
    txn.write(rel, text)
    return LessonNote(record=record, path=rel)


def new_lesson_id(vault: Vault, text: str, given: str | None, taken: set[str]) -> str:
    if given is not None:
        if not ID_RE.fullmatch(given):
            raise UsageError(f"invalid lesson id {given!r}", hint=ID_HINT)
        if given in taken or (vault.root / LESSONS_DIR / f"{given}.md").exists():
            raise DataError(f"a lesson with id {given!r} already exists", hint="choose another --id")
        return given
    ident = slug_id(text)
    if ident in taken or (vault.root / LESSONS_DIR / f"{ident}.md").exists():
        import hashlib

        ident = f"{ident}-{hashlib.blake2b(text.encode('utf-8'), digest_size=3).hexdigest()}"
    return ident
