"""Fact notes: reading, writing and merging the notes that hold facts (the model: facts/model.py).

One markdown file per fact, at a path derived from the triple and its qualifiers
(``facts/<subject>/<id>.md``, the id ending in a hash), so adding the same statement again finds
the same file and merges into it: each **independent source** is one item of ``evidence`` with
its own confidence (facts/evidence.py: two spellings of one source, or one source corrected, are
one item; a dataset tag and the PMIDs given with it are one item whose ``refs`` are the PMIDs),
and the fact's ``confidence`` is their noisy-OR, 1 - Π(1 - cᵢ). Retracting or superseding
changes ``status``; the file stays (history is memory), and adding the statement again is
refused until ``reopen`` says so.

Names are resolved through entity notes' ``aliases`` (p53 → TP53) before the triple is formed,
and identifiers are normalised (go:0008150 → GO:0008150), so one fact has one file.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import BiocortexError, DataError, NotFoundError, UsageError
from biocortex_cli.facts.evidence import Source, combined_confidence, parse_source, source_key
from biocortex_cli.facts.model import (
    Fact,
    FactRules,
    clean_text,
    fact_from_note,
    fact_id,
    fact_rel,
    name_key,
    normalize_predicate,
    normalize_qualifiers,
)
from biocortex_cli.store import entity_notes
from biocortex_cli.store.episodes import one_line
from biocortex_cli.store.git import Author
from biocortex_cli.store.notes import edit_frontmatter, iso_utc, read_note, render_note, rendered_note
from biocortex_cli.store.vault import Transaction, Vault

if TYPE_CHECKING:
    from biocortex_cli.bio.vocabulary import Gene
    from biocortex_cli.facts.index import IndexedFacts

#: kinds of source that are citations: given with a dataset tag, they are the dataset's refs
CITATIONS = ("pmid", "pmcid", "doi")


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


# --- evidence -----------------------------------------------------------------------------


def check_confidence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"confidence must be a number from 0 to 1, not {value!r}") from None
    if not 0.0 <= float(value) <= 1.0 or value != value:  # NaN
        raise UsageError(f"confidence must be a number from 0 to 1, not {value!r}")
    return float(value)


def episode_checker(vault: Vault) -> Callable[[str], bool]:
    """Whether an episode id exists (sources that name an episode must), memoised."""
    from biocortex_cli.store.episodes import episode_path

    known: dict[str, bool] = {}

    def exists(ident: str) -> bool:
        if ident not in known:
            known[ident] = episode_path(vault, ident) is not None
        return known[ident]

    return exists


def evidence_from(sources: Sequence[Source], confidence: float, author: str, now: str) -> list[dict[str, Any]]:
    """Evidence items for sources given together: one per independent source, except that
    citations given with a dataset tag are that dataset's ``refs`` (the dataset is the source)."""
    sources = list(sources) or [Source("unsourced", "unsourced", "unsourced")]
    datasets = [s for s in sources if s.kind == "dataset"]
    refs = [s.text for s in sources if s.kind in CITATIONS] if datasets else []
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for src in sources:
        if src.key in seen or (datasets and src.kind in CITATIONS):
            continue
        seen.add(src.key)
        item: dict[str, Any] = {"source": src.text, "confidence": confidence, "author": author, "added": now}
        if src.kind == "dataset" and refs:
            item["refs"] = list(dict.fromkeys(refs))
        items.append(item)
    return items


