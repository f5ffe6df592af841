"""Fact notes: reading, writing and merging the notes that hold facts (the model: facts/model.py).

One markdown file per fact, at a path derived from the triple (``facts/<subject>/<id>.md``,
the id ending in a hash of the normalised triple), so adding the same triple again finds the same
file and merges into it: each source is one item of ``evidence`` with its own confidence, and the
fact's ``confidence`` is their noisy-OR, 1 - Π(1 - cᵢ) — independent sources strengthen a fact,
the same source given again only updates its own item. Retracting or superseding changes
``status``; the file stays (history is memory).

Names are resolved through entity notes' ``aliases`` (p53 → TP53) before the triple is formed,
and identifiers are normalised (go:0008150 → GO:0008150), so one fact has one file.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from biocortex_cli.errors import BiocortexError, DataError, NotFoundError, UsageError
from biocortex_cli.facts.model import (
    Fact,
    FactRules,
    clean_text,
    fact_from_note,
    fact_id,
    fact_rel,
    name_key,
    normalize_predicate,
)
from biocortex_cli.store import entity_notes
from biocortex_cli.store.episodes import one_line
from biocortex_cli.store.git import Author
from biocortex_cli.store.notes import edit_frontmatter, iso_utc, read_note, render_note
from biocortex_cli.store.vault import Transaction, Vault


def iter_fact_paths(vault: Vault) -> Iterator[str]:
    from biocortex_cli.store.walk import note_paths

    yield from note_paths(vault.root, ("facts",))


def find_fact(vault: Vault, ident: str) -> Fact:
    from biocortex_cli.store.episodes import validate_id

    validate_id(ident)
    m = re.fullmatch(r"(.+?)--.+-[0-9a-f]{10}", ident)
    candidates = [f"facts/{m.group(1)}/{ident}.md"] if m else []
    for rel in candidates:
        if (vault.root / rel).is_file():
            return fact_from_note(read_note(vault.root / rel, rel))
    for rel in iter_fact_paths(vault):  # a fact moved by hand
        if rel.endswith(f"/{ident}.md"):
            return fact_from_note(read_note(vault.root / rel, rel))
    raise NotFoundError(f"no fact with id {ident!r}", hint="list ids with `biocortex fact list`")


# --- writing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddResult:
    fact: Fact
    created: bool  # False: merged into an existing fact
    conflicts: list[Fact]
    notes: list[str]  # things worth saying on stderr


def _confidence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"confidence must be a number from 0 to 1, not {value!r}") from None
    if not 0.0 <= float(value) <= 1.0 or value != value:  # NaN
        raise UsageError(f"confidence must be a number from 0 to 1, not {value!r}")
    return float(value)


def noisy_or(values: Iterable[float]) -> float:
    miss = 1.0
    for v in values:
        miss *= 1.0 - v
    return round(1.0 - miss, 4)


def _source_link(vault: Vault, source: str) -> str:
    from biocortex_cli.store.episodes import ID_RE, episode_path

    ident = source.removeprefix("episode:")
    if ID_RE.fullmatch(ident) and episode_path(vault, ident) is not None:
        return f"[[{ident}]] (episode)"
    return source


def render_fact(vault: Vault, record: dict[str, Any]) -> str:
    fact = Fact(record=record, path="")
    subject, obj = (entity_notes.wikilink(n, entity_notes.note_rel(vault.root, n)) for n in (fact.subject, fact.object))
    lines = [f"# {fact.sentence()}", "", f"{subject} {fact.predicate.replace('_', ' ')} {obj}.", ""]
    if fact.status == "retracted":
        why = record.get("retracted") or {}
        lines += [f"> [!warning] Retracted {why.get('at', '')} by {why.get('by', '')}",
                  f"> {why.get('reason', '')}", ""]
    elif fact.status == "superseded":
        lines += [f"> [!note] Superseded by [[{record.get('superseded_by', '')}]]", ""]
    else:
        lines += [f"> [!info] current · confidence {fact.confidence:g}", ""]
    lines += ["## Sources", ""]
    for item in record.get("evidence") or []:
        src = str(item.get("source", "unsourced"))
        lines.append(f"- {_source_link(vault, src)} — confidence {item.get('confidence')} · "
                     f"{item.get('author', '')} · {str(item.get('added', ''))[:10]}")
    if record.get("supersedes"):
        lines += ["", f"Replaces [[{record['supersedes']}]]."]
    lines += ["", "<!-- Written by biocortex. The frontmatter above is the record; this body is a readable copy. -->"]
    return render_note(dict(record), "\n".join(lines) + "\n")


def _entities_for(txn: Transaction, names: Iterable[str], author: Author) -> None:
    created = iso_utc(dt.datetime.now(dt.timezone.utc))
    for name in names:
        rel = entity_notes.note_rel(txn.vault.root, name)
        if not (txn.vault.root / rel).exists() and rel.casefold() not in {p.casefold() for p in txn.paths}:
            txn.write(rel, entity_notes.render_entity_note(name, created, str(author)))


def add_fact(vault: Vault, subject: str, predicate: str, obj: str, *, sources: list[str],
             confidence: float | str | None, author: Author, rules: FactRules | None = None) -> AddResult:
    """Record a fact, or merge new evidence into the same triple's file."""
    from biocortex_cli.store import secrets

    if vault.secret_policy == secrets.REDACT:
        subject, predicate, obj, *sources = secrets.scrub_input([subject, predicate, obj, *sources], "the fact")
    subject_text, obj_text = clean_text(subject, "subject"), clean_text(obj, "object")
    pred = normalize_predicate(predicate)
    conf = _confidence(confidence if confidence is not None else vault.config.facts.default_confidence)
    srcs = [clean_text(s, "source") for s in sources] or ["unsourced"]
    rules = rules or FactRules.from_config(vault)
    from biocortex_cli.facts.index import open_facts

    conn, source, _problems = open_facts(vault)  # aliases and current facts, from the index
    try:
        s_name, o_name = source.resolve(subject_text), source.resolve(obj_text)
        nearby = source.touching(source.spellings(s_name))
    finally:
        conn.close()
    rel = fact_rel(s_name, pred, o_name)
    ident = fact_id(s_name, pred, o_name)
    now = iso_utc(dt.datetime.now(dt.timezone.utc))
    notes: list[str] = []
    renamed = [f"{a} → {b}" for a, b in ((subject_text, s_name), (obj_text, o_name)) if a != b]
    if renamed:
        notes.append(f"resolved names: {', '.join(renamed)}")
    summary = f"{s_name} {pred} {o_name}"
    with vault.transaction(f"fact: add {ident} — {one_line(summary)} ({', '.join(srcs)}, {conf:g})",
                           author) as txn:
        path = vault.path(rel)
        created = not path.exists()
        if created:
            record: dict[str, Any] = {
                "id": ident, "type": "fact", "created": now, "author": str(author),
                "subject": s_name, "predicate": pred, "object": o_name, "confidence": 0.0,
                "source": [], "status": "current", "evidence": []}
        else:
            note = read_note(path, rel)
            existing = fact_from_note(note)
            found = (name_key(existing.subject), existing.predicate, name_key(existing.object))
            if found != (name_key(s_name), pred, name_key(o_name)):
                raise DataError(f"{rel} holds another triple ({existing.sentence()}); nothing was written",
                                path=rel, line=note.line_of("subject"),
                                hint="the file was edited by hand: restore its subject/predicate/object")
            record = dict(note.meta)
            if existing.status != "current":
                notes.append(f"fact {ident} is {existing.status}; the new evidence is recorded, "
                             "its status is unchanged")
        evidence = [dict(e) for e in record.get("evidence") or [] if isinstance(e, dict)]
        for src in srcs:
            for item in evidence:
                if item.get("source") == src:
                    item.update(confidence=conf, author=str(author), added=now)
                    break
            else:
                evidence.append({"source": src, "confidence": conf, "author": str(author), "added": now})
        updates = {"confidence": noisy_or(float(e.get("confidence", 0)) for e in evidence),
                   "source": [str(e.get("source")) for e in evidence], "evidence": evidence}
        if not created:
            updates["updated"] = now
        record.update(updates)
        if created:
            txn.write(rel, render_fact(vault, record))
        else:
            _rewrite(txn, rel, record, updates)
        _entities_for(txn, [s_name, o_name], author)
        if not created:  # the reviewer scanning git log sees an update, not a second add
            txn.message = f"fact: update {ident} — {one_line(summary)} (+{', '.join(srcs)}, {conf:g})"
    fact = Fact(record=record, path=rel)
    conflicts = [other for other in nearby if rules.conflicts(fact, other)]  # same subject only
    return AddResult(fact=fact, created=created, conflicts=conflicts, notes=notes)


