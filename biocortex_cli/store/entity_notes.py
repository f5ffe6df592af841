"""Entity notes (``entities/<Name>.md``): one per biological entity, shared by episodes and facts.

Names such as ``GO:0008150`` or a DOI contain characters Obsidian does not allow in file names,
so the file name is a safe form of the name and links are written ``[[GO_0008150|GO:0008150]]``;
the real name is kept in ``name`` and in Obsidian's ``aliases``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping
from pathlib import Path

from biocortex_cli.store.notes import render_note

_UNSAFE_FILE = re.compile(r'[\\/:*?"<>|#^\[\]]')
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9._-]+")
#: file names are at most 255 bytes; the temp file of an atomic write adds 17 to stem + ".md"
MAX_STEM_BYTES = 235

KIND_LABELS = {
    "gene": "Gene",
    "protein": "Protein",
    "compound": "Compound",
    "cell_type": "Cell type",
    "anatomy": "Anatomical entity",
    "disease": "Disease",
    "taxon": "Taxon",
    "ensembl": "Ensembl identifier",
    "uniprot": "UniProt accession",
    "ontology": "Ontology term",
    "dbsnp": "dbSNP variant",
    "pmid": "PubMed article",
    "doi": "Publication (DOI)",
    "accession": "Data accession",
    "variant": "Sequence variant",
    "concept": "Concept",
    "unknown": "Entity",
}
#: the kind an identifier's prefix says (CURIE prefixes, case-insensitive)
PREFIX_KINDS = {
    "hgnc": "gene", "ncbigene": "gene", "entrez": "gene", "mgi": "gene", "rgd": "gene", "zfin": "gene",
    "flybase": "gene", "wormbase": "gene", "sgd": "gene", "ensembl": "gene",
    "uniprot": "protein", "uniprotkb": "protein", "pr": "protein",
    "chebi": "compound", "chembl": "compound", "chembl.compound": "compound", "pubchem.compound": "compound",
    "drugbank": "compound", "mesh": "concept",
    "cl": "cell_type", "cellosaurus": "cell_type", "uberon": "anatomy", "mondo": "disease", "doid": "disease",
    "efo": "disease", "hp": "phenotype", "go": "ontology", "so": "ontology", "ncbitaxon": "taxon",
    "pmid": "pmid", "doi": "doi", "dbsnp": "dbsnp",
}
#: kinds the extractor gives a whole name that are identifiers, not guesses from its shape
_IDENTIFIER_KINDS = ("ensembl", "uniprot", "dbsnp", "pmid", "doi", "compound", "accession")


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


def note_rel(root: Path, name: str, listed: Container[str] | None = None) -> str:
    """The entity note of ``name`` in the vault at ``root``: its own file, else an existing file
    whose name differs only in case, else the file to create (:func:`entity_rel`).

    Entity file names are unique ignoring case (docs/vault-format.md): ``TOX.md`` and ``Tox.md``
    are one file on macOS and Windows (and one link target in Obsidian everywhere), so a name
    whose case variant has a note already uses that note. The common variants (upper, lower,
    capitalised, title case) are probed with a stat each; ``check`` reports any other pair.
    ``listed``: the names in ``entities/`` (a bulk writer lists it once), probed instead."""
    stem = file_stem(name)
    rel = f"entities/{stem}.md"
    if (root / rel).exists() if listed is None else f"{stem}.md" in listed:
        return rel
    for variant in dict.fromkeys((stem.upper(), stem.lower(), stem.capitalize(), stem.title())):
        if variant != stem and (listed is None or f"{variant}.md" in listed) and \
                (root / f"entities/{variant}.md").is_file():
            return f"entities/{variant}.md"
    return rel


def wikilink(name: str, rel: str | None = None) -> str:
    """``[[name]]``, or ``[[stem|name]]`` when the note's file (``rel``, else the name's own)
    is named otherwise."""
    stem = rel.removeprefix("entities/").removesuffix(".md") if rel else file_stem(name)
    return f"[[{name}]]" if stem == name else f"[[{stem}|{name}]]"


def identifier_kind(identifier: str) -> str | None:
    """``HGNC:11998`` → gene, ``CL:0000084`` → cell_type; None for a prefix not listed."""
    prefix, colon, _local = identifier.partition(":")
    if not colon:
        return "gene" if identifier.upper().startswith(("ENSG", "ENSMUSG")) else None
    return PREFIX_KINDS.get(prefix.casefold())


def entity_identity(name: str, *, kind: str | None = None, identifiers: Iterable[str] = (),
                    taxon: str | None = None) -> tuple[str, list[str]]:
    """(kind, identifiers) of a new entity note: the kind given, else the one its identifiers
    say, else the one the name says when the name *is* an identifier (ENSG…, GO:…, rs…); a
    name that is an HGNC symbol or alias of exactly one gene (the shipped vocabulary; human or no
    taxon) gets that gene's id. Nothing is guessed from a name's shape: else ``unknown``."""
    ids = list(dict.fromkeys(i for i in identifiers if i))
    if not ids and taxon in (None, "NCBITaxon:9606"):
        from biocortex_cli.bio.vocabulary import genes

        try:
            found, _why = genes(name)
        except (OSError, RuntimeError):  # a broken install: no identifier, nothing else lost
            found = ()
        if len(found) == 1:
            ids.append(found[0].hgnc)
    if kind:
        return kind, ids
    for ident in [*ids, name]:
        found_kind = identifier_kind(ident) if ":" in ident else None
        if found_kind:
            return found_kind, ids
    from biocortex_cli.bio.entities import extract_entities

    whole = [e for e in extract_entities(name) if e.start == 0 and e.end == len(name)]
    if len(whole) == 1 and (whole[0].kind in _IDENTIFIER_KINDS or (whole[0].kind == "variant" and " " in name)):
        return whole[0].kind, ids
    return "unknown", ids


def entity_kind(name: str) -> str:
    return entity_identity(name)[0]


def render_entity_note(name: str, created: str, author: str, *, kind: str | None = None,
                       identifiers: Iterable[str] = (), taxon: str | None = None) -> str:
    meta, body = entity_note(name, created, author, kind=kind, identifiers=identifiers, taxon=taxon)
    return render_note(meta, body)


def entity_note(name: str, created: str, author: str, *, kind: str | None = None,
                identifiers: Iterable[str] = (), taxon: str | None = None) -> tuple[dict[str, object], str]:
    """(frontmatter, body) of a new entity note."""
    found_kind, ids = entity_identity(name, kind=kind, identifiers=identifiers, taxon=taxon)
    meta: dict[str, object] = {"id": entity_id(name), "type": "entity", "created": created, "author": author,
                               "name": name, "kind": found_kind, "aliases": [name]}
    if ids:
        meta["identifiers"] = ids
    if taxon:
        meta["taxon"] = taxon
    body = (f"# {name}\n\n{KIND_LABELS.get(found_kind, 'Entity')}. The episodes and facts that "
            "mention it are listed under *Backlinks*.\n")
    return meta, body


def entity_rels(root: Path, names: Iterable[str],
                known: Callable[[list[str]], Mapping[str, str]] | None = None) -> dict[str, str]:
    """name -> the rel path of its entity note (:func:`note_rel`), existing or to be written;
    names equal ignoring case share one note (the first spelling names a new one). ``known``
    gives, for the names without a file of their own, the note of the entity each is another name
    of (an alias, ``p53`` → ``entities/TP53.md``; facts/notes.py ``entity_note_finder``): that note,
    not a second one."""
    out: dict[str, str] = {}
    by_fold: dict[str, str] = {}
    names = list(dict.fromkeys(names))
    rels = {name: note_rel(root, name) for name in names}
    missing = [n for n in names if not (root / rels[n]).exists()]
    others = known(missing) if known is not None and missing else {}
    for name in names:
        if name not in out:
            rel = others.get(name) or rels[name]
            out[name] = by_fold.setdefault(rel.casefold(), rel)
    return out


def missing_entity_notes(root: Path, rels: dict[str, str]) -> dict[str, str]:
    """Map rel path -> name for the notes of :func:`entity_rels` the vault lacks."""
    out: dict[str, str] = {}
    for name, rel in rels.items():
        if rel not in out and not (root / rel).exists():
            out[rel] = name
    return out
