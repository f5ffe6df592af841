"""Episodic memory records: validate, store (one markdown note each), read back, list.

An episode's frontmatter is the source of truth and holds every field exactly as it was given
(plus ``id``, ``type``, ``created``, ``author`` and the merged ``entities``); the body is a
readable rendering of the same fields for Obsidian, with entities as wikilinks.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from biocortex_cli.errors import DataError, NotFoundError
from biocortex_cli.progress import Progress, Stage, plural, report
from biocortex_cli.store import entity_notes
from biocortex_cli.store.episode import EPISODE_DIRS as EPISODE_DIRS
from biocortex_cli.store.episode import ID_RE as ID_RE
from biocortex_cli.store.episode import Episode as Episode  # re-exported: the record lives in store/episode.py
from biocortex_cli.store.episode import EpisodeFilter as EpisodeFilter
from biocortex_cli.store.episode import episode_path as episode_path
from biocortex_cli.store.episode import link_names
from biocortex_cli.store.episode import parse_created as parse_created
from biocortex_cli.store.episode import validate_id as validate_id
from biocortex_cli.store.files import check_unicode
from biocortex_cli.store.git import Author
from biocortex_cli.store.limits import MAX_TEXT
from biocortex_cli.store.notes import Note, iso_utc, read_note, render_note
from biocortex_cli.store.vault import Transaction, Vault

#: Frontmatter order of the known fields; unknown keys follow in the order given.
FIELD_ORDER = ("id", "type", "created", "author", "task", "plan", "tools", "domains", "result",
               "success", "quality", "lessons", "entities", "provenance", "related")
#: The singular spellings of the list fields (the CLI's option names), accepted as those fields.
FIELD_ALIASES = {"tool": "tools", "domain": "domains", "lesson": "lessons", "entity": "entities"}
_STR_FIELDS = ("task", "plan", "result")
_LIST_FIELDS = ("tools", "domains", "lessons", "entities", "related")
_EXTRA_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_SLUG_STOP = frozenset("""
    a an the of in on for to and or with by from at is are was were we our what how why when
    which last time did do does
""".split())


# --- validation -------------------------------------------------------------------------------


def check_fields(data: Mapping[str, Any], where: str | None, line: int | None,
                 key_lines: Mapping[str, int] | None = None) -> list[DataError]:
    """Every problem with an episode's fields, as values (``check`` reports them all)."""
    problems: list[DataError] = []

    def bad(key: str, message: str, hint: str) -> None:
        at = (key_lines or {}).get(key, line)
        problems.append(DataError(message, path=where, line=at, hint=hint))

    task = data.get("task")
    if not isinstance(task, str) or not task.strip():
        bad("task", "task is required and must be non-empty text",
            "describe what was asked, e.g. task: Remove doublets from 10x Multiome PBMC data")
    for key in _STR_FIELDS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            bad(key, f"{key} must be text, not {value!r}", f"quote it: {key}: \"...\"")
        elif isinstance(value, str) and len(value) > MAX_TEXT:
            bad(key, f"{key} is {len(value)} characters, over the {MAX_TEXT} limit",
                "keep long logs outside the vault and summarise them here")
    for key in _LIST_FIELDS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            bad(key, f"{key} must be a list of non-empty text items, not {value!r}",
                f"write {key}: [first, second]")
    success = data.get("success")
    if success is not None and not isinstance(success, bool):
        bad("success", f"success must be true or false, not {success!r}",
            "write success: true (or false for a failed analysis)")
    quality = data.get("quality")
    if quality is not None and (
        isinstance(quality, bool) or not isinstance(quality, int | float)
        or not math.isfinite(quality) or not 0 <= quality <= 1
    ):
        bad("quality", f"quality must be a number from 0 to 1, not {quality!r}",
            "write quality: 0.8")
    provenance = data.get("provenance")
    if provenance is not None and not isinstance(provenance, dict):
        bad("provenance", "provenance must be a mapping (code_commit, notebook, data, parameters)",
            "write provenance: {code_commit: a1b2c3d, notebook: notebooks/qc.ipynb}")
    related_ids = data.get("related") or []
    if not isinstance(related_ids, list):  # a number here once raised TypeError (benchmarks/fuzz.py)
        bad("related", f"related must be a list of episode ids, not {related_ids!r}", "write related: [id1, id2]")
        related_ids = []
    for related in related_ids:
        if isinstance(related, str) and not ID_RE.fullmatch(related):
            bad("related", f"related id {related!r} is not a valid id", "list episode ids")
    for key in data:
        if key not in FIELD_ORDER and not _EXTRA_KEY.fullmatch(str(key)):
            bad(key, f"field name {key!r} is not allowed", "use letters, digits, '_' or '-'")
    return problems