def _rewrite(txn: Transaction, rel: str, record: dict[str, Any], updates: dict[str, Any]) -> None:
    """Apply ``updates`` with a round-trip edit (hand-made comments and key order survive) and
    re-render the body from the updated ``record``."""
    text = (txn.vault.root / rel).read_text(encoding="utf-8")
    head = edit_frontmatter(text, updates, rel).split("\n---", 1)[0] + "\n---\n"
    txn.write(rel, head + render_fact(txn.vault, record).split("\n---\n", 1)[1])


def merged_fact_text(vault: Vault, rel: str, ours: str, theirs: str) -> str | None:
    """One fact note from two versions of it (a sync whose two clones both added or confirmed the
    triple): the evidence of both, by source (the later entry wins for a source both name), the
    confidence their noisy-OR. None when they disagree on more than evidence (the triple, or a
    status such as retracted): a person decides."""
    from biocortex_cli.store.notes import parse_note

    try:
        a, b = fact_from_note(parse_note(ours, rel)), fact_from_note(parse_note(theirs, rel))
    except BiocortexError:
        return None
    same = (name_key(a.subject), a.predicate, name_key(a.object), a.status) == \
        (name_key(b.subject), b.predicate, name_key(b.object), b.status)
    if not same:
        return None
    by_source: dict[str, dict[str, Any]] = {}
    for item in [*(a.record.get("evidence") or []), *(b.record.get("evidence") or [])]:
        if isinstance(item, dict):
            src = str(item.get("source"))
            if src not in by_source or str(item.get("added", "")) > str(by_source[src].get("added", "")):
                by_source[src] = dict(item)
    evidence = list(by_source.values())
    updates: dict[str, Any] = {"confidence": noisy_or(float(e.get("confidence", 0)) for e in evidence),
                               "source": [str(e.get("source")) for e in evidence], "evidence": evidence}
    stamps = [str(r["updated"]) for r in (a.record, b.record) if r.get("updated")]
    if stamps:
        updates["updated"] = max(stamps)
    record = {**a.record, **updates}
    head = edit_frontmatter(ours, updates, rel).split("\n---", 1)[0] + "\n---\n"
    return head + render_fact(vault, record).split("\n---\n", 1)[1]


