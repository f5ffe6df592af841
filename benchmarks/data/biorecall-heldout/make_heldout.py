#!/usr/bin/env python3
"""The held-out recall questions of biorecall-heldout and their judgements, as data.

Run it to write ``queries.jsonl`` and ``qrels.tsv`` beside this file (or into ``--out DIR``);
the output is byte-identical on every run. ``--overlap`` prints, for every question, the share
of its distinct content tokens (``biocortex_cli.bio.text.tokenize``) found among the tokens of
its grade-3 episodes (task + plan + result + lessons), and the median, mean and max.
``--review`` prints every question beside the tasks of its grade-3 episodes.

Judgements (README.md): grade 3 = the episode(s) the question is about; grade 2 = the same
analysis on the same dataset, or the same failure elsewhere in the family; grade 1 = the rest of
the family, plus the few closely related episodes of other families listed per question.
Writing the files needs only the standard library; ``--overlap`` imports biocortex.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus.jsonl"
CATEGORIES = ("lay", "synonym", "alias", "abbreviation", "inflection")


def family(episode_id: str) -> str:
    return episode_id.rsplit("-", 1)[0]


# (id, category, family, text, grade 3, grade 2, extra grade 1 in other families).
# Grades 3 and 2 are episode numbers within the family; every other episode of the family is
# grade 1. The extra grade-1 ids are full episode ids of other families.
QUESTIONS: list[tuple[str, str, str, str, str, str, tuple[str, ...]]] = [
    # sc-doublets
    ("h001", "lay", "sc-doublets",
     "mouse embryo brain nuclei where the tool's own cut-off missed most droplets that held two cells",
     "06", "07", ()),
    ("h002", "lay", "sc-doublets",
     "merging every patient's cells before looking for two-cell droplets threw out a real monocyte "
     "subgroup in the lung tumour samples",
     "03", "09 11", ()),
    ("h003", "synonym", "sc-doublets",
     "T cell and monocyte collisions that only showed up in chromatin accessibility of the paired "
     "RNA+ATAC blood data",
     "04 05", "", ("atac-qc-05", "atac-qc-08")),
    # sc-ambient
    ("h004", "lay", "sc-ambient",
     "cleaning free-floating transcripts out of donor brain samples wiped a myelin gene from the very "
     "cells that make it",
     "04", "05", ()),
    ("h005", "lay", "sc-ambient",
     "background RNA removal took nearly a day per sample without a graphics card in the coronavirus "
     "blood cohort",
     "03", "08", ()),
    ("h006", "alias", "sc-ambient",
     "Tamm-Horsfall protein transcripts leaking into every cluster of the renal single-nucleus data",
     "02 07", "", ()),
    # sc-qc
    ("h007", "lay", "sc-qc",
     "one flat mito-reads limit threw out almost half of the heart muscle cells in the ventricle nuclei",
     "01", "02 03", ()),
    ("h008", "synonym", "sc-qc",
     "knee-plot threshold too permissive, so background-only droplets from dead epithelial cells "
     "became a spurious cluster in bowel tumours",
     "06", "07", ()),
    ("h009", "abbreviation", "sc-qc",
     "median absolute deviation cut-offs for regenerating livers after two-thirds hepatectomy",
     "04", "03", ()),
    # sc-integration
    ("h010", "lay", "sc-integration",
     "after lining up samples from three hospitals, the sick-only macrophages melted into their "
     "healthy look-alikes in Crohn's gut biopsies",
     "04", "05 10 08", ()),
    ("h011", "abbreviation", "sc-integration",
     "SLE blood processed over six days: the joint embedding swallowed the IFN-high monocytes",
     "08", "07 04", ()),
    ("h012", "synonym", "sc-integration",
     "10x reagent version (v2 vs v3) still separating cells after correction in the multi-study "
     "pulmonary atlas",
     "02", "01 03 11", ()),
    # sc-annotation
    ("h013", "lay", "sc-annotation",
     "automatic labelling against an atlas called the cancerous pigment cells fibroblasts because the "
     "atlas had no tumour cells",
     "03", "04 05", ("spatial-deconv-07",)),
    ("h014", "inflection", "sc-annotation",
     "leukemia marrow at diagnosis: three supposed subtypes were really dividing and stressed cells",
     "06", "05", ()),
    ("h015", "abbreviation", "sc-annotation",
     "mucosal-associated invariant T cells found by subclustering the chimeric antigen receptor trial "
     "blood",
     "09", "01 02", ()),
    # sc-de
    ("h016", "synonym", "sc-de",
     "rank-sum testing on individual nuclei of dementia brains flagged thousands of genes",
     "04", "03 05 02", ()),
    ("h017", "lay", "sc-de",
     "scarred mouse lungs: too few cells per animal in rare populations, so a single mouse drove the "
     "results",
     "07", "08", ()),
    ("h018", "alias", "sc-de",
     "KIM-1 induction in renal organoid tubule cells exposed to platinum chemotherapy",
     "06", "", ()),
    # sc-trajectory
    ("h019", "inflection", "sc-trajectory",
     "hematopoietic stem and progenitor cells from umbilical cord: the inferred differentiation "
     "direction came out reversed",
     "02", "01 08", ()),
    ("h020", "alias", "sc-trajectory",
     "TCF-1-positive stem-like exhausted CD8 cells ended up at the end of pseudotime, not the start",
     "05", "06", ()),
    ("h021", "abbreviation", "sc-trajectory",
     "endocrine fate probabilities in the embryonic day 15.5 mouse pancreas",
     "03 04", "", ()),
    # sc-ccc
    ("h022", "lay", "sc-ccc",
     "predicted crosstalk in fibrotic lungs mostly tracked how common each cell type was",
     "03", "04", ()),
    ("h023", "alias", "sc-ccc",
     "oncostatin M pathway from myeloid cells to fibroblast-like cells in the inflamed colon",
     "05 06", "", ()),
    ("h024", "abbreviation", "sc-ccc",
     "interaction predictions flipped depending on the curated database in the triple-negative breast "
     "cancer microenvironment",
     "02", "01 07", ()),
    # multiome
    ("h025", "lay", "multiome",
     "only about a fifth of cells could be matched between the gene expression and open-chromatin "
     "halves of the joint assay",
     "02 07", "", ()),
    ("h026", "synonym", "multiome",
     "enhancer-gene links biased by base composition without a matched background in heart muscle "
     "differentiation from stem cells",
     "06", "05", ()),
    ("h027", "inflection", "multiome",
     "regulatory links and NF-kB motif activity in ischemic kidneys profiled with paired RNA and "
     "chromatin",
     "03 04", "07", ()),
    # perturbseq
    ("h028", "lay", "perturbseq",
     "neurons that got the guide but never lost the targeted transcript hid the effect of the top "
     "autism gene",
     "05", "06 07", ()),
    ("h029", "synonym", "perturbseq",
     "cells seemed to carry two or more sgRNAs because a tiny count threshold picked up free-floating "
     "guide transcripts",
     "03 07", "", ()),
    ("h030", "alias", "perturbseq",
     "SCL and GATA-1 knockdowns in the erythroleukemia line screened with a single-cell readout",
     "01 02", "", ()),
    # bulk-quant
    ("h031", "lay", "bulk-quant",
     "most reads were not counted because we told the counter the library came from the opposite strand",
     "01 08", "02 09", ()),
    ("h032", "abbreviation", "bulk-quant",
     "formalin-fixed paraffin-embedded colon biopsies full of ribosomal reads with strong 3-prime bias",
     "05 06", "", ("somatic-01",)),
    ("h033", "synonym", "bulk-quant",
     "pressure-overload murine hearts: read orientation for featureCounts taken on trust from the "
     "submission form",
     "08", "07 09 01", ("bulk-de-06", "bulk-de-07")),
    # bulk-de
    ("h034", "lay", "bulk-de",
     "a mislabelled tube: a female-only transcript turned up in a man's activated lymphocytes",
     "03", "02", ()),
    ("h035", "synonym", "bulk-de",
     "treatment perfectly aliased with flow-cell run in the endotoxin-stimulated macrophage time series",
     "09", "08 05", ()),
    ("h036", "alias", "bulk-de",
     "ERα-null breast cancer cells where every treated sample sat on its own sequencing run",
     "05", "04 11 09", ("gsea-05", "gsea-06")),
    # gsea
    ("h037", "synonym", "gsea",
     "hypergeometric enrichment used all human genes as the reference set, so organ-specific "
     "categories flooded the list",
     "02 08", "", ()),
    ("h038", "lay", "gsea",
     "switching from stable gene identifiers to readable names quietly dropped about a quarter of the "
     "list in the estrogen receptor deletion work",
     "05", "06", ("bulk-de-04", "bulk-de-05", "bulk-de-11")),
    ("h039", "inflection", "gsea",
     "aging murine kidneys: which immune hallmark ranked first in the preranked analysis",
     "07", "08", ()),
    # methylation
    ("h040", "inflection", "methylation",
     "incomplete bisulphite treatment made a couple of bowel cancer libraries appear over-methylated",
     "02", "01 07", ()),
    ("h041", "lay", "methylation",
     "cigarette users' blood DNA marks: hits came from differing white-cell make-up",
     "04", "03", ()),
    ("h042", "abbreviation", "methylation",
     "differentially methylated regions from reduced representation bisulfite sequencing of old versus "
     "young mouse liver",
     "05 06", "", ()),
    # splicing
    ("h043", "alias", "splicing",
     "SCG10 pseudoexon missed by the annotation-dependent event caller in motor neurons",
     "05", "06 07", ()),
    ("h044", "alias", "splicing",
     "splicing in chronic lymphocytic leukemia carrying the SAP155 hotspot mutation",
     "01 02", "", ()),
    ("h045", "lay", "splicing",
     "splicing caller aborted because clipped reads were no longer one uniform size, in the liver "
     "cancer cell line knockdown",
     "03", "04", ()),
    # atac-qc
    ("h046", "synonym", "atac-qc",
     "promoter signal-to-noise at floor level because coordinates mixed hg19 and hg38 references",
     "02 07", "03", ("germline-07",)),
    ("h047", "lay", "atac-qc",
     "mouse memory-centre brain nuclei whose DNA was chopped too aggressively by the enzyme, so most "
     "fragments were nucleosome-sized",
     "06", "", ()),
    ("h048", "abbreviation", "atac-qc",
     "single-nucleus ATAC of T2D pancreatic islets: fraction of reads in peaks and fragments per nucleus",
     "04 05 09", "", ()),
    # chip
    ("h049", "lay", "chip",
     "after the protein was destroyed the whole signal dropped, but default scaling hid it and nothing "
     "came out different",
     "04 06", "", ()),
    ("h050", "synonym", "chip",
     "Polycomb-silenced chromatin shredded into tiny islands by sharp-peak settings in the embryonic "
     "stem cell knockout",
     "02", "03 04", ()),
    ("h051", "alias", "chip",
     "c-Myc occupancy in the tetracycline-switchable B cell line at two expression levels",
     "07 08", "", ()),
    # crispr-mageck
    ("h052", "alias", "crispr-mageck",
     "AMG 510: which gene losses made the G12C lung cancer line more sensitive",
     "01 02", "", ()),
    ("h053", "lay", "crispr-mageck",
     "false hits from Cas9 cuts piling up in extra-copy DNA stretches of the blood cancer lines",
     "09", "10", ()),
    ("h054", "abbreviation", "crispr-mageck",
     "poly(ADP-ribose) polymerase inhibitor sensitivity screen in retinal pigment epithelial cells",
     "03 04 11", "", ()),
    # crispr-edit
    ("h055", "alias", "crispr-edit",
     "CD279 disruption with Cas9 protein complexes: Sanger-based efficiency overestimated because "
     "kilobase-scale losses were invisible",
     "03", "02", ()),
    ("h056", "lay", "crispr-edit",
     "adding a green glowing tag to a nuclear envelope protein in reprogrammed stem cells mostly "
     "produced messy repairs",
     "04", "05", ()),
    # gwas
    ("h057", "synonym", "gwas",
     "population stratification not soaked up by four principal components in the diabetes "
     "association scan",
     "02", "01 09 07", ()),
    ("h058", "lay", "gwas",
     "family members left in the bad-cholesterol association study pushed up the test statistics",
     "04", "03 10", ()),
    ("h059", "alias", "gwas",
     "apolipoprotein E4 hit when dementia in a parent stands in for diagnosis",
     "05 06", "", ()),
    # finemap
    ("h060", "synonym", "finemap",
     "out-of-sample SNP correlation matrix disagreed with our cohort, so causal-variant sets multiplied "
     "and the top SNP kept changing",
     "02 06", "01 05", ()),
    ("h061", "abbreviation", "finemap",
     "posterior for two distinct causal variants was high because the expression QTL came from another "
     "tissue, inflammatory bowel disease",
     "04", "03", ()),
    # germline
    ("h062", "synonym", "germline",
     "variant recalibration model could not be trained on a dozen exomes from an inbred family",
     "03", "04", ()),
    ("h063", "alias", "germline",
     "Nav1.1 new mutation found in the child with a Dravet-type seizure disorder, parents sequenced too",
     "01 02", "", ()),
    ("h064", "lay", "germline",
     "inherited tumour-risk gene test: targets taken from the previous human reference left holes in "
     "the calls",
     "07", "08", ("atac-qc-02", "atac-qc-07")),
    # somatic
    ("h065", "lay", "somatic",
     "formalin damage produced lots of fake C-to-T changes in archived bowel cancer blocks",
     "01", "02", ("bulk-quant-05", "bulk-quant-06")),
    ("h066", "synonym", "somatic",
     "leukemic cells in the skin-punch germline control, so genuine tumour mutations were thrown away "
     "as inherited",
     "05", "06", ()),
    ("h067", "abbreviation", "somatic",
     "EGFR gatekeeper mutation in circulating cell-free DNA read with unique molecular identifiers",
     "07 08", "", ()),
    # prot-dda
    ("h068", "lay", "prot-dda",
     "top hits were skin and hair proteins plus the digestion enzyme because no contaminant list was "
     "searched",
     "02 06", "01 07 05", ()),
    ("h069", "abbreviation", "prot-dda",
     "amyotrophic lateral sclerosis spinal fluid: IDs borrowed between one-hour and two-hour LC runs",
     "04", "03", ()),
    ("h070", "alias", "prot-dda",
     "which partners such as HAUSP and Wip1 came out of the tagged tumour suppressor pull-down",
     "05", "06", ()),
    # prot-dia
    ("h071", "lay", "prot-dia",
     "plasma dominated by a handful of very abundant proteins, so the rare biomarkers never showed up",
     "02", "01 07", ()),
    ("h072", "abbreviation", "prot-dia",
     "C-reactive protein and serum amyloid A tracking severity in patients with septic shock",
     "01 07", "02", ()),
    ("h073", "synonym", "prot-dia",
     "spiking the search space with sequences from another species revealed the true error rate in the "
     "multiplexed single-cell runs",
     "05", "06", ()),
    # prot-ptm
    ("h074", "alias", "prot-ptm",
     "phosphoproteome of leukemia cells treated with ASP2215, STAT5 tyrosine sites",
     "05 06", "", ()),
    ("h075", "lay", "prot-ptm",
     "phosphate positions hopping between neighbouring serines because sites were never filtered for "
     "placement confidence, insulin-treated fat cells",
     "04", "03", ()),
    # spatial-deconv
    ("h076", "lay", "spatial-deconv",
     "heart muscle cells seemed missing everywhere when nucleus data were mapped onto the heart attack "
     "tissue spots",
     "04", "03", ()),
    ("h077", "abbreviation", "spatial-deconv",
     "cell-type proportions in 8-micron bins of bowel cancer were confidently off because CAFs had no "
     "reference profile",
     "07", "08", ("sc-annotation-03", "sc-annotation-05")),
    ("h078", "alias", "spatial-deconv",
     "CD21-rich B-cell zones in nodal sections: did the spot mixture estimates agree with the microscopy",
     "01 02", "", ()),
    # spatial-domains
    ("h079", "alias", "spatial-domains",
     "spatialLIBD twelve-slice cortex: clusters followed the slides rather than the layers",
     "02", "01 07", ()),
    ("h080", "lay", "spatial-domains",
     "the zone around the liver's central veins got cut into five unstable stripes because we asked "
     "for too many regions",
     "04", "03", ()),
    ("h081", "inflection", "spatial-domains",
     "tumor margin of a primary liver cancer: neighborhood enrichment of clusters",
     "06", "05", ()),
    # spatial-imaging
    ("h082", "lay", "spatial-imaging",
     "cell outlines drawn too wide around each nucleus made cancer cells look like they expressed an "
     "immune marker",
     "01 06", "02 05", ()),
    ("h083", "alias", "spatial-imaging",
     "large oxytocin and vasopressin neurons chopped into two pieces in the hypothalamus imaging run",
     "04", "03", ()),
    # img-seg
    ("h084", "lay", "img-seg",
     "calcium recordings in mouse visual cortex: neurons sliding out of the focal plane were mistaken "
     "for quiet ones",
     "07", "06", ()),
    ("h085", "synonym", "img-seg",
     "color variability across digitizing runs made the star-convex model skip lightly stained nuclei",
     "04", "03", ()),
    ("h086", "lay", "img-seg",
     "nucleus counts in mini-gut slices came out 1.7 times too high since each nucleus got cut in two",
     "01", "02 08", ()),
    # img-hcs
    ("h087", "lay", "img-hcs",
     "wells at the plate border behaved differently because they dried out; half the hits sat there",
     "04 07", "", ()),
    ("h088", "synonym", "img-hcs",
     "image-based fingerprints sorted by instrument rather than treatment in the bone-tumour line drug "
     "screen",
     "03", "01 02", ()),
    ("h089", "inflection", "img-hcs",
     "normalizing deep-learning embeddings against vehicle wells in the hepatotoxicity imaging of 400 "
     "drugs",
     "06", "07", ()),
    # img-hist
    ("h090", "synonym", "img-hist",
     "mismatch-repair deficiency prediction from histology looked great until outside hospitals, since "
     "patches of one person sat on both sides of the split",
     "02", "01 07", ()),
    ("h091", "inflection", "img-hist",
     "prostate grading network picked up the scanning center rather than tumor grade",
     "04", "03 07", ()),
    ("h092", "abbreviation", "img-hist",
     "attention multiple-instance learning for TIL grading in triple-negative breast cancer whole slides",
     "05", "06", ()),
    # qsar
    ("h093", "alias", "qsar",
     "Kv11.1 channel blocker model looked great on a random split but failed on new chemotypes",
     "03", "04 08", ()),
    ("h094", "lay", "qsar",
     "malaria parasite growth model: close chemical cousins on both sides of the split made it look "
     "far better than it was",
     "08", "07 03", ()),
    ("h095", "synonym", "qsar",
     "heterogeneous assay endpoints and unit mix-ups gave training labels off by a thousandfold",
     "06", "05", ()),
    # docking
    ("h096", "alias", "docking",
     "nsp5 / 3CLpro pocket: how many purchased compounds were confirmed",
     "03 04", "", ()),
    ("h097", "synonym", "docking",
     "ligand-free KRAS conformation used as receptor, cryptic site shut, native pose not reproduced "
     "within 5 angstroms",
     "02", "01 07", ()),
    ("h098", "lay", "docking",
     "molecules docked with the wrong charge form into the dopamine receptor; none of the bought hits "
     "worked",
     "05", "06", ()),
    # chembl
    ("h099", "inflection", "chembl",
     "JAK inhibitor set: charged forms and counter-ions duplicated molecules until we started "
     "standardizing",
     "03", "02", ()),
    ("h100", "abbreviation", "chembl",
     "epidermal growth factor receptor ligands: how many unique molecules were left once replicate "
     "measurements were collapsed",
     "01", "06", ("qsar-01", "qsar-02")),
    # cytometry
    ("h101", "synonym", "cytometry",
     "mass cytometry of septic blood: clusters split by run date until a reference sample aligned the "
     "days",
     "02", "01", ()),
    ("h102", "lay", "cytometry",
     "fluorescence bleeding between neighbouring dyes invented a two-marker subset of killer cells in "
     "the tumour immune panel",
     "03", "04", ()),
    # alphafold
    ("h103", "alias", "alphafold",
     "structure prediction of TLS (translocated in liposarcoma): most residues came out low confidence",
     "05 06", "", ()),
    ("h104", "alias", "alphafold",
     "Kelch-like ECH-associated protein 1 bound to the Neh2 degron of its transcription factor partner",
     "03 04 09", "", ()),
    ("h105", "lay", "alphafold",
     "the AI-predicted antibody footprint on the breast cancer growth receptor disagreed with the "
     "mutation experiments",
     "07 08", "", ()),
    # cryoem
    ("h106", "alias", "cryoem",
     "P-glycoprotein particles lying flat on the grid in one orientation, map stretched in one direction",
     "02", "01", ("md-03", "md-04")),
    ("h107", "lay", "cryoem",
     "ribosome map blurred at a floppy arm until particles were sorted by shape",
     "06", "03", ()),
    # md
    ("h108", "lay", "md",
     "simulation exploded within picoseconds because the covalent drug's force-field terms were broken",
     "02", "01", ()),
    ("h109", "alias", "md",
     "MDR1 efflux pump in a lipid bilayer: one long trajectory hinted at an opening that repeats did "
     "not confirm",
     "04", "03", ("cryoem-01", "cryoem-02")),
    # amplicon
    ("h110", "lay", "amplicon",
     "paired reads trimmed so short they no longer joined, root-zone soil drought amplicons",
     "03", "04 07", ()),
    ("h111", "synonym", "amplicon",
     "reagent-derived bacteria swamping airway wash microbiome profiles of mice given antibiotics, with "
     "no extraction controls",
     "06", "05", ()),
    ("h112", "abbreviation", "amplicon",
     "amplicon sequence variants from inflammatory bowel disease stool: butyrate producer depleted",
     "01 02", "", ()),
    # shotgun
    ("h113", "lay", "shotgun",
     "our own species' sequences never stripped out first, so monkey-like microbes turned up in the "
     "profiles",
     "02 04", "01 07 03", ()),
    ("h114", "synonym", "shotgun",
     "k-mer classifier with no confidence cutoff reported hundreds of phantom species in cancer "
     "transcriptomes screened for microbes",
     "03", "04", ()),
    ("h115", "synonym", "shotgun",
     "sewage sampled weekly for a year: antimicrobial resistance genes climbing in the cold months",
     "05 06", "", ()),
    # assembly
    ("h116", "synonym", "assembly",
     "allelic duplicates left in the HiFi assembly of the wild tomato made the genome about a quarter "
     "too big",
     "02", "01 07", ()),
    ("h117", "lay", "assembly",
     "microbial DNA sneaking into our fish reference, carrying supposedly new genes",
     "04", "03", ()),
    ("h118", "synonym", "assembly",
     "where the carbapenem-resistance gene sat, chromosome or mobile element, in the hospital "
     "Klebsiella genomes",
     "05 06", "", ()),
    # mags
    ("h119", "lay", "mags",
     "putting every sample's reads into one joint assembly fused related strains into chimeras",
     "02 05", "01 03", ()),
    ("h120", "abbreviation", "mags",
     "MAGs from the biogas reactor using ONT long reads plus short reads",
     "04", "", ()),
    # repertoire
    ("h121", "lay", "repertoire",
     "borrowed the clone-grouping cutoff from another study and got giant fake antibody families in "
     "COVID donors",
     "03", "02", ()),
    ("h122", "inflection", "repertoire",
     "coeliac patients' gluten-reactive helper lymphocytes: recurring receptor sequences between "
     "individuals",
     "04", "", ()),
    # qpcr
    ("h123", "synonym", "qpcr",
     "housekeeping control responded to low oxygen itself, shrinking the apparent rise of the targets",
     "01", "02", ("bulk-de-01", "bulk-de-10", "gsea-01", "gsea-02", "bulk-quant-01", "bulk-quant-02")),
    ("h124", "abbreviation", "qpcr",
     "dextran sulfate sodium colitis in mice: interleukin-6 by reverse-transcription qPCR",
     "04", "", ()),
]


def load_corpus(path: Path = CORPUS) -> dict[str, dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return {record["_id"]: record for record in records}


def judgements(corpus: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Every question's graded episodes: {query id: {episode id: grade}}, checked."""
    by_family: dict[str, list[str]] = {}
    for episode_id in corpus:
        by_family.setdefault(family(episode_id), []).append(episode_id)
    out: dict[str, dict[str, int]] = {}
    for qid, category, fam, _text, g3, g2, g1x in QUESTIONS:
        if qid in out:
            raise ValueError(f"duplicate question id {qid}")
        if category not in CATEGORIES:
            raise ValueError(f"{qid}: category {category!r}")
        if fam not in by_family:
            raise ValueError(f"{qid}: no family {fam!r}")
        three = [f"{fam}-{n}" for n in g3.split()]
        two = [f"{fam}-{n}" for n in g2.split()]
        if not three:
            raise ValueError(f"{qid}: no grade-3 episode")
        grades: dict[str, int] = {}
        for episode_id in by_family[fam]:
            grades[episode_id] = 1
        for episode_id in two:
            grades[episode_id] = 2
        for episode_id in three:
            grades[episode_id] = 3
        for episode_id in g1x:
            if family(episode_id) == fam:
                raise ValueError(f"{qid}: extra grade 1 {episode_id} is in the family")
            grades[episode_id] = 1
        if len(set(three) | set(two)) != len(three) + len(two):
            raise ValueError(f"{qid}: an episode is both grade 3 and grade 2")
        missing = [e for e in grades if e not in corpus]
        if missing:
            raise ValueError(f"{qid}: not in the corpus: {missing}")
        out[qid] = grades
    return out


