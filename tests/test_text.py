"""The recall tokeniser, table-tested (docs/recall.md describes the rules)."""

from __future__ import annotations

import pytest

from biocortex_cli.bio.text import STOP_WORDS, stem, tokenize

CASES = [
    ("Remove doublets from 10x Multiome data", ["remov", "doublet", "10x", "multiom", "data"]),
    ("What went wrong last time?", []),
    ("TP53, BRCA1; and HLA-DRB1!", ["tp53", "brca1", "hla-drb1"]),
    ("GO:0008150 and ENSG00000141510.12", ["go:0008150", "ensg00000141510"]),
    ("rs12345 near GSE123456", ["rs12345", "near", "gse123456"]),
    ("BRAF V600E (p.Val600Glu)", ["braf", "v600e", "p.val600glu"]),
    ("c.1799T>A in NM_004333.4", ["c.1799t>a", "nm_004333.4"]),
    ("Do NOT regress out cell-cycle genes", ["not", "regress", "cell", "cycl", "gene"]),
    ("scRNA-seq QC: 20% mito", ["scrna", "seq", "qc", "20", "mito"]),
    ("ｓｃＲＮＡ full-width", ["scrna", "full", "width"]),
    ("Ünïcödé naïve café", ["ünïcödé", "naïv", "café"]),
    ("", []),
    ("!!! ??? ...", []),
    ("kras nras mutant lines", ["kras", "nras", "mutant", "line"]),
    ("the E-MTAB-1234 libraries", ["e-mtab-1234", "librari"]),
]


@pytest.mark.parametrize(("text", "tokens"), CASES)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(("word", "stemmed"), [
    ("removed", "remov"), ("remove", "remov"), ("removing", "remov"), ("doublets", "doublet"),
    ("libraries", "librari"), ("library", "librari"), ("mapped", "map"), ("mapping", "map"),
    ("analysis", "analysi"), ("kras", "kras"), ("genes", "gene"), ("used", "used"),
    ("clustering", "cluster"), ("clusters", "cluster"), ("tp53", "tp53"), ("removal", "remov"),
    ("cardiotoxic", "cardiotox"), ("cardiotoxicity", "cardiotox"),
    # lower-case HGNC symbols the stemmer would change stay whole (bio.text.KEPT)
    ("cenpe", "cenpe"), ("eomes", "eomes"), ("marcks", "marcks"),
])
def test_stem(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


@pytest.mark.parametrize("words", [
    "resistant resistance resist resistances",  # issue 13: "resistant to G12C inhibitors"
    "filter filters filtering filtered",
    "normalize normalized normalization normalizing",
    "remove removed removing removal",
    "align aligned alignment alignments",
])
def test_inflections_meet(words: str) -> None:
    assert len(set(tokenize(words))) == 1, tokenize(words)


def test_british_and_american_spellings_stay_apart_for_the_vocabulary_to_join() -> None:
    # Snowball keeps -ise and -ize apart; the shipped lab list joins them (tests/test_vocabulary.py)
    assert tokenize("normalise normalisation") == ["normalis", "normalis"]
    assert tokenize("normalize") == ["normal"]


def test_a_lower_case_gene_symbol_meets_its_entity_token() -> None:
    assert tokenize("CENPE knockdown")[0] == tokenize("cenpe knockdown")[0] == "cenpe"


def test_same_words_meet_in_query_and_note() -> None:
    assert set(tokenize("we removed the doublets")) == set(tokenize("Remove doublet"))


def test_stop_words_are_lower_case_words() -> None:
    assert all(w.isalpha() and w == w.lower() for w in STOP_WORDS)
    assert "not" not in STOP_WORDS and "no" not in STOP_WORDS
