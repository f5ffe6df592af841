"""Realistic synthetic vaults of N episodes for the benchmarks (deterministic, cached).

Each episode is composed from biology building blocks: a domain (scRNA-seq, CRISPR screens,
proteomics, ...), its tools with parameters, genes drawn with Zipf weights from a list of real
symbols, identifiers (GEO/SRA/ENA accessions, GO terms, Ensembl ids, PMIDs), numbers, cell
lines, tissues, failure modes and lessons. A long tail of rare words (built from biological
word parts and drawn with Zipf weights) gives the vocabulary the shape of real notes: a few
terms in most notes, most terms in a handful. The notes are exactly what ``biocortex episode
import`` writes: :func:`biocortex_cli.store.episodes.build_episode` completes each record
(id, entities extracted from the text) and ``render_episode`` renders it; entity notes are
written for every new entity, and everything is committed once at the end.

Vaults are cached under ``benchmarks/out/vaults/`` (git-ignored): ``synthetic-<N>-s<seed>`` and a
``.json`` stamp beside it holding the generator version and the base commit. Benchmarks that
add an episode reset the vault to that commit afterwards (and at the start of the next run).

Reproduce:
    .venv/bin/python benchmarks/synthetic.py --sizes 1000,10000,100000
    .venv/bin/python benchmarks/synthetic.py --sizes 1000 --print 2   # show two records as JSON

About 1k episodes per second on the 2-core reference machine (both cores), plus one
``git add -A`` + ``git commit`` (about a minute at 100k).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import time
from bisect import bisect
from collections.abc import Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # biocortex_cli from a checkout, if not installed
OUT = HERE / "out"
VAULTS = OUT / "vaults"
#: Bump when the generated text changes, so cached vaults are made anew.
GENERATOR_VERSION = 1
DEFAULT_SEED = 7
START = dt.datetime(2019, 1, 7, 9, 0, tzinfo=dt.timezone.utc)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "biocortex bench",
    "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "biocortex bench",
    "GIT_COMMITTER_EMAIL": "bench@localhost",
    "GIT_CONFIG_NOSYSTEM": "1",
}

# --- building blocks -------------------------------------------------------------------------

GENES = """
TP53 KRAS EGFR BRAF MYC PTEN PIK3CA APC CDKN2A RB1 BRCA1 BRCA2 ATM ERBB2 NRAS IDH1 IDH2 SMAD4
CTNNB1 NOTCH1 JAK2 STAT3 FLT3 NPM1 DNMT3A TET2 ASXL1 RUNX1 CEBPA KIT PDGFRA ALK ROS1 MET RET
FGFR1 FGFR2 FGFR3 MTOR AKT1 TSC1 TSC2 NF1 NF2 VHL KEAP1 STK11 SMARCA4 ARID1A KMT2D CREBBP EP300
CD19 CD3E CD4 CD8A CD14 FCGR3A MS4A1 NKG7 GNLY LYZ CD68 ITGAX PTPRC CD34 PROM1 EPCAM KRT18 KRT8
VIM COL1A1 COL3A1 ACTA2 PECAM1 CDH5 ALB APOA1 TTR INS GCG SST PPY MKI67 TOP2A PCNA CCNB1 CDK1
GAPDH ACTB B2M HBB HBA1 MALAT1 XIST NEAT1 FOXP3 IL2RA CTLA4 PDCD1 LAG3 HAVCR2 TIGIT TOX TCF7
IL7R CCR7 SELL GZMB PRF1 IFNG TNF IL6 IL1B CXCL8 CXCL10 CCL2 SPP1 APOE TREM2 C1QA C1QB AIF1
CX3CR1 P2RY12 TMEM119 GFAP AQP4 OLIG2 MBP PLP1 SOX2 SOX9 SOX10 PAX6 NES RBFOX3 SNAP25 SYP GAD1
SLC17A7 TH DDC PTPN11 SOS1 RAF1 MAP2K1 MAPK1 MAPK3 SHOC2 NF2 YAP1 TAZ TEAD1 LATS1 LATS2 HIF1A
EPAS1 VEGFA KDR ESR1 PGR AR FOXA1 GATA3 KRT5 KRT14 TP63 CDH1 CDH2 SNAI1 TWIST1 ZEB1 ZEB2 CD36
PPARA PPARG SREBF1 FASN SCD HMGCR LDLR PCSK9 CYP3A4 CYP2D6 ABCB1 SLC2A1 HK2 PKM LDHA IDO1 CD274
HLA-A HLA-B HLA-C HLA-DRB1 HLA-DQA1 B3GAT1 CD79A CD79B JCHAIN MZB1 XBP1 PRDM1 IRF4 BCL6 BCL2
MCL1 BAX CASP3 CASP8 PARP1 RAD51 XRCC1 POLQ MLH1 MSH2 MSH6 PMS2 POLE CHEK2 PALB2 RAD51C SPOP
ERG ETV1 NKX3-1 KLK3 FOLH1 SYK BTK PLCG2 CARD11 MYD88 CD79B NOTCH2 TNFAIP3 CIITA B2M CALR MPL
SF3B1 SRSF2 U2AF1 ZRSR2 EZH2 SUZ12 EED BAP1 PBRM1 SETD2 KDM5C KDM6A UTX ATRX DAXX H3F3A HIST1H3B
CIC FUBP1 TERT ATRX MGMT PDGFRB CSF1R FLT1 ANGPT2 TEK NRP1 SEMA3A ROBO1 SLIT2 WNT5A LGR5 AXIN2
""".split()
# keep order (Zipf rank), drop repeats
GENES = list(dict.fromkeys(GENES))

ORGANISMS = [
    "human",
    "mouse",
    "zebrafish",
    "Drosophila",
    "rat",
    "yeast",
    "E. coli",
    "Arabidopsis",
    "macaque",
    "C. elegans",
]
TISSUES = [
    "PBMC",
    "bone marrow",
    "liver",
    "lung",
    "colon",
    "kidney",
    "cortex",
    "hippocampus",
    "retina",
    "pancreatic islets",
    "skin",
    "tumour",
    "lymph node",
    "spleen",
    "heart",
    "breast",
    "prostate",
    "whole blood",
    "plasma",
    "CSF",
    "organoids",
    "iPSC-derived neurons",
    "adipose tissue",
    "muscle",
    "placenta",
    "thymus",
    "tonsil",
    "synovium",
]
CELL_LINES = [
    "HeLa",
    "HEK293T",
    "K562",
    "A549",
    "MCF7",
    "NCI-H358",
    "HCT116",
    "Jurkat",
    "THP-1",
    "U2OS",
    "HepG2",
    "SH-SY5Y",
    "MDA-MB-231",
    "PC-3",
    "LNCaP",
    "RPE1",
    "iPSC line WTC11",
    "Caco-2",
    "SW480",
    "PANC-1",
    "MIA PaCa-2",
    "U87",
    "A375",
    "OCI-AML3",
    "MOLM-13",
]
CONDITIONS = [
    "high-fat diet",
    "LPS stimulation",
    "hypoxia",
    "sotorasib",
    "osimertinib",
    "cisplatin",
    "DMSO control",
    "interferon gamma",
    "TGF-beta",
    "dexamethasone",
    "knockout",
    "knockdown",
    "overexpression",
    "ageing",
    "infection",
    "anti-PD-1",
    "doxorubicin",
    "rapamycin",
    "serum starvation",
    "heat shock",
    "co-culture",
]
WORD_PARTS = (
    "neuro cardio hepato nephro myo lipo osteo chondro hemato lympho immuno onco angio fibro "
    "adipo endo epi meso ecto gluco glyco proteo chromo nucleo cyto mito phago macro micro "
    "poly mono oligo hetero homo auto para peri trans inter intra retro pro pre post hyper hypo",
    "blast cyte gen kin lys phil plas stat trop zym som plast morph phor phyl pod sarc derm "
    "thel crin gluc lip nucl chrom mit phag vir bact fung sept path cort medull ventr",
    "ase in osis itis genesis lysis plasia oma ome ogen ocyte some ide ine ate al ic oid "
    "emia uria pathy trophy tropin ectomy ation ity",
)
ASSAYS = {
    "scRNA-seq": ["10x Chromium 3' v3", "10x Multiome", "Smart-seq2", "CITE-seq", "Parse Evercode"],
    "scATAC-seq": ["10x Multiome", "10x scATAC", "sci-ATAC-seq"],
    "bulk RNA-seq": ["poly-A RNA-seq", "total RNA-seq", "3' QuantSeq"],
    "ChIP-seq": ["ChIP-seq", "CUT&RUN", "CUT&Tag"],
    "ATAC-seq": ["ATAC-seq", "Omni-ATAC"],
    "CRISPR-screen": ["Brunello pooled screen", "GeCKO v2 screen", "CRISPRi screen", "Perturb-seq"],
    "proteomics": ["label-free DDA", "DIA", "TMT 16-plex", "phosphoproteomics"],
    "metabolomics": ["untargeted LC-MS", "targeted LC-MS/MS", "GC-MS", "NMR"],
    "variant-calling": ["whole-genome sequencing", "whole-exome sequencing", "targeted panel"],
    "GWAS": ["genotyping array", "imputed GWAS", "UK Biobank summary statistics"],
    "spatial-transcriptomics": ["Visium", "Xenium", "MERFISH", "Slide-seqV2", "CosMx"],
    "metagenomics": ["shotgun metagenomics", "16S rRNA amplicon", "metatranscriptomics"],
    "cheminformatics": ["ChEMBL activity set", "virtual screen", "HTS hit list"],
    "structural-biology": ["cryo-EM", "AlphaFold2 models", "X-ray crystallography", "HDX-MS"],
    "flow-cytometry": ["spectral flow cytometry", "CyTOF", "FACS sorting"],
    "imaging": ["Cell Painting", "confocal time-lapse", "H&E whole-slide images", "light-sheet"],
    "long-read": ["PacBio HiFi", "Oxford Nanopore", "Iso-Seq", "direct RNA nanopore"],
    "methylation": ["EPIC array", "WGBS", "RRBS", "nanopore 5mC calling"],
    "Hi-C": ["in situ Hi-C", "Micro-C", "HiChIP"],
    "phylogenetics": ["core-genome alignment", "SARS-CoV-2 genomes", "16S phylogeny"],
    "population-genetics": ["1000 Genomes", "gnomAD", "ancient DNA"],
    "single-cell-immune-repertoire": ["10x VDJ", "TCR-seq", "BCR-seq"],
}
TOOLS: dict[str, list[tuple[str, list[str]]]] = {
    "scRNA-seq": [
        ("Cell Ranger", ["--expect-cells {k}000", "--include-introns"]),
        ("Scanpy", ["n_top_genes={h}000", "resolution=0.{d}", "n_pcs={t}0"]),
        ("Seurat", ["SCTransform", "FindClusters resolution 0.{d}", "dims 1:{t}0"]),
        ("scDblFinder", ["dbr=0.0{d}", "per sample"]),
        ("DoubletFinder", ["pK=0.0{d}"]),
        ("SoupX", ["rho 0.{d}"]),
        ("CellBender", ["--fpr 0.0{d}", "--epochs {t}00"]),
        ("Harmony", ["theta={d}", "lambda=1"]),
        ("scVI", ["n_latent={t}0", "{h}00 epochs"]),
        ("CellTypist", ["Immune_All_Low model", "majority voting"]),
        ("Azimuth", ["PBMC reference"]),
        ("scran", ["quickCluster", "computeSumFactors"]),
        ("Monocle3", ["learn_graph", "order_cells"]),
        ("scVelo", ["dynamical model"]),
    ],
    "scATAC-seq": [
        ("ArchR", ["TileMatrix 500 bp", "LSI iterations {d}"]),
        ("Signac", ["TF-IDF", "RunSVD"]),
        ("MACS2", ["-q 0.0{d}", "--nomodel --shift -100"]),
        ("chromVAR", ["JASPAR2020 motifs"]),
        ("SnapATAC2", ["bin size 500"]),
    ],
    "bulk RNA-seq": [
        ("STAR", ["--quantMode GeneCounts", "--twopassMode Basic"]),
        ("salmon", ["--validateMappings", "-l A"]),
        ("DESeq2", ["lfcShrink apeglm", "padj < 0.0{d}"]),
        ("edgeR", ["glmQLFit", "TMM"]),
        ("limma-voom", ["duplicateCorrelation"]),
        ("fgsea", ["{k}0000 permutations"]),
        ("featureCounts", ["-s 2", "-p"]),
        ("FastQC", []),
        ("MultiQC", []),
        ("Trim Galore", ["--length {t}"]),
    ],
    "ChIP-seq": [
        ("Bowtie2", ["--very-sensitive", "-X 700"]),
        ("MACS2", ["--broad", "-q 0.0{d}"]),
        ("deepTools", ["bamCoverage --normalizeUsing CPM", "binSize {t}"]),
        ("HOMER", ["findMotifsGenome -size 200"]),
        ("DiffBind", ["DBA_DESEQ2"]),
        ("SEACR", ["stringent", "0.0{d}"]),
        ("Picard", ["MarkDuplicates"]),
    ],
    "ATAC-seq": [
        ("Bowtie2", ["-X 2000"]),
        ("Genrich", ["-j -y -r"]),
        ("MACS2", ["--nomodel --shift -75 --extsize 150"]),
        ("ataqv", []),
        ("TOBIAS", ["footprinting"]),
        ("Picard", ["MarkDuplicates"]),
    ],
    "CRISPR-screen": [
        ("MAGeCK", ["count", "test --norm-method median", "mle"]),
        ("BAGEL2", ["BF > {d}"]),
        ("Bowtie2", ["-N 0"]),
        ("CRISPResso2", ["--quantification_window_size {t}"]),
        ("MAGeCKFlute", ["FluteMLE"]),
        ("Python", ["pandas"]),
    ],
    "proteomics": [
        ("MaxQuant", ["LFQ", "match-between-runs", "1% FDR"]),
        ("Perseus", ["imputation width 0.3"]),
        ("DIA-NN", ["--qvalue 0.01", "library-free"]),
        ("FragPipe", ["MSFragger", "TMT-16"]),
        ("MSstats", ["dataProcess"]),
        ("limma", ["eBayes"]),
        ("Spectronaut", ["directDIA"]),
    ],
    "metabolomics": [
        ("XCMS", ["centWave ppm={t}", "peakwidth c(5,{t})"]),
        ("MS-DIAL", []),
        ("MetaboAnalyst", ["pareto scaling"]),
        ("SIRIUS", ["CSI:FingerID"]),
        ("GNPS", ["molecular networking"]),
        ("MZmine", ["ADAP"]),
    ],
    "variant-calling": [
        ("BWA-MEM", ["-M", "-K 100000000"]),
        ("GATK", ["HaplotypeCaller -ERC GVCF", "VQSR", "BQSR"]),
        ("DeepVariant", ["--model_type WGS"]),
        ("bcftools", ["norm -m -any", "filter QUAL>{t}"]),
        ("VEP", ["--everything"]),
        ("Mutect2", ["--panel-of-normals"]),
        ("Manta", []),
        ("samtools", ["flagstat", "depth"]),
        ("mosdepth", ["--by {t}00"]),
    ],
    "GWAS": [
        ("PLINK", ["--maf 0.0{d}", "--geno 0.0{d}", "--hwe 1e-{d}"]),
        ("REGENIE", ["--bsize {h}00"]),
        ("LDSC", ["--h2"]),
        ("SAIGE", ["LOCO"]),
        ("FUMA", []),
        ("coloc", ["p12=1e-5"]),
        ("SuSiE", ["L={d}"]),
        ("METAL", ["SCHEME STDERR"]),
    ],
    "spatial-transcriptomics": [
        ("Space Ranger", ["--slide"]),
        ("Squidpy", ["spatial_neighbors"]),
        ("cell2location", ["N_cells_per_location={d}"]),
        ("Tangram", []),
        ("Giotto", []),
        ("BayesSpace", ["q={d}"]),
        ("Baysor", ["scale {t}"]),
    ],
    "metagenomics": [
        ("Kraken2", ["--confidence 0.{d}"]),
        ("Bracken", ["-r 150"]),
        ("MetaPhlAn4", []),
        ("HUMAnN3", []),
        ("QIIME2", ["DADA2 denoise-paired"]),
        ("MEGAHIT", []),
        ("CheckM", []),
        ("DADA2", ["truncLen {h}{t}0"]),
    ],
    "cheminformatics": [
        ("RDKit", ["Morgan radius 2", "{k}048 bits"]),
        ("ChEMBL", ["pchembl_value"]),
        ("AutoDock Vina", ["exhaustiveness {t}"]),
        ("scikit-learn", ["RandomForest n_estimators={h}00"]),
        ("Chemprop", ["{t}0 epochs"]),
        ("pandas", []),
    ],
    "structural-biology": [
        ("AlphaFold2", ["--max_template_date"]),
        ("RELION", ["3D classification K={d}"]),
        ("cryoSPARC", ["non-uniform refinement"]),
        ("PyMOL", []),
        ("ChimeraX", []),
        ("Rosetta", ["relax"]),
        ("GROMACS", ["{h}00 ns", "CHARMM36m"]),
        ("Foldseek", []),
    ],
    "flow-cytometry": [
        ("FlowJo", ["compensation"]),
        ("CATALYST", []),
        ("FlowSOM", ["xdim={t}"]),
        ("OMIQ", []),
        ("flowCore", ["arcsinh cofactor 150"]),
    ],
    "imaging": [
        ("CellProfiler", ["IdentifyPrimaryObjects"]),
        ("Cellpose", ["diameter {t}0", "cyto2"]),
        ("QuPath", []),
        ("napari", []),
        ("StarDist", ["2D_versatile_fluo"]),
        ("Fiji", ["Bio-Formats"]),
    ],
    "long-read": [
        ("minimap2", ["-ax map-hifi", "-ax splice"]),
        ("Flye", ["--nano-hq"]),
        ("hifiasm", []),
        ("Sniffles2", []),
        ("IsoQuant", []),
        ("Dorado", ["sup model"]),
        ("medaka", []),
        ("NanoPlot", []),
    ],
    "methylation": [
        ("Bismark", ["--non_directional"]),
        ("minfi", ["preprocessNoob"]),
        ("DSS", ["DMLtest smoothing"]),
        ("methylKit", []),
        ("modkit", ["pileup"]),
        ("sesame", []),
    ],
    "Hi-C": [
        ("HiC-Pro", []),
        ("Juicer", ["-s MboI"]),
        ("cooler", ["zoomify"]),
        ("HiCExplorer", []),
        ("FAN-C", []),
        ("Chromosight", []),
    ],
    "phylogenetics": [
        ("IQ-TREE", ["-m MFP", "-B 1000"]),
        ("MAFFT", ["--auto"]),
        ("RAxML-NG", []),
        ("BEAST2", ["strict clock"]),
        ("Nextstrain", []),
        ("TreeTime", []),
    ],
    "population-genetics": [
        ("ADMIXTURE", ["K={d}"]),
        ("PLINK", ["--indep-pairwise 50 5 0.2"]),
        ("smartpca", []),
        ("SHAPEIT5", []),
        ("msprime", []),
        ("vcftools", ["--weir-fst-pop"]),
    ],
    "single-cell-immune-repertoire": [
        ("Cell Ranger", ["vdj"]),
        ("scirpy", []),
        ("Immcantation", ["Change-O"]),
        ("MiXCR", []),
        ("TRUST4", []),
    ],
}
GENERIC_TOOLS = [
    ("R", []),
    ("Python", []),
    ("Snakemake", ["--cores {d}"]),
    ("Nextflow", ["nf-core", "-profile docker"]),
    ("Jupyter", []),
    ("ggplot2", []),
    ("matplotlib", []),
]
TASKS = [
    "{verb} {thing} in {assay} data from {tissue} of {organism}",
    "{verb} {thing} across {n} {tissue} samples ({assay})",
    "Why does {gene} come up in {thing} after {condition}?",
    "{verb} {thing} for the {cohort} cohort with {tool}",
    "Compare {condition} vs control: {thing} in {cell_line} cells",
    "{verb} {thing} to find regulators of {gene} and {gene2}",
    "Reproduce {thing} from {pmid} on our {assay} run",
    "Which {gene} {variant} carriers show {thing}?",
]
VERBS = [
    "Quantify",
    "Identify",
    "Call",
    "Annotate",
    "Cluster",
    "Map",
    "Estimate",
    "Remove",
    "Correct",
    "Integrate",
    "Benchmark",
    "Validate",
    "Profile",
    "Detect",
    "Characterise",
    "Re-analyse",
    "Normalise",
    "Impute",
    "Deconvolve",
    "Rank",
]
THINGS = {
    "scRNA-seq": [
        "doublets",
        "ambient RNA",
        "cell types",
        "T cell exhaustion states",
        "batch effects",
        "cell-cycle effects",
        "differentially expressed genes per cluster",
        "trajectories",
        "rare populations",
        "sample multiplexing calls",
    ],
    "scATAC-seq": ["peaks", "TF motif activity", "doublets", "gene activity scores", "cis-regulatory elements"],
    "bulk RNA-seq": [
        "differential expression",
        "splicing changes",
        "pathway enrichment",
        "batch effects",
        "outlier samples",
    ],
    "ChIP-seq": [
        "binding sites",
        "differential binding",
        "super-enhancers",
        "motif enrichment",
        "peak reproducibility",
    ],
    "ATAC-seq": ["open chromatin", "TF footprints", "differential accessibility", "nucleosome positioning"],
    "CRISPR-screen": [
        "essential genes",
        "resistance genes",
        "synthetic lethal partners",
        "guide efficiency",
        "screen hits",
    ],
    "proteomics": ["protein abundance changes", "phosphosites", "missing values", "protein complexes", "batch effects"],
    "metabolomics": ["metabolite features", "pathway changes", "annotation confidence", "drift across batches"],
    "variant-calling": [
        "germline variants",
        "somatic mutations",
        "structural variants",
        "copy-number changes",
        "coverage gaps",
    ],
    "GWAS": [
        "associated loci",
        "heritability",
        "causal variants",
        "colocalisation with eQTLs",
        "population stratification",
    ],
    "spatial-transcriptomics": [
        "spatial domains",
        "cell-type proportions per spot",
        "ligand-receptor pairs",
        "tissue niches",
    ],
    "metagenomics": ["taxonomic profiles", "functional pathways", "metagenome-assembled genomes", "contamination"],
    "cheminformatics": ["activity cliffs", "QSAR models", "docking poses", "duplicate compounds", "scaffold diversity"],
    "structural-biology": ["binding interfaces", "conformational states", "model confidence", "ligand pockets"],
    "flow-cytometry": ["immune subsets", "compensation errors", "activation markers", "rare populations"],
    "imaging": ["nuclei segmentation", "morphological profiles", "tumour-infiltrating lymphocytes", "cell tracking"],
    "long-read": ["isoforms", "structural variants", "genome assembly", "base modifications", "fusion transcripts"],
    "methylation": ["differentially methylated regions", "epigenetic age", "cell-type composition", "imprinting"],
    "Hi-C": ["TADs", "chromatin loops", "compartments", "enhancer-promoter contacts"],
    "phylogenetics": ["lineages", "molecular clock dates", "recombination", "transmission clusters"],
    "population-genetics": ["admixture proportions", "selection signals", "Fst outliers", "ancestry"],
    "single-cell-immune-repertoire": ["clonotypes", "clonal expansion", "V gene usage", "shared TCRs"],
}
PLAN_STEPS = [
    "{tool} {param} on every sample, then {tool2} {param2}",
    "filter cells with fewer than {h}00 genes and more than {t}% mitochondrial reads",
    "QC with {tool} first; drop samples with {metric} below {num}",
    "align to {genome} with {tool} ({param})",
    "normalise with {tool} and regress out {covariate}",
    "run {tool} per batch, merge, then {tool2} with {param2}",
    "use {condition} as the contrast and {covariate} as a covariate",
    "check {gene} and {gene2} as positive controls",
    "compare against {pmid} and the {db} reference",
    "split by {covariate} and repeat with {param}",
    "keep {metric} above {num} and FDR below 0.0{d}",
]
GENOMES = ["GRCh38", "GRCh37", "GRCm39", "mm10", "hg19", "T2T-CHM13", "GRCz11", "dm6", "TAIR10"]
COVARIATES = [
    "batch",
    "sex",
    "age",
    "donor",
    "sequencing depth",
    "cell cycle phase",
    "library size",
    "RIN",
    "plate",
    "lane",
    "time point",
    "BMI",
]
METRICS = [
    "mapping rate",
    "Gini index",
    "FRiP",
    "TSS enrichment",
    "duplication rate",
    "median genes per cell",
    "Q30 fraction",
    "RIN",
    "PSM count",
    "peak count",
    "coverage",
    "N50",
    "call rate",
    "ICC",
]
DBS = [
    "Ensembl 110",
    "GENCODE v44",
    "UniProt",
    "Reactome",
    "MSigDB Hallmark",
    "JASPAR2020",
    "ChEMBL 33",
    "gnomAD v4",
    "ClinVar",
    "GTEx v8",
    "Human Cell Atlas",
    "PanglaoDB",
    "KEGG",
    "GO BP",
    "STRING v12",
]
RESULTS = [
    "{metric} {num}; {n} {unit} passed QC, {n2} {thing} called at FDR < 0.0{d}",
    "{gene} up {fold}-fold and {gene2} down in {condition}; {term} was the top enriched term",
    "{n} clusters; cluster {d} was {gene}+ {cell} ({pct}% of cells)",
    "{pct}% of {unit} removed; {gene} signal no longer driven by {covariate}",
    "replicates agreed (Pearson r = 0.{dd}); {n} {thing} shared with {pmid}",
    "{tool} and {tool2} agreed on {pct}% of calls; disagreements were in low-{metric} samples",
    "top hit {gene} (LFC {lfc}), then {gene2}; {acc} deposited",
]
FAILURES = [
    "{tool} ran out of memory at {n} {unit}; had to subsample",
    "{covariate} dominated the first PCs and {tool} did not remove it",
    "most {thing} were driven by {n} low-quality samples with {metric} below {num}",
    "the {db} annotation did not match {genome}; {pct}% of features were lost",
    "{tool} defaults ({param}) over-called {thing} in {tissue}",
    "{gene} was missing from the count matrix because of a gene-name mismatch",
    "results did not replicate in the {cohort} cohort",
    "{tool} version changed the {metric} by {pct}% and invalidated the comparison",
]
LESSONS = [
    "Run {tool} per sample before merging, not on the merged object.",
    "Check {metric} at every step before calling {thing}.",
    "Record the {db} release and the {genome} build with every run.",
    "Do not regress out {covariate} when it is confounded with {condition}.",
    "Use {gene} and {gene2} as positive controls for {thing}.",
    "{tool} needs {param} for {assay}; the default is wrong here.",
    "Subsample to {n} {unit} to check {tool} before the full run.",
    "Filter on {metric} per group before imputing, not across all samples.",
    "Compare {tool} with {tool2} on a small subset first.",
    "Keep raw counts; {tool} expects them, not normalised values.",
    "Expect {pct}% loss of {unit} at the {metric} filter in {tissue}.",
    "Never trust {thing} from a single replicate.",
]
UNITS = [
    "cells",
    "nuclei",
    "samples",
    "spots",
    "reads",
    "guides",
    "peptides",
    "features",
    "barcodes",
    "variants",
    "donors",
    "wells",
    "contigs",
    "compounds",
]
TERMS = [
    "fatty acid oxidation (GO:0019395)",
    "interferon response (GO:0034340)",
    "T cell activation (GO:0042110)",
    "cell cycle (GO:0007049)",
    "hypoxia response (GO:0001666)",
    "EMT (GO:0001837)",
    "oxidative phosphorylation (GO:0006119)",
    "unfolded protein response (GO:0030968)",
    "inflammatory response (GO:0006954)",
    "Wnt signalling (GO:0016055)",
    "apoptosis (GO:0006915)",
]
CELLS = [
    "CD8 T cells",
    "monocytes",
    "B cells",
    "NK cells",
    "fibroblasts",
    "hepatocytes",
    "microglia",
    "astrocytes",
    "endothelial cells",
    "epithelial cells",
    "macrophages",
    "Tregs",
    "plasma cells",
    "cardiomyocytes",
    "beta cells",
    "stem cells",
    "neutrophils",
    "dendritic cells",
]
VARIANTS = ["G12C", "G12D", "V600E", "R175H", "L858R", "T790M", "E545K", "H1047R", "R132H", "C282Y"]
AUTHORS = [
    "Mateo Lindqvist <mlindqvist@lab.example>",
    "Amara Nwosu <anwosu@lab.example>",
    "Priya Raman <praman@lab.example>",
    "Jonas Weber <jweber@lab.example>",
    "Sofia Marques <smarques@lab.example>",
    "Kenji Sato <ksato@lab.example>",
    "analysis-agent <agent@lab.example>",
    "planner-agent <planner@lab.example>",
    "Lea Fischer <lfischer@lab.example>",
    "Omar Haddad <ohaddad@lab.example>",
    "Grace Okafor <gokafor@lab.example>",
    "Wei Zhang <wzhang@lab.example>",
]


class Zipf:
    """Draw from ``items`` with weight 1/rank^s (the first item is the most common)."""

    def __init__(self, items: Sequence[str], s: float = 1.0) -> None:
        self.items = list(items)
        self.cum = list(accumulate(1.0 / (r + 1) ** s for r in range(len(self.items))))

    def __call__(self, rng: random.Random) -> str:
        return self.items[bisect(self.cum, rng.random() * self.cum[-1])]


def _rare_words() -> list[str]:
    prefixes, roots, suffixes = (p.split() for p in WORD_PARTS)
    words = [p + r + s for p in prefixes for r in roots for s in suffixes]
    random.Random(1).shuffle(words)
    return words


DOMAINS = list(TOOLS)
_DOMAIN = Zipf(DOMAINS, 0.8)
_GENE = Zipf(GENES, 1.0)
_RARE = Zipf(_rare_words(), 1.05)
_TISSUE = Zipf(TISSUES, 0.7)
_CONDITION = Zipf(CONDITIONS, 0.7)


def _ident(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return f"GSE{rng.randrange(40000, 260000)}"
    if kind == 1:
        return f"SRR{rng.randrange(1000000, 29000000)}"
    if kind == 2:
        return f"PMID:{rng.randrange(20000000, 39000000)}"
    if kind == 3:
        return f"ENSG{rng.randrange(0, 300000):011d}"
    if kind == 4:
        return f"E-MTAB-{rng.randrange(1000, 14000)}"
    if kind == 5:
        return f"PXD0{rng.randrange(10000, 55000)}"
    if kind == 6:
        return f"rs{rng.randrange(1000, 80000000)}"
    return f"CHEMBL{rng.randrange(100, 5000000)}"


class _Fill(dict[str, str]):
    """Template slots, each drawn on first use for this episode."""

    def __init__(self, rng: random.Random, domain: str, tools: list[tuple[str, list[str]]]) -> None:
        super().__init__()
        self.rng, self.domain, self.tools = rng, domain, tools

    def __missing__(self, key: str) -> str:
        r = self.rng
        value: str
        if key in ("tool", "tool2"):
            value = r.choice(self.tools)[0]
        elif key in ("param", "param2"):
            params = [p for _t, ps in self.tools for p in ps] or ["defaults"]
            value = _digits(r.choice(params), r)
        elif key in ("gene", "gene2"):
            value = _GENE(r)
        elif key == "thing":
            value = r.choice(THINGS[self.domain])
        elif key == "assay":
            value = r.choice(ASSAYS[self.domain])
        elif key == "tissue":
            value = _TISSUE(r)
        elif key == "organism":
            value = ORGANISMS[min(int(r.expovariate(0.9)), len(ORGANISMS) - 1)]
        elif key == "condition":
            value = _CONDITION(r)
        elif key == "cell_line":
            value = r.choice(CELL_LINES)
        elif key == "verb":
            value = r.choice(VERBS)
        elif key == "cohort":
            value = f"{_RARE(r).upper()[:6]}-{r.randrange(1, 40)}"
        elif key in ("pmid", "acc"):
            value = _ident(r)
        elif key == "variant":
            value = r.choice(VARIANTS)
        elif key in ("n", "n2"):
            value = f"{int(r.lognormvariate(6, 1.6)):,}"
        elif key == "num":
            value = f"{r.uniform(0.05, 50):.2g}"
        elif key in ("pct",):
            value = f"{r.uniform(0.5, 60):.1f}"
        elif key == "fold":
            value = f"{r.uniform(1.2, 9):.1f}"
        elif key == "lfc":
            value = f"{r.choice('-+')}{r.uniform(0.5, 4):.1f}"
        elif key == "dd":
            value = str(r.randrange(40, 99))
        elif key in ("d", "h", "t"):
            value = str(r.randrange(1, 9))
        elif key == "genome":
            value = r.choice(GENOMES)
        elif key == "covariate":
            value = r.choice(COVARIATES)
        elif key == "metric":
            value = r.choice(METRICS)
        elif key == "db":
            value = r.choice(DBS)
        elif key == "unit":
            value = r.choice(UNITS)
        elif key == "term":
            value = r.choice(TERMS)
        elif key == "cell":
            value = r.choice(CELLS)
        else:  # pragma: no cover - every slot is listed above
            raise KeyError(key)
        self[key] = value
        return value


def _digits(template: str, rng: random.Random) -> str:
    return template.format(d=rng.randrange(1, 9), t=rng.randrange(1, 9), h=rng.randrange(1, 9), k=rng.randrange(1, 9))


def _sentence(template: str, fill: _Fill, rng: random.Random, rare: float) -> str:
    """Fill a template; sometimes add a clause with rare words (the long tail of real notes)."""
    text = template.format_map(fill)
    if rng.random() < rare:
        words = " ".join(_RARE(rng) for _ in range(rng.randrange(1, 3)))
        text = text.rstrip(".") + rng.choice(
            [f" (noted {words})", f"; see {words}", f", mostly {words}", f" in {words} samples"]
        )
    return text


def episode_record(i: int, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """The i-th synthetic episode as ``episode import`` takes it (deterministic in i and seed)."""
    rng = random.Random(seed * 1_000_003 + i)
    domain = _DOMAIN(rng)
    pool = TOOLS[domain]
    tools = rng.sample(pool, min(len(pool), rng.randrange(1, 4)))
    if rng.random() < 0.35:
        tools.append(rng.choice(GENERIC_TOOLS))
    fill = _Fill(rng, domain, tools)
    success = rng.random() < 0.72
    task = _sentence(rng.choice(TASKS), fill, rng, 0.3)
    task = task[0].upper() + task[1:]
    # a fresh slot set per sentence keeps the tools and the domain, varies genes and numbers
    plan = (
        "; ".join(
            _sentence(t, _Fill(rng, domain, tools) if k else fill, rng, 0.25)
            for k, t in enumerate(rng.sample(PLAN_STEPS, rng.randrange(2, 5)))
        )
        + "."
    )
    plan = plan[0].upper() + plan[1:]
    result_parts = [_sentence(rng.choice(RESULTS), _Fill(rng, domain, tools), rng, 0.3)]
    if not success:
        result_parts.append(_sentence(rng.choice(FAILURES), _Fill(rng, domain, tools), rng, 0.3))
    elif rng.random() < 0.3:
        result_parts.append(_sentence(rng.choice(RESULTS), _Fill(rng, domain, tools), rng, 0.3))
    result = ". ".join(p[0].upper() + p[1:] for p in result_parts) + "."
    lessons = [
        _sentence(t, _Fill(rng, domain, tools), rng, 0.2)
        for t in rng.sample(LESSONS, rng.randrange(0 if success else 1, 4))
    ]
    lessons = [s if s.endswith(".") else s + "." for s in lessons]
    domains = [domain] + ([rng.choice(DOMAINS)] if rng.random() < 0.15 else [])
    entities = list(dict.fromkeys([fill["gene"], *(_ident(rng) for _ in range(rng.randrange(0, 3)))]))
    created = START + dt.timedelta(minutes=37 * i + rng.randrange(0, 30))
    record: dict[str, Any] = {
        "created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "author": AUTHORS[rng.randrange(len(AUTHORS))],
        "task": task,
        "plan": plan,
        "tools": [t for t, _p in tools],
        "domains": list(dict.fromkeys(domains)),
        "result": result,
        "success": success,
        "quality": round(rng.uniform(0.55, 0.95) if success else rng.uniform(0.1, 0.5), 2),
        "lessons": lessons,
        "entities": entities,
    }
    if rng.random() < 0.4:
        record["provenance"] = {
            "code_commit": f"{rng.getrandbits(28):07x}",
            "notebook": f"notebooks/{domain.lower()}_{i}.ipynb",
            "data": [_ident(rng)],
            "parameters": {"seed": rng.randrange(100), "fdr": 0.05},
        }
    return record


# --- writing a vault ---------------------------------------------------------------------------


def _render_chunk(args: tuple[str, int, int, int]) -> list[str]:
    """Write episodes [start, stop) into the vault; return the entity names they mention."""
    from biocortex_cli.store.episodes import build_episode, render_episode
    from biocortex_cli.store.git import parse_author

    root_text, start, stop, seed = args
    root = Path(root_text)
    made: set[Path] = set()
    names: list[str] = []
    for i in range(start, stop):
        data = episode_record(i, seed)
        ep = build_episode(data, author=parse_author(data["author"]), now=dt.datetime.now(dt.timezone.utc))
        path = root / ep.path
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(render_episode(ep), encoding="utf-8")
        names.extend(ep.strings("entities"))
    return names


def _chunks(root: Path, n: int, seed: int, size: int = 2000) -> Iterator[tuple[str, int, int, int]]:
    for start in range(0, n, size):
        yield str(root), start, min(n, start + size), seed


def vault_path(n: int, seed: int = DEFAULT_SEED) -> Path:
    return VAULTS / f"synthetic-{n}-s{seed}"


def _stamp_path(n: int, seed: int) -> Path:
    return vault_path(n, seed).with_suffix(".json")


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env={**os.environ, **GIT_ENV}, check=True
    )
    return proc.stdout.strip()


def generate(n: int, seed: int = DEFAULT_SEED, *, quiet: bool = False) -> Path:
    """Write a new vault of ``n`` episodes (replacing any cached one) and commit it once."""
    from biocortex_cli.store.entity_notes import entity_rels, missing_entity_notes, render_entity_note

    root = vault_path(n, seed)
    if root.exists():
        shutil.rmtree(root)
    _stamp_path(n, seed).unlink(missing_ok=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "biocortex_cli", "init", str(root)],
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV, "BIOCORTEX_AUTHOR": AUTHORS[0]},
    )
    names: list[str] = []
    workers = min(os.cpu_count() or 1, 8)
    with multiprocessing.Pool(workers) as pool:
        for chunk in pool.imap(_render_chunk, _chunks(root, n, seed)):
            names.extend(chunk)
    created = START.strftime("%Y-%m-%dT%H:%M:%SZ")
    for rel, name in missing_entity_notes(root, entity_rels(root, names)).items():
        (root / rel).write_text(render_entity_note(name, created, AUTHORS[0]), encoding="utf-8")
    written = time.perf_counter() - started
    git(root, "add", "-A")
    # git's automatic housekeeping after a commit of this many files runs detached by default, and a
    # benchmark copying the vault meanwhile (startup.py --before) saw object folders vanish: run it now
    git(root, "-c", "gc.autoDetach=false", "commit", "-q", "-m",
        f"episode: import {n} episodes — synthetic benchmark vault (seed {seed})")
    head = git(root, "rev-parse", "HEAD")
    stamp = {
        "generator": GENERATOR_VERSION,
        "n": n,
        "seed": seed,
        "head": head,
        "seconds_write": round(written, 1),
        "seconds_total": round(time.perf_counter() - started, 1),
    }
    _stamp_path(n, seed).write_text(json.dumps(stamp, indent=2) + "\n")
    if not quiet:
        print(
            f"generated {root} ({n} episodes) in {stamp['seconds_total']} s "
            f"(notes {stamp['seconds_write']} s, git the rest)",
            file=sys.stderr,
        )
    return root


def ensure_vault(n: int, seed: int = DEFAULT_SEED, *, quiet: bool = False) -> Path:
    """The cached vault of ``n`` episodes, generated if missing or outdated, reset to its base commit."""
    root = vault_path(n, seed)
    try:
        stamp = json.loads(_stamp_path(n, seed).read_text())
    except (OSError, ValueError):
        stamp = {}
    if stamp.get("generator") != GENERATOR_VERSION or not (root / ".git").is_dir():
        return generate(n, seed, quiet=quiet)
    reset(root, str(stamp["head"]))
    return root


def reset(root: Path, head: str | None = None) -> None:
    """Put a cached vault back at its base commit (benchmarks add episodes to it)."""
    if head is None:
        head = str(json.loads(root.with_suffix(".json").read_text())["head"])
    if git(root, "rev-parse", "HEAD") != head:
        git(root, "reset", "-q", "--hard", head)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated episode counts")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--force", action="store_true", help="generate anew even if cached")
    parser.add_argument("--print", type=int, default=0, metavar="K", help="print the first K records as JSON and exit")
    args = parser.parse_args()
    if args.print:
        for i in range(args.print):
            print(json.dumps(episode_record(i, args.seed), ensure_ascii=False))
        return
    for n in (int(s) for s in args.sizes.split(",")):
        path = generate(n, args.seed) if args.force else ensure_vault(n, args.seed)
        print(path)


def vocabulary_report(n: int = 2000, seed: int = DEFAULT_SEED) -> dict[str, float]:
    """Shape of the generated vocabulary (document frequencies of the recall tokens)."""
    from collections import Counter

    from biocortex_cli.bio.text import tokenize

    df: Counter[str] = Counter()
    for i in range(n):
        r = episode_record(i, seed)
        text = " ".join([r["task"], r["plan"], r["result"], *r["lessons"]])
        df.update(set(tokenize(text)))
    counts = sorted(df.values(), reverse=True)
    return {
        "episodes": n,
        "distinct_terms": len(counts),
        "df1_share": sum(c == 1 for c in counts) / len(counts),
        "top_term_df": counts[0] / n,
        "terms_in_over_10pct": sum(c > n / 10 for c in counts),
        "zipf_slope": -math.log(counts[min(99, len(counts) - 1)] / counts[9]) / math.log(10),
    }


if __name__ == "__main__":
    main()
