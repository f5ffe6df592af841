"""Entity notes (``entities/<Name>.md``): one per biological entity, shared by episodes and facts.

Names such as ``GO:0008150`` or a DOI contain characters Obsidian does not allow in file names,
so the file name is a safe form of the name and links are written ``[[GO_0008150|GO:0008150]]``;
the real name is kept in ``name`` and in Obsidian's ``aliases``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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


def wikilink(name: str) -> str:
    stem = file_stem(name)
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


def missing_entity_notes(existing: set[str], names: Iterable[str]) -> dict[str, str]:
    """Map rel path -> name for entity notes not yet in ``existing`` (rel paths)."""
    out: dict[str, str] = {}
    for name in names:
        rel = entity_rel(name)
        if rel not in existing and rel not in out:
            out[rel] = name
    return out
