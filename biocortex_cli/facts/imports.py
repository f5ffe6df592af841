"""Bulk import of curated facts and aliases: one validated, all-or-nothing commit per file.

``fact import FILE`` reads TSV, CSV or JSON Lines. Every row is checked first (names, predicate,
confidence, sources — the same grammar as ``fact add``); a file with any bad row writes nothing
and every problem is a value with its ``path:line``. Then, under the write lock, rows become
fact notes exactly as ``fact add`` writes them — aliases resolved, the same statement merged
(within the file and with the vault), entity notes created with their kind and identifiers — and
one commit holds them all; the transaction then packs the new objects (store/git.py
``maintain``), so history stays ~1-2 KB a fact (docs/performance.md).

Speed comes from doing once what ``fact add`` does per fact: the vault's aliases are read from
the index into a dict, episode ids listed once, each name resolved once, and notes rendered with
the C dumper. A statement the vault already holds is merged as ``fact add`` merges it (a round-trip
edit: its comments survive), rendered without the round-trip loader when the note is exactly as
biocortex wrote it (``_fact_editor``), and left alone when the file only restates its evidence.

Columns. A file with a header names them: ``subject``, ``predicate``, ``object``, ``source``
(several separated by ``;`` or ``|``), ``confidence``, ``taxon``, ``cell_type``, ``context``;
common synonyms are understood (``TF``/``Target``/``Regulation``/``Reference`` of TRRUST,
``source``/``target`` of edge lists, ``source`` being the subject when no other
column is — see ``HEADERS``). A file without one takes
``columns=("subject", "object", "predicate", "source")``, ``-`` skipping a column.

Progress: ``progress(stage, done, total)`` is called every 1,000 rows checked (``check``, total 0:
not known before the end) and facts written (``write``), and once before the commit (``commit``);
a face draws it as it likes (a line on stderr, a bar on a terminal).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocortex_cli.errors import BiocortexError, DataError, UsageError
from biocortex_cli.facts.evidence import Source, parse_source
from biocortex_cli.facts.model import (
    QUALIFIERS,
    Fact,
    FactRules,
    clean_text,
    fact_from_note,
    fact_id,
    fact_rel_of,
    name_key,
    normalize_predicate,
    normalize_qualifiers,
)
from biocortex_cli.facts.notes import (
    _closed_message,
    check_confidence,
    evidence_from,
    evidence_updates,
    fact_body,
    merge_evidence,
    restates,
)
from biocortex_cli.store import entity_notes
from biocortex_cli.store.files import read_note_text
from biocortex_cli.store.git import Author
from biocortex_cli.store.notes import Note, edit_frontmatter, iso_utc, parse_note, rendered_note
from biocortex_cli.store.vault import Vault

Progress = Callable[[str, int, int], None]
FIELDS = ("subject", "predicate", "object", "source", "confidence", *QUALIFIERS)
#: header names understood, lower-cased -> field
HEADERS = {
    "subject": "subject", "source_entity": "subject", "tf": "subject", "regulator": "subject", "head": "subject",
    "from": "subject", "gene1": "subject", "subject_id": "subject",
    "predicate": "predicate", "relation": "predicate", "regulation": "predicate", "mode": "predicate",
    "type": "predicate", "edge_type": "predicate", "interaction": "predicate",
    "object": "object", "target": "object", "tail": "object", "to": "object", "gene2": "object",
    "object_id": "object",
    "source": "source", "sources": "source", "reference": "source", "references": "source",
    "citation": "source", "citations": "source", "pmid": "source", "pmids": "source", "evidence": "source",
    "confidence": "confidence", "score": "confidence",
    "taxon": "taxon", "species": "taxon", "organism": "taxon",
    "cell_type": "cell_type", "celltype": "cell_type", "context": "context",
}
SEPARATORS = re.compile(r"\s*[;|]\s*")
SHOW_PROBLEMS = 20


@dataclass(frozen=True)
class ImportOptions:
    """How to read a file of facts (``fact import`` options)."""

    format: str | None = None  # tsv, csv or jsonl; None: from the file name, else tsv
    columns: Sequence[str] | None = None  # a file without a header: its columns, in order
    predicates: Mapping[str, str] = field(default_factory=dict)  # value in the file -> predicate
    source_prefix: str | None = None  # "PMID": a bare number in a source column is PMID:<number>
    dataset: str | None = None  # dataset:NAME@VERSION: every row's evidence is that dataset's
    confidence: float | None = None  # rows without one (else config facts.default_confidence)
    qualifiers: Mapping[str, str | None] = field(default_factory=dict)  # for rows without their own
    kinds: Mapping[str, str | None] = field(default_factory=dict)  # subject/object -> entity kind
    reopen: bool = False  # rows that restate a retracted fact make it current again
    skip_closed: bool = False  # rows that restate a retracted or superseded fact are left out


@dataclass(frozen=True)
class Row:
    line: int
    subject: str
    predicate: str
    object: str
    sources: tuple[Source, ...]
    confidence: float
    qualifiers: Mapping[str, str]


@dataclass(frozen=True)
class ImportReport:
    path: str
    rows: int
    facts: int = 0  # distinct statements the file holds
    created: int = 0
    merged: int = 0
    reopened: int = 0
    entities: int = 0  # entity notes created
    unchanged: int = 0  # of the merged, those whose note held this evidence already (not rewritten)
    skipped: int = 0  # statements the vault holds retracted or superseded, left so (skip_closed)
    new_predicates: dict[str, int] = field(default_factory=dict)  # predicate -> rows: none the vault knew
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # (new fact id, the fact it contradicts)
    problems: list[BiocortexError] = field(default_factory=list)  # nothing was written when any
    seconds: float = 0.0
    commit: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "rows": self.rows, "facts": self.facts, "created": self.created,
                "merged": self.merged, "unchanged": self.unchanged, "skipped": self.skipped,
                "reopened": self.reopened, "new_predicates": self.new_predicates,
                "entities": self.entities,
                "contradictions": len(self.conflicts), "seconds": round(self.seconds, 2), "commit": self.commit,
                "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in self.problems]}


# --- reading ------------------------------------------------------------------------------


def read_rows(text: str, rel: str, options: ImportOptions, *, headers: Mapping[str, str] = HEADERS,
              required: Sequence[str] = ("subject", "predicate", "object")
              ) -> Iterator[tuple[int, dict[str, Any] | DataError]]:
    """(line, {field: value}) of every data row, or (line, DataError) for a JSON line that cannot
    be read (a problem like any bad row's: the other lines are still read and checked); DataError
    for a malformed file. ``headers`` maps the header names understood (lower case) to fields."""
    fmt = (options.format or _format_of(rel)).casefold()
    if fmt == "jsonl":
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError as exc:
                yield number, DataError(f"not JSON: {exc}", path=rel, line=number,
                                        hint='one JSON object a line: {"subject": …, "predicate": …, "object": …}')
                continue
            if not isinstance(data, dict):
                yield number, DataError("each line must be a JSON object", path=rel, line=number,
                                        hint='one JSON object a line: {"subject": …, "predicate": …, "object": …}')
                continue
            yield number, {_field(k, headers) or k: v for k, v in data.items()}
        return
    if fmt not in ("tsv", "csv"):
        raise UsageError(f"unknown format {fmt!r}", hint="tsv, csv or jsonl")
    reader = csv.reader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ",")
    columns: list[str | None]
    if options.columns:
        columns = [None if c in ("-", "") else _known(c, headers) for c in options.columns]
        first = None
    else:
        try:
            header = next(reader)
        except StopIteration:
            return
        columns = [_field(h, headers) for h in header]
        names = [h.strip().casefold() for h in header]
        if "subject" in required and "subject" not in columns and names.count("source") == 1:
            columns[names.index("source")] = "subject"  # an edge list's source/target: the edge's ends
        missing = [f for f in required if f not in columns]
        if missing:
            raise DataError(f"the header names no {', '.join(missing)} column ({', '.join(header)})", path=rel,
                            line=1, hint=f"name the columns in a header ({', '.join(dict.fromkeys(headers.values()))})"
                                         ", or give --columns for a file without one")
        first = 1
    for row in reader:
        number = reader.line_num
        if number == first or not any(cell.strip() for cell in row):
            continue
        yield number, {c: cell for c, cell in zip(columns, row, strict=False) if c is not None}


def _format_of(rel: str) -> str:
    name = rel.casefold().removesuffix(".gz")
    return "csv" if name.endswith(".csv") else "jsonl" if name.endswith((".jsonl", ".ndjson")) else "tsv"


def _field(header: str, headers: Mapping[str, str] = HEADERS) -> str | None:
    return headers.get(header.strip().casefold().replace(" ", "_").replace("-", "_"))


def _known(column: str, headers: Mapping[str, str] = HEADERS) -> str:
    found = _field(column, headers)
    if found is None:
        raise UsageError(f"unknown column {column!r}",
                         hint=f"columns are {', '.join(dict.fromkeys(headers.values()))}, or - to skip one")
    return found


def check_rows(rows: Iterator[tuple[int, dict[str, Any] | DataError]], rel: str, options: ImportOptions, *,
               default_confidence: float, episode_exists: Callable[[str], bool],
               progress: Progress | None = None) -> tuple[list[Row], list[BiocortexError], int]:
    """Every row validated: (rows, problems, rows read)."""
    predicates = {k.casefold(): normalize_predicate(v) for k, v in options.predicates.items()}
    base_quals = normalize_qualifiers(options.qualifiers)
    dataset = parse_source(options.dataset) if options.dataset else None
    if dataset is not None and dataset.kind != "dataset":
        raise UsageError(f"--dataset {options.dataset!r} is not dataset:NAME[@VERSION]")
    conf_default = check_confidence(options.confidence) if options.confidence is not None else default_confidence
    prefix = options.source_prefix.rstrip(":") + ":" if options.source_prefix else None
    out: list[Row] = []
    problems: list[BiocortexError] = []
    seen = 0
    for number, values in rows:
        seen += 1
        try:
            if isinstance(values, DataError):
                raise values
            subject = clean_text(_text(values.get("subject")), "subject")
            obj = clean_text(_text(values.get("object")), "object")
            raw_pred = clean_text(_text(values.get("predicate")), "predicate")
            pred = predicates.get(raw_pred.casefold()) or normalize_predicate(raw_pred)
            conf = values.get("confidence")
            confidence = check_confidence(conf) if conf not in (None, "") else conf_default
            quals = {**base_quals, **normalize_qualifiers({k: _text(values.get(k)) or None for k in QUALIFIERS})}
            sources = [dataset] if dataset is not None else []
            for raw in _sources(values.get("source")):
                text = f"{prefix}{raw}" if prefix and raw.isdigit() else raw
                sources.append(parse_source(text, episode_exists=episode_exists))
            out.append(Row(number, subject, pred, obj, tuple(sources), confidence,
                           {k: quals[k] for k in QUALIFIERS if k in quals}))
        except BiocortexError as exc:
            problems.append(DataError(exc.message, path=rel, line=number, hint=exc.hint))
        if progress is not None and seen % 1000 == 0:
            progress("check", seen, 0)
    return out, problems, seen


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise UsageError(f"expected text, not {value!r}")
    return str(value)


def _sources(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [_text(v).strip() for v in value if _text(v).strip()]
    return [s for s in SEPARATORS.split(_text(value).strip()) if s]


# --- writing ------------------------------------------------------------------------------


def import_facts(vault: Vault, path: Path, *, author: Author, options: ImportOptions | None = None,
                 rel: str | None = None, text: str | None = None, progress: Progress | None = None) -> ImportReport:
    """Import a file of facts in one commit, or nothing when any row is bad (``problems``)."""
    from biocortex_cli.facts.index import open_facts
    from biocortex_cli.store.episodes import existing_ids

    opts = options or ImportOptions()
    shown = rel or str(path)
    started = time.perf_counter()
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise DataError(f"cannot read the file: {exc}", path=shown) from None
    episodes = set(existing_ids(vault))
    rows, problems, seen = check_rows(read_rows(text, shown, opts), shown, opts,
                                      default_confidence=vault.config.facts.default_confidence,
                                      episode_exists=episodes.__contains__, progress=progress)
    if problems or not rows:
        if not rows and not problems:
            problems = [DataError("no facts in the file", path=shown, hint="one fact a row, after a header")]
        return ImportReport(shown, seen, problems=problems, seconds=time.perf_counter() - started)
    rules = FactRules.from_config(vault)
    author_text = str(author)
    now = iso_utc(dt.datetime.now(dt.timezone.utc))
    conn, source, _problems = open_facts(vault)
    try:
        aliases, alias_rels = _alias_map(conn)
        resolved: dict[str, str] = {}
        genes = _gene_names(rows, aliases)

        def resolve(name: str, quals: Mapping[str, str]) -> str:
            if name not in resolved:
                from biocortex_cli.bio.entities import normalize_entity

                normal = normalize_entity(name)
                resolved[name] = aliases.get(name.casefold()) or aliases.get(normal.casefold()) or normal
            found = resolved[name]
            if quals.get("taxon", "NCBITaxon:9606") == "NCBITaxon:9606" and name.casefold() in genes:
                return genes[name.casefold()]  # p53 → TP53: one note a gene (facts/notes.py hgnc_entity)
            if quals.get("taxon") and found != name and name_key(found) == name_key(name):
                return name  # a qualified fact keeps its own case (facts/notes.py resolve_name)
            return found

        # one record per statement: rows restating one merge their evidence
        records: dict[str, dict[str, Any]] = {}
        for row in rows:
            s, o = resolve(row.subject, row.qualifiers), resolve(row.object, row.qualifiers)
            ident = fact_id(s, row.predicate, o, row.qualifiers)
            rel_path = fact_rel_of(s, ident)
            items = evidence_from(row.sources, row.confidence, author_text, now)
            record = records.get(rel_path)
            if record is None:
                record = {"id": ident, "type": "fact", "created": now,
                          "author": author_text, "subject": s, "predicate": row.predicate, "object": o}
                if row.qualifiers:
                    record["qualifiers"] = dict(row.qualifiers)
                record.update({"confidence": 0.0, "source": [], "status": "current", "evidence": []})
                records[rel_path] = record
            record.update(evidence_updates(merge_evidence(record["evidence"], items)))
        known = {str(p) for (p,) in conn.execute("SELECT DISTINCT predicate FROM facts")}
        new_predicates = _new_predicates(rows, rules, known)
        names = {n for r in records.values() for n in (r["subject"], r["object"])}
        subjects = {name_key(r["subject"]) for r in records.values()}
        nearby = source.touching(subjects) if len(subjects) < 50_000 else []
    finally:
        conn.close()
    kinds = {"subject": opts.kinds.get("subject"), "object": opts.kinds.get("object")}
    created = merged = reopened = entities = unchanged = skipped = 0
    episode_exists = episodes.__contains__
    total = len(records)
    message = f"fact: import {total} facts — {Path(shown).name} ({seen} rows)"
    with vault.transaction(message, author) as txn:
        links: dict[str, str] = {}
        notes_made: set[str] = set()
        ends: dict[str, set[str]] = {}
        taxa: dict[str, set[str | None]] = {}
        for record in records.values():
            for end in ("subject", "object"):
                ends.setdefault(record[end], set()).add(end)
                taxa.setdefault(record[end], set()).add((record.get("qualifiers") or {}).get("taxon"))
        planned: list[tuple[str, str, Any]] = []  # (rel, text, parsed note) of the new notes
        listed = _files_in(vault.root, {"entities"})  # one listing, not a stat or four a name
        listed_names = {rel.rpartition("/")[2] for rel in listed}
        for name in sorted(names):
            note = entity_notes.note_rel(vault.root, name, listed_names)
            if name.casefold() in aliases:  # its note, wherever it is (one renamed in Obsidian too)
                note = alias_rels.get(name.casefold(), note) if note not in listed else note
            links[name] = note
            if name.casefold() in aliases or note.casefold() in notes_made or note in listed:
                continue
            kind = next((kinds[end] for end in ("subject", "object") if kinds[end] and end in ends[name]), None)
            taxon = next(iter(taxa[name])) if len(taxa[name]) == 1 else None
            meta, body = entity_notes.entity_note(name, now, author_text, kind=kind, taxon=taxon)
            planned.append((note, *rendered_note(note, dict(meta), body)))
            notes_made.add(note.casefold())
            entities += 1
        existing: list[tuple[str, dict[str, Any]]] = []
        held = _files_in(vault.root, {rel.rpartition("/")[0] for rel in records})
        for rel_path, record in records.items():
            if rel_path in held:
                existing.append((rel_path, record))
            else:
                body = fact_body(vault, record, links=links, episode_exists=episode_exists)
                planned.append((rel_path, *rendered_note(rel_path, record, body)))
                created += 1
        txn.write_many(planned, progress=None if progress is None else lambda done: progress("write", done, total))
        edit = _fact_editor(vault, episode_exists)
        closed: list[DataError] = []
        for rel_path, record in existing:
            try:
                outcome = _merge_into(txn, rel_path, record, opts, now, author_text, edit)
            except _Closed as exc:  # every one named, then nothing written (or left out: skip_closed)
                closed.append(exc.error)
                continue
            reopened += outcome == "reopened"
            unchanged += outcome == "unchanged"
            merged += 1
        if closed and not opts.skip_closed:
            first = closed[0]
            raise DataError(f"{first.message}; nothing was imported" if len(closed) == 1 else
                            f"{len(closed)} rows restate retracted or superseded facts ({first.path}: "
                            f"{first.message}, …); nothing was imported", path=first.path, line=first.line,
                            hint="add --skip-retracted to leave them as they are, --reopen to make them "
                                 "current again, or take the rows out",
                            problems=[{"path": e.path, "line": e.line, "message": e.message, "hint": None}
                                      for e in closed])
        skipped = len(closed)
        if progress is not None:
            progress("commit", total, total)
        said = f"{created} new, {merged} merged" + (f", {unchanged} unchanged" if unchanged else "") + \
            (f", {skipped} retracted left out" if skipped else "")
        txn.message = message.replace(f"({seen} rows)", f"({seen} rows: {said})") + \
            "\n\n" + "\n".join(f"- {r['id']}" for r in list(records.values())[:200]) + \
            (f"\n- … and {total - 200} more" if total > 200 else "")
    # the fact tables take the new notes from memory: the next command reads none of them back
    open_facts(vault, written=txn.rendered)[0].close()
    conflicts = _conflicts(records, nearby, rules)
    return ImportReport(shown, seen, facts=total, created=created, merged=merged, reopened=reopened,
                        entities=entities, unchanged=unchanged, skipped=skipped,
                        new_predicates=new_predicates, conflicts=conflicts,
                        seconds=time.perf_counter() - started, commit=vault.head())


def _new_predicates(rows: Sequence[Row], rules: FactRules, known: set[str]) -> dict[str, int]:
    """Predicate -> rows, for the file's predicates that neither the vault's facts nor its rules
    (facts.broader, opposites, single_valued, transitive) name: TRRUST imported without
    --predicate-map made 9,396 facts `activation`, `repression` and `unknown`, said nowhere."""
    named = known | set(rules.single_valued) | set(rules.transitive) | set(rules.opposites) | \
        set(rules.broader) | set(rules.broader.values())
    counts: dict[str, int] = {}
    for row in rows:
        if row.predicate not in named:
            counts[row.predicate] = counts.get(row.predicate, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _gene_names(rows: Sequence[Row], aliases: Mapping[str, str]) -> dict[str, str]:
    """name key -> the entity a human or unqualified fact about that name belongs to, for the
    file's names that are HGNC names of one gene and no entity's name or alias: the vault's entity
    carrying the gene's identifier (``p53`` → ``TP53``), else the file's own name for the gene —
    its approved symbol when the file has it — so one gene never gets two notes (``entity merge``
    undoes the split this made before)."""
    from biocortex_cli.facts.notes import hgnc_gene

    by_gene: dict[str, list[str]] = {}
    symbols: dict[str, str] = {}
    for name in dict.fromkeys(n for row in rows if row.qualifiers.get("taxon", "NCBITaxon:9606") == "NCBITaxon:9606"
                              for n in (row.subject, row.object)):
        if name.casefold() in aliases:
            continue
        gene = hgnc_gene(name, None)
        if gene is not None:
            by_gene.setdefault(gene.hgnc, []).append(name)
            symbols[gene.hgnc] = gene.symbol
    out: dict[str, str] = {}
    for hgnc, names in by_gene.items():
        held = aliases.get(hgnc.casefold())
        if held is None:
            if len({name_key(n) for n in names}) == 1:
                continue  # one spelling of the gene in the file: it stays as written
            held = next((n for n in names if name_key(n) == name_key(symbols[hgnc])), names[0])
        out.update((n.casefold(), held) for n in names if n != held)
    return out


def _files_in(root: Path, folders: set[str]) -> set[str]:
    """The paths (relative to ``root``) of what ``folders`` hold: one listing a folder, not a
    stat a fact."""
    import os

    held: set[str] = set()
    for folder in folders:
        try:
            with os.scandir(root / folder) as entries:
                held.update(f"{folder}/{e.name}" for e in entries)
        except OSError:
            continue
    return held


def _alias_map(conn: Any) -> tuple[dict[str, str], dict[str, str]]:
    """alias key -> entity name, and -> the entity's note, for every entity note (its own name
    wins, as in resolve)."""
    out: dict[str, str] = {}
    rels: dict[str, str] = {}
    for key, name, rel in conn.execute("SELECT alias_key, name, rel FROM entity_aliases ORDER BY alias_key, "
                                       "lower(name) != alias_key, rel"):
        out.setdefault(str(key), str(name))
        rels.setdefault(str(key), str(rel))
    return out, rels


def _fact_editor(vault: Vault, episode_exists: Callable[[str], bool]) -> Callable[[Note, str, dict[str, Any]],
                                                                                tuple[str, Note | None]]:
    """``edit(note, text, updates)``: what ``fact add`` writes when it merges evidence (facts/notes.py
    ``_rewrite``: a round-trip edit of the frontmatter, the body rendered again), without the
    round-trip loader (~20 ms a note: most of the 85 s of CPU TRRUST's 9,384 notes took to merge)
    for a note exactly as biocortex renders it (store/notes.py ``checked_editor``)."""
    from biocortex_cli.store.notes import checked_editor

    def body(note: Note, updates: dict[str, Any]) -> str:
        return fact_body(vault, {**note.meta, **updates}, episode_exists=episode_exists)

    def quick(note: Note, text: str, updates: dict[str, Any]) -> tuple[str, Note] | None:
        if rendered_note(note.rel, dict(note.meta), note.body)[0] != text:
            return None  # a comment or hand formatting the round trip keeps
        return rendered_note(note.rel, {**note.meta, **updates}, body(note, updates))

    def slow(note: Note, text: str, updates: dict[str, Any]) -> str:
        return edit_frontmatter(text, updates, note.rel).split("\n---", 1)[0] + "\n---\n" + body(note, updates)

    return checked_editor(quick, slow)


class _Closed(Exception):
    """A row restates a retracted or superseded fact, and the import was not told to reopen it."""

    def __init__(self, error: DataError) -> None:
        super().__init__(error.message)
        self.error = error


def _merge_into(txn: Any, rel: str, record: dict[str, Any], opts: ImportOptions, now: str, author: str,
                edit: Callable[[Note, str, dict[str, Any]], tuple[str, Note | None]]) -> str:
    """Merge a statement the vault holds already (a round-trip edit): ``merged``, ``reopened``, or
    ``unchanged`` when the note holds this evidence already (nothing written); :class:`_Closed`
    for a retracted or superseded one without ``opts.reopen``."""
    text = read_note_text(txn.vault.root / rel, rel)
    note = parse_note(text, rel)
    existing = fact_from_note(note)
    if (name_key(existing.subject), existing.predicate, name_key(existing.object), existing.qualifiers) != (
            name_key(record["subject"]), record["predicate"], name_key(record["object"]),
            record.get("qualifiers") or {}):
        raise DataError(f"{rel} holds another triple ({existing.sentence()}); nothing was imported",
                        path=rel, line=note.line_of("subject"),
                        hint="the file was edited by hand: restore its subject/predicate/object")
    updates: dict[str, Any] = {}
    again = 0
    if existing.status != "current":
        if not opts.reopen:
            raise _Closed(DataError(_closed_message(existing), path=rel, line=note.line_of("status")))
        updates.update(status="current", reopened={"by": author, "at": now})
        again = 1
    old = note.meta.get("evidence") or []
    evidence = merge_evidence(old, record["evidence"])
    if not again and restates(old, evidence):
        return "unchanged"  # every row restates what the note holds: it stays as it is (no `updated`)
    updates.update(evidence_updates(evidence))
    updates["updated"] = now
    edited, parsed = edit(note, text, updates)
    txn.write(rel, edited, parsed=parsed, batch=True)  # one sync before the commit, not one a note
    return "reopened" if again else "merged"


def _conflicts(records: Mapping[str, dict[str, Any]], nearby: list[Fact], rules: FactRules) -> list[tuple[str, str]]:
    """Pairs of current facts that contradict each other, among the file's and the vault's facts of
    the same subjects: grouped by statement ends first, so a hub of thousands stays linear."""
    groups: dict[tuple[Any, ...], dict[str, Fact]] = {}
    for fact in [*(Fact(r, p) for p, r in records.items()), *nearby]:
        quals = tuple(sorted(fact.qualifiers.items()))
        s = name_key(fact.subject)
        groups.setdefault(("ends", s, name_key(fact.object), quals), {})[fact.id] = fact
        if fact.predicate in rules.single_valued:
            groups.setdefault(("one", s, fact.predicate, quals), {})[fact.id] = fact
    out: set[tuple[str, str]] = set()
    for group in groups.values():
        members = sorted(group.values(), key=lambda f: f.id)
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if rules.conflicts(a, b):
                    out.add((a.id, b.id))
    return sorted(out)
