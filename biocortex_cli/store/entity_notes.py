"""Entity notes (``entities/<Name>.md``): one per biological entity, shared by episodes and facts.

Names such as ``GO:0008150`` or a DOI contain characters Obsidian does not allow in file names,
so the file name is a safe form of the name and links are written ``[[GO_0008150|GO:0008150]]``;
the real name is kept in ``name`` and in Obsidian's ``aliases``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from biocortex_cli.store.notes import render_note

_UNSAFE_FILE = re.compile(r'[\\/:*?"<>|#^\[\]]')
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9._-]+")
#: file names are at most 255 bytes; the temp file of an atomic write adds 17 to stem + ".md"
MAX_STEM_BYTES = 235

KIND_LABELS = {
    "gene": "Gene symbol",
    "ensembl": "Ensembl identifier",
    "uniprot": "UniProt accession",
    "ontology": "Ontology term",
    "dbsnp": "dbSNP variant",
    "pmid": "PubMed article",
    "doi": "Publication (DOI)",
    "accession": "Data accession",
    "variant": "Sequence variant",
    "concept": "Concept",
}


def file_stem(name: str) -> str:
    stem = _UNSAFE_FILE.sub("_", name).strip().strip(".") or "_"
    stem = stem[:120]
    while len(stem.encode("utf-8", "surrogatepass")) > MAX_STEM_BYTES:  # "File name too long"
        stem = stem[:-1]
    return stem


def entity_id(name: str) -> str:
    """A valid record id for the entity; names that need changing get a hash, so two entities
    (``TP53`` and ``TP53!``) never share an id."""
    ident = _UNSAFE_ID.sub("-", name).strip("-.") or "entity"
    if not ident[0].isalnum():
        ident = "e" + ident
    if ident != name or len(ident) > 128:
        import hashlib

        ident = f"{ident[:120]}-{hashlib.sha1(name.encode('utf-8')).hexdigest()[:6]}"
    return ident


def entity_rel(name: str) -> str:
    return f"entities/{file_stem(name)}.md"


def note_rel(root: Path, name: str) -> str:
    """The entity note of ``name`` in the vault at ``root``: its own file, else an existing file
    whose name differs only in case, else the file to create (:func:`entity_rel`).

    Entity file names are unique ignoring case (docs/vault-format.md): ``TOX.md`` and ``Tox.md``
    are one file on macOS and Windows (and one link target in Obsidian everywhere), so a name
    whose case variant has a note already uses that note. The common variants (upper, lower,
    capitalised, title case) are probed with a stat each; ``check`` reports any other pair."""
    rel = entity_rel(name)
    if (root / rel).exists():
        return rel
    stem = file_stem(name)
    for variant in dict.fromkeys((stem.upper(), stem.lower(), stem.capitalize(), stem.title())):
        if variant != stem and (root / f"entities/{variant}.md").is_file():
            return f"entities/{variant}.md"
    return rel


def wikilink(name: str, rel: str | None = None) -> str:
    """``[[name]]``, or ``[[stem|name]]`` when the note's file (``rel``, else the name's own)
    is named otherwise."""
    stem = rel.removeprefix("entities/").removesuffix(".md") if rel else file_stem(name)
    return f"[[{name}]]" if stem == name else f"[[{stem}|{name}]]"


def entity_kind(name: str) -> str:
    from biocortex_cli.bio.entities import extract_entities

    found = extract_entities(name)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(name):
        return found[0].kind
    return "concept"


def render_entity_note(name: str, created: str, author: str) -> str:
    kind = entity_kind(name)
    meta = {"id": entity_id(name), "type": "entity", "created": created, "author": author,
            "name": name, "kind": kind, "aliases": [name]}
    body = (f"# {name}\n\n{KIND_LABELS.get(kind, 'Entity')}. The episodes and facts that "
            "mention it are listed under *Backlinks*.\n")
    return render_note(meta, body)


def entity_rels(root: Path, names: Iterable[str]) -> dict[str, str]:
    """name -> the rel path of its entity note (:func:`note_rel`), existing or to be written;
    names equal ignoring case share one note (the first spelling names a new one)."""
    out: dict[str, str] = {}
    by_fold: dict[str, str] = {}
    for name in names:
        if name not in out:
            rel = note_rel(root, name)
            out[name] = by_fold.setdefault(rel.casefold(), rel)
    return out


def missing_entity_notes(root: Path, rels: dict[str, str]) -> dict[str, str]:
    """Map rel path -> name for the notes of :func:`entity_rels` the vault lacks."""
    out: dict[str, str] = {}
    for name, rel in rels.items():
        if rel not in out and not (root / rel).exists():
            out[rel] = name
    return out