def _set_status(vault: Vault, ident: str, updates: dict[str, Any], message: str, author: Author) -> Fact:
    fact = find_fact(vault, ident)
    record = {**fact.record, **updates}
    with vault.transaction(message, author) as txn:
        _rewrite(txn, fact.path, record, updates)
    return Fact(record=record, path=fact.path)


def retract_fact(vault: Vault, ident: str, reason: str, author: Author) -> Fact:
    why = clean_text(reason, "reason")
    fact = find_fact(vault, ident)
    if fact.status == "retracted":
        raise DataError(f"fact {ident} is already retracted", path=fact.path)
    now = iso_utc(dt.datetime.now(dt.timezone.utc))
    return _set_status(vault, ident, {"status": "retracted",
                                      "retracted": {"reason": why, "by": str(author), "at": now}},
                       f"fact: retract {ident} — {one_line(why)}", author)


def supersede_fact(vault: Vault, ident: str, by: str, author: Author) -> Fact:
    old, new = find_fact(vault, ident), find_fact(vault, by)
    if old.id == new.id:
        raise UsageError("a fact cannot supersede itself")
    if old.status != "current":
        raise DataError(f"fact {ident} is already {old.status}", path=old.path)
    now = iso_utc(dt.datetime.now(dt.timezone.utc))
    message = f"fact: supersede {ident} — by {new.id}"
    with vault.transaction(message, author) as txn:
        for fact, updates in ((old, {"status": "superseded", "superseded_by": new.id, "updated": now}),
                              (new, {"supersedes": old.id, "updated": now})):
            _rewrite(txn, fact.path, {**fact.record, **updates}, updates)
    return Fact(record={**old.record, "status": "superseded", "superseded_by": new.id}, path=old.path)


def add_alias(vault: Vault, name: str, alias: str, author: Author) -> tuple[str, list[str]]:
    """Add ``alias`` to the entity note of ``name`` (created if missing)."""
    name_text, alias_text = clean_text(name, "entity name"), clean_text(alias, "alias")
    from biocortex_cli.facts.index import open_facts

    with vault.transaction("entity: alias", author) as txn:
        # checked under the write lock, so two writers cannot give one alias to two entities
        conn, source, _problems = open_facts(vault)
        try:
            canonical = source.resolve(name_text)
            other = source.alias_owner(alias_text)
        finally:
            conn.close()
        if other is not None and name_key(other) != name_key(canonical):
            where = f"entities/{entity_notes.file_stem(other)}.md"
            if name_key(other) == name_key(alias_text):
                raise DataError(f"{alias_text!r} is an entity of its own ({where})",
                                hint=f"to merge them, move its aliases into {canonical}'s note by hand and "
                                     f"archive {where}")
            raise DataError(f"{alias_text!r} is already an alias of {other}",
                            hint=f"remove it from {where} first")
        rel = entity_notes.note_rel(vault.root, canonical)
        txn.message = f"entity: alias {entity_notes.entity_id(canonical)} — {alias_text}"
        path = vault.path(rel)
        if not path.exists():
            now = iso_utc(dt.datetime.now(dt.timezone.utc))
            txn.write(rel, entity_notes.render_entity_note(canonical, now, str(author)))
        text = path.read_text(encoding="utf-8")
        note = read_note(path, rel)
        current = [a for a in note.meta.get("aliases") or [] if isinstance(a, str)]
        if name_key(alias_text) in {name_key(a) for a in current}:
            return canonical, current  # nothing to change: the transaction commits nothing
        updated = [*current, alias_text]
        txn.write(rel, edit_frontmatter(text, {"aliases": updated}, rel))
    return canonical, updated

