"""The entity extractor, table-tested: what must be found (and how it is normalised), and what
must never be mistaken for a biological entity."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biocortex_cli.bio.entities import entity_names, extract_entities, is_identifier, normalize_entity

# (text, expected name, expected kind)
POSITIVE = [
    ("TP53 was mutated", "TP53", "gene"),
    ("loss of BRCA1 function", "BRCA1", "gene"),
    ("BRCA2-deficient cells", "BRCA2", "gene"),
    ("CD8A+ T cells", "CD8A", "gene"),
    ("HLA-DRB1 alleles", "HLA-DRB1", "gene"),
    ("typed HLA-A and HLA-B", "HLA-A", "gene"),
    ("IL-6 signalling", "IL-6", "gene"),
    ("IL2RA expression", "IL2RA", "gene"),
    ("PD-L1 staining", "PD-L1", "gene"),
    ("anti-PD1 therapy", "PD1", "gene"),
    ("NKX2-1 positive", "NKX2-1", "gene"),
    ("S100A8 and S100A9", "S100A8", "gene"),
    ("complement C1QA", "C1QA", "gene"),
    ("E2F1 targets", "E2F1", "gene"),
    ("G6PD deficiency", "G6PD", "gene"),
    ("P2RY12 microglia", "P2RY12", "gene"),
    ("MT-CO1 reads", "MT-CO1", "gene"),
    ("KRAS-mutant lines", "KRAS", "gene"),
    ("MYC amplification", "MYC", "gene"),
    ("normalised to GAPDH", "GAPDH", "gene"),
    ("EGFR inhibitor", "EGFR", "gene"),
    ("MKI67 high", "MKI67", "gene"),
    ("FOXP3 Tregs", "FOXP3", "gene"),
    ("CDKN2A deletion", "CDKN2A", "gene"),
    ("KEAP1 knockout", "KEAP1", "gene"),
    ("MS4A1 B cells", "MS4A1", "gene"),
    ("XIST expression", "XIST", "gene"),
    ("ENSG00000141510 is TP53", "ENSG00000141510", "ensembl"),
    ("ENSG00000141510.17 versioned", "ENSG00000141510", "ensembl"),
    ("transcript ENST00000269305", "ENST00000269305", "ensembl"),
    ("protein ENSP00000269305", "ENSP00000269305", "ensembl"),
    ("mouse ENSMUSG00000059552", "ENSMUSG00000059552", "ensembl"),
    ("lower-case ensg00000141510", "ENSG00000141510", "ensembl"),
    ("UniProt P04637", "P04637", "uniprot"),
    ("UniProt Q9Y6K9", "Q9Y6K9", "uniprot"),
    ("isoform P04637-2", "P04637-2", "uniprot"),
    ("long A0A024R161 accession", "A0A024R161", "uniprot"),
    ("GO:0008150 process", "GO:0008150", "ontology"),
    ("go:0006915 apoptosis", "GO:0006915", "ontology"),
    ("GO_0008150 from a PURL", "GO:0008150", "ontology"),
    ("CHEBI:15377 water", "CHEBI:15377", "ontology"),
    ("MONDO:0005148 diabetes", "MONDO:0005148", "ontology"),
    ("HP:0001250 seizure", "HP:0001250", "ontology"),
    ("CL:0000084 T cell", "CL:0000084", "ontology"),
    ("UBERON:0002107 liver", "UBERON:0002107", "ontology"),
    ("EFO_0000400 diabetes", "EFO:0000400", "ontology"),
    ("NCBITaxon:9606 human", "NCBITaxon:9606", "ontology"),
    ("HGNC:11998 TP53", "HGNC:11998", "ontology"),
    ("MESH:D003920", "MESH:D003920", "ontology"),
    ("rs12345 and more", "rs12345", "dbsnp"),
    ("RS7412 upper", "rs7412", "dbsnp"),
    ("PMID:8319905", "PMID:8319905", "pmid"),
    ("see PMID 8319905", "PMID:8319905", "pmid"),
    ("doi:10.1038/nature12373.", "10.1038/nature12373", "doi"),
    ("https://doi.org/10.1016/S0092-8674(00)81683-9", "10.1016/s0092-8674(00)81683-9", "doi"),
    ("(10.1101/2020.03.01.123456)", "10.1101/2020.03.01.123456", "doi"),
    ("GEO GSE123456", "GSE123456", "accession"),
    ("sample GSM1234567", "GSM1234567", "accession"),
    ("run SRR1234567", "SRR1234567", "accession"),
    ("ENA ERR2345678", "ERR2345678", "accession"),
    ("E-MTAB-1234 from ArrayExpress", "E-MTAB-1234", "accession"),
    ("lower e-mtab-5061", "E-MTAB-5061", "accession"),
    ("BioProject PRJNA123456", "PRJNA123456", "accession"),
    ("dbGaP phs000178", "phs000178", "accession"),
    ("CHEMBL25 aspirin", "CHEMBL25", "compound"),
    ("Reactome R-HSA-68886", "R-HSA-68886", "pathway"),
    ("BRAF V600E melanoma", "BRAF V600E", "variant"),
    ("KRAS G12D", "KRAS G12D", "variant"),
    ("EGFR T790M resistance", "EGFR T790M", "variant"),
    ("a V600E call", "V600E", "variant"),
    ("p.Val600Glu", "p.Val600Glu", "variant"),
    ("p.V600E", "p.V600E", "variant"),
    ("c.1799T>A", "c.1799T>A", "variant"),
    ("NM_004333.4:c.1799T>A", "NM_004333.4:c.1799T>A", "variant"),
    ("transcript NM_000546.6", "NM_000546.6", "refseq"),
    ("H3K27ac peaks", "H3K27ac", "histone"),
    ("H3K4me3 marks", "H3K4me3", "histone"),
]

# Text in which nothing at all is an entity.
NEGATIVE = [
    "PCR", "qPCR", "RT-PCR", "DNA", "RNA", "ATP", "OK", "USA", "UMAP", "TSNE", "PCA", "QC",
    "FDR", "10X", "10x Genomics", "HEK293", "HEK293T cells", "MCF7", "A549", "HCT116", "K562",
    "T47D", "U2OS", "an A100 GPU", "H100", "IC50", "EC50", "PC1 vs PC2", "PC30", "COVID-19",
    "SARS-CoV-2", "hg38", "HG19", "GRCh38", "GRCH38", "CO2", "H2O", "UTF-8", "SHA256", "MD5",
    "FASTQ", "BAM", "VCF", "CSV", "JSON", "GEO", "SRA", "NCBI", "PBMC", "WNN", "ATAC", "CRISPR",
    "DMSO", "PBS", "FBS", "WARNING: DO NOT USE", "the QC FAILED", "OD600", "Q30 bases",
    "PE150 reads", "CHR17", "REP1", "DAY7", "ICD-10", "GPT-4", "DSM-5", "ARM64", "X86",
    "file go_0008150.txt", "HP:1", "gse", "version 2.3.1", "S3 bucket", "E2F", "L40S",
    "APC", "ATM", "AR", "SCD", "MAX", "REST", "SET", "TH",
]


@pytest.mark.parametrize(("text", "name", "kind"), POSITIVE)
def test_finds_and_normalises(text: str, name: str, kind: str) -> None:
    found = [(e.name, e.kind) for e in extract_entities(text)]
    assert (name, kind) in found, found


@pytest.mark.parametrize("text", NEGATIVE)
def test_ordinary_words_are_not_entities(text: str) -> None:
    assert extract_entities(text) == []


def test_table_sizes() -> None:
    assert len(POSITIVE) >= 60 and len(NEGATIVE) >= 40


def test_spans_point_into_the_text() -> None:
    text = "We saw BRAF V600E and TP53 loss (GO:0008150, doi:10.1038/nature12373)."
    for e in extract_entities(text):
        assert text[e.start:e.end].lower().replace("doi:", "").startswith(e.name.split()[0].lower()[:4])
    kinds = {e.name: e.kind for e in extract_entities(text)}
    assert kinds == {"BRAF": "gene", "BRAF V600E": "variant", "TP53": "gene",
                     "GO:0008150": "ontology", "10.1038/nature12373": "doi"}


def test_entity_names_are_distinct_in_order() -> None:
    assert entity_names("TP53, then MDM2, then TP53 again and ENSG00000141510.3 twice "
                        "ENSG00000141510") == ["TP53", "MDM2", "ENSG00000141510"]


def test_normalize_and_is_identifier() -> None:
    assert normalize_entity(" go:0008150 ") == "GO:0008150"
    assert normalize_entity("ensg00000141510.12") == "ENSG00000141510"
    assert normalize_entity("p53 pathway") == "p53 pathway"  # not one entity: as given
    assert normalize_entity("BRAF V600E") == "BRAF V600E"
    assert is_identifier("rs12345") and is_identifier("HLA-DRB1")
    assert not is_identifier("PCR") and not is_identifier("TP53 and MDM2")


def test_cd4_cd8_is_two_symbols() -> None:
    assert entity_names("CD4-CD8 double positive") == ["CD4", "CD8"]


_ID_PIECES = ["doi:", "DOI: ", "doi:\n", "PMID", "pmid:", "PMID: ", " ", "  ", "\t", "\n", "10.1038/nature",
              "10.", "1234", "5", "٣", "x", "ab", "GO", ":", "_", "0008150", "ENSG00000141510", ".12", "rs",
              "GSE", "E-MTAB-", "p.(", "Arg", "175", "His", ")", "c.", "1799", "T>A", "V600E", "BRAF ",
              "H3K27ac", "NM_", "000546", "-", "https://doi.org/", "(", ",", ";", "P04637", "Q9", "\u00a0",
              "CHEMBL", "R-HSA-", "SAMN", "phs", "000001", ".v1.p1", "é", "x1doi: ", "/", "SRR", "ERX", "VCV",
              "PRJNA", "G12C", "Gly12Cys", "m.", "g.", "H2BK", "rs4", "GO_", "ENSMUST", "0000000000012", "KRAS "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_ID_PIECES), min_size=1, max_size=14).map("".join))
def test_identifiers_are_searched_only_where_they_can_be(text: str) -> None:
    """The identifier regex runs only inside runs holding a digit: same matches as everywhere."""
    from biocortex_cli.bio.entities import _id_matches, _id_regex

    def spans(matches: Iterable[re.Match[str]]) -> list[tuple[int, int, str | None]]:
        return [(m.start(), m.end(), m.lastgroup) for m in matches]

    assert spans(_id_matches(text)) == spans(_id_regex().finditer(text))



def test_only_the_identifier_kinds_a_run_can_hold_are_compiled() -> None:
    """A question's runs with a digit name the patterns worth compiling (all ten cost ~32 M
    instructions of a recall's start, docs/performance.md); most questions need none."""
    from biocortex_cli.bio.entities import _id_regex, _kinds, extract_entities

    assert _kinds("10x") == set()
    assert _kinds("2024-01-01") == set()
    assert _kinds("TP53") == {"uniprot", "variant"}
    assert _kinds("rs12345") == {"dbsnp"}
    assert _kinds("GO:0008150") == {"ontology"}
    assert _kinds("10.1038/nature12373") == {"doi", "variant"}
    assert _kinds("H3K27ac") == {"uniprot", "variant", "histone"}
    assert _kinds("E-MTAB-1") == {"accession"}
    assert len(_kinds("٣x")) == 10  # not ASCII: every kind
    _id_regex.cache_clear()
    assert extract_entities("doublet detection in 10x multiome scRNA-seq with scDblFinder") == []
    assert _id_regex.cache_info().currsize == 0