def merge_evidence(old: Iterable[Any], new: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``old`` items, then ``new`` ones: an item whose source is one already listed (same key)
    replaces that item's confidence, author, date and spelling, and adds its refs; old items that
    share a key (a note written before keys) become one, the most confident."""
    merged: dict[str, dict[str, Any]] = {}
    for item in old:
        if not isinstance(item, Mapping):
            continue
        key = source_key(str(item.get("source", "unsourced")))
        if key not in merged or float(item.get("confidence") or 0) > float(merged[key].get("confidence") or 0):
            merged[key] = {**merged.get(key, {}), **dict(item)}
    for item in new:
        key = source_key(str(item["source"]))
        refs = [*(merged.get(key, {}).get("refs") or []), *(item.get("refs") or [])]
        merged[key] = {**merged.get(key, {}), **item}
        if refs:
            merged[key]["refs"] = list(dict.fromkeys(str(r) for r in refs))
    return list(merged.values())


def evidence_updates(evidence: list[dict[str, Any]]) -> dict[str, Any]:
    """``confidence``, ``source`` and ``evidence`` of a record from its evidence items."""
    sources = [str(e.get("source")) for e in evidence]
    sources += [str(r) for e in evidence for r in e.get("refs") or []]
    return {"confidence": combined_confidence(float(e.get("confidence") or 0) for e in evidence),
            "source": list(dict.fromkeys(sources)), "evidence": evidence}


def said(evidence: Any) -> list[Any]:
    """What evidence items say — source as written, confidence, refs and anything else — without
    who added each and when."""
    return [{k: v for k, v in item.items() if k not in ("author", "added")} if isinstance(item, Mapping) else item
            for item in evidence or []]


def restates(old: Any, merged: Any) -> bool:
    """Whether evidence ``merged`` (``old`` with new items merged in, :func:`merge_evidence`) says
    nothing ``old`` did not: the same sources, spelled the same, with the same confidences and
    refs. Who gave an item again and when does not count: a statement made again is no new
    knowledge, so ``fact add`` and ``fact import`` leave such a note as it is (no new ``added``
    or ``updated``, no commit)."""
    return said(merged) == said(old)


def noisy_or(values: Iterable[float]) -> float:
    return combined_confidence(values)


# --- rendering ----------------------------------------------------------------------------


def _source_link(source: str, episode_exists: Callable[[str], bool]) -> str:
    from biocortex_cli.store.episodes import ID_RE

    ident = source.removeprefix("episode:")
    if ID_RE.fullmatch(ident) and episode_exists(ident):
        return f"[[{ident}]] (episode)"
    return source


def render_fact(vault: Vault, record: dict[str, Any], *, links: Mapping[str, str] | None = None,
                episode_exists: Callable[[str], bool] | None = None) -> str:
    """The note of ``record``; ``links`` maps a name to its entity note (default: the note
    found for it, ignoring case)."""
    return render_note(dict(record), fact_body(vault, record, links=links, episode_exists=episode_exists))


def fact_body(vault: Vault, record: dict[str, Any], *, links: Mapping[str, str] | None = None,
              episode_exists: Callable[[str], bool] | None = None) -> str:
    """The readable body of a fact note (the frontmatter is the record)."""
    fact = Fact(record=record, path="")
    exists = episode_exists or episode_checker(vault)
    subject, obj = (entity_notes.wikilink(n, (links or {}).get(n) or entity_note_rel(vault, n))
                    for n in (fact.subject, fact.object))
    lines = [f"# {fact.sentence()}", "", f"{subject} {fact.predicate.replace('_', ' ')} {obj}.", ""]
    quals = fact.qualifiers
    if quals:
        from biocortex_cli.facts.model import qualifier_text

        lines += [f"Holds for: {qualifier_text(quals)}.", ""]
    if fact.status == "retracted":
        why = record.get("retracted") or {}
        lines += [f"> [!warning] Retracted {why.get('at', '')} by {why.get('by', '')}",
                  f"> {why.get('reason', '')}", ""]
    elif fact.status == "superseded":
        lines += [f"> [!note] Superseded by [[{record.get('superseded_by', '')}]]", ""]
    else:
        lines += [f"> [!info] current · confidence {fact.confidence:g}", ""]
        again = record.get("reopened")
        if isinstance(again, Mapping):
            lines += [f"Reopened {again.get('at', '')} by {again.get('by', '')} "
                      f"(it had been retracted: {(record.get('retracted') or {}).get('reason', '')}).", ""]
    lines += ["## Sources", ""]
    for item in record.get("evidence") or []:
        src = str(item.get("source", "unsourced"))
        refs = item.get("refs") or []
        cites = f" (citing {', '.join(str(r) for r in refs)})" if refs else ""
        lines.append(f"- {_source_link(src, exists)}{cites} — confidence {item.get('confidence')} · "
                     f"{item.get('author', '')} · {str(item.get('added', ''))[:10]}")
    if record.get("supersedes"):
        lines += ["", f"Replaces [[{record['supersedes']}]]."]
    lines += ["", "<!-- Written by biocortex. The frontmatter above is the record; this body is a readable copy. -->"]
    return "\n".join(lines) + "\n"


def entity_note_rel(vault: Vault, name: str) -> str:
    """The note a link to entity ``name`` opens: its file by name (:func:`entity_notes.note_rel`),
    or — when no file has that name — the note the index knows by that name or alias: one a
    person renamed in Obsidian (``IL6.md`` → ``Interleukin 6.md``, ``name: IL6`` kept), which a
    new fact linked as ``[[IL6]]``, to no note. A name no note has yet: the file to create."""
    rel = entity_notes.note_rel(vault.root, name)
    if (vault.root / rel).exists():
        return rel
    from biocortex_cli.index.store import IndexUnusable, connect, index_path

    try:
        conn = connect(index_path(vault.state_folder))
    except IndexUnusable:
        return rel
    try:
        row = conn.execute("SELECT rel FROM entity_aliases WHERE alias_key = ? ORDER BY lower(name) != ?, rel "
                           "LIMIT 1", (name.casefold(), name.casefold())).fetchone()
    except sqlite3.Error:  # an index without the fact tables yet
        row = None
    finally:
        conn.close()
    return str(row[0]) if row and (vault.root / str(row[0])).is_file() else rel


def entity_note_finder(vault: Vault) -> Callable[[list[str]], dict[str, str]]:
    """``find(names)``: name -> the note of the entity each of ``names`` is another name of — an
    alias or identifier an entity note lists, or an HGNC name of a gene a note carries the id of
    (``hgnc_entity``) — for an episode's entities (store/entity_notes.py ``entity_rels``): an
    episode naming `p53` linked [[p53]] and made entities/p53.md beside TP53.md, which lists p53
    among its aliases, and `check` then failed on the alias two notes claimed. A vault without an
    index yet (a fresh clone), or whose index has no fact tables yet (a new vault's first recall
    builds only the episodes' part), finds none: names link their own notes, as before. The index is read
    as the last command left it, not refreshed (a refresh stats every fact and entity note: ~100 ms
    of CPU per `episode add` at 12,000 notes): tool writes keep it current, and an alias a person
    typed into a note since then is not seen, so that name links a note of its own, as before,
    which `check` names."""

    def find(names: list[str]) -> dict[str, str]:
        from biocortex_cli.facts.index import IndexedFacts
        from biocortex_cli.index.store import IndexUnusable, connect, index_path

        try:  # the entity tables only: the episodes' part of the index is not needed (~0.25 s)
            conn = connect(index_path(vault.state_folder))
        except IndexUnusable:  # no index yet: not built here (the first recall builds it, and says so)
            return {}
        source = IndexedFacts(conn)
        try:
            def note_of(key: str) -> str | None:
                row = conn.execute("SELECT rel FROM entity_aliases WHERE alias_key = ? ORDER BY "
                                   "lower(name) != ?, rel LIMIT 1", (key, key)).fetchone()
                return str(row[0]) if row and (vault.root / str(row[0])).is_file() else None

            out: dict[str, str] = {}
            for name in names:
                found = note_of(name.strip().casefold())
                if found is None:
                    held = hgnc_entity(name, None, source.alias_owner)
                    found = note_of(held[0].casefold()) if held is not None else None
                if found is not None:
                    out[name] = found
            return out
        except sqlite3.OperationalError as exc:  # an index without the fact tables yet (a recall of a new vault)
            if "no such table" not in str(exc):
                raise
            return {}
        finally:
            conn.close()

    return find


def _rewrite(txn: Transaction, rel: str, record: dict[str, Any], updates: dict[str, Any]) -> None:
    """Apply ``updates`` with a round-trip edit (hand-made comments and key order survive) and
    re-render the body from the updated ``record``."""
    text = (txn.vault.root / rel).read_text(encoding="utf-8")
    head = edit_frontmatter(text, updates, rel).split("\n---", 1)[0] + "\n---\n"
    txn.write(rel, head + render_fact(txn.vault, record).split("\n---\n", 1)[1])


# --- names --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Name:
    """A name as a fact will hold it, and what is worth saying about how it was resolved."""

    name: str
    notes: list[str] = field(default_factory=list)


def resolve_name(source: IndexedFacts, text: str, qualifiers: Mapping[str, str]) -> Name:
    """The entity name ``text`` stands for in this vault (its aliases; identifiers normalised).

    A name that differs from the entity's only by case keeps its own spelling when the fact has a
    taxon (``Myc`` in mouse is not ``MYC`` in human: the taxon keeps the two facts apart); without
    one, names compare ignoring case, and that is said. A name HGNC lists for several genes that
    the vault does not know is flagged with the candidates."""
    resolved = source.resolve(text)
    notes: list[str] = []
    if source.alias_owner(resolved) is None:
        held = hgnc_entity(resolved, qualifiers.get("taxon"), source.alias_owner)
        if held is not None:
            return Name(held[0], [f"{text} → {held[0]} (HGNC lists {text} for {held[1]}, which {held[0]}'s "
                                  f"note carries; `biocortex entity alias {held[0]} {text}` says so for good)"])
    if resolved != text and name_key(resolved) == name_key(text):
        if qualifiers.get("taxon"):
            return Name(text)
        notes.append(f"{text} → {resolved} (names compare ignoring case; give --taxon to keep species apart)")
    elif resolved != text:
        notes.append(f"{text} → {resolved}")
    if source.alias_owner(resolved) is None:
        from biocortex_cli.bio.vocabulary import genes

        try:
            _found, why = genes(resolved)
        except (OSError, RuntimeError):
            why = ""
        if why.startswith("ambiguous"):
            candidates = why.rsplit(" of ", 1)[-1]
            notes.append(f"{resolved} is ambiguous: HGNC lists it for {candidates}; stored as {resolved} "
                         f"(`biocortex entity alias GENE {resolved}` binds it to one gene)")
    return Name(resolved, notes)


def hgnc_gene(name: str, taxon: str | None) -> Gene | None:
    """The one HGNC gene ``name`` is the symbol, an alias or a previous symbol of (the shipped
    vocabulary), for a human or unqualified fact; None when there are several, none, or the
    vocabulary withholds the name (an English word, ambiguous), or the name holds more than the
    gene's spelling (``TP53!``). A gene's approved name as HGNC writes it counts too (*epidermal
    growth factor receptor*: EGFR)."""
    if taxon not in (None, "", "NCBITaxon:9606"):
        return None
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.bio.vocabulary import genes, named_gene

    if re.sub(r"[\s._-]", "", name.casefold()) != re.sub(r"[\s._-]", "", "".join(tokenize(name))):
        try:  # the vocabulary's key drops what makes `TP53!` another name than `TP53`; a name is exact
            return named_gene(name)
        except (OSError, RuntimeError):
            return None

    try:
        found, why = genes(name)
    except (OSError, RuntimeError):  # a broken install: names stay as written
        return None
    return found[0] if len(found) == 1 and not why else None


def hgnc_entity(name: str, taxon: str | None, owner: Callable[[str], str | None]) -> tuple[str, str] | None:
    """(entity, HGNC id) when ``name`` is another HGNC name of a gene whose entity note the vault
    has (``owner`` of its identifier: ``p53`` → ``TP53``, ``MLL`` → ``KMT2A``), so that a fact
    about it lands on that note instead of a second note carrying the same identifier."""
    gene = hgnc_gene(name, taxon)
    held = owner(gene.hgnc) if gene is not None else None
    return (held, gene.hgnc) if held is not None and gene is not None else None


def write_entity_notes(txn: Transaction, names: Iterable[str], author: Author, source: IndexedFacts | None, *,
                       kinds: Mapping[str, str] | None = None, taxon: str | None = None,
                       batch: bool = False) -> None:
    """Entity notes for the names that have none (by alias, ignoring case, or by file)."""
    created = iso_utc(dt.datetime.now(dt.timezone.utc))
    written = {p.casefold() for p in txn.paths}
    for name in dict.fromkeys(names):
        if source is not None and source.alias_owner(name) is not None:
            continue
        rel = entity_notes.note_rel(txn.vault.root, name)
        if rel.casefold() in written or (txn.vault.root / rel).exists():
            continue
        written.add(rel.casefold())
        txn.write(rel, entity_notes.render_entity_note(name, created, str(author), kind=(kinds or {}).get(name),
                                                       taxon=taxon), batch=batch)


# --- adding -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddResult:
    fact: Fact
    created: bool  # False: merged into an existing fact
    conflicts: list[Fact]
    notes: list[str]  # things worth saying on stderr
    reopened: bool = False
    #: the note held this evidence already and was left as it was: the line of its evidence
    unchanged: int | None = None
    written: tuple[str, ...] = ()  # the files this add wrote (none when unchanged, unless an entity note was missing)


def add_fact(vault: Vault, subject: str, predicate: str, obj: str, *, sources: list[str],
             confidence: float | str | None, author: Author, rules: FactRules | None = None,
             qualifiers: Mapping[str, str | None] | None = None, reopen: bool = False,
             kinds: Mapping[str, str | None] | None = None) -> AddResult:
    """Record a fact, or merge new evidence into the same statement's file.

    ``sources`` are checked (facts/evidence.py; an episode must exist); ``qualifiers`` (taxon,
    cell_type, context) make another fact of the same triple; a retracted or superseded statement
    is refused unless ``reopen`` (then it is current again, in the same commit as the evidence).
    ``kinds`` (``subject``/``object`` → kind) set the kind of entity notes this creates."""
    from biocortex_cli.store import secrets

    if vault.secret_policy == secrets.REDACT:
        subject, predicate, obj, *sources = secrets.scrub_input([subject, predicate, obj, *sources], "the fact")
    subject_text, obj_text = clean_text(subject, "subject"), clean_text(obj, "object")
    pred = normalize_predicate(predicate)
    conf = check_confidence(confidence if confidence is not None else vault.config.facts.default_confidence)
    quals = normalize_qualifiers(qualifiers or {})
    exists = episode_checker(vault)
    parsed = [parse_source(clean_text(s, "source"), episode_exists=exists) for s in sources]
    rules = rules or FactRules.from_config(vault)
    from biocortex_cli.facts.index import open_facts, refresh_facts

    # aliases and current facts, from the index (its episodes are not this write's business)
    conn, source, _problems = open_facts(vault, episodes=False)
    try:
        s_name, o_name = resolve_name(source, subject_text, quals), resolve_name(source, obj_text, quals)
        nearby = source.touching(source.spellings(s_name.name))
        notes = [*s_name.notes, *o_name.notes]
        ident = fact_id(s_name.name, pred, o_name.name, quals)
        rel = fact_rel(s_name.name, pred, o_name.name, quals)
        now = iso_utc(dt.datetime.now(dt.timezone.utc))
        items = evidence_from(parsed, conf, str(author), now)
        labels = ", ".join(i["source"] for i in items)
        summary = Fact({"subject": s_name.name, "predicate": pred, "object": o_name.name, "qualifiers": quals},
                       "").sentence()
        reopened = False
        line = 0
        with vault.transaction(f"fact: add {ident} — {one_line(summary)} ({labels}, {conf:g})", author) as txn:
            path = vault.path(rel)
            created = not path.exists()
            if created:
                record: dict[str, Any] = {
                    "id": ident, "type": "fact", "created": now, "author": str(author),
                    "subject": s_name.name, "predicate": pred, "object": o_name.name}
                if quals:
                    record["qualifiers"] = quals
                record.update({"confidence": 0.0, "source": [], "status": "current", "evidence": []})
                updates: dict[str, Any] = {}
            else:
                note = read_note(path, rel)
                existing = fact_from_note(note)
                found = (name_key(existing.subject), existing.predicate, name_key(existing.object))
                if found != (name_key(s_name.name), pred, name_key(o_name.name)) or existing.qualifiers != quals:
                    raise DataError(f"{rel} holds another triple ({existing.sentence()}); nothing was written",
                                    path=rel, line=note.line_of("subject"),
                                    hint="the file was edited by hand: restore its subject/predicate/object")
                record = dict(note.meta)
                updates = {}
                if existing.status != "current":
                    if not reopen:
                        raise DataError(_closed_message(existing), path=rel, line=note.line_of("status"),
                                        hint="add --reopen to make it current again with this evidence "
                                             "(one commit; the retraction stays in the note and in git)")
                    updates.update(status="current", reopened={"by": str(author), "at": now})
                    reopened = True
            evidence = merge_evidence(record.get("evidence") or [], items)
            # the note holds this evidence already (the same sources, confidences and refs): it
            # stays as it is, and without an entity note to create there is no commit
            unchanged = not created and not reopened and restates(record.get("evidence") or [], evidence)
            if unchanged:
                line = note.line_of("evidence")
            else:
                updates.update(evidence_updates(evidence))
                if not created:
                    updates["updated"] = now
                record.update(updates)
            if created:  # with its note, which the fact tables take from memory after the commit
                text, note_of = rendered_note(rel, dict(record), fact_body(vault, record, episode_exists=exists))
                txn.write(rel, text, parsed=note_of)
            elif not unchanged:
                _rewrite(txn, rel, record, updates)
            write_entity_notes(txn, [s_name.name, o_name.name], author, source,
                               kinds={s_name.name: (kinds or {}).get("subject") or "",
                                      o_name.name: (kinds or {}).get("object") or ""},
                               taxon=quals.get("taxon"))
            if reopened:
                txn.message = f"fact: reopen {ident} — {one_line(summary)} (+{labels}, {conf:g})"
            elif unchanged:  # only an entity note a person deleted, made again
                txn.message = f"fact: entity notes of {ident} — {one_line(summary)} (the fact is recorded already)"
            elif not created:  # the reviewer scanning git log sees an update, not a second add
                txn.message = f"fact: update {ident} — {one_line(summary)} (+{labels}, {conf:g})"
        # the fact tables follow the commit now, the new note from memory: the next command finds
        # them current instead of reading the notes back; the line's tokens are counted by the next
        # reader, which loads the tokenizer anyway (refresh_facts)
        refresh_facts(conn, vault, vault.config.tokenizer.encoding, written=txn.rendered, count=False,
                      recheck=txn.paths)  # ... yet a hand edit of them before then is still read
    finally:
        conn.close()
    fact = Fact(record=record, path=rel)
    conflicts = [other for other in nearby if rules.conflicts(fact, other)]  # same subject only
    if reopened:
        notes.append(f"{_closed_message(Fact(record={**record, 'status': 'retracted'}, path=rel))}; reopened")
    return AddResult(fact=fact, created=created, conflicts=conflicts, notes=notes, reopened=reopened,
                     unchanged=line or None, written=tuple(sorted(txn.paths)))


def _closed_message(fact: Fact) -> str:
    if fact.status == "superseded":
        return f"fact {fact.id} is superseded by {fact.record.get('superseded_by', '?')}"
    why = fact.record.get("retracted")
    why = why if isinstance(why, Mapping) else {}
    when, who = str(why.get("at", ""))[:10], why.get("by", "?")
    return f"fact {fact.id} was retracted {when} by {who}: {why.get('reason', '')}"


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
    same = (name_key(a.subject), a.predicate, name_key(a.object), a.status, a.qualifiers) == \
        (name_key(b.subject), b.predicate, name_key(b.object), b.status, b.qualifiers)
    if not same:
        return None
    by_source: dict[str, dict[str, Any]] = {}
    for item in [*(a.record.get("evidence") or []), *(b.record.get("evidence") or [])]:
        if isinstance(item, dict):
            src = source_key(str(item.get("source")))
            if src not in by_source or str(item.get("added", "")) > str(by_source[src].get("added", "")):
                by_source[src] = dict(item)
    updates = evidence_updates(list(by_source.values()))
    stamps = [str(r["updated"]) for r in (a.record, b.record) if r.get("updated")]
    if stamps:
        updates["updated"] = max(stamps)
    record = {**a.record, **updates}
    head = edit_frontmatter(ours, updates, rel).split("\n---", 1)[0] + "\n---\n"
    return head + render_fact(vault, record).split("\n---\n", 1)[1]


# --- status and sources -------------------------------------------------------------------


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


def remove_source(vault: Vault, ident: str, source: str, author: Author) -> Fact:
    """Take one source (any spelling of it; or one of a dataset's refs) out of a fact's evidence,
    in one commit; the confidence is the noisy-OR of what remains. The last source cannot go:
    retract the fact instead."""
    fact = find_fact(vault, ident)
    key = source_key(clean_text(source, "source"))
    evidence = [dict(e) for e in fact.record.get("evidence") or [] if isinstance(e, Mapping)]
    kept = [e for e in evidence if source_key(str(e.get("source"))) != key]
    if len(kept) == len(evidence):  # a citation inside a dataset's item?
        for item in kept:
            refs = [r for r in item.get("refs") or [] if source_key(str(r)) != key]
            if len(refs) != len(item.get("refs") or []):
                item["refs"] = refs
                break
        else:
            listed = ", ".join(str(e.get("source")) for e in evidence) or "none"
            raise DataError(f"fact {ident} does not cite {source!r}", path=fact.path,
                            hint=f"its sources: {listed}")
    if not kept:
        raise DataError(f"{source!r} is the only source of fact {ident}", path=fact.path,
                        hint=f"retract the fact instead: biocortex fact retract {ident} --reason …")
    now = iso_utc(dt.datetime.now(dt.timezone.utc))
    updates = {**evidence_updates(kept), "updated": now}
    return _set_status(vault, ident, updates, f"fact: unsource {ident} — {one_line(source)}", author)