def likely_field(key: str) -> str | None:
    """The field an unknown key probably means (a singular spelling, a typo), or None."""
    if key in FIELD_ALIASES:
        return FIELD_ALIASES[key]
    import difflib

    match = difflib.get_close_matches(key.casefold(), FIELD_ORDER, n=1, cutoff=0.8)
    return match[0] if match else None


def plural_keys(data: Mapping[str, Any], where: str | None, line: int | None) -> dict[str, Any]:
    """``data`` with the singular keys of :data:`FIELD_ALIASES` given as their fields."""
    out = dict(data)
    for alias, key in FIELD_ALIASES.items():
        if alias in out:
            if key in out:
                raise DataError(f"both {key!r} and {alias!r} are given", path=where, line=line,
                                hint=f"give the list once, as {key!r}")
            out[key] = out.pop(alias)
    return out


def warn_unknown_fields(episodes: Sequence[Episode], where: str | None) -> None:
    """One warning on stderr per field biocortex does not know: it is kept in the note (docs/vault-format.md)
    but neither checked nor searched, so a misspelt field must not pass unnoticed."""
    counts: dict[str, int] = {}
    for ep in episodes:
        for key in ep.record:
            if key not in FIELD_ORDER:
                counts[key] = counts.get(key, 0) + 1
    for key, n in counts.items():
        guess = likely_field(key)
        which = "the episode has" if len(episodes) == 1 else f"{n} of {len(episodes)} episodes have"
        place = f"{where}: " if where else ""
        sys.stderr.write(f"biocortex: warning: {place}{which} the field {key!r}, which biocortex does not know: "
                         "kept in the note, not searched" + (f"; did you mean {guess!r}?\n" if guess else "\n"))


def build_episode(data: Mapping[str, Any], *, author: Author, now: dt.datetime,
                  where: str | None = None, line: int | None = None) -> Episode:
    """Validate input fields and complete them into a new episode (id, created, entities); the
    singular keys (``tool``, ``lesson``, …) are read as their fields."""
    if not isinstance(data, Mapping):
        raise DataError("an episode must be a JSON object", path=where, line=line,
                        hint='e.g. {"task": "...", "success": true}')
    data = plural_keys(data, where, line)
    if "type" in data and data["type"] != "episode":
        raise DataError(f"type must be 'episode', not {data['type']!r}", path=where, line=line)
    problems = check_fields(data, where, line)
    if problems:
        raise problems[0]
    created_value = data.get("created")
    created = parse_created(created_value, path=where, line=line) if created_value is not None else now
    created_text = created_value if isinstance(created_value, str) else iso_utc(created)
    given_id = data.get("id")
    ident = (validate_id(given_id, path=where, line=line) if given_id is not None
             else generate_id(str(data["task"]), created, str(author)))
    record: dict[str, Any] = {"id": ident, "type": "episode", "created": created_text,
                              "author": str(data.get("author") or author)}
    for key in FIELD_ORDER[4:]:
        if key in data and data[key] is not None:
            record[key] = data[key]
    merged = merge_entities(record)
    if merged:
        record["entities"] = merged
    for key, value in data.items():
        if key not in record and key not in FIELD_ORDER and value is not None:
            record[key] = value
    return Episode(record=record, path=episode_rel(ident, created))


