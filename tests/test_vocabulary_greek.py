"""Gene names written with a Greek letter (HIF-1α, IL-1 beta, NF-κB): the build's other spellings of
HGNC's Greek-letter symbols (scripts/build_vocabulary.py ``greek_spellings``, ``hgnc_greek``) on a
small HGNC written here, and the shipped file's expansions of the usual spellings. No mocks."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
import test_vocabulary_ontologies as ontologies

from biocortex_cli.bio.text import tokenize
from biocortex_cli.bio.vocabulary import SOURCE_WEIGHTS, Local, expand, genes

builder = ontologies.builder  # the fixture: scripts/build_vocabulary.py as a module


def test_the_spellings_of_a_greek_letter_name(builder: ModuleType) -> None:
    hif = set(builder.greek_spellings("HIF-1alpha"))
    assert {"HIF-1 alpha", "HIF-1α", "HIF-1-alpha", "HIF1alpha", "HIF1-alpha", "HIF1 alpha", "HIF1α",
            "HIF1-α", "HIF-1 α"} <= hif
    assert "HIF-1alpha" not in hif  # the name as HGNC writes it is its own member already
    nf = set(builder.greek_spellings("NF-kappaB"))
    assert {"NF-kappa B", "NF-κB", "NFκB", "NFkappaB", "NF kappa B", "NF-κ B"} <= nf
    il = set(builder.greek_spellings("IL1-BETA"))  # the letter in capitals, the digits after the hyphen
    assert {"IL-1 beta", "IL-1β", "IL1β", "IL1beta", "IL-1beta", "IL1 beta"} <= il
    assert set(builder.greek_spellings("TGFbeta")) == {"TGFβ", "TGF-beta", "TGF-β", "TGF beta", "TGF β"}
    assert "HNF1 alpha" in builder.greek_spellings("HNF1α")  # a Greek character becomes the word too


@pytest.mark.parametrize("raw", [
    "betaine", "FLAMBDA1", "ACCBETA", "Alphabet",  # a letter's word inside another word: no letter
    "PI3K", "RhoGAP", "MARCH-XI", "tau",  # the letters of two or three are not read
    "alpha2delta-1", "IL1(EPSILON)", "MENepsilon/beta",  # two letters, or punctuation next to one
])
def test_no_spellings_where_no_greek_letter_is_a_part_of_the_name(builder: ModuleType, raw: str) -> None:
    assert builder.greek_spellings(raw) == []


# A small HGNC: ZORF1A is written ZORF-1alpha; ZSET's alias ZORF-1 is the prefix alone (SETD2's HIF-1);
# BLAB1 and BLAB2 write the same kappa name two ways; WEEB's Greek spelling is an English word.
HGNC = """HGNC ID\tApproved symbol\tStatus\tAlias symbols\tPrevious symbols\tLocus type
HGNC:1\tZORF1A\tApproved\tZORF-1alpha\t\tgene with protein product
HGNC:2\tZSET\tApproved\tZORF-1\t\tgene with protein product
HGNC:3\tBLAB1\tApproved\tBLAB-kappaB\t\tgene with protein product
HGNC:4\tBLAB2\tApproved\tBLABkappa B\t\tgene with protein product
HGNC:5\tWEEB\tApproved\talpha-BET\t\tgene with protein product
HGNC:6\tGLOR\tApproved\tGLOR-gamma\t\tgene with protein product
"""


def compile_hgnc(builder: ModuleType, tmp_path: Path, taken: set[str]) -> tuple[Local, object]:
    """The small HGNC through the builder's gene rules and Greek spellings into a file used as ``local``."""
    gene_list = builder.hgnc_genes(HGNC)
    withheld: dict[str, tuple[str, str]] = {}
    words = frozenset({"alphabet"})
    hgnc = builder.hgnc_groups(gene_list, set(), words, withheld)
    tally = builder.Tally()
    builder.hgnc_greek(hgnc, taken | set(withheld) | builder.hgnc_keys(gene_list), words, tally)
    path = tmp_path / "greek.sqlite"
    builder.write(path, hgnc, withheld, {})
    return Local(path), tally


def reached(text: str, local: Local) -> dict[str, set[str]]:
    """The genes (group labels) ``text`` expands to, with the spellings each is reached as."""
    out: dict[str, set[str]] = {}
    for e in expand(tokenize(text), local=local).expansions:
        if e.group in {f"HGNC:{i}" for i in range(1, 7)}:  # the small HGNC's (the shipped file's are others)
            out.setdefault(e.group, set()).add(e.raw)
    return out


def matched(text: str, local: Local) -> set[str]:
    """The question's terms that expanded."""
    return {e.term for e in expand(tokenize(text), local=local).expansions}


