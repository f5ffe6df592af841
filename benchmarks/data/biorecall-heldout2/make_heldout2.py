"""Write the biorecall-heldout2 question set: queries.jsonl and qrels.tsv, from the data below.

Each question is about one episode (or a small group of episodes that answer it) of
``../biorecall/corpus.jsonl`` and is worded without the episode's words (see README.md).

    python make_heldout2.py              # writes queries.jsonl and qrels.tsv next to this file
    python make_heldout2.py --out DIR    # writes them into DIR
    python make_heldout2.py --overlap    # the wording check (needs biocortex_cli importable)
    python make_heldout2.py --review     # each question beside the tasks of its grade-3 episodes

Judgements: ``g3`` answer the question; ``g2`` are closely related (same analysis or dataset, or
the same failure); ``g1`` are related episodes outside the family. Every other episode of the
question's family (the family is the id without its number) is graded 1, "same kind of
analysis"; episodes not listed and outside the family are not relevant.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "biorecall" / "corpus.jsonl"
CATEGORIES = ("lay", "synonym", "alias", "abbreviation", "inflection")


@dataclass(frozen=True)
class Q:
    text: str
    category: str
    g3: tuple[str, ...]
    g2: tuple[str, ...] = ()
    g1: tuple[str, ...] = field(default=())


def q(text: str, category: str, g3: str, g2: str = "", g1: str = "") -> Q:
    return Q(text, category, tuple(g3.split()), tuple(g2.split()), tuple(g1.split()))


QUESTIONS: list[Q] = [
    # --- sc-doublets
    q("what happened when we looked for two-cells-in-one-droplet artefacts after pooling all the "
      "lung cancer patients into a single object?", "lay",
      "sc-doublets-03", "sc-doublets-11 sc-doublets-09"),
    q("For the joint single-nucleus expression plus assay-for-transposase-accessible-chromatin "
      "blood run from four donors, how did we merge multiplet calls from the two layers?",
      "abbreviation", "sc-doublets-05 sc-doublets-04", "",
      "atac-qc-05 atac-qc-08 multiome-01 multiome-02"),
    q("Which multiplet-removal run mistook big antibody-secreting cells for artefacts because the "
      "neighbourhood-size sweep had no clear optimum?", "synonym",
      "sc-doublets-09", "sc-doublets-03 sc-doublets-11 sc-doublets-02"),
    # --- sc-ambient
    q("The background-RNA cleanup model took almost a day per sample on ordinary processors and we "
      "ran out of cluster wall-clock, so only some samples got corrected. Which cohort was that and "
      "what did mixing cleaned and uncleaned samples do?", "lay",
      "sc-ambient-03", "sc-ambient-08"),
    q("proteolipid protein 1 erased after forcing a high contamination fraction in post-mortem "
      "frontal lobe single-nucleus data", "alias",
      "sc-ambient-04", "sc-ambient-05"),
    q("Before I rerun background removal on the renal nuclei: should the deep generative model get "
      "the pre-filtering droplet matrix or the called cells only?", "lay",
      "sc-ambient-02", "sc-ambient-06 sc-ambient-07", "sc-qc-06"),
    # --- sc-qc
    q("heart muscle cells kept getting thrown out by our cutoff on reads from the mitochondrial "
      "genome, what did we do about it?", "lay",
      "sc-qc-01 sc-qc-02", "sc-qc-03"),
    q("After the liver resection regeneration experiment in mice, how many cells survived "
      "median-absolute-deviation outlier filtering done mouse by mouse?", "synonym",
      "sc-qc-04", "sc-qc-03"),
    q("colon tumor cell calling kept thousands of barcodes that were only free-floating transcripts "
      "from lysed cancer cells; which lower bound needed raising?", "inflection",
      "sc-qc-06", "sc-qc-07 sc-qc-08", "sc-ambient-02 sc-ambient-06"),
    # --- sc-integration
    q("When we aligned samples from the three hospitals for the small-bowel inflammation study, a "
      "disease-only macrophage state got folded into its normal counterpart. What should we do "
      "differently?", "lay",
      "sc-integration-04", "sc-integration-05 sc-integration-10 sc-integration-08",
      "bulk-de-05 bulk-de-09"),
    q("SLE blood from several processing days: did the neighbour-graph batch balancing wash out "
      "the IFN-high myeloid state?", "abbreviation",
      "sc-integration-08", "sc-integration-07 sc-integration-04"),
    q("On the pulmonary atlas pooled from five studies, did the v2 versus v3 kit difference "
      "survive the principal-component-based correction?", "synonym",
      "sc-integration-02", "sc-integration-01 sc-integration-03 sc-integration-11"),
    # --- sc-annotation
    q("The automatic labelling against a reference called the skin cancer tumour cells fibroblasts "
      "with high confidence, which run was that?", "lay",
      "sc-annotation-03", "sc-annotation-04 sc-annotation-05", "spatial-deconv-07"),
    q("acute myeloid leukemia marrow: reference mapping pushed the blasts onto stem and "
      "multipotent progenitor labels", "abbreviation",
      "sc-annotation-05", "sc-annotation-06 sc-annotation-03", "spatial-deconv-07"),
    q("How did we find the rare mucosal-associated invariant T cells in the chimeric antigen "
      "receptor trial blood?", "abbreviation",
      "sc-annotation-09", "sc-annotation-01 sc-annotation-02"),
    # --- sc-de
    q("Comparing sick and healthy coronavirus patients cell type by cell type, we got thousands of "
      "hits by treating each cell as its own sample. How many held up?", "lay",
      "sc-de-02", "sc-de-04 sc-de-01"),
    q("dementia astrocytes: zero-inflated two-part model with a per-subject random intercept, how "
      "close to the summed-counts result?", "synonym",
      "sc-de-05", "sc-de-03 sc-de-04"),
    q("In the lung scarring mouse model some cell types had only a handful of cells per animal. "
      "What went wrong with the per-animal summed-count test?", "lay",
      "sc-de-07", "sc-de-08"),
    # --- sc-trajectory
    q("Why did the splicing-kinetics arrows run backwards for the umbilical-cord hematopoietic "
      "progenitors?", "inflection",
      "sc-trajectory-02", "sc-trajectory-08 sc-trajectory-01"),
    q("Exhausted killer T cells from the checkpoint-treated skin cancer: the starting point of the "
      "ordering landed in the dividing cells", "synonym",
      "sc-trajectory-05", "sc-trajectory-06", "repertoire-01 repertoire-05"),
    q("neurogenin 3 progenitors in the embryonic mouse pancreas: which fate-mapping approach found "
      "four end states?", "alias",
      "sc-trajectory-04", "sc-trajectory-03"),
    # --- sc-ccc
    q("In the lung scarring disease study the cell-to-cell signalling ranking just reflected which "
      "cell type was most numerous. How should we fix that?", "lay",
      "sc-ccc-03", "sc-ccc-04"),
    q("PD-L1 to PD-1 signalling in triple-negative breast cancer: which analysis found it and was "
      "it confirmed in situ?", "alias",
      "sc-ccc-01 sc-ccc-07", "sc-ccc-02"),
    # --- atac-qc
    q("Every cell had a terrible promoter enrichment score in the brain tumour chromatin data; was "
      "the gene annotation from the wrong human reference version?", "lay",
      "atac-qc-07", "atac-qc-02 atac-qc-08", "germline-07"),
    q("hippocampal single-nucleus accessibility prep in mice: was the sample overdigested, and is "
      "that salvageable computationally?", "inflection",
      "atac-qc-06"),
    q("T2D islet nuclei: what fraction of reads fell in peaks and how many peaks were called?",
      "abbreviation",
      "atac-qc-04 atac-qc-05 atac-qc-09"),
    # --- multiome
    q("When pairing the open-chromatin and RNA readouts from the same nuclei, only about a fifth "
      "of the cell tags lined up. What was the mistake?", "lay",
      "multiome-02 multiome-07"),
    q("stem-cell-derived heart muscle differentiation, joint profiling: enhancer-to-gene "
      "correlations dominated by CpG-dense promoters", "synonym",
      "multiome-06", "multiome-05"),
    # --- chip
    q("The Polycomb trimethyl mark in the knockout mouse embryonic stem cells came out as thousands "
      "of tiny fragments. What mode should the peak caller use?", "alias",
      "chip-02", "chip-03 chip-04"),
    q("After we degraded the insulator protein with the plant hormone, nothing looked different "
      "between conditions even though the coverage tracks dropped. How should we have scaled the "
      "samples?", "lay",
      "chip-06", "chip-04 chip-05"),
    q("For the P493-6 MYC binding data, what was the fraction of reads in peaks and were replicates "
      "consistent by irreproducible discovery rate?", "abbreviation",
      "chip-07 chip-08"),
    # --- methylation
    q("In the bowel cancer whole-genome methylation data two libraries seemed to carry extra "
      "methyl marks everywhere. Was the chemical conversion incomplete?", "lay",
      "methylation-02", "methylation-01 methylation-07"),
    q("Did the tobacco-exposure methylation array hits in blood just reflect differences in "
      "leukocyte mixture?", "synonym",
      "methylation-04", "methylation-03"),
    # --- bulk-quant
    q("The low-oxygen umbilical vein cell RNA counts had less than half the reads assigned; what "
      "setting was wrong?", "lay",
      "bulk-quant-01", "bulk-quant-02 bulk-quant-08", "qpcr-01 bulk-de-01 bulk-de-10"),
    q("formalin-fixed paraffin-embedded colon biopsies: how much ribosomal RNA, and how did the "
      "degraded samples group?", "abbreviation",
      "bulk-quant-05 bulk-quant-06", "", "somatic-01"),
    q("How well did the quasi-mapper's gene totals for the 120 breast tumors agree with the "
      "alignment-based counts?", "inflection",
      "bulk-quant-03", "bulk-quant-04"),
    # --- bulk-de
    q("In the checkpoint-blockade helper T cell RNA-seq one sample turned out to come from the "
      "wrong person. How did we spot it?", "lay",
      "bulk-de-03", "bulk-de-02"),
    q("Every exposed specimen went on one flow cell and every untreated one on another. Is there "
      "any statistical rescue for that design?", "lay",
      "bulk-de-05 bulk-de-09", "", "sc-integration-04 sc-integration-08"),
    q("endotoxin-stimulated macrophage time series: which test found genes varying over the hours?",
      "synonym",
      "bulk-de-08", "bulk-de-09"),
    # --- gsea
    q("For the aged mouse kidney we got hundreds of enriched biological-process terms until we "
      "changed the background gene list. What should the background be?", "lay",
      "gsea-08", "gsea-02 gsea-07"),
    q("estrogen receptor alpha knockout breast cancer line: why did the pathway ranking shift "
      "between annotation versions?", "alias",
      "gsea-05", "gsea-06", "bulk-de-04 bulk-de-05 bulk-de-11"),
    q("Which hallmark collections came out on top for triple-negative breast cancer versus "
      "adjacent normal tissue from The Cancer Genome Atlas?", "abbreviation",
      "gsea-03 gsea-04"),
    # --- splicing
    q("Which splicing approach missed the stathmin-2 hidden exon in the motor neuron knockdown?",
      "alias",
      "splicing-05", "splicing-06 splicing-07"),
    q("The splicing run on the liver cancer line crashed complaining about read lengths after "
      "trimming. What flag was missing?", "lay",
      "splicing-03", "splicing-04"),
    # --- crispr-mageck
    q("The T cell interferon-gamma sorting screen lost too many guides and nothing came out "
      "significant. How much coverage do we need?", "lay",
      "crispr-mageck-05", "crispr-mageck-06"),
    q("Which knockouts sensitised retinal pigment epithelial cells to Lynparza?", "alias",
      "crispr-mageck-03 crispr-mageck-04 crispr-mageck-11"),
    q("For the virus-survival knockout pool we had no baseline harvest and the vector pool itself "
      "was uneven. Why did scarce guides pop out as hits?", "lay",
      "crispr-mageck-07", "crispr-mageck-08 crispr-mageck-12"),
    q("leukemia dependency screen: guides cutting inside copy-number gains gave false essential "
      "genes, which correction tools did we recommend?", "synonym",
      "crispr-mageck-09", "crispr-mageck-10"),
    # --- perturbseq
    q("In the neurodevelopmental-risk CRISPR interference experiment on iPSC neurons, nearly half "
      "the cells looked multiply infected. Why?", "lay",
      "perturbseq-07", "perturbseq-03 perturbseq-05 perturbseq-06"),
    q("chromodomain helicase DNA binding protein 8 knockdown effects hidden by cells that never "
      "lost the gene", "alias",
      "perturbseq-05", "perturbseq-06 perturbseq-07"),
    # --- crispr-edit
    q("For the checkpoint receptor disruption in donor lymphocytes, the trace-decomposition "
      "estimate said nearly nine in ten alleles were hit. What did it miss?", "lay",
      "crispr-edit-03", "crispr-edit-02"),
    q("homology-directed repair knock-in of a green fluorescent tag on lamin B1: how efficient was "
      "precise insertion?", "abbreviation",
      "crispr-edit-04", "crispr-edit-05"),
    # --- prot-dda
    q("The top hits in the fatty-liver mouse proteomics were skin and digestive-enzyme proteins. "
      "What was missing from the search?", "lay",
      "prot-dda-02", "prot-dda-06 prot-dda-01 prot-dda-07"),
    q("MND CSF proteomics: were matches borrowed across runs of different LC length behind the "
      "group-specific proteins?",
      "abbreviation",
      "prot-dda-04", "prot-dda-03", "prot-dia-05"),
    # --- prot-dia
    q("Septic patients' blood: only a few hundred proteins came out because the most plentiful ones "
      "swamped the signal. What should we do before acquisition?", "lay",
      "prot-dia-02", "prot-dia-01 prot-dia-07"),
    q("In the multiplexed single-cell run with over 200 injections, how did we find that the false "
      "discovery rate was underestimated?", "synonym",
      "prot-dia-05", "prot-dia-06", "prot-dda-04"),
    # --- prot-ptm
    q("Why were the phosphorylation changes in the growth-factor-stimulated epidermoid carcinoma "
      "cells so much smaller than in targeted validation?", "lay",
      "prot-ptm-02", "prot-ptm-01"),
    q("How strongly did AS160 Thr642 phosphorylation rise in the insulin-treated fat cells?",
      "alias",
      "prot-ptm-03", "prot-ptm-04"),
    q("phosphosite localization in the insulin-treated adipocytes: how many regulated sites were "
      "poorly localized?", "inflection",
      "prot-ptm-04", "prot-ptm-03"),
    # --- germline
    q("variant quality score recalibration failed on a dozen exomes: what did we fall back to?",
      "abbreviation",
      "germline-03", "germline-04"),
    q("The hereditary tumour-predisposition capture had whole exons with nothing called even "
      "though depth was fine. Was the bait coordinate file on another assembly?", "lay",
      "germline-07", "germline-08", "atac-qc-02 atac-qc-07"),
    q("In the seizure-disorder family trio, was the new Nav1.1 change confirmed by capillary "
      "sequencing?", "alias",
      "germline-01", "germline-02"),
    # --- somatic
    q("The preserved-tissue bowel cancer exomes had a flood of low-level cytosine-to-thymine "
      "changes; what step was missing?", "lay",
      "somatic-01", "somatic-02", "bulk-quant-05 bulk-quant-06"),
    q("For the leukemia whole genomes, the skin 'normal' contained cancer cells so real mutations "
      "got thrown out as inherited. How do we check for that?", "lay",
      "somatic-05", "somatic-06"),
    q("plasma cell-free DNA assay with unique molecular identifiers: at what variant allele "
      "frequency did we pick up the gatekeeper resistance mutation?", "abbreviation",
      "somatic-07 somatic-08"),
    # --- gwas
    q("The genome-wide scan for adult-onset diabetes showed inflation from population structure "
      "because we adjusted for only a handful of ancestry axes. How bad was it?", "lay",
      "gwas-02", "gwas-07 gwas-01 gwas-09"),
    q("In the cholesterol association study about one in seven people were relatives. What should "
      "we use instead of plain regression?", "lay",
      "gwas-04", "gwas-03 gwas-10"),
    q("Latino asthma cohort: did modelling admixture tracts reveal the chromosome 17q21 signal?",
      "synonym",
      "gwas-08", "gwas-07"),
    # --- finemap
    q("Fine-mapping returned a dozen credible sets and the top variant kept changing between runs "
      "at the coronary disease locus. What caused it?", "lay",
      "finemap-06", "finemap-02 finemap-05"),
    q("inflammatory bowel disease locus colocalization with expression quantitative trait loci "
      "pointed to distinct variants, why?", "abbreviation",
      "finemap-04", "finemap-03"),
    # --- spatial-deconv
    q("In the heart attack spatial slides, cardiac muscle cells seemed absent everywhere after "
      "mapping the nucleus reference. Why?", "lay",
      "spatial-deconv-04", "spatial-deconv-03"),
    q("In the bowel tumour high-definition spatial data, one stromal cell type was missing from our "
      "single-cell reference. What did that do to the per-spot estimates?", "lay",
      "spatial-deconv-07", "spatial-deconv-08", "sc-annotation-03 sc-annotation-05"),
    q("lymph node capture-array sections: how well did the inferred cell abundances agree with "
      "nuclear counts from the stained images?", "synonym",
      "spatial-deconv-01 spatial-deconv-02"),
    # --- spatial-imaging
    q("In the breast cancer in-situ panel a quarter of cancer cells seemed to express CD45. Was the "
      "vendor's outline growth around each nucleus too big?", "alias",
      "spatial-imaging-01", "spatial-imaging-06 spatial-imaging-02"),
    q("Why were the big oxytocin and vasopressin neurons counted twice in the hypothalamus imaging "
      "run?", "alias",
      "spatial-imaging-04", "spatial-imaging-03", "img-seg-01"),
    # --- spatial-domains
    q("When we clustered all the human frontal cortex slides together, each slide formed its own "
      "regions. What should we have done first?", "lay",
      "spatial-domains-02", "spatial-domains-01 spatial-domains-07"),
    q("liver lobule zonation on the bead-array platform split into stripes when we asked for too "
      "many clusters", "synonym",
      "spatial-domains-04", "spatial-domains-03"),
    # --- img-seg
    q("Nuclei in the gut organoid images were cut in half and counts came out too high. What size "
      "setting was off?", "lay",
      "img-seg-01", "img-seg-08 img-seg-02", "spatial-imaging-04"),
    q("How did color normalization rescue the faint nuclei missed on hematoxylin and eosin breast "
      "slides from different scanners?", "abbreviation",
      "img-seg-04", "img-seg-03", "img-hist-02 img-hist-04"),
    q("In the mouse visual cortex calcium movies about a third of the regions of interest went dark "
      "half an hour in; were they really silent neurons?", "lay",
      "img-seg-07", "img-seg-06"),
    # --- img-hcs
    q("The kinase knockdown screen for the lysosome master regulator moving into the nucleus had "
      "most hits in the outer columns of the plates. What caused that?", "lay",
      "img-hcs-04", "img-hcs-07 img-hcs-05"),
    q("morphological profiling plates read on two different imagers, how poorly did replicates "
      "agree across them?", "synonym",
      "img-hcs-03", "img-hcs-01 img-hcs-02", "cytometry-02"),
    # --- img-hist
    q("The microsatellite instability predictor from colon slides looked amazing in "
      "cross-validation but collapsed on outside data. Were patches from the same person in both "
      "training and test?", "abbreviation",
      "img-hist-02", "img-hist-01 img-hist-07"),
    q("Our cancer-grade predictor for the prostate biopsies turned out to recognise which clinic "
      "scanned each image. How do we deal with that?", "lay",
      "img-hist-04", "img-hist-07 img-hist-03"),
    # --- qsar
    q("The cardiac-safety potassium channel model scored brilliantly on a random split but failed "
      "on a new chemical series", "lay",
      "qsar-03", "qsar-04 qsar-08"),
    q("Water solubility model: pooled readouts with different units left labels off by three "
      "orders of magnitude", "synonym",
      "qsar-06", "qsar-05", "chembl-01 chembl-02 chembl-04"),
    q("What test R-squared did the directed message-passing neural network reach on the malaria "
      "parasite set with a core-structure split?", "abbreviation",
      "qsar-07", "qsar-08"),
    # --- docking
    q("Our switch-II screen used the unliganded crystal form, where the cavity is shut. How far off "
      "was the self-docking check?", "lay",
      "docking-02", "docking-01 docking-07"),
    q("In the Schrodinger-suite screen against the antipsychotic target receptor, why did none of "
      "the purchased molecules confirm?", "synonym",
      "docking-05", "docking-06"),
    q("Mpro virtual screen: pose-reproduction error and hit rate with the neural-network rescoring",
      "abbreviation",
      "docking-04", "docking-03"),
    # --- chembl
    q("When we pulled Janus kinase activities straight from the web service, the same molecule "
      "showed up with several labels because of salt forms. How did we clean it?", "abbreviation",
      "chembl-03", "chembl-02"),
    q("beta-secretase 1 potency table: how many distinct molecules remained after collapsing "
      "repeat measurements?", "alias",
      "chembl-04", "chembl-05"),
    # --- amplicon
    q("The soil bacteria sequencing under dry conditions: paired reads stopped overlapping after "
      "trimming and most never joined", "lay",
      "amplicon-03", "amplicon-04 amplicon-07"),
    q("mouse bronchial wash microbiota after antibiotics overrun by reagent-borne bacteria, did we "
      "sequence blank controls?", "synonym",
      "amplicon-06", "amplicon-05"),
    # --- shotgun
    q("We classified the stool metagenome reads without first removing human DNA. How much of the "
      "data was human?", "lay",
      "shotgun-02", "shotgun-04 shotgun-01 shotgun-07"),
    q("k-mer classifier left at its default cutoff reported hundreds of spurious species in the "
      "cancer transcriptome microbe search", "synonym",
      "shotgun-03", "shotgun-04"),
    # --- mags
    q("Pooling all the sea-water samples into one assembly gave mixed-strain contigs and dirty "
      "bins", "lay",
      "mags-05", "mags-02 mags-03"),
    q("From the biogas fermenter time course with single-molecule sequencing, how many "
      "near-complete draft microbial genomes did we get?", "synonym",
      "mags-04"),
    # --- alphafold
    q("The modelled fold of the RNA-binding protein's low-complexity tail looked like tangled "
      "noodles. Do those atom positions mean anything?", "lay",
      "alphafold-05 alphafold-06"),
    q("Can we trust a predicted antibody-receptor tyrosine kinase complex? The interface score was "
      "very low last time.", "synonym",
      "alphafold-07 alphafold-08"),
    q("nuclear factor erythroid 2-related factor 2 bound to Kelch-like ECH-associated protein 1: "
      "how confident was the interface?", "alias",
      "alphafold-03 alphafold-04 alphafold-09"),
    q("mutant p53 with arginine 175 changed to histidine: which part of the model was least "
      "certain?", "alias",
      "alphafold-01 alphafold-02"),
    # --- cryoem
    q("The P-glycoprotein particles only showed views from the top and the map was stretched. What "
      "did we have to change at collection?", "alias",
      "cryoem-02", "cryoem-01", "md-03 md-04"),
    q("The flexible part of the G protein in the GLP-1 receptor complex was a blur even at decent "
      "overall resolution. How did we sort it out?", "lay",
      "cryoem-05", "cryoem-06 cryoem-04"),
    # --- md
    q("What was wrong with the parametrization of the warhead when the switch-II inhibitor "
      "simulation crashed within picoseconds?", "inflection",
      "md-02", "md-01"),
    q("Multidrug resistance protein 1 in a lipid bilayer: the one-off simulation showed an open "
      "conformation that didn't reproduce", "alias",
      "md-04", "md-03", "cryoem-01 cryoem-02"),
    # --- assembly
    q("The heterozygous tomato genome came out a quarter too big with many doubled conserved "
      "genes. What step did we skip?", "lay",
      "assembly-02", "assembly-01 assembly-07"),
    q("Did we screen the fish reference for foreign-organism sequences before gene annotation?",
      "synonym",
      "assembly-04", "assembly-03"),
    # --- cytometry
    q("In the mass cytometry of septic blood run over six days, clusters split by the day of "
      "acquisition. How did we correct it?", "synonym",
      "cytometry-02", "cytometry-01", "img-hcs-03"),
    q("In the 28-color tumor-lymphocyte panel a cytotoxic subset lit up for two fluorophores until "
      "we redid the spillover correction with matched single-stained beads", "inflection",
      "cytometry-03", "cytometry-04"),
    # --- repertoire
    q("For the convalescent coronavirus antibody repertoires we borrowed the clone-distance cutoff "
      "from another study and got giant clones. What's the fix?", "lay",
      "repertoire-03", "repertoire-02"),
    q("Which beta-chain variable gene recurred across coeliac patients' gluten-reactive helper T "
      "cells?", "inflection",
      "repertoire-04"),
    # --- qpcr
    q("In the low-oxygen PCR experiment our housekeeping gene went up by itself. Which one was it "
      "and what did it do to the fold changes?", "lay",
      "qpcr-01", "qpcr-02", "bulk-quant-01 bulk-quant-02 bulk-de-01 bulk-de-10"),
    q("How much did interleukin 6 go up by day 7 in the dextran sodium sulfate colitis mice?",
      "abbreviation",
      "qpcr-04"),
]


def family(episode_id: str) -> str:
    return re.sub(r"-\d+$", "", episode_id)


def load_corpus() -> list[dict[str, Any]]:
    with CORPUS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def judgements(corpus_ids: list[str]) -> list[list[tuple[str, int]]]:
    """Per question, (episode id, grade) pairs: listed grades first, then the rest of the family."""
    known = set(corpus_ids)
    out = []
    for question in QUESTIONS:
        grades: dict[str, int] = {}
        for grade, ids in ((3, question.g3), (2, question.g2), (1, question.g1)):
            for eid in ids:
                if eid not in known:
                    raise SystemExit(f"unknown episode {eid!r} in {question.text!r}")
                if eid in grades:
                    raise SystemExit(f"{eid} judged twice in {question.text!r}")
                grades[eid] = grade
        fam = family(question.g3[0])
        for eid in corpus_ids:
            if family(eid) == fam and eid not in grades:
                grades[eid] = 1
        out.append(sorted(grades.items(), key=lambda item: (-item[1], item[0])))
    return out


def write(out_dir: Path) -> None:
    corpus_ids = [row["_id"] for row in load_corpus()]
    out_dir.mkdir(parents=True, exist_ok=True)
    queries, qrels = [], ["query-id\tcorpus-id\tscore"]
    for n, (question, grades) in enumerate(zip(QUESTIONS, judgements(corpus_ids), strict=True), 1):
        if question.category not in CATEGORIES:
            raise SystemExit(f"bad category {question.category!r}")
        qid = f"k{n:03d}"
        meta = {"category": question.category, "family": family(question.g3[0])}
        queries.append(json.dumps({"_id": qid, "text": question.text, "metadata": meta},
                                  ensure_ascii=False))
        qrels.extend(f"{qid}\t{eid}\t{grade}" for eid, grade in grades)
    (out_dir / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    (out_dir / "qrels.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")


def overlap() -> None:
    """Share of each question's content tokens found in the union of its grade-3 episodes."""
    sys.path.insert(0, str(HERE.parents[2]))
    from biocortex_cli.bio.text import tokenize

    rows = {row["_id"]: row for row in load_corpus()}
    shares = []
    for n, question in enumerate(QUESTIONS, 1):
        words = set(tokenize(question.text))
        seen: set[str] = set()
        for eid in question.g3:
            seen.update(tokenize(rows[eid]["title"] + "\n" + rows[eid]["text"]))
        share = len(words & seen) / len(words) if words else 0.0
        shares.append(share)
        flag = "  > 0.6" if share > 0.6 else ""
        print(f"k{n:03d} {share:.2f} {question.category:12} {sorted(words & seen)}{flag}")
    print(f"questions {len(shares)}  median {statistics.median(shares):.2f}  "
          f"mean {statistics.mean(shares):.2f}  max {max(shares):.2f}  "
          f"above 0.6: {sum(s > 0.6 for s in shares)}")


def review() -> None:
    rows = {row["_id"]: row for row in load_corpus()}
    for n, question in enumerate(QUESTIONS, 1):
        print(f"k{n:03d} [{question.category}] {question.text}")
        for eid in question.g3:
            print(f"    3 {eid}: {rows[eid]['metadata']['task']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write into")
    parser.add_argument("--overlap", action="store_true", help="print the wording check")
    parser.add_argument("--review", action="store_true", help="print questions beside answers")
    args = parser.parse_args(argv)
    if args.overlap:
        overlap()
    elif args.review:
        review()
    else:
        write(args.out)


if __name__ == "__main__":
    main()