def merge_entities(record: Mapping[str, Any]) -> list[str]:
    """The given entities, as given, then those found in the text that are not among them nor
    among the episode's tools: `MACS2` and `BWA-MEM2` look like gene symbols, and an episode using
    them listed each as an entity too (a note in entities/ per tool, and a tool shared twice)."""
    from biocortex_cli.bio.entities import entity_names, normalize_entity

    given = [str(e) for e in record.get("entities") or []]
    seen = {normalize_entity(e).casefold() for e in given} | {str(t).casefold() for t in record.get("tools") or []}
    text = "\n".join([str(record.get(k) or "") for k in _STR_FIELDS]
                     + [str(v) for v in record.get("lessons") or []])
    merged = list(given)
    for name in entity_names(text):
        if name.casefold() not in seen:
            seen.add(name.casefold())
            merged.append(name)
    return merged


def generate_id(task: str, created: dt.datetime, salt: str) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", task.lower()) if w not in _SLUG_STOP]
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > 40:
            break
        slug = f"{slug}-{word}" if slug else word
    import hashlib

    digest = hashlib.sha1(f"{task}\0{created.isoformat()}\0{salt}".encode()).hexdigest()[:6]
    return f"{created:%Y-%m-%d}-{slug or 'episode'}-{digest}"


def episode_rel(ident: str, created: dt.datetime) -> str:
    return f"episodes/{created:%Y}/{created:%m}/{ident}.md"


# --- rendering --------------------------------------------------------------------------------

def render_episode(ep: Episode, rels: Mapping[str, str] | None = None) -> str:
    """The note of ``ep``; ``rels`` names the entity notes its links point to (entity_notes.entity_rels)."""
    r = ep.record
    lines = [f"# {_one_line(ep.task)}", ""]
    status = {True: "[!success] Succeeded", False: "[!failure] Failed", None: "[!note] Outcome not recorded"}
    head = status[ep.success]
    if ep.quality is not None:
        head += f" · quality {ep.quality:g}"
    lines.append(f"> {head}")
    meta = [ep.created[:10], str(r.get("author", ""))]
    if ep.strings("tools"):
        meta.append("tools: " + ", ".join(ep.strings("tools")))
    if ep.strings("domains"):
        meta.append("domains: " + ", ".join(ep.strings("domains")))
    lines += [f"> {' · '.join(m for m in meta if m)}", ""]
    for key, title in (("plan", "Plan"), ("result", "Result")):
        if ep.text(key).strip():
            lines += [f"## {title}", "", _lines(ep.text(key)), ""]
    if ep.strings("lessons"):
        lines += ["## Lessons", "", *[f"- {_one_line(lesson)}" for lesson in ep.strings("lessons")], ""]
    if ep.strings("entities"):
        lines += ["## Entities", "", " · ".join(entity_notes.wikilink(e, (rels or {}).get(e))
                                                 for e in ep.strings("entities")), ""]
    if ep.strings("related"):
        lines += ["## Related", "", *[f"- [[{rid}]]" for rid in ep.strings("related")], ""]
    prov = r.get("provenance")
    if isinstance(prov, dict) and prov:
        lines += ["## Provenance", ""]
        lines += [f"- **{k}**: {json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else _one_line(v)}"
                  for k, v in prov.items()]
        lines.append("")
    lines.append("<!-- Written by biocortex. The frontmatter above is the record; this body "
                 "is a readable copy of it. -->")
    return render_note(r, "\n".join(lines) + "\n")


def _one_line(text: str) -> str:
    """A title or list item of the body: on one line (a line break would end the heading or the
    item), without the spaces around it."""
    return " ".join(text.split())


def _lines(text: str) -> str:
    """A section of the body: LF line ends (git stores notes with LF, `*.md text eol=lf`, so a
    CR written here would differ from what is committed) and no spaces at line ends."""
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


# --- storage ----------------------------------------------------------------------------------

def existing_ids(vault: Vault) -> dict[str, str]:
    """id -> rel path of every episode note (live and archived), from file names alone."""
    from biocortex_cli.store.walk import walk

    return {rel.rsplit("/", 1)[1][:-3]: rel for folder in walk(vault.root, EPISODE_DIRS) for rel in folder.notes}



