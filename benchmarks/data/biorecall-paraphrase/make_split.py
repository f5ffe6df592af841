"""Generate the BioRecall paraphrase split: queries.jsonl and qrels.tsv in this folder (README.md).

    .venv/bin/python benchmarks/data/biorecall-paraphrase/make_split.py [OUT_DIR]

The corpus is BioRecall's own (``corpus.jsonl`` here is a link to ``../biorecall/corpus.jsonl``).
Every question below was written by hand to avoid the words of the episodes it is about, and is
judged with BioRecall's pattern language over (family, dataset, method, outcome) facets
(``../biorecall/blocks.py``): an episode's grade is the highest whose pattern matches, 3 = answers
the question, 2 = closely related, 1 = partially useful. ``--overlap`` prints, per question, the
share of its content tokens that occur in its grade-3 episodes (a check of the wording, run
once when the questions were written; it is reported in README.md, not used to pick questions).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIORECALL = HERE.parent / "biorecall"
sys.path.insert(0, str(BIORECALL))
sys.path.insert(0, str(HERE.parents[2]))

from blocks import FAMILIES  # noqa: E402
from make_dataset import episode, matches  # noqa: E402

# (category, question, grade-3 patterns, grade-2 patterns, grade-1 patterns)
# categories: lay (plain words for the technical ones), synonym (another technical term),
# alias (a gene, protein or drug by another name), abbreviation (spelled out or shortened),
# inflection (other word forms and spellings of the episode's words).
QUESTIONS: list[tuple[str, str, str, str, str]] = [
    # --- sc-doublets
    ("lay", "cells glued together in one droplet in the paired expression plus open-chromatin PBMC run, "
            "how were they cleaned out",
     "sc-doublets:multiome", "", "sc-doublets"),
    ("synonym", "two-cell captures: the caller flagged a genuine antibody-secreting population because the "
                "neighbourhood-size sweep never peaked",
     "sc-doublets:*:dfinder:fail-pk", "sc-doublets:*:dfinder", "sc-doublets"),
    ("inflection", "detecting multiplets after pooling every patient's library into one object inflated the calls",
     "sc-doublets:*:scdbl-merged", "sc-doublets:luad", "sc-doublets"),
    ("synonym", "automatic cutoff on the simulated-score distribution missed most mixed-identity captures in "
                "embryonic mouse brain",
     "sc-doublets:cortex:scrublet", "sc-doublets:cortex sc-doublets:*:scrublet", "sc-doublets"),
    # --- sc-ambient
    ("lay", "free-floating mRNA from burst cells leaking into every droplet of renal nuclei: how did we subtract it",
     "sc-ambient:kidney", "", "sc-ambient"),
    ("lay", "the neural background-removal model took a whole day per sample without a graphics card",
     "sc-ambient:*:cellbender:fail-gpu", "sc-ambient:*:cellbender", "sc-ambient"),
    ("synonym", "contamination estimate errored out saying no absent genes could be found, brain single nuclei",
     "sc-ambient:brain:soupx", "sc-ambient:brain sc-ambient:*:soupx", "sc-ambient"),
    # --- sc-qc
    ("lay", "cardiac muscle nuclei thrown away by a one-size-fits-all mito percentage cap",
     "sc-qc:heart:fixed", "sc-qc:*:fixed sc-qc:heart", "sc-qc"),
    ("lay", "robust-spread cell filters computed separately for each mouse, regenerating hepatocytes",
     "sc-qc:liver:mad", "sc-qc:*:mad|ddqc", "sc-qc"),
    ("lay", "burst tumour epithelium made background-only barcodes look like a brand new cell state",
     "sc-qc:tumor:emptydrops", "sc-qc:*:emptydrops", "sc-qc"),
    # --- sc-integration
    ("synonym", "kit version (10x v2 vs v3) still split the cells after merging studies into one atlas",
     "sc-integration:atlas:harmony", "sc-integration:atlas", "sc-integration"),
    ("lay", "sick-patient state got blended into healthy cells because the diseased samples all came from "
            "one site",
     "sc-integration:*:*:fail-over", "sc-integration:ibd|pbmc", "sc-integration"),
    ("lay", "carrying curated cell names from the most thoroughly labelled cohort over to the others while "
                "removing cohort effects",
     "sc-integration:*:scanvi", "sc-integration:*:scvi", "sc-integration"),
    # --- sc-annotation
    ("lay", "automatic labelling forced malignant cells the reference did not contain onto the closest normal type",
     "sc-annotation:*:*:fail-ref", "sc-annotation:*:singler|azimuth", "sc-annotation"),
    ("lay", "clusters that were only proliferation and tissue-dissociation stress programmes got their own names",
     "sc-annotation:*:*:fail-markers", "sc-annotation:*:markers", "sc-annotation"),
    ("inflection", "cell typing of acute myeloid leukemia bone marrow",
     "sc-annotation:marrow", "", "sc-annotation"),
    # --- sc-de
    ("lay", "every single cell counted as its own sample when comparing patients with controls, and the hit list "
            "exploded",
     "sc-de:*:wilcox", "sc-de:*:pseudo|mast|edger", "sc-de"),
    ("synonym", "hurdle model with individual-level random intercepts for dementia brain nuclei",
     "sc-de:ad:mast", "sc-de:ad", "sc-de"),
    ("lay", "summing reads per animal and population in the lung injury model when the rare types had a handful "
            "of cells",
     "sc-de:mouse:edger", "sc-de:mouse", "sc-de"),
    # --- sc-trajectory
    ("lay", "spliced versus unspliced arrows ran backwards toward the stem cells",
     "sc-trajectory:*:*:fail-reversed", "sc-trajectory:*:scvelo", "sc-trajectory"),
    ("lay", "ordering worn-out killer T cells in time started from the dividing cluster",
     "sc-trajectory:tcell:monocle", "sc-trajectory:tcell", "sc-trajectory"),
    ("synonym", "fate mapping of hormone-producing islet cell formation in the mouse embryo",
     "sc-trajectory:pancreas", "", "sc-trajectory"),
    # --- sc-ccc
    ("lay", "signalling predictions dominated by whichever population was most numerous",
     "sc-ccc:fibrosis:cellchat", "sc-ccc:*:cellchat", "sc-ccc"),
    ("synonym", "the interaction databases disagree, so the top sender-receiver pairs changed entirely",
     "sc-ccc:*:liana:fail-resource", "sc-ccc:*:liana", "sc-ccc"),
    ("lay", "which ligands drive the scarring fibroblasts in lung fibrotic disease",
     "sc-ccc:fibrosis:nichenet", "sc-ccc:fibrosis", "sc-ccc"),
    # --- atac-qc
    ("lay", "every nucleus had a terrible transcription start site score because the fragments came from "
            "another genome version",
     "atac-qc:*:*:fail-genome", "atac-qc:*:*:ok-rescue", "atac-qc"),
    ("synonym", "over-tagmented rodent memory-region nuclei with a strong single-nucleosome fragment peak",
     "atac-qc:mouse-brain", "", "atac-qc"),
    ("lay", "pancreatic islet single-nucleus open chromatin from fragment files to a count matrix",
     "atac-qc:islet", "", "atac-qc"),
    # --- multiome
    ("lay", "cell barcodes of the two modalities did not line up in the joint assay",
     "multiome:*:*:fail-barcodes", "", "multiome sc-doublets:multiome"),
    ("synonym", "linking regulatory elements to target genes came out biased toward GC-rich promoters",
     "multiome:*:*:fail-gc", "multiome:*:*:+", "multiome"),
    ("inflection", "renal paired expression and accessibility, regulatory links",
     "multiome:kidney:*:+", "multiome:kidney", "multiome"),
    # --- chip
    ("lay", "calling a wide repressive histone domain with a point-source caller shattered it",
     "chip:h3k27me3:macs2", "chip:h3k27me3", "chip"),
    ("synonym", "global loss of signal after degrading the insulator protein was hidden by depth scaling; exogenous "
                "chromatin needed",
     "chip:*:*:fail-norm", "chip:ctcf", "chip"),
    ("synonym", "enhancer acetylation profiling in leukaemia",
     "chip:h3k27ac", "", "chip"),
    # --- methylation
    ("lay", "unconverted cytosines outside CG context looked like gain of methyl marks",
     "methylation:*:*:fail-conversion", "methylation:wgbs", "methylation"),
    ("inflection", "blood cell mix differences drove the smoking-associated CpG hits",
     "methylation:epic:*:fail-celltype", "methylation:epic", "methylation"),
    ("synonym", "age-related CpG changes in rodent liver from reduced-representation libraries",
     "methylation:rrbs", "", "methylation"),
    # --- bulk-quant
    ("lay", "counted with the wrong strand setting so most reads were thrown away",
     "bulk-quant:*:*:fail-strand", "bulk-quant:*:star", "bulk-quant"),
    ("lay", "degraded archival paraffin samples full of ribosomal reads",
     "bulk-quant:ffpe", "", "bulk-quant"),
    ("synonym", "quasi-mapping with genome decoys for the breast cancer cohort",
     "bulk-quant:tcga:salmon", "bulk-quant:tcga bulk-quant:*:salmon", "bulk-quant"),
    # --- bulk-de
    ("lay", "a mislabelled sample, a female-specific transcript on in a male donor, broke the comparison",
     "bulk-de:*:*:fail-outlier", "bulk-de:tcell", "bulk-de"),
    ("lay", "all treated libraries went on one flow cell, so sequencing run and treatment cannot be separated",
     "bulk-de:*:*:fail-confound", "", "bulk-de"),
    ("synonym", "genes varying over hours after endotoxin stimulation of macrophages",
     "bulk-de:timecourse:lrt", "bulk-de:timecourse", "bulk-de"),
    ("lay", "low oxygen endothelial cells: which transcripts go up",
     "bulk-de:huvec", "gsea:hypoxia", "bulk-de bulk-quant:huvec qpcr:hypoxia"),
    ("alias", "oestrogen receptor alpha null breast cancer line, differentially expressed genes",
     "bulk-de:ko:*:+", "bulk-de:ko", "bulk-de gsea:ko"),
    # --- gsea
    ("synonym", "over-representation test against all human genes as background called everything significant",
     "gsea:*:*:fail-universe", "gsea:*:ora", "gsea"),
    ("lay", "identifier conversion dropped a fifth of the genes before the pathway analysis",
     "gsea:*:*:fail-ids", "", "gsea"),
    ("inflection", "pathways enriched in aging kidneys",
     "gsea:aging:*:+", "gsea:aging", "gsea"),
    # --- splicing
    ("lay", "trimmed reads of unequal length made the exon inclusion tool abort",
     "splicing:*:*:fail-readlen", "splicing:*:rmats", "splicing"),
    ("lay", "hidden exon switched on when the ALS-linked RNA-binding protein was silenced, missed by gene-model "
            "counting",
     "splicing:neuron:rmats", "splicing:neuron", "splicing"),
    ("alias", "splicing factor 3b subunit 1 mutated chronic lymphocytic leukemia, exon usage",
     "splicing:sf3b1", "", "splicing"),
    # --- crispr-mageck
    ("alias", "gene losses that let lung cancer cells survive the covalent KRAS-G12C drug AMG 510",
     "crispr-mageck:sotorasib", "", "crispr-mageck"),
    ("lay", "guide representation collapsed after the sort: too few cells kept per guide",
     "crispr-mageck:*:*:fail-bottleneck", "crispr-mageck:tcell", "crispr-mageck"),
    ("lay", "amplified genomic regions looked essential because of many cuts",
     "crispr-mageck:*:*:fail-copy", "crispr-mageck:ess", "crispr-mageck"),
    ("synonym", "genes whose loss sensitises RPE-1 cells to poly(ADP-ribose) polymerase blockers",
     "crispr-mageck:olaparib", "", "crispr-mageck"),
    ("lay", "uneven guide abundance already in the starting library",
     "crispr-mageck:*:*:fail-plasmid", "crispr-mageck:virus", "crispr-mageck"),
    # --- perturbseq
    ("lay", "stray sgRNA molecules floating in the suspension gave cells the wrong knockdown label",
     "perturbseq:*:*:fail-threshold", "perturbseq:*:pertpy", "perturbseq"),
    ("lay", "some perturbed cells escaped silencing entirely, the intended gene's expression unchanged",
     "perturbseq:*:*:fail-escape", "perturbseq:*:mixscape", "perturbseq"),
    ("synonym", "interference screen with single-cell readout in a myelogenous leukemia line",
     "perturbseq:k562", "", "perturbseq"),
    # --- crispr-edit
    ("lay", "kilobase-scale losses at the cut site that PCR of a small window cannot see made editing look better",
     "crispr-edit:*:*:fail-large", "crispr-edit:ko", "crispr-edit"),
    ("lay", "precise insertion of a fluorescent tag mostly gave end-joining scars",
     "crispr-edit:*:*:fail-hdr", "crispr-edit:hdr", "crispr-edit"),
    ("inflection", "fetal haemoglobin reactivation by adenine base editors: efficiency and bystanders",
     "crispr-edit:be", "", "crispr-edit"),
    # --- prot-dda
    ("lay", "skin proteins and the digestion enzyme topped the changed list",
     "prot-dda:*:*:fail-contam", "", "prot-dda"),
    ("synonym", "propagating peptide IDs between injections of different LC lengths created fake quantitation in "
                "spinal fluid",
     "prot-dda:*:*:fail-mbr", "prot-dda:csf", "prot-dda"),
    ("alias", "affinity purification interactors of TP53",
     "prot-dda:ip:saint", "prot-dda:ip", "prot-dda"),
    # --- prot-dia
    ("lay", "abundant blood proteins swamped the signal without immunodepletion",
     "prot-dia:*:*:fail-depletion", "prot-dia:plasma", "prot-dia"),
    ("lay", "spectral-library-free searching of ~200 single-cell proteome injections overstated how many proteins "
            "were found",
     "prot-dia:*:*:fail-fdr", "prot-dia:cells", "prot-dia"),
    ("lay", "archival lung adenocarcinoma tissue proteome with window-based acquisition",
     "prot-dia:tissue", "", "prot-dia"),
    # --- prot-ptm
    ("synonym", "isobaric tag ratio compression understated the phospho changes",
     "prot-ptm:*:*:fail-compression", "", "prot-ptm"),
    ("lay", "phosphorylation sites reported without checking which residue carried the phosphate",
     "prot-ptm:*:*:fail-loc", "", "prot-ptm"),
    ("alias", "FLT3 inhibitor signalling in leukemia phospho data",
     "prot-ptm:kinase-inh", "", "prot-ptm"),
    # --- germline
    ("synonym", "variant quality score recalibration could not train on a handful of exomes",
     "germline:*:*:fail-vqsr", "germline:exomes", "germline"),
    ("lay", "bait regions from the wrong panel version, so several coding regions silently had zero genotypes",
     "germline:*:*:fail-bed", "germline:panel", "germline"),
    ("lay", "new mutations in a child with seizures that neither parent carries",
     "germline:trio:*:ok-denovo", "germline:trio", "germline"),
    # --- somatic
    ("lay", "formalin damage produced C-to-T artefacts at low allele fraction",
     "somatic:*:*:fail-ffpe", "somatic:ffpe", "somatic"),
    ("lay", "leukemic cells in the skin control sample hid real mutations",
     "somatic:*:*:fail-tin", "somatic:heme", "somatic"),
    ("lay", "tumour without its normal pair: inherited polymorphisms ended up in the cancer mutation list",
     "somatic:*:*:fail-germline", "somatic:tonly", "somatic"),
    ("abbreviation", "circulating tumour DNA with molecular barcodes, low-frequency mutations",
     "somatic:cfdna", "", "somatic"),
    # --- gwas
    ("lay", "inflated test statistics from ancestry differences between cases and controls",
     "gwas:*:*:fail-strat", "gwas:admixed", "gwas"),
    ("lay", "relatives among participants analysed with a model that ignores family structure",
     "gwas:*:*:fail-related", "gwas:*:regenie|saige", "gwas"),
    ("synonym", "admixture-aware genetic association for wheezing airway disease in people of mixed heritage",
     "gwas:admixed:*:ok-admix", "gwas:admixed", "gwas"),
    ("abbreviation", "low-density lipoprotein cholesterol association scan",
     "gwas:ldl:*:+", "gwas:ldl", "gwas"),
    # --- finemap
    ("lay", "causal variant sets became huge because the reference panel did not match the study population",
     "finemap:*:*:fail-ld", "", "finemap"),
    ("synonym", "colocalization with expression QTLs said two distinct signals",
     "finemap:*:*:fail-coloc", "", "finemap"),
    ("abbreviation", "coronary artery disease loci: narrowing down the causal variants",
     "finemap:cad:*:+", "finemap:cad", "finemap"),
    # --- spatial-deconv
    ("lay", "spot mixtures assigned to the wrong types because a tumour cell type was absent from the single-cell "
            "atlas",
     "spatial-deconv:*:*:fail-missing", "", "spatial-deconv"),
    ("lay", "nuclei reference versus capture-spot platform differences biased the proportions",
     "spatial-deconv:*:*:fail-platform", "", "spatial-deconv"),
    ("abbreviation", "infarcted heart tissue, which cell types are in each spot",
     "spatial-deconv:heart:*:+", "spatial-deconv:heart", "spatial-deconv"),
    # --- spatial-imaging
    ("lay", "growing the nuclear masks outward pulled neighbours' transcripts into each cell",
     "spatial-imaging:*:*:fail-expansion", "", "spatial-imaging"),
    ("lay", "big neurons cut into pieces because the expected object size was set for nuclei",
     "spatial-imaging:*:*:fail-over", "", "spatial-imaging"),
    ("synonym", "multiplexed smFISH of the hypothalamic region: which cell each RNA spot belongs to",
     "spatial-imaging:merfish", "", "spatial-imaging"),
    # --- spatial-domains
    ("lay", "the domains tracked which slide a spot came from rather than cortex lamination",
     "spatial-domains:*:*:fail-batch", "spatial-domains:dlpfc", "spatial-domains"),
    ("lay", "asking for too many regions split the liver zone in two",
     "spatial-domains:*:*:fail-k", "spatial-domains:liver", "spatial-domains"),
    ("abbreviation", "HCC tissue neighbourhoods from high-resolution spot arrays",
     "spatial-domains:tumor", "", "spatial-domains"),
    # --- img-seg
    ("lay", "nuclei about double the configured width at this zoom got chopped into fragments",
     "img-seg:*:*:fail-diameter", "img-seg:organoid", "img-seg"),
    ("lay", "focus drift during two-photon recordings lost neurons",
     "img-seg:*:*:fail-drift", "img-seg:neuron", "img-seg"),
    ("lay", "faintly coloured cell centres missed because H&E hue varied from one slide digitisation run to another",
     "img-seg:*:*:fail-stain", "img-seg:tissue", "img-seg"),
    # --- img-hcs
    ("lay", "evaporation at the plate borders created artefacts",
     "img-hcs:*:*:fail-edge", "", "img-hcs"),
    ("lay", "profiles grouped by imaging instrument rather than by treatment",
     "img-hcs:*:*:fail-batch", "img-hcs:cp", "img-hcs"),
    ("alias", "nuclear translocation of the lysosomal biogenesis master regulator, knockdown screen",
     "img-hcs:sirna:*:+", "img-hcs:sirna", "img-hcs"),
    # --- img-hist
    ("lay", "image patches of the same person ended up on both sides of the evaluation split",
     "img-hist:*:*:fail-leak", "", "img-hist qsar:*:*:fail-random"),
    ("lay", "the network recognised the hospital's scanner instead of the tumour",
     "img-hist:*:*:fail-site", "", "img-hist"),
    ("abbreviation", "microsatellite instability prediction from routine slides",
     "img-hist:msi:*:+", "img-hist:msi", "img-hist"),
    # --- qsar
    ("lay", "random split made the potency model look great because close analogues leaked across",
     "qsar:*:*:fail-random", "", "qsar img-hist:*:*:fail-leak"),
    ("lay", "mixing nanomolar and micromolar readouts ruined the regression",
     "qsar:*:*:fail-units", "", "qsar chembl"),
    ("alias", "Kv11.1 channel inhibition model for new compounds",
     "qsar:herg:*:+", "qsar:herg", "qsar"),
    ("synonym", "predicting how well compounds dissolve in water with message-passing neural nets",
     "qsar:sol:gnn", "qsar:sol", "qsar"),
    # --- docking
    ("lay", "grid box placed where the loop closes in the unbound structure",
     "docking:*:*:fail-site", "docking:kras", "docking"),
    ("alias", "ionisation states and proton-shift isomers were wrong in the best-scoring list for DRD2",
     "docking:*:*:fail-proton", "docking:d2", "docking"),
    ("abbreviation", "3CLpro of the pandemic coronavirus: in silico hit finding",
     "docking:mpro", "", "docking"),
    # --- chembl
    ("lay", "counterions and protonated forms made the same molecule appear many times in our potency dataset",
     "chembl:*:*:fail-salts", "", "chembl"),
    ("alias", "beta-secretase potency table from the bioactivity database",
     "chembl:bace:*:+", "chembl:bace", "chembl"),
    # --- amplicon
    ("lay", "paired reads stopped overlapping after truncation",
     "amplicon:*:*:fail-trunc", "amplicon:soil", "amplicon"),
    ("lay", "airway wash samples with barely any bacteria were mostly extraction-kit organisms",
     "amplicon:*:*:fail-contam", "amplicon:mouse", "amplicon"),
    ("lay", "root-zone soil bacteria under water stress",
     "amplicon:soil:*:+", "amplicon:soil", "amplicon"),
    # --- shotgun
    ("lay", "forgot to strip the patient's own DNA before assigning microbes",
     "shotgun:*:*:fail-host", "", "shotgun"),
    ("lay", "k-mer classifier at zero confidence produced spurious species",
     "shotgun:*:*:fail-db", "shotgun:tumor", "shotgun"),
    ("lay", "sewage surveillance metagenomes over time",
     "shotgun:wastewater", "", "shotgun"),
    # --- mags
    ("lay", "pooling all samples into one assembly merged strains into chimeras",
     "mags:*:*:fail-coassembly", "", "mags"),
    ("lay", "biogas reactor genomes from long plus short reads",
     "mags:bioreactor", "", "mags"),
    # --- alphafold
    ("lay", "disordered protein predicted with low confidence everywhere",
     "alphafold:*:*:fail-idr", "", "alphafold"),
    ("lay", "antibody-antigen interface predicted wrongly, low interface confidence",
     "alphafold:*:*:fail-interface", "alphafold:antibody", "alphafold"),
    ("alias", "structure of Kelch-like ECH-associated protein 1 bound to its transcription factor partner",
     "alphafold:complex", "", "alphafold"),
    ("alias", "p53 hotspot mutant fold",
     "alphafold:p53", "", "alphafold"),
    # --- cryoem
    ("lay", "particles all lying the same way on the grid, so the reconstruction was smeared along one axis",
     "cryoem:*:*:fail-orient", "", "cryoem"),
    ("lay", "a mobile domain blurred in the overall reconstruction; conformations needed sorting",
     "cryoem:*:*:fail-heterogeneity", "", "cryoem"),
    ("alias", "P-gp multidrug efflux pump single-particle reconstruction",
     "cryoem:transporter", "md:membrane", "cryoem"),
    # --- md
    ("lay", "simulation exploded within picoseconds because of bad ligand force-field parameters",
     "md:*:*:fail-params", "md:kras", "md"),
    ("lay", "one short trajectory suggested an open state that vanished in repeats",
     "md:*:*:fail-short", "md:membrane", "md"),
    ("alias", "helical peptide on HDM2, all-atom trajectory stability",
     "md:peptide", "", "md"),
    # --- assembly
    ("lay", "duplicated haplotype contigs left in the primary genome inflated the duplicate gene count",
     "assembly:*:*:fail-haplo", "assembly:plant", "assembly"),
    ("lay", "foreign microbial DNA in the fish genome",
     "assembly:*:*:fail-contam", "assembly:fish", "assembly"),
    ("lay", "bacterial isolate genomes closed with hybrid reads",
     "assembly:bacteria", "", "assembly"),
    # --- cytometry
    ("lay", "dye bleed-through between channels produced slanted populations in bivariate plots",
     "cytometry:*:*:fail-spill", "cytometry:spectral", "cytometry"),
    ("lay", "instrument intensity shifting from one run date to the next, so groups formed by run date",
     "cytometry:*:*:fail-batch", "cytometry:cytof", "cytometry"),
    ("synonym", "mass cytometry of septic patients",
     "cytometry:cytof", "", "cytometry"),
    # --- repertoire
    ("lay", "clone grouping cutoff borrowed from another study merged unrelated B cells",
     "repertoire:*:*:fail-threshold", "repertoire:covid", "repertoire"),
    ("lay", "clonally amplified T lymphocytes inside skin cancer lesions",
     "repertoire:tils", "", "repertoire"),
    # --- qpcr
    ("lay", "the housekeeping gene itself went up under low oxygen",
     "qpcr:*:*:fail-ref", "qpcr:hypoxia", "qpcr"),
    ("lay", "validate silencing efficiency by quantitative PCR",
     "qpcr:knockdown", "", "qpcr"),
]


def facets() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for fam in FAMILIES:
        for i, spec in enumerate(fam.episodes):
            record, f = episode(fam, i, spec)
            out[record["_id"]] = f
    return out


def judge(all_facets: dict[str, dict[str, str]]) -> tuple[list[dict[str, object]], list[tuple[str, str, int]]]:
    queries: list[dict[str, object]] = []
    qrels: list[tuple[str, str, int]] = []
    problems: list[str] = []
    for n, (category, text, g3, g2, g1) in enumerate(QUESTIONS, start=1):
        qid = f"p{n:03d}"
        grades: dict[str, int] = {}
        for grade, patterns in ((3, g3), (2, g2), (1, g1)):
            for pattern in patterns.split():
                hits = [i for i, f in all_facets.items() if matches(pattern, f)]
                if not hits:
                    problems.append(f"{qid}: pattern {pattern!r} matches no episode")
                for ident in hits:
                    grades[ident] = max(grades.get(ident, 0), grade)
        if 3 not in grades.values():
            problems.append(f"{qid}: no episode answers it (grade 3)")
        queries.append({"_id": qid, "text": text, "metadata": {"category": category}})
        qrels += [(qid, ident, g) for ident, g in sorted(grades.items())]
    if problems:
        raise SystemExit("\n".join(problems))
    return queries, qrels


def overlap(queries: list[dict[str, object]], qrels: list[tuple[str, str, int]]) -> None:
    from biocortex_cli.bio.text import tokenize

    corpus = {}
    for line in (BIORECALL / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        corpus[d["_id"]] = set(tokenize(d["title"] + "\n" + d["text"]))
    shares = []
    for q in queries:
        words = set(tokenize(str(q["text"])))
        answer: set[str] = set().union(*(corpus[i] for qid, i, g in qrels if qid == q["_id"] and g == 3))
        share = len(words & answer) / len(words) if words else 0.0
        shares.append(share)
        print(f"{q['_id']} {share:.2f} {sorted(words & answer)}")
    shares.sort()
    print(f"median share of a question's tokens found in its grade-3 episodes: {shares[len(shares) // 2]:.2f}; "
          f"mean {sum(shares) / len(shares):.2f}; max {shares[-1]:.2f}")


def main(out: Path = HERE) -> None:
    queries, qrels = judge(facets())
    if "--overlap" in sys.argv:
        overlap(queries, qrels)
        return
    with open(out / "queries.jsonl", "w", encoding="utf-8") as fh:
        for query in queries:
            fh.write(json.dumps(query, ensure_ascii=False) + "\n")
    with open(out / "qrels.tsv", "w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, ident, grade in qrels:
            fh.write(f"{qid}\t{ident}\t{grade}\n")
    per_query = Counter(q for q, _i, _g in qrels)
    top = Counter(q for q, _i, g in qrels if g == 3)
    cats = Counter(str(q["metadata"]["category"]) for q in queries)  # type: ignore[index]
    print(f"{len(queries)} questions {dict(sorted(cats.items()))}, {len(qrels)} judgements "
          f"(grades {dict(sorted(Counter(g for _q, _i, g in qrels).items()))}; per question "
          f"{min(per_query.values())}-{max(per_query.values())} judged, "
          f"{min(top.values())}-{max(top.values())} at grade 3)", file=sys.stderr)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(args[0]) if args else HERE)