def test_a_greek_spelling_expands_to_its_gene_and_a_longer_key_wins(builder: ModuleType, tmp_path: Path) -> None:
    local, tally = compile_hgnc(builder, tmp_path, {" ".join(tokenize("GLOR γ"))})
    for spelling in ("ZORF-1 alpha", "ZORF-1α", "ZORF1alpha", "ZORF1-alpha", "ZORF1α", "ZORF-1 α"):
        found = reached(spelling, local)
        # the bigram "zorf-1 alpha" wins over ZSET's unigram "zorf-1"
        assert set(found) == {"HGNC:1"} and "ZORF1A" in found["HGNC:1"], spelling
        weights = {e.weight for e in expand(tokenize(spelling), local=local).expansions if e.group == "HGNC:1"}
        assert weights == {SOURCE_WEIGHTS["hgnc"]}, spelling  # the same gene: HGNC's weight, not one-way
    assert set(reached("ZORF-1", local)) == {"HGNC:2"}  # the prefix alone is still ZSET's
    # looked up only: the gene's own symbol never expands to its Greek spellings
    assert reached("ZORF1A", local) == {"HGNC:1": {"ZORF-1alpha"}}
    # a key another source holds stays theirs; the gene's other spellings are kept
    assert "glor γ" not in matched("GLOR γ", local) and "GLOR" in reached("GLORγ", local)["HGNC:6"]
    # a spelling that is another gene's alias is that gene's; a key both genes' spellings make is no one's
    assert set(reached("BLABkappa B", local)) == {"HGNC:4"}
    assert reached("BLAB-κB", local) == {} and reached("BLABκB", local) == {}
    # a spelling that is one English word is left out
    assert reached("alphaBET", local) == {} and "WEEB" in reached("α-BET", local)["HGNC:5"]
    counts = tally.counts  # type: ignore[attr-defined]
    assert counts["HGNC Greek", "written"] == 5 and counts["HGNC Greek", "word"] == 1
    assert counts["HGNC Greek", "ambiguous"] >= 2 and counts["HGNC Greek", "taken"] >= 2


@pytest.mark.parametrize(("spelling", "symbol"), [
    ("HIF-1 alpha", "HIF1A"), ("HIF-1α", "HIF1A"), ("HIF1alpha", "HIF1A"), ("HIF1-alpha", "HIF1A"),
    ("HIF1α", "HIF1A"), ("hif-1 alpha", "HIF1A"),
    ("IL-1 beta", "IL1B"), ("IL-1β", "IL1B"), ("IL1β", "IL1B"),
    ("NF-kappa B", "NFKB1"), ("NF-κB", "NFKB1"), ("NFκB", "NFKB1"),
    ("TNFα", "TNF"), ("TNF-α", "TNF"),
    ("PGC-1 alpha", "PPARGC1A"), ("PGC-1α", "PPARGC1A"),
    ("ERα", "ESR1"), ("TGFβ", "TGFB1"), ("PPARγ", "PPARG"), ("HNF-1β", "HNF1B"),
])
def test_the_shipped_file_expands_each_spelling_to_its_gene(spelling: str, symbol: str) -> None:
    found = expand(tokenize(spelling)).expansions
    raws = {e.raw for e in found}
    assert symbol in raws or symbol.lower() in tokenize(spelling), (spelling, raws)
    assert any(e.source == "hgnc" and e.weight == SOURCE_WEIGHTS["hgnc"] for e in found), spelling
    assert not {"SETD2", "HYPB", "KMT3A"} & raws, spelling  # HIF-1 alone is SETD2's alias


@pytest.mark.parametrize(("spelling", "symbol"), [
    ("IFN gamma", "IFNG"), ("IFN-γ", "IFNG"), ("IFNγ", "IFNG"), ("GSK-3β", "GSK3B"), ("GSK-3 beta", "GSK3B"),
    ("PI3Kγ", "PIK3CG"), ("p110 gamma", "PIK3CG"),
])
def test_the_lab_list_spells_the_genes_hgnc_gives_no_greek_letter(spelling: str, symbol: str) -> None:
    """IFNG, GSK3B and PIK3CG have no Greek-letter alias in HGNC, and HGNC's alias IFN is IFNA1's:
    the lab list sends their Greek spellings to the symbol (one-way), not to IFNA1."""
    found = expand(tokenize(spelling)).expansions
    assert [e.raw for e in found] == [symbol], spelling
    assert "ifna1" not in {e.synonym for e in found}


def test_a_gene_question_never_expands_to_its_greek_spellings() -> None:
    """Looked up only: a question with the symbol expands as before (HGNC's own spellings, such as
    PPARGC1A's ``PPARAGCIα``, stay members both ways)."""
    spellings = {"HIF1A": {"HIF-1 alpha", "HIF-1α", "HIF1α"}, "TNF": {"TNFα", "TNF-α", "TNF alpha"},
                 "IL1B": {"IL-1 beta", "IL-1β", "IL1β"}, "NFKB1": {"NF-kappa B", "NF-κB", "NFκB"},
                 "PPARGC1A": {"PGC-1 alpha", "PGC-1α", "PGC1α"}}
    for symbol, written in spellings.items():
        raws = {e.raw for e in expand(tokenize(symbol)).expansions}
        assert raws and not raws & written, symbol


def test_a_greek_spelling_names_its_gene_for_facts() -> None:
    assert [g.symbol for g in genes("HIF-1α")[0]] == ["HIF1A"]
    assert [g.symbol for g in genes("IL-1 beta")[0]] == ["IL1B"]
