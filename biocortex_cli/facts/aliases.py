"""Entity names: aliases, and merging two entity notes that name one thing.

``entity alias NAME ALIAS`` adds ALIAS to NAME's note (Obsidian ``aliases:``). An alias HGNC lists
for several genes is flagged with the candidates, and refused when NAME is not one of them; an
alias that is another entity of its own is a merge (``--merge``, or ``entity merge``).

``entity merge KEEP OTHER`` makes OTHER a name of KEEP, in one commit, deleting nothing:

* every fact about OTHER is restated about KEEP (a statement KEEP already has takes OTHER's
  evidence, merged by source; else a new note is written with OTHER's evidence and status), and
  OTHER's note of it is marked ``superseded`` by the new one;
* every episode listing OTHER among its entities lists KEEP instead (links follow);
* KEEP's note takes OTHER's name, aliases and identifiers; OTHER's note stays as a redirect
  (``merged_into: KEEP``), so old links still lead somewhere and history reads.

A merge into an entity that is itself merged away, or of an entity into itself, is refused.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import DataError
from biocortex_cli.facts.model import clean_text, fact_id, fact_rel, name_key
from biocortex_cli.facts.notes import _rewrite, evidence_updates, merge_evidence, render_fact
from biocortex_cli.progress import plural
from biocortex_cli.store import entity_notes
from biocortex_cli.store.git import Author
from biocortex_cli.store.notes import edit_frontmatter, iso_utc, read_note, rendered_note
from biocortex_cli.store.vault import Transaction, Vault

if TYPE_CHECKING:
    from biocortex_cli.facts.index import IndexedFacts


@dataclass(frozen=True)
class MergeResult:
    keep: str
    other: str
    facts: list[str]  # ids of the facts restated about KEEP
    episodes: list[str]  # ids of the episodes whose entity lists changed
    aliases: list[str]  # KEEP's aliases after the merge

    def as_json(self) -> dict[str, Any]:
        return {"name": self.keep, "merged": self.other, "facts": self.facts, "episodes": self.episodes,
                "aliases": self.aliases}


@dataclass(frozen=True)
class AliasResult:
    name: str
    aliases: list[str]
    notes: list[str] = field(default_factory=list)
    merged: MergeResult | None = None
    ambiguous: list[str] = field(default_factory=list)  # HGNC candidates of the alias

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "aliases": self.aliases}
        if self.ambiguous:
            out["ambiguous"] = self.ambiguous
        if self.merged is not None:
            out["merged"] = self.merged.as_json()
        return out


def hgnc_candidates(name: str) -> list[str]:
    """The genes HGNC lists ``name`` for when it is an ambiguous alias or previous symbol."""
    from biocortex_cli.bio.vocabulary import genes

    try:
        _found, why = genes(name)
    except (OSError, RuntimeError):
        return []
    return [g.strip() for g in why.rsplit(" of ", 1)[-1].split(",")] if why.startswith("ambiguous") else []


def _hgnc_symbol(name: str) -> str | None:
    from biocortex_cli.bio.vocabulary import genes

    try:
        found, _why = genes(name)
    except (OSError, RuntimeError):
        return None
    return found[0].symbol if len(found) == 1 else None


def add_alias(vault: Vault, name: str, alias: str, author: Author, *, merge: bool = False,
              allow_ambiguous: bool = False) -> AliasResult:
    """Add ``alias`` to the entity note of ``name`` (created if missing)."""
    name_text, alias_text = clean_text(name, "entity name"), clean_text(alias, "alias")
    from biocortex_cli.facts.index import open_facts

    candidates = hgnc_candidates(alias_text)
    notes: list[str] = []
    with vault.transaction("entity: alias", author) as txn:
        # checked under the write lock, so two writers cannot give one alias to two entities
        conn, source, _problems = open_facts(vault)
        try:
            canonical = source.resolve(name_text)
            other = source.alias_owner(alias_text)
            if other is not None and name_key(other) != name_key(canonical):
                where = f"entities/{entity_notes.file_stem(other)}.md"
                if name_key(other) != name_key(alias_text):
                    raise DataError(f"{alias_text!r} is already an alias of {other}",
                                    hint=f"remove it from {where} first")
                if not merge:
                    raise DataError(f"{alias_text!r} is an entity of its own ({where})",
                                    hint=f"to make them one entity (facts and episodes follow, nothing deleted): "
                                         f"biocortex entity alias {canonical} {alias_text} --merge, or "
                                         f"biocortex entity merge {canonical} {alias_text}")
                merged = _merge(txn, source, conn, canonical, other, author)
                return AliasResult(canonical, merged.aliases, [f"{other} was an entity of its own: merged into "
                                                               f"{canonical} ({len(merged.facts)} facts, "
                                                               f"{len(merged.episodes)} episodes followed)"],
                                   merged=merged, ambiguous=candidates)
        finally:
            conn.close()
        if candidates:
            symbol = _hgnc_symbol(canonical) or canonical
            listed = ", ".join(candidates)
            if symbol not in candidates and not allow_ambiguous:
                raise DataError(f"{alias_text!r} is ambiguous: HGNC lists it for {listed}, not {canonical}",
                                hint="bind it anyway with --allow-ambiguous, or alias it to one of those genes")
            notes.append(f"{alias_text} is ambiguous: HGNC also lists it for "
                         f"{', '.join(c for c in candidates if c != symbol)}; in this vault it means {canonical}")
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
            return AliasResult(canonical, current, notes, ambiguous=candidates)  # nothing to commit
        updated = [*current, alias_text]
        txn.write(rel, edit_frontmatter(text, {"aliases": updated}, rel))
    return AliasResult(canonical, updated, notes, ambiguous=candidates)


def merged_alias_text(rel: str, base: str | None, ours: str, theirs: str) -> str | None:
    """One entity note from two versions that differ only in the aliases each side added (a sync
    whose two clones both ran ``entity alias`` on it; ``base``: the version both started from, None
    when both created the note): ``ours`` with the aliases of ``theirs`` it lacks appended. None
    when they differ in anything else, or one side took out an alias the base had: a person decides."""
    from biocortex_cli.store.notes import parse_note

    try:
        a, b = parse_note(ours, rel), parse_note(theirs, rel)
        started = parse_note(base, rel).meta.get("aliases") if base is not None else []
    except DataError:
        return None
    lists = [a.meta.get("aliases") or [], b.meta.get("aliases") or [], started or []]
    if not all(isinstance(names, list) and all(isinstance(n, str) for n in names) for names in lists):
        return None
    mine, other, before = lists

    def rest(meta: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in meta.items() if k not in ("aliases", "created", "author")}

    if rest(a.meta) != rest(b.meta) or a.body != b.body or not set(before) <= set(mine) & set(other):
        return None
    merged = list(mine)
    for name in other:
        if name.casefold() not in {m.casefold() for m in merged}:
            merged.append(name)
    return edit_frontmatter(ours, {"aliases": merged}, rel)


def merge_entities(vault: Vault, keep: str, other: str, author: Author) -> MergeResult:
    """Make ``other`` a name of ``keep`` (module docstring): one commit, nothing deleted."""
    keep_text, other_text = clean_text(keep, "entity name"), clean_text(other, "entity name")
    from biocortex_cli.facts.index import open_facts

    with vault.transaction("entity: merge", author) as txn:
        conn, source, _problems = open_facts(vault)
        try:
            canonical = source.resolve(keep_text)
            owner = source.alias_owner(other_text)
            if owner is None:
                raise DataError(f"no entity named {other_text!r}", hint="list entities in entities/")
            if name_key(owner) == name_key(canonical):
                if name_key(keep_text) != name_key(canonical):
                    raise DataError(f"cannot merge {owner!r} into {keep_text!r}: {keep_text!r} is already a name of "
                                    f"{canonical}, so the merge would make a cycle",
                                    hint="nothing to do: they are one entity")
                if name_key(other_text) != name_key(canonical):
                    raise DataError(f"{other_text!r} is already a name of {canonical}", hint="nothing to do")
                raise DataError(f"cannot merge {canonical!r} into itself", hint="name two different entities")
            return _merge(txn, source, conn, canonical, owner, author)
        finally:
            conn.close()


def _merge(txn: Transaction, source: IndexedFacts, conn: Any, keep: str, other: str, author: Author) -> MergeResult:
    vault = txn.vault
    now = iso_utc(dt.datetime.now(dt.timezone.utc))
    keep_rel, other_rel = entity_notes.note_rel(vault.root, keep), entity_notes.note_rel(vault.root, other)
    chain, rel = [keep_rel], keep_rel
    while (vault.root / rel).is_file():  # a hand-written merged_into loop
        target = read_note(vault.root / rel, rel).meta.get("merged_into")
        if not isinstance(target, str):
            break
        rel = entity_notes.note_rel(vault.root, target)
        if rel in chain:
            raise DataError(f"merged_into of {keep_rel} leads back to itself ({' → '.join(chain)})",
                            path=keep_rel, hint="fix merged_into by hand first")
        chain.append(rel)
    if not (vault.root / other_rel).is_file():
        raise DataError(f"{other!r} has no entity note of its own ({other_rel})", hint="nothing to merge")
    other_keys = source.spellings(other)
    keep_note = read_note(vault.root / keep_rel, keep_rel).meta if (vault.root / keep_rel).is_file() else {}
    other_meta = read_note(vault.root / other_rel, other_rel).meta

    def moved(name: str) -> str:
        return keep if name_key(name) in other_keys else name

    restated: list[str] = []
    for fact in source.touching(other_keys):
        if fact.origin != "note" or fact.status == "superseded":
            continue
        quals = fact.qualifiers
        subject, obj = moved(fact.subject), moved(fact.object)
        new_id, new_rel = fact_id(subject, fact.predicate, obj, quals), fact_rel(subject, fact.predicate, obj, quals)
        if new_rel == fact.path:
            continue
        evidence = merge_evidence([], [dict(e) for e in fact.record.get("evidence") or [] if isinstance(e, Mapping)])
        target = vault.root / new_rel
        if target.is_file() or new_rel in txn.paths:
            current = read_note(target, new_rel).meta
            updates = {**evidence_updates(merge_evidence(current.get("evidence") or [], evidence)), "updated": now,
                       "merged_from": [*(current.get("merged_from") or []), fact.id]}
            _rewrite(txn, new_rel, {**current, **updates}, updates)
        else:
            record = {k: v for k, v in fact.record.items() if k not in ("superseded_by", "supersedes")}
            record.update(id=new_id, subject=subject, object=obj, merged_from=[fact.id], updated=now,
                          **evidence_updates(evidence))
            txn.write(new_rel, render_fact(vault, record))
        old = {"status": "superseded", "superseded_by": new_id, "updated": now}
        _rewrite(txn, fact.path, {**fact.record, **old}, old)
        restated.append(new_id)
    episodes = _move_episodes(txn, conn, other, other_keys, keep)
    aliases = _take_names(txn, keep, keep_rel, keep_note, other, other_meta, author)
    body = (f"# {other}\n\nMerged into {entity_notes.wikilink(keep)} on {now[:10]} by {author}: its names, facts "
            "and episodes now belong there. This note stays so that old links still lead somewhere.\n")
    head = edit_frontmatter((vault.root / other_rel).read_text(encoding="utf-8"),
                            {"merged_into": keep, "aliases": [], "updated": now}, other_rel).split("\n---", 1)[0]
    txn.write(other_rel, head + "\n---\n" + body)
    txn.message = (f"entity: merge {entity_notes.entity_id(other)} into {entity_notes.entity_id(keep)} — "
                   f"{plural(len(restated), 'fact')}, {plural(len(episodes), 'episode')} follow")
    return MergeResult(keep, other, restated, episodes, aliases)


def _take_names(txn: Transaction, keep: str, keep_rel: str, keep_meta: Mapping[str, Any], other: str,
                other_meta: Mapping[str, Any], author: Author) -> list[str]:
    vault = txn.vault
    if not (vault.root / keep_rel).is_file() and keep_rel not in txn.paths:
        txn.write(keep_rel, entity_notes.render_entity_note(keep, iso_utc(dt.datetime.now(dt.timezone.utc)),
                                                            str(author)))
        keep_meta = read_note(vault.root / keep_rel, keep_rel).meta
    listed = [a for a in keep_meta.get("aliases") or [keep] if isinstance(a, str)]
    names = [*listed, other, *(a for a in other_meta.get("aliases") or [] if isinstance(a, str))]
    aliases: list[str] = []
    for alias in names:  # the first spelling of each name
        if name_key(alias) not in {name_key(a) for a in aliases}:
            aliases.append(alias)
    updates: dict[str, Any] = {"aliases": aliases}
    ids = [*(keep_meta.get("identifiers") or []), *(other_meta.get("identifiers") or [])]
    if ids:
        updates["identifiers"] = list(dict.fromkeys(str(i) for i in ids))
    text = (vault.root / keep_rel).read_text(encoding="utf-8")
    txn.write(keep_rel, edit_frontmatter(text, updates, keep_rel))
    return aliases


def _move_episodes(txn: Transaction, conn: Any, other: str, other_keys: set[str], keep: str) -> list[str]:
    """Episodes listing ``other`` list ``keep`` instead; their links follow."""
    from biocortex_cli.bio.text import tokenize

    values = sorted({" ".join(tokenize(k)) or k for k in other_keys})
    marks = ",".join("?" for _ in values)
    rows = conn.execute(f"SELECT DISTINCT d.id, d.rel FROM attrs a JOIN docs d ON a.doc = d.doc "
                        f"WHERE a.kind = 'entity' AND a.value IN ({marks}) ORDER BY d.id", values).fetchall()
    stems = {entity_notes.file_stem(k).casefold() for k in other_keys} | {k for k in other_keys}
    link = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]*))?\]\]")
    moved: list[str] = []
    for ident, rel in rows:
        path = txn.vault.root / rel
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        meta = read_note(path, rel).meta
        listed = [str(e) for e in meta.get("entities") or []]
        if not any(name_key(e) in other_keys for e in listed):
            continue
        entities = list(dict.fromkeys(keep if name_key(e) in other_keys else e for e in listed))
        edited = edit_frontmatter(text, {"entities": entities}, rel)
        head, sep, body = edited.partition("\n---\n")
        body = link.sub(lambda m: entity_notes.wikilink(keep) if m.group(1).strip().casefold() in stems else m.group(0),
                        body)
        body = "".join(_links_once(line) for line in body.splitlines(keepends=True))
        txn.write(rel, head + sep + body)
        moved.append(str(ident))
    return moved



def _links_once(line: str) -> str:
    """An episode's *Entities* line (``[[A]] · [[B]] · [[A]]``) with each link once: a merge that
    turns ``[[NRF2]]`` into ``[[NFE2L2]]`` next to an ``[[NFE2L2]]`` lists it once, as the
    frontmatter's ``entities`` does. Any other line as it is."""
    items = line.rstrip("\n").split(" · ")
    if len(items) < 2 or not all(i.startswith("[[") and i.endswith("]]") for i in items):
        return line
    return " · ".join(dict.fromkeys(items)) + line[len(line.rstrip("\n")):]