def _write_episodes(txn: Transaction, episodes: list[Episode], author: Author, batch: bool,
                    known: Callable[[list[str]], Mapping[str, str]] | None = None) -> None:
    """The episode notes, then the entity notes they link to that are missing (one per name
    ignoring case: links point to the note that exists, e.g. [[Tox|TOX]]; ``known``: the notes of
    the entities names are aliases of, entity_notes.entity_rels)."""
    rels = entity_notes.entity_rels(txn.vault.root, [n for ep in episodes for n in ep.strings("entities")], known)
    created = iso_utc(dt.datetime.now(dt.timezone.utc))
    missing = entity_notes.missing_entity_notes(txn.vault.root, rels)
    notes = [(ep.path, render_episode(ep, rels)) for ep in episodes]
    notes += [(rel, entity_notes.render_entity_note(name, created, str(author))) for rel, name in missing.items()]
    if not batch:
        for rel, text in notes:
            txn.write(rel, text)
        return
    stage = Stage("write", len(notes), f"writing {plural(len(episodes), 'episode')} and "
                  f"{plural(len(missing), 'entity note')}…")
    txn.write_many(((rel, text, None) for rel, text in notes), progress=stage.advance)
    stage.finish()
    report(Progress("commit", 0, 0, f"committing {plural(stage.total, 'note')}…"))


def _scrubbed(vault: Vault, data: Any) -> Any:
    from biocortex_cli.store import secrets

    return secrets.scrub_input(data, "the episode") if vault.secret_policy == secrets.REDACT else data


def add_episode(vault: Vault, data: Mapping[str, Any], author: Author, where: str | None = None, *,
                known: Callable[[list[str]], Mapping[str, str]] | None = None) -> Episode:
    ep = build_episode(_scrubbed(vault, data), author=author, now=dt.datetime.now(dt.timezone.utc), where=where)
    warn_unknown_fields([ep], where)
    message = f"episode: add {ep.id} — {one_line(ep.task)}"
    with vault.transaction(message, author) as txn:
        taken = episode_path(vault, ep.id)
        if taken is not None:
            raise DataError(f"an episode with id {ep.id!r} already exists ({taken})",
                            hint="choose another --id, or leave it out to generate one")
        _write_episodes(txn, [ep], author, batch=False, known=known)
    return ep


def parse_jsonl(text: str, source: str, author: Author, vault: Vault | None = None) -> list[Episode]:
    """Parse a JSON Lines batch; the first bad line aborts the whole batch (nothing written)."""
    now = dt.datetime.now(dt.timezone.utc)
    episodes: list[Episode] = []
    seen: dict[str, int] = {}
    # JSON Lines are split at "\n" only: str.splitlines() also splits at U+2028 and U+2029, which
    # JSON allows raw inside a string
    lines = text.split("\n")
    stage = Stage("import", len(lines), f"reading {source}…")
    for number, raw in enumerate(lines, start=1):
        stage.advance(number)
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", path=source, line=number,
                            hint="each line must be one complete JSON object; nothing was imported") from None
        except RecursionError:
            raise DataError("JSON nested too deeply", path=source, line=number,
                            hint="an episode is one flat JSON object; nothing was imported") from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise DataError(f"invalid JSON: {exc}", path=source, line=number,
                            hint="nothing was imported") from None
        try:
            check_unicode(data, source, number, record=True)
            if vault is not None:
                data = _scrubbed(vault, data)
            ep = build_episode(data, author=author, now=now, where=source, line=number)
        except DataError as exc:
            exc.hint = (exc.hint + "; " if exc.hint else "") + "nothing was imported"
            raise
        except RecursionError:
            raise DataError("JSON nested too deeply", path=source, line=number,
                            hint="an episode is one flat JSON object; nothing was imported") from None
        if ep.id in seen:
            raise DataError(f"duplicate id {ep.id!r} (also on line {seen[ep.id]})", path=source,
                            line=number, hint="ids must be unique; nothing was imported")
        seen[ep.id] = number
        episodes.append(ep)
    stage.finish()
    return episodes