def render(corpus: dict[str, dict[str, Any]]) -> tuple[str, str]:
    """The text of queries.jsonl and qrels.tsv."""
    grades = judgements(corpus)
    queries = []
    for qid, category, fam, text, *_ in sorted(QUESTIONS):
        record = {"_id": qid, "text": text, "metadata": {"category": category, "family": fam}}
        queries.append(json.dumps(record, ensure_ascii=False) + "\n")
    rows = ["query-id\tcorpus-id\tscore\n"]
    for qid in sorted(grades):
        for episode_id in sorted(grades[qid]):
            rows.append(f"{qid}\t{episode_id}\t{grades[qid][episode_id]}\n")
    return "".join(queries), "".join(rows)


def write(out_dir: Path) -> None:
    queries, qrels = render(load_corpus())
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (("queries.jsonl", queries), ("qrels.tsv", qrels)):
        with (out_dir / name).open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)


def episode_text(record: dict[str, Any]) -> str:
    meta = record["metadata"]
    return "\n".join([meta["task"], meta["plan"], meta["result"], *meta["lessons"]])


def overlap() -> None:
    """Share of each question's distinct content tokens found in its grade-3 episodes."""
    sys.path.insert(0, str(HERE.parents[2]))
    from biocortex_cli.bio.text import tokenize

    corpus = load_corpus()
    grades = judgements(corpus)
    shares = []
    for qid, category, _fam, text, *_ in QUESTIONS:
        words = set(tokenize(text))
        episode_words: set[str] = set()
        for episode_id, grade in grades[qid].items():
            if grade == 3:
                episode_words.update(tokenize(episode_text(corpus[episode_id])))
        shared = sorted(words & episode_words)
        share = len(shared) / len(words) if words else 0.0
        shares.append(share)
        flag = "  REWRITE" if share >= 0.6 else ""
        print(f"{qid}\t{category}\t{share:.2f}\t{len(shared)}/{len(words)}\t{' '.join(shared)}{flag}")
    print(f"questions {len(shares)}  median {statistics.median(shares):.3f}  "
          f"mean {statistics.fmean(shares):.3f}  max {max(shares):.3f}  "
          f"at or above 0.6: {sum(s >= 0.6 for s in shares)}")


def review() -> None:
    """Every question beside the tasks of its grade-3 episodes."""
    corpus = load_corpus()
    grades = judgements(corpus)
    for qid, category, _fam, text, *_ in QUESTIONS:
        print(f"{qid} [{category}] {text}")
        for episode_id in sorted(grades[qid]):
            if grades[qid][episode_id] == 3:
                print(f"    3 {episode_id}: {corpus[episode_id]['metadata']['task']}")
        twos = sorted(e for e, g in grades[qid].items() if g == 2)
        if twos:
            print(f"    2 {' '.join(twos)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="where to write (default: beside this file)")
    parser.add_argument("--overlap", action="store_true", help="print the wording check instead")
    parser.add_argument("--review", action="store_true", help="print questions beside grade-3 tasks")
    args = parser.parse_args(argv)
    if args.overlap:
        overlap()
    elif args.review:
        review()
    else:
        write(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
