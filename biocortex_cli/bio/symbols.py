"""What a name's characters alone say, before any pattern of bio/entities.py is compiled: which
identifier kinds a run of text could hold (:func:`id_kinds`), and whether
``entities.normalize_entity`` keeps a name as written (:func:`as_written`).

Apart from bio/entities.py (which imports these) so that resolving a plain symbol — what every
``fact`` command and recall's fact part do for ``TP53`` — imports neither its patterns (~1 M
instructions each to compile) nor the module (~2 M).
"""

from __future__ import annotations

from itertools import pairwise

#: every identifier kind bio/entities.py has a pattern for (tests/test_startup.py checks the two agree)
ID_KINDS = ("doi", "pmid", "ontology", "ensembl", "refseq", "dbsnp", "accession", "uniprot", "variant", "histone")
AA3 = ("Ala|Arg|Asn|Asp|Cys|Gln|Glu|Gly|His|Ile|Leu|Lys|Met|Phe|Pro|Ser|Thr|Trp|Tyr|Val|Sec|Pyl"
       "|Ter")
_AA3_NAMES = tuple(AA3.split("|"))
_ACCESSION_PIECES = ("gse", "gsm", "gpl", "gds", "sr", "er", "dr", "e-", "chembl", "prj", "sam", "phs", "cv", "r-")
#: the kinds whose canonical spelling can differ from the text (the others are kept as written)
_RESPELLED = frozenset(("doi", "pmid", "ontology", "ensembl", "dbsnp", "accession"))


def id_kinds(run: str) -> set[str]:
    """The identifier kinds whose pattern could match inside ``run``: each needs a piece of
    text (``10.`` for a DOI, ``_`` or ``:`` for an ontology term, an upper-case letter before a
    digit for a UniProt accession, …) that a run without it cannot hold, so leaving its pattern
    out changes no match. Every kind for a run that is not ASCII (case-insensitive matching
    knows more letters than ``lower``)."""
    if not run.isascii():
        return set(ID_KINDS)
    low = run.lower()
    upper_digit = any(a.isupper() and b.isdigit() for a, b in pairwise(run))
    checks = {
        "doi": "10." in run,
        "pmid": "pmid" in low,
        "ontology": ":" in run or "_" in run,
        "ensembl": "ens" in low,
        "refseq": "_" in run,
        "dbsnp": "rs" in low,
        "accession": any(piece in low for piece in _ACCESSION_PIECES),
        "uniprot": upper_digit,
        "variant": upper_digit or "." in run or any(name in run for name in _AA3_NAMES),
        "histone": "H2" in run or "H3" in run or "H4" in run,
    }
    return {kind for kind, possible in checks.items() if possible}


def as_written(name: str) -> bool:
    """Whether ``entities.normalize_entity(name)`` is ``name`` itself (``name`` stripped), known
    without a pattern: one ASCII word (no whitespace, so no variant after its gene, and the word
    is the only run an identifier could be in) that can hold no identifier spelled otherwise.
    ``TP53``, ``MAP100``, ``p53`` are; ``hgnc:11998``, ``ENSG…``, ``KRAS G12C`` are asked of the
    patterns."""
    return name.isascii() and not any(c.isspace() for c in name) and id_kinds(name).isdisjoint(_RESPELLED)
