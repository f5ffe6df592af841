"""Ranking without saturation and the gate's informative concepts (issue 13, item 6; docs/recall.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli

QC_Q = "QC thresholds for kidney organoid scRNA-seq"
ORGANOID_Q = "preprocess the new day-25 organoid single-cell data: filter low-quality cells and multiplets"
HERG_Q = "predict cardiotoxic potassium channel blockade for new molecules"
FILLER = ("Samples were processed in two batches of three differentiations each, with cell hashing to pool "
          "them on one lane, and libraries were sequenced to about 40,000 reads per cell before alignment "
          "with Cell Ranger.")
BACKGROUND = [("Bulk RNA-seq differential expression in mouse liver with DESeq2", "bulk RNA-seq"),
              ("ATAC-seq peak calling in zebrafish fins with MACS2", "ATAC-seq"),
              ("Plasma proteomics quantification with DIA-NN", "proteomics"),
              ("CRISPR screen for resistance to KRAS G12C inhibitors", "CRISPR screen"),
              ("Cell type annotation of PBMC with Azimuth", "scRNA-seq"),
              ("Variant calling on exomes with GATK", "variant calling")]


def load(cli: Cli, episodes: list[dict[str, Any]]) -> None:
    background = [{"task": task, "plan": FILLER, "domains": [domain], "success": True, "quality": 0.7}
                  for task, domain in BACKGROUND]
    r = cli("episode", "import", "-", stdin="".join(json.dumps(e) + "\n" for e in episodes + background))
    assert r.code == 0, r.err


def recall(cli: Cli, query: str, *args: str) -> dict[str, Any]:
    r = cli("recall", query, *args, "--json")
    assert r.code == 0, r.err
    return r.json()  # type: ignore[no-any-return]


def ids(data: dict[str, Any]) -> list[str]:
    return [hit["id"] for hit in data["results"]]


@pytest.fixture
def organoids(vault: Path, cli: Cli) -> Path:
    """Four episodes that match the QC question fully; the failure, of low quality, matches it most:
    it is about exactly that question."""
    episodes = [{"id": "qc-failure", "task": QC_Q,
                 "plan": f"Fixed {QC_Q} taken from PBMC: 200-2500 genes and 5% mitochondrial reads.",
                 "result": f"The PBMC {QC_Q} removed 60% of cells, most podocytes and tubule cells.",
                 "lessons": [f"Set {QC_Q} per sample from the distributions, never from PBMC defaults."],
                 "domains": ["scRNA-seq"], "tools": ["Seurat"], "success": False, "quality": 0.3}]
    for ident, quality, task in (("qc-redo", 0.9, "Redo the analysis of the day-25 organoids"),
                                 ("organoid-atlas", 0.85, "Annotate the organoid atlas against fetal kidney"),
                                 ("organoid-timecourse", 0.8, "Time course of organoid differentiation")):
        episodes.append({"id": ident, "task": task,
                         "plan": f"{QC_Q}: per-sample MAD cut-offs on genes, UMIs and mitochondrial fraction. {FILLER}",
                         "result": f"With {QC_Q} per sample we kept most cells and every lineage. {FILLER}",
                         "lessons": [f"{QC_Q} are per sample.", "Hash samples to pool them on one lane."],
                         "domains": ["scRNA-seq"], "tools": ["scater", "Harmony"], "success": True, "quality": quality})
    episodes.append({"id": "exome-filter",
                     "task": "Filter low-quality variants in exome data with GATK VariantFiltration",
                     "domains": ["variant calling"], "tools": ["GATK"], "success": True, "quality": 0.9,
                     "result": "Hard filters QD < 2, FS > 60 removed 8% of calls."})
    episodes.append({"id": "predict-enhancers", "task": "Predict new enhancers from new ATAC-seq data",
                     "plan": "Predict enhancers genome-wide with a new gapped k-mer model.", "tools": ["gkmSVM"],
                     "domains": ["ATAC-seq"], "result": "Predicted 12,000 new enhancers.", "success": True})
    load(cli, episodes)
    return vault


def test_full_matches_are_ordered_by_evidence_not_quality(organoids: Path, cli: Cli) -> None:
    """Four episodes score 1.00; the tie used to go to quality, and the failure that answers the
    question best was cut for budget."""
    data = recall(cli, QC_Q, "--budget", "800")
    hits = data["results"]
    assert hits[0]["id"] == "qc-failure" and hits[0]["quality"] == 0.3
    assert {h["id"] for h in hits} <= {"qc-failure", "qc-redo", "organoid-atlas", "organoid-timecourse"}
    assert [h["score"] for h in hits] == [1.0] * len(hits)  # printed clipped ...
    ranks = [h["rank_score"] for h in hits]
    assert ranks == sorted(ranks, reverse=True) and ranks[0] > ranks[1] > 1.0  # ... ranked unclipped
    assert data["tokens"] <= 800


def test_ties_go_to_evidence_before_quality() -> None:
    """Equal rank scores: the episode that covers more of the question comes first, then quality."""
    from biocortex_cli.recall.engine import _ranked

    info = {1: {"id": "a", "quality": 0.9, "coverage": 0.5}, 2: {"id": "b", "quality": 0.2, "coverage": 0.8},
            3: {"id": "c", "quality": 0.95, "coverage": 0.5}, 4: {"id": "d", "quality": None, "coverage": 1.0}}
    top, matched = _ranked([(0.7, doc, {}) for doc in (1, 2, 3)] + [(0.6, 4, {})], info, top_k=3)
    assert [info[doc]["id"] for _s, doc, _sig in top] == ["b", "c", "a"] and matched == 4


def test_twins_helpful_votes_move_a_full_match(vault: Path, cli: Cli) -> None:
    """Two episodes that match a question fully score 1.00 each; four helpful votes for one of them
    put it first (the score used to be clipped to 1 before utility was added)."""
    twin = {"task": "Doublet detection with scrublet on PBMC", "tools": ["scrublet"], "domains": ["scRNA-seq"],
            "quality": 0.8, "success": True}
    load(cli, [{"id": "twin-a", **twin}, {"id": "twin-b", **twin}])
    query = "doublet detection with scrublet on PBMC"
    before = recall(cli, query)
    assert ids(before)[:2] == ["twin-a", "twin-b"]  # a tie: by id
    assert [h["score"] for h in before["results"][:2]] == [1.0, 1.0]
    for n in range(4):
        r = cli("feedback", before["recall_id"], "--outcome", "success", "--helpful", "twin-b", "--note", f"run {n}")
        assert r.code == 0, r.err
    after = recall(cli, query)
    assert ids(after)[:2] == ["twin-b", "twin-a"]
    first, second = after["results"][:2]
    assert first["signals"]["utility"] > second["signals"]["utility"] > 0.5  # twin-a: credit for being injected
    assert first["rank_score"] > second["rank_score"] and first["score"] == second["score"] == 1.0


def test_a_generic_word_alone_does_not_pass_the_gate(organoids: Path, cli: Cli) -> None:
    """The exome variant-filtering episode shares "filter low-quality … data" with the organoid
    question, all generic words; the enhancer episode shares "predict" and "new"."""
    data = recall(cli, ORGANOID_Q, "--explain")
    assert "exome-filter" not in ids(data) and "qc-redo" in ids(data)
    informative = data["explain"]["informative_terms"]
    assert "organoid" in informative and not {"filter", "new", "data", "low", "preprocess"} & set(informative)
    assert "predict-enhancers" not in ids(recall(cli, HERG_Q))
    # min_relevance 0 is no gate at all: everything that shares a word is ranked
    assert "exome-filter" in ids(recall(cli, ORGANOID_Q, "--min-relevance", "0", "--top-k", "20"))


def test_a_domain_alone_does_not_pass_the_gate(organoids: Path, cli: Cli) -> None:
    """"Cell type annotation of PBMC" is scRNA-seq, as the question, and shares nothing else."""
    data = recall(cli, QC_Q, "--explain")
    assert "scrna seq" in data["explain"]["informative_terms"]  # a concept, but never enough alone
    annotation = [h for h in recall(cli, QC_Q, "--min-relevance", "0", "--top-k", "20", "--explain")["results"]
                  if h["task"].startswith("Cell type annotation of PBMC")]
    assert annotation and annotation[0]["score"] >= 0.2  # relevant enough by the fused score
    assert not any(h["task"].startswith("Cell type annotation") for h in data["results"])
    # a question about the domain only still finds its episodes
    assert "qc-failure" in ids(recall(cli, "scRNA-seq"))


def test_a_domain_is_enough_when_nothing_else_the_question_names_is_in_memory(organoids: Path, cli: Cli) -> None:
    """"sewage surveillance" is in no episode and has no synonym: the domain is the only thing the
    question shares with memory that could be shared, so its episodes pass (on relevance)."""
    data = recall(cli, "sewage surveillance scRNA-seq over time", "--explain")
    assert {"sewag", "surveil"} <= set(data["explain"]["unknown_terms"])
    assert "qc-failure" in ids(data)
    # a question naming a word the vault knows still needs more than the domain (test above)
    assert not any(h["task"].startswith("Cell type annotation") for h in recall(cli, QC_Q)["results"])


@pytest.fixture
def genomes(vault: Path, cli: Cli) -> Path:
    """Genome assemblies filed under the domain genomics, and the one analysis that recovered genomes
    from a digester (metagenomics): the stemmer makes one word, ``genom``, of genomes and genomics."""
    episodes = [{"id": f"assembly-{i}", "task": f"Assemble {organism} isolates from long reads (ONT + Illumina)",
                 "plan": "Flye then Medaka, polished with Polypolish.", "domains": ["genomics"],
                 "tools": ["Flye", "Medaka"], "success": True, "quality": 0.8}
                for i, organism in enumerate(("Klebsiella", "E. coli", "Staphylococcus"))]
    episodes.append({"id": "mags-digester",
                     "task": "Recover genomes from an anaerobic digester time series (nanopore + short reads)",
                     "plan": "metaFlye per time point, binning with SemiBin2, CheckM2 for completeness.",
                     "domains": ["metagenomics"], "tools": ["metaFlye", "SemiBin2"], "success": True, "quality": 0.7})
    load(cli, episodes)
    return vault


def test_a_word_for_genomes_does_not_name_the_field_genomics(genomes: Path, cli: Cli) -> None:
    """BioRecall q115: "genomes" stems like "genomics", so the assemblies filed under genomics took
    the domain signal and outranked the one analysis the question describes."""
    data = recall(cli, "reconstructing microbial genomes from the digester with nanopore")
    assert ids(data)[0] == "mags-digester"
    assert all(not hit["signals"].get("domains") for hit in data["results"])


@pytest.mark.parametrize("query", ["genomics of Klebsiella isolates", "Klebsiella genomic analysis from long reads"])
def test_the_field_named_as_a_field_still_counts(genomes: Path, cli: Cli, query: str) -> None:
    data = recall(cli, query)
    assert ids(data)[0].startswith("assembly-")
    assert data["results"][0]["signals"]["domains"] == 1.0