# --- alias import -------------------------------------------------------------------------

#: header names of an alias file, lower-cased -> field
ALIAS_HEADERS = {"name": "name", "entity": "name", "symbol": "name", "approved_symbol": "name", "gene": "name",
                 "alias": "alias", "aliases": "alias", "synonym": "alias", "synonyms": "alias",
                 "alias_symbol": "alias", "previous_symbol": "alias", "kind": "kind", "type": "kind",
                 "identifier": "identifier", "identifiers": "identifier", "id": "identifier",
                 "hgnc_id": "identifier"}


@dataclass(frozen=True)
class AliasImport:
    path: str
    rows: int
    aliases: int = 0  # aliases added
    entities: int = 0  # entity notes created
    notes: int = 0  # entity notes written (created or edited)
    flagged: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (alias, name, HGNC candidates)
    problems: list[DataError] = field(default_factory=list)  # nothing was written when any

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "rows": self.rows, "aliases": self.aliases, "entities": self.entities,
                "notes": self.notes,
                "ambiguous": [{"alias": a, "name": n, "candidates": c} for a, n, c in self.flagged],
                "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in self.problems]}


def import_aliases(vault: Vault, text: str, rel: str, author: Author, *, format_: str | None = None,
                   columns: list[str] | None = None, allow_ambiguous: bool = False) -> AliasImport:
    """Aliases from a file (``name``, ``alias`` — several separated by ``;`` or ``|`` — and
    optionally ``kind`` and ``identifier``), checked as ``entity alias`` checks them, written in
    one commit; nothing when any row is refused (``problems``)."""
    from biocortex_cli.facts.imports import SEPARATORS, ImportOptions, read_rows
    from biocortex_cli.facts.index import open_facts
    from biocortex_cli.store.entity_notes import entity_note

    options = ImportOptions(format=format_, columns=columns)
    rows = list(read_rows(text, rel, options, headers=ALIAS_HEADERS, required=("name", "alias")))
    problems: list[DataError] = []
    flagged: list[tuple[str, str, list[str]]] = []
    wanted: dict[str, dict[str, Any]] = {}  # canonical -> {"aliases": [...], "kind", "identifiers"}
    claimed: dict[str, tuple[str, int]] = {}  # alias key -> (canonical, line) within the file
    with vault.transaction("entity: import aliases", author) as txn:
        conn, source, _problems = open_facts(vault)
        try:
            for line, values in rows:
                try:
                    if isinstance(values, DataError):
                        raise values  # a JSON line that cannot be read: one more refused row
                    name = clean_text(str(values.get("name") or ""), "entity name")
                    canonical = source.resolve(name)
                    entry = wanted.setdefault(canonical, {"aliases": [], "kind": None, "identifiers": []})
                    if values.get("kind"):
                        entry["kind"] = clean_text(str(values["kind"]), "kind")
                    if values.get("identifier"):
                        entry["identifiers"] += [i for i in SEPARATORS.split(str(values["identifier"])) if i]
                    for raw in SEPARATORS.split(str(values.get("alias") or "")):
                        if not raw.strip():
                            continue
                        alias = clean_text(raw, "alias")
                        owner = source.alias_owner(alias)
                        if owner is not None and name_key(owner) != name_key(canonical):
                            how = ("is an entity of its own: merge them with `biocortex entity merge "
                                   f"{canonical} {alias}`") if name_key(owner) == name_key(alias) else \
                                f"is already an alias of {owner}"
                            raise DataError(f"{alias!r} {how}")
                        first = claimed.setdefault(name_key(alias), (canonical, line))
                        if name_key(first[0]) != name_key(canonical):
                            raise DataError(f"{alias!r} is given to {first[0]} on line {first[1]} and to {canonical}")
                        candidates = hgnc_candidates(alias)
                        if candidates:
                            symbol = _hgnc_symbol(canonical) or canonical
                            if symbol not in candidates and not allow_ambiguous:
                                raise DataError(f"{alias!r} is ambiguous: HGNC lists it for {', '.join(candidates)}, "
                                                f"not {canonical}", hint="--allow-ambiguous binds it anyway")
                            flagged.append((alias, canonical, candidates))
                        if owner is None:
                            entry["aliases"].append(alias)
                except DataError as exc:
                    problems.append(DataError(exc.message, path=rel, line=line, hint=exc.hint))
        finally:
            conn.close()
        if problems or not rows:
            if not rows:
                problems.append(DataError("no aliases in the file", path=rel))
            return AliasImport(rel, len(rows), problems=problems, flagged=flagged)
        now = iso_utc(dt.datetime.now(dt.timezone.utc))
        added = created = written = 0
        notes: list[tuple[str, str, Any]] = []  # written at once (Transaction.write_many)
        from biocortex_cli.store.notes import checked_editor, edit_rendered

        edited = checked_editor(edit_rendered, lambda note, text, updates: edit_frontmatter(text, updates, note.rel))
        pending: set[str] = set()  # their paths, case-folded
        for canonical, entry in wanted.items():
            rel_note = entity_notes.note_rel(vault.root, canonical)
            if rel_note.casefold() in pending:  # a case variant of a note not written yet: write, then find it
                txn.write_many(notes)
                notes, pending = [], set()
                rel_note = entity_notes.note_rel(vault.root, canonical)
            pending.add(rel_note.casefold())
            path = vault.root / rel_note
            if path.exists():
                note = read_note(path, rel_note)
                meta = note.meta
                current = [a for a in meta.get("aliases") or [] if isinstance(a, str)]
                new = [a for a in dict.fromkeys(entry["aliases"]) if name_key(a) not in {name_key(c) for c in current}]
                updates: dict[str, Any] = {}
                if new:
                    updates["aliases"] = [*current, *new]
                ids = [i for i in entry["identifiers"] if i not in (meta.get("identifiers") or [])]
                if ids:
                    updates["identifiers"] = [*(meta.get("identifiers") or []), *ids]
                if entry["kind"] and entry["kind"] != meta.get("kind"):
                    updates["kind"] = entry["kind"]
                if updates:
                    notes.append((rel_note, *edited(note, path.read_text(encoding="utf-8"), updates)))
                    written += 1
                    added += len(new)
            else:
                meta_new, body = entity_note(canonical, now, str(author), kind=entry["kind"],
                                             identifiers=entry["identifiers"])
                aliases = [canonical, *(a for a in dict.fromkeys(entry["aliases"])
                                        if name_key(a) != name_key(canonical))]
                meta_new["aliases"] = aliases
                text_new, parsed = rendered_note(rel_note, dict(meta_new), body)
                notes.append((rel_note, text_new, parsed))
                created += 1
                written += 1
                added += len(aliases) - 1
        txn.write_many(notes)
        txn.message = f"entity: import {added} aliases — {rel.rsplit('/', 1)[-1]} ({written} entity notes)"
    open_facts(vault, written=txn.rendered)[0].close()  # the next command reads none of them back
    return AliasImport(rel, len(rows), aliases=added, entities=created, notes=written, flagged=flagged)