def import_episodes(vault: Vault, text: str, source: str, author: Author, *,
                    known: Callable[[list[str]], Mapping[str, str]] | None = None) -> list[Episode]:
    episodes = parse_jsonl(text, source, author, vault)
    if not episodes:
        raise DataError("no episodes in the input", path=source,
                        hint="give JSON Lines: one episode object per line")
    warn_unknown_fields(episodes, source)
    noun = "episode" if len(episodes) == 1 else "episodes"
    message = f"episode: import {len(episodes)} {noun} — {episodes[0].id}"
    if len(episodes) > 1:
        message += f" … {episodes[-1].id}"
    message += "\n\n" + "\n".join(f"- {ep.id}: {one_line(ep.task)}" for ep in episodes[:200])
    if len(episodes) > 200:
        message += f"\n- … and {len(episodes) - 200} more"
    with vault.transaction(message, author) as txn:
        taken = existing_ids(vault)
        for ep in episodes:
            if ep.id in taken:
                raise DataError(f"an episode with id {ep.id!r} already exists ({taken[ep.id]})",
                                path=source, hint="remove it from the batch; nothing was imported")
        _write_episodes(txn, episodes, author, batch=True, known=known)
    report(Progress("commit", 1, 1, "committed"))
    return episodes


def load_episode(vault: Vault, rel: str) -> Episode:
    note = read_note(vault.root / rel, rel)
    return episode_from_note(note)


def episode_from_note(note: Note) -> Episode:
    return Episode(record=note.meta, path=note.rel, line=1, key_lines=note.key_lines)


def find_episode(vault: Vault, ident: str) -> Episode:
    validate_id(ident)
    rel = episode_path(vault, ident) or existing_ids(vault).get(ident)
    if rel is None:
        raise NotFoundError(f"no episode with id {ident!r}",
                            hint="list ids with `biocortex episode list`")
    return load_episode(vault, rel)


def iter_episode_notes(vault: Vault) -> Iterator[str]:
    from biocortex_cli.store.walk import note_paths

    yield from note_paths(vault.root, ("episodes",))


def list_episodes(vault: Vault, filt: EpisodeFilter) -> tuple[list[Episode], list[DataError]]:
    """Episodes matching ``filt``, newest first, and the notes that could not be read, by parsing
    every note (``index/listing.py`` answers the same from the index)."""
    found, problems = read_matching(vault, iter_episode_notes(vault), filt)
    return newest_first(found, filt.limit), problems


def read_matching(vault: Vault, rels: Iterable[str], filt: EpisodeFilter) -> tuple[list[Episode], list[DataError]]:
    """The notes ``rels`` that match ``filt`` (its limit aside), and those that cannot be read."""
    found: list[Episode] = []
    problems: list[DataError] = []
    for rel in rels:
        try:
            ep = load_episode(vault, rel)
        except DataError as exc:
            problems.append(exc)
            continue
        if list_matches(ep, filt):
            found.append(ep)
    return found, problems


def newest_first(episodes: list[Episode], limit: int | None) -> list[Episode]:
    """By ``created`` as written, then id, newest first; equal ones by path (the walk's order)."""
    episodes.sort(key=lambda e: e.path)
    episodes.sort(key=lambda e: (e.created, e.id), reverse=True)
    return episodes[:limit] if limit is not None else episodes


def list_matches(ep: Episode, filt: EpisodeFilter) -> bool:
    """Whether ``ep`` passes ``filt`` (its limit aside)."""
    since = filt.since

    def has(key: str, wanted: str | None) -> bool:
        return wanted is None or wanted.casefold() in {n.casefold() for v in ep.strings(key) for n in link_names(v)}

    if not (has("domains", filt.domain) and has("tools", filt.tool) and has("entities", filt.entity)):
        return False
    if filt.success is not None and ep.success is not filt.success:
        return False
    if since is not None:
        try:
            if parse_created(ep.created) < since:
                return False
        except DataError:
            return False
    return True


def one_line(text: str, width: int = 72) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1].rstrip() + "…"
