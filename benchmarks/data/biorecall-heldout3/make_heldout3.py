"""Write the third held-out BioRecall question set: queries.jsonl and qrels.tsv from the data below.

The questions and their judgements were written by hand from a reading of ../biorecall/corpus.jsonl only,
blind to every other question set, to the vocabulary and to every system's figures (README.md). This script
holds them as data and writes them deterministically (sorted, stable bytes), so the committed files can be
checked against it. It also refuses to write a question whose content words lie too much in the title and text
of the episodes that answer it (grade 3): the set is about questions worded differently from the notes.

    python make_heldout3.py [--out DIR]      # DIR defaults to this script's folder

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus.jsonl"
CATEGORIES = ("lay", "synonym", "alias", "abbreviation", "inflection")
MAX_SHARE = 0.5  # the most of a question's content words that may occur in its grade-3 episodes' title + text

# Words that carry no content of their own: function words and the words any question to an agent is made of.
STOP_WORDS = frozenset(
    """a about after all also an and any are as at be been before but by can could did do does done for from get
    got had has have how i if in into is it its me my no not of on once one or our out should so than that the
    their them then there these they this those to up us was we were what when where which while who why will
    with would you your s t ever just didn because some many much more most only very between without each
    every vs versus""".split()
)


class Question(NamedTuple):
    category: str
    text: str
    g3: tuple[str, ...]
    g2: tuple[str, ...] = ()
    g1: tuple[str, ...] = ()


def content_words(text: str) -> set[str]:
    """The question's content words: lower-case, split on non-alphanumerics, stop words dropped."""
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w and w not in STOP_WORDS}


def overlap_share(question: str, answer_texts: Iterable[str]) -> float:
    """Share of the question's content words that occur in the answering episodes' words."""
    words = content_words(question)
    seen: set[str] = set()
    for text in answer_texts:
        seen |= set(re.split(r"[^a-z0-9]+", text.lower()))
    return len(words & seen) / len(words) if words else 0.0


def load_corpus(path: Path = CORPUS) -> dict[str, str]:
    """Episode id -> title + text."""
    out: dict[str, str] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                doc = json.loads(line)
                out[str(doc["_id"])] = f"{doc['title']}\n{doc['text']}"
    return out


def qid(index: int) -> str:
    return f"t{index + 1:03d}"


def judgements(q: Question) -> dict[str, int]:
    out: dict[str, int] = {}
    for grade, ids in ((3, q.g3), (2, q.g2), (1, q.g1)):
        for doc in ids:
            if doc in out:
                raise ValueError(f"{q.text!r}: {doc} graded twice")
            out[doc] = grade
    return out


def shares(questions: Sequence[Question], corpus: Mapping[str, str]) -> dict[str, float]:
    """Question id -> overlap share with its grade-3 episodes."""
    return {qid(i): overlap_share(q.text, (corpus[d] for d in q.g3)) for i, q in enumerate(questions)}


def check(questions: Sequence[Question], corpus: Mapping[str, str]) -> list[str]:
    """What is wrong with the set (empty when it can be written)."""
    problems: list[str] = []
    texts: set[str] = set()
    for i, q in enumerate(questions):
        if q.category not in CATEGORIES:
            problems.append(f"{qid(i)}: unknown category {q.category!r}")
        if not q.g3:
            problems.append(f"{qid(i)}: no grade-3 episode")
        if q.text in texts:
            problems.append(f"{qid(i)}: duplicate text")
        texts.add(q.text)
        try:
            graded = judgements(q)
        except ValueError as exc:
            problems.append(f"{qid(i)}: {exc}")
            continue
        problems += [f"{qid(i)}: no episode {d}" for d in graded if d not in corpus]
    if not problems:
        problems += [
            f"{k}: overlap share {v:.2f} above {MAX_SHARE}"
            for k, v in shares(questions, corpus).items()
            if v > MAX_SHARE
        ]
    return problems


def render(questions: Sequence[Question]) -> tuple[str, str]:
    """queries.jsonl and qrels.tsv, sorted by question id (then episode id)."""
    queries = "".join(
        json.dumps({"_id": qid(i), "text": q.text, "metadata": {"category": q.category}}, ensure_ascii=False) + "\n"
        for i, q in enumerate(questions)
    )
    rows = [
        f"{qid(i)}\t{doc}\t{grade}\n"
        for i, q in enumerate(questions)
        for doc, grade in sorted(judgements(q).items())
    ]
    return queries, "query-id\tcorpus-id\tscore\n" + "".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write into (default: this script's)")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    problems = check(QUESTIONS, corpus)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"not written: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    values = list(shares(QUESTIONS, corpus).values())
    queries, qrels = render(QUESTIONS)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "queries.jsonl").write_text(queries, encoding="utf-8", newline="\n")
    (out / "qrels.tsv").write_text(qrels, encoding="utf-8", newline="\n")
    print(
        f"{len(QUESTIONS)} questions, {qrels.count(chr(10)) - 1} judgements; overlap share "
        f"max {max(values):.2f}, median {statistics.median(values):.2f}"
    )
    return 0


Q = Question
# fmt: off
QUESTIONS: tuple[Question, ...] = (
    # --- single-cell: doublets -------------------------------------------------------------------------------
    Q("lay", "In the healthy donor's blood sample (about ten thousand cells aimed for), how did we get rid of "
      "droplets that had captured two cells at once, and what share was thrown out?",
      g3=("sc-doublets-01", "sc-doublets-02", "sc-doublets-10"), g2=("sc-doublets-07", "sc-doublets-11"),
      g1=("sc-doublets-08",)),
    Q("lay", "Embryonic mouse brain: the software's own cut-off for two-cell droplets caught hardly any, although "
      "the chip was loaded for roughly eight percent. What went wrong?",
      g3=("sc-doublets-06",), g2=("sc-doublets-07",), g1=("sc-doublets-10",)),
    Q("synonym", "How should cross-lineage multiplets be caught in paired gene-expression plus open-chromatin "
      "single-cell data, when calling on the transcripts alone lets some through?",
      g3=("sc-doublets-04", "sc-doublets-05"), g1=("sc-doublets-08",)),
    Q("alias", "Antibody-hashed HSPCs from foetal liver: how many between-donor collisions did the hashtag "
      "demultiplexer flag, and what picked up the same-donor ones?",
      g3=("sc-doublets-08",)),
    Q("alias", "Why did the pK sweep throw out antibody-secreting cells as multiplets in the resected lung "
      "tumours?",
      g3=("sc-doublets-09",), g2=("sc-doublets-11",), g1=("sc-doublets-02", "sc-doublets-03")),
    # --- single-cell: ambient RNA ----------------------------------------------------------------------------
    Q("alias", "Uromodulin reads were turning up in every cluster of the renal single-nucleus data; how was the "
      "cell-free background estimated and taken out?",
      g3=("sc-ambient-02", "sc-ambient-07"), g2=("sc-ambient-01", "sc-ambient-06"), g1=("sc-ambient-05",)),
    Q("lay", "Cleaning free-floating RNA out of the frozen blood samples from the coronavirus patients took nearly "
      "a day per sample on ordinary processors and one job died; what did we learn?",
      g3=("sc-ambient-03",), g2=("sc-ambient-08",), g1=("sc-ambient-02", "sc-ambient-06")),
    Q("alias", "Over-correcting background contamination erased proteolipid protein 1 from the oligodendrocytes "
      "in the post-mortem frontal lobe nuclei; which setting caused it?",
      g3=("sc-ambient-04",), g2=("sc-ambient-05",)),
    Q("alias", "How big was the surfactant protein C spill-over into non-epithelial clusters of the lung cancer "
      "channels, and how much did correcting it cut that?",
      g3=("sc-ambient-01", "sc-ambient-06"), g2=("sc-ambient-07",)),
    # --- single-cell: QC -------------------------------------------------------------------------------------
    Q("lay", "Heart muscle cells nearly vanished after we filtered on the share of mito reads; how should the "
      "cut-off have been set instead?",
      g3=("sc-qc-01", "sc-qc-02"), g2=("sc-qc-03",), g1=("sc-qc-04",)),
    Q("lay", "After surgically removing part of the liver in mice, what cell filtering rules did we end up using "
      "for the single-cell data, and how many cells survived?",
      g3=("sc-qc-03", "sc-qc-04"), g2=("sc-qc-01",), g1=("sc-qc-02",)),
    Q("lay", "In the bowel tumour vs neighbouring healthy lining data, a low-read cluster posing as a new "
      "malignant state was really barcodes with no cell in them. What did we change?",
      g3=("sc-qc-06",), g2=("sc-qc-07",), g1=("sc-qc-08",)),
    Q("abbreviation", "median absolute deviation outlier filtering of the vaccination peripheral blood mononuclear "
      "cells: what fraction of barcodes was kept?",
      g3=("sc-qc-05", "sc-qc-08"), g2=("sc-qc-04", "sc-qc-07")),
    # --- single-cell: integration ----------------------------------------------------------------------------
    Q("lay", "When we combined the pulmonary studies, cells from the older 10x kit version still formed their own "
      "groups after correction. What went wrong?",
      g3=("sc-integration-02",), g2=("sc-integration-01", "sc-integration-11"), g1=("sc-integration-03",)),
    Q("lay", "Correcting for centre merged the inflamed-only macrophage state of the Crohn's gut samples into "
      "the normal one; how should it have been handled?",
      g3=("sc-integration-04",), g2=("sc-integration-08", "sc-integration-10"), g1=("sc-integration-05",)),
    Q("abbreviation", "systemic lupus erythematosus PBMCs run on six different days: did the batch-balanced "
      "k-nearest-neighbour graph keep the IFN-high monocytes apart?",
      g3=("sc-integration-08",), g2=("sc-integration-07",), g1=("sc-integration-04",)),
    Q("synonym", "Semi-supervised deep generative harmonisation seeded with the most thoroughly labelled study: "
      "what share of the pulmonary atlas received a confident identity?",
      g3=("sc-integration-03",), g2=("sc-integration-10",), g1=("sc-integration-01", "sc-integration-11")),
    Q("lay", "Lining up mini-brains grown from four stem cell lines at one, two and three months so that "
      "matching populations sit together: which approaches did we try and how did they score?",
      g3=("sc-integration-06", "sc-integration-09")),
    # --- single-cell: annotation -----------------------------------------------------------------------------
    Q("lay", "The automatic labeller confidently called the skin cancer tumour cells connective-tissue cells "
      "because its reference had none of them. How did we catch it?",
      g3=("sc-annotation-03",), g2=("sc-annotation-05",), g1=("sc-annotation-04", "spatial-deconv-07")),
    Q("abbreviation", "Reference-based identity calls in the acute myeloid leukemia bone marrow: what happened to "
      "the malignant blasts?",
      g3=("sc-annotation-05",), g2=("sc-annotation-03", "sc-annotation-06"), g1=("spatial-deconv-07",)),
    Q("lay", "Three supposedly new populations in the leukaemia marrow turned out to be dividing or stressed "
      "versions of one kind of cell; where is that written up?",
      g3=("sc-annotation-06",), g2=("sc-annotation-05",)),
    Q("abbreviation", "Did we find mucosal-associated invariant T cells when naming the clusters of the chimeric "
      "antigen receptor trial blood?",
      g3=("sc-annotation-09",), g2=("sc-annotation-01", "sc-annotation-02")),
    Q("synonym", "How many chemosensory brush cells turned up in the developing human intestine, and at what "
      "clustering granularity?",
      g3=("sc-annotation-07",), g2=("sc-annotation-08",), g1=("sc-annotation-04",)),
    # --- single-cell: differential expression ----------------------------------------------------------------
    Q("lay", "Testing every single cell as if it were its own replicate gave thousands of hits between patients "
      "and controls; which analyses did that and what was the fix?",
      g3=("sc-de-02", "sc-de-04"), g2=("sc-de-01", "sc-de-03", "sc-de-05")),
    Q("synonym", "Zero-inflated two-part model with a per-donor random intercept for astrocytes in dementia "
      "brains: how close did it come to the summed-counts approach?",
      g3=("sc-de-05",), g2=("sc-de-03", "sc-de-04")),
    Q("lay", "In the mice given the lung-scarring drug, rare populations had only a handful of cells per animal "
      "and one mouse dominated. What did we conclude?",
      g3=("sc-de-07",), g2=("sc-de-08",)),
    Q("alias", "KIM-1 induction in proximal tubule cells of kidney organoids after platinum chemotherapy: how "
      "many genes came out of the aggregated per-line test?",
      g3=("sc-de-06",), g1=("sc-de-01",)),
    # --- single-cell: trajectories ---------------------------------------------------------------------------
    Q("lay", "The direction-of-change arrows ran backwards, from differentiated cells toward the stem-like ones; "
      "which runs had that and why?",
      g3=("sc-trajectory-02", "sc-trajectory-08"), g2=("sc-trajectory-03",),
      g1=("sc-trajectory-04", "sc-trajectory-06")),
    Q("lay", "The ordering of tumour-infiltrating killer T cells came out upside down because the software "
      "picked its starting point in the dividing cluster. What's the lesson?",
      g3=("sc-trajectory-05",), g2=("sc-trajectory-06", "sc-trajectory-07")),
    Q("alias", "Neurogenin-3-high progenitors in the day 15.5 mouse pancreas: how many endocrine fates did we "
      "resolve, and how?",
      g3=("sc-trajectory-03", "sc-trajectory-04")),
    Q("inflection", "Hematopoietic differentiation paths of umbilical stem/progenitor cells: which lineages and "
      "which fate drivers did we recover?",
      g3=("sc-trajectory-01",), g2=("sc-trajectory-02",)),
    # --- single-cell: cell-cell communication ----------------------------------------------------------------
    Q("lay", "Our cell-to-cell signalling comparison between scarred and healthy lungs just reflected which "
      "population was most numerous; how do we correct for that?",
      g3=("sc-ccc-03",), g2=("sc-ccc-04",), g1=("sc-ccc-02",)),
    Q("synonym", "The signalling-pair rankings flipped depending on which interaction knowledge base we picked. "
      "How much agreement was there?",
      g3=("sc-ccc-02",), g2=("sc-ccc-05",), g1=("sc-ccc-01", "sc-ccc-07")),
    Q("alias", "PD-L1/PD-1 and BLC-CXCR5 crosstalk in ER-, PR- and HER2-negative breast tumours: who sent to "
      "whom, and was it confirmed in tissue?",
      g3=("sc-ccc-01", "sc-ccc-07"), g2=("sc-ccc-02",)),
    Q("alias", "Oncostatin M crosstalk from recruited myeloid cells to the stroma in UC: how much stronger was it "
      "in active disease?",
      g3=("sc-ccc-05", "sc-ccc-06")),
    Q("alias", "Osteopontin-positive macrophages talking to fibroblasts in IPF: which analysis found that, and "
      "how was it validated?",
      g3=("sc-ccc-04",), g2=("sc-ccc-03",)),
    # --- scATAC QC -------------------------------------------------------------------------------------------
    Q("lay", "Enrichment around gene start sites was below 2 for every single cell. Which runs had the genome "
      "version mix-up?",
      g3=("atac-qc-02", "atac-qc-07"), g2=("atac-qc-03",), g1=("germline-07",)),
    Q("lay", "Adult mouse hippocampus open-chromatin nuclei where the Tn5 step chewed things up too much: could "
      "filtering save it?",
      g3=("atac-qc-06",)),
    Q("abbreviation", "Single-nucleus assay for transposase-accessible chromatin on GBM: from fragments to a "
      "peak matrix, what did we get?",
      g3=("atac-qc-07", "atac-qc-08")),
    Q("synonym", "Open-chromatin quality metrics for islets from people with adult-onset diabetes: TSS scores, "
      "fraction of reads in peaks, and peak totals",
      g3=("atac-qc-04", "atac-qc-05", "atac-qc-09")),
    # --- multiome --------------------------------------------------------------------------------------------
    Q("lay", "Only about a fifth of cells could be paired between the expression and chromatin halves of the "
      "joint assay. What was the mix-up?",
      g3=("multiome-02", "multiome-07")),
    Q("lay", "Enhancer-to-gene associations in the heart-muscle differentiation time course were mostly "
      "high-GC promoters; what fraction disappeared with a matched null?",
      g3=("multiome-06",), g2=("multiome-05",), g1=("multiome-01", "multiome-03")),
    Q("alias", "Did PU.1 binding-site openness follow PU.1 mRNA from one blood cell group to the next in the "
      "paired RNA/ATAC data?",
      g3=("multiome-01",), g2=("multiome-02",)),
    Q("inflection", "Ischemic injury kidneys, multiomic data: how many region-to-gene associations, and putative "
      "regulatory elements for VCAM-1?",
      g3=("multiome-03", "multiome-04"), g2=("multiome-07",)),
    # --- ChIP / CUT&Tag / CUT&RUN ----------------------------------------------------------------------------
    Q("lay", "Calling the wide Polycomb repressive mark in sharp-peak mode chopped domains into thousands of "
      "bits; which experiment was that?",
      g3=("chip-02",), g2=("chip-03",), g1=("chip-04",)),
    Q("lay", "Degrading the insulator protein with auxin dropped total signal, yet almost nothing came out as "
      "different. Why?",
      g3=("chip-06",), g2=("chip-04", "chip-05")),
    Q("abbreviation", "cleavage under targets and tagmentation in Eed-null mouse ES cells: how many differential "
      "windows?",
      g3=("chip-03", "chip-04"), g2=("chip-02",)),
    Q("alias", "c-Myc occupancy in the P493-6 Burkitt-like B cell line switched between high and low: what "
      "differed?",
      g3=("chip-07", "chip-08")),
    Q("abbreviation", "histone 3 lysine 27 acetylation in acute myeloid leukemia patients vs CD34-positive "
      "controls: peaks and differential regions",
      g3=("chip-01",)),
    # --- DNA methylation -------------------------------------------------------------------------------------
    Q("lay", "Two libraries looked hypermethylated because the bisulfite treatment hadn't fully worked; how did "
      "we spot it?",
      g3=("methylation-02",), g2=("methylation-01", "methylation-07")),
    Q("lay", "Tobacco users' whole-blood CpG hits were mostly differences in white-cell make-up; how much "
      "vanished once we adjusted?",
      g3=("methylation-04",), g2=("methylation-03",)),
    Q("abbreviation", "reduced representation bisulfite sequencing of old versus young mouse liver: Elovl2 "
      "promoter and DMR counts",
      g3=("methylation-05", "methylation-06")),
    Q("alias", "How often was the hMLH1 mismatch-repair gene silenced by CpG-island methylation in the bowel "
      "cancers we profiled?",
      g3=("methylation-01", "methylation-07"), g2=("methylation-02",)),
    # --- bulk RNA-seq: quantification ------------------------------------------------------------------------
    Q("lay", "Only about 40% of reads got assigned to genes because we counted on the wrong strand; which "
      "projects hit that?",
      g3=("bulk-quant-01", "bulk-quant-08"), g2=("bulk-quant-02", "bulk-quant-09"), g1=("bulk-quant-04",)),
    Q("lay", "Archival paraffin-block colon samples were mostly ribosomal and grouped by how degraded they were; "
      "what did we decide to do?",
      g3=("bulk-quant-05", "bulk-quant-06")),
    Q("synonym", "Lightweight mapping against a transcriptome index with genomic decoys for the breast cancer "
      "cohort from the cancer genome atlas: did gene totals agree with genome alignment plus counting?",
      g3=("bulk-quant-03",), g2=("bulk-quant-04", "bulk-quant-07")),
    Q("synonym", "Read quantification for the aortic-banding mouse hearts: which strand setting, and how much "
      "of the library mapped?",
      g3=("bulk-quant-07", "bulk-quant-08", "bulk-quant-09")),
    # --- bulk RNA-seq: differential expression ---------------------------------------------------------------
    Q("lay", "A female-only transcript showed up in a male donor's sample in the checkpoint-antibody T-cell "
      "experiment. What did we do about it?",
      g3=("bulk-de-03",), g2=("bulk-de-02",)),
    Q("lay", "Every treated sample went through the sequencer in a different run from the untreated ones; "
      "which comparisons were ruined by that?",
      g3=("bulk-de-05", "bulk-de-09"), g1=("sc-integration-04", "sc-integration-08")),
    Q("synonym", "Macrophages stimulated with bacterial endotoxin at several time points: which test picked out "
      "genes changing over time, and what patterns came out?",
      g3=("bulk-de-08",), g2=("bulk-de-09",)),
    Q("alias", "Oestrogen receptor alpha knockout MCF-7 clones: how many genes moved, and how far did GREB1 rise?",
      g3=("bulk-de-04", "bulk-de-11"), g2=("bulk-de-05",), g1=("gsea-05", "gsea-06")),
    Q("inflection", "Which genes were differentially expressed in hypoxic HUVECs with donors paired?",
      g3=("bulk-de-01", "bulk-de-10"), g1=("gsea-01", "qpcr-02")),
    # --- gene set enrichment ---------------------------------------------------------------------------------
    Q("lay", "Taking the entire genome as the reference list produced hundreds of 'significant' ontology "
      "categories; which analyses did that, and what fixed it?",
      g3=("gsea-02", "gsea-08"), g1=("gsea-06",)),
    Q("lay", "We lost about a quarter of our genes, core drivers included, when converting stable gene IDs to "
      "names. Which analysis was that?",
      g3=("gsea-05",), g1=("gsea-06",)),
    Q("synonym", "Per-sample pathway activity scoring for ER/PR/HER2-negative breast tumours against nearby "
      "non-tumour tissue",
      g3=("gsea-04",), g2=("gsea-03",)),
    Q("inflection", "Aging mouse kidneys: which hallmark came out on top, and how many sets passed?",
      g3=("gsea-07",), g2=("gsea-08",)),
    # --- splicing --------------------------------------------------------------------------------------------
    Q("lay", "The splicing tool quit complaining about read lengths because trimming left reads of different "
      "sizes; what else was wrong with that run?",
      g3=("splicing-03",), g2=("splicing-04",)),
    Q("alias", "After silencing TDP-43 in stem-cell-derived spinal neurons, which approaches spotted the hidden "
      "stathmin-2 exon and which did not?",
      g3=("splicing-05", "splicing-06", "splicing-07")),
    Q("abbreviation", "chronic lymphocytic leukaemia with the splicing factor 3b subunit 1 hotspot: what was the "
      "strongest event?",
      g3=("splicing-01", "splicing-02")),
    Q("alias", "RBM9 depletion in the liver cancer line: which exon skipping events came out on top?",
      g3=("splicing-04",), g2=("splicing-03",)),
    # --- pooled CRISPR screens -------------------------------------------------------------------------------
    Q("lay", "The guide library got bottlenecked at transduction, to only about a hundredfold coverage, and "
      "nothing passed. Which screen?",
      g3=("crispr-mageck-05",), g2=("crispr-mageck-06",)),
    Q("lay", "The strongest dropouts clustered in stretches with extra DNA copies; which blood cancer screen was "
      "fooled that way?",
      g3=("crispr-mageck-09",), g2=("crispr-mageck-10",)),
    Q("lay", "No day-zero sample and a lopsided plasmid pool made rare guides look essential",
      g3=("crispr-mageck-07",), g2=("crispr-mageck-08", "crispr-mageck-12")),
    Q("alias", "AMG 510 sensitiser knockouts in the G12C lung cancer line: top hits?",
      g3=("crispr-mageck-01", "crispr-mageck-02")),
    Q("abbreviation", "Which gene losses sensitise retinal pigment epithelium cells to poly(ADP-ribose) "
      "polymerase inhibition?",
      g3=("crispr-mageck-03", "crispr-mageck-04", "crispr-mageck-11")),
    Q("lay", "Which human genes does the COVID virus need to get into cells, according to our genome-wide "
      "knockout screen?",
      g3=("crispr-mageck-08", "crispr-mageck-12"), g2=("crispr-mageck-07",)),
    # --- single-cell CRISPR screens --------------------------------------------------------------------------
    Q("lay", "A cut-off of a single molecule for assigning guides picked up stray guide reads, so many cells "
      "looked like they carried two or more",
      g3=("perturbseq-03", "perturbseq-07")),
    Q("lay", "Nearly half the cells carrying an on-target sgRNA had no silencing of their gene; how did we tell "
      "those apart?",
      g3=("perturbseq-05",), g2=("perturbseq-01",), g1=("perturbseq-06",)),
    Q("synonym", "Calibrated conditional-randomisation testing in the erythroleukaemia interference single-cell "
      "screen: how many perturbations had an effect?",
      g3=("perturbseq-02",), g2=("perturbseq-01",)),
    Q("alias", "Scurfin and CD25 knockouts in primary helper T cells with a pooled single-cell readout: which "
      "perturbation had the strongest effect?",
      g3=("perturbseq-04",), g2=("perturbseq-03",)),
    # --- genome editing --------------------------------------------------------------------------------------
    Q("lay", "Short PCR products missed big deletions at the cut site in the edited T cells; how did we find out?",
      g3=("crispr-edit-03",), g2=("crispr-edit-02",)),
    Q("lay", "Precise tag insertion was tiny and most alleles were end-joining indels; what should we change?",
      g3=("crispr-edit-04",), g2=("crispr-edit-05",)),
    Q("alias", "Adenine base editing of the gamma-globin promoters in blood stem cells: editing and bystander "
      "rates",
      g3=("crispr-edit-01", "crispr-edit-06")),
    # --- proteomics ------------------------------------------------------------------------------------------
    Q("lay", "Skin proteins and the digestion enzyme topped our list of changed proteins. What was missing from "
      "the search?",
      g3=("prot-dda-02", "prot-dda-06")),
    Q("lay", "Borrowing peptide IDs across runs made with different LC gradient lengths gave artefactual "
      "proteins unique to one group",
      g3=("prot-dda-04",), g2=("prot-dda-03",)),
    Q("alias", "NfL and chitotriosidase in spinal fluid from motor neurone disease patients",
      g3=("prot-dda-03", "prot-dda-04")),
    Q("synonym", "p53 binding partners from pull-down mass spec scored against a contaminant repository",
      g3=("prot-dda-05",), g2=("prot-dda-06",)),
    Q("abbreviation", "Livers of mice on an HFD for two months: which proteins and processes changed in the LFQ "
      "data?",
      g3=("prot-dda-01", "prot-dda-07"), g2=("prot-dda-02",)),
    Q("lay", "The most abundant blood proteins swamped everything and the low-level markers we wanted never "
      "showed up",
      g3=("prot-dia-02",), g2=("prot-dia-01", "prot-dia-07")),
    Q("lay", "For the multiplexed single-cell proteomics, did the real error rate exceed the nominal 1% when "
      "searching without a spectral library?",
      g3=("prot-dia-05",), g2=("prot-dia-06",)),
    Q("abbreviation", "data-independent acquisition on formalin-fixed paraffin-embedded LUAD cores: protein "
      "counts and coefficients of variation",
      g3=("prot-dia-03", "prot-dia-04")),
    Q("lay", "Isobaric tag ratios came out squashed: ERK2 dual phosphorylation rose under 2-fold where targeted "
      "assays showed 7",
      g3=("prot-ptm-02",), g2=("prot-ptm-01",)),
    Q("lay", "We reported phospho sites without checking where on the peptide the phosphate really sat",
      g3=("prot-ptm-04",), g2=("prot-ptm-03",)),
    Q("alias", "AS160 phosphorylation in insulin-treated fat cells",
      g3=("prot-ptm-03", "prot-ptm-04")),
    Q("alias", "Xospata dosing of leukaemic cell lines: which STAT5 tyrosine went up, and what upstream kinase "
      "was inferred?",
      g3=("prot-ptm-05", "prot-ptm-06")),
    # --- germline and somatic variants -----------------------------------------------------------------------
    Q("lay", "The variant-score recalibration crashed because we only had a dozen exomes",
      g3=("germline-03",), g2=("germline-04",)),
    Q("lay", "Parts of the inherited-risk gene set came back with no variants at all because the bait file was "
      "for an older assembly",
      g3=("germline-07",), g2=("germline-08",), g1=("atac-qc-02", "atac-qc-07")),
    Q("alias", "Nav1.1 spontaneous (not inherited) change in the child with a severe seizure disorder, "
      "sequenced together with both parents",
      g3=("germline-01", "germline-02")),
    Q("abbreviation", "transition/transversion ratio and inheritance-inconsistency rate for the heart-muscle "
      "disease exome cohort",
      g3=("germline-05", "germline-06")),
    Q("inflection", "Formalin-damaged bowel tumors: why did cytosine-to-thymine calls at low allele fractions "
      "pile up and inflate the mutational burden?",
      g3=("somatic-01",), g2=("somatic-02",)),
    Q("lay", "Leukaemia cells in the skin sample we used as the normal made real mutations look inherited",
      g3=("somatic-05",), g2=("somatic-06",)),
    Q("lay", "Skin-cancer panels sequenced with no paired healthy sample: how many supposed acquired changes "
      "were really inherited ones?",
      g3=("somatic-03",), g2=("somatic-04",)),
    Q("synonym", "circulating tumour DNA with molecular barcodes at 20,000x: did we pick up the EGFR gatekeeper "
      "resistance mutation?",
      g3=("somatic-07", "somatic-08")),
    # --- GWAS and fine-mapping -------------------------------------------------------------------------------
    Q("lay", "Family members in the cholesterol cohort were treated as independent people in an ordinary "
      "regression. What did it do to the test results?",
      g3=("gwas-04",), g2=("gwas-03", "gwas-10"), g1=("gwas-05",)),
    Q("lay", "Too few ancestry axes left population structure in and the inflation went above 1.2",
      g3=("gwas-02", "gwas-07"), g2=("gwas-08",)),
    Q("synonym", "Analysis modelling the ancestral origin of each chromosome segment in the admixed Hispanic "
      "asthma cohort: what did it reveal?",
      g3=("gwas-08",), g2=("gwas-07",)),
    Q("alias", "Which apolipoprotein E allele led the dementia-in-parents association scan, and how strong was it?",
      g3=("gwas-05", "gwas-06")),
    Q("abbreviation", "low-density lipoprotein cholesterol genome-wide association: lead signal and number of "
      "loci",
      g3=("gwas-03", "gwas-10"), g2=("gwas-04",)),
    Q("lay", "The top causal candidate changed from run to run since the external linkage-disequilibrium "
      "reference didn't fit our genotypes",
      g3=("finemap-02", "finemap-06"), g1=("finemap-01",)),
    Q("synonym", "Shared-causal-variant test said the disease and gene-regulation signals were different, as the "
      "QTL data were from an unsuitable tissue",
      g3=("finemap-04",), g2=("finemap-03",)),
    Q("abbreviation", "coronary artery disease locus at sortilin: credible sets and colocalisation",
      g3=("finemap-05", "finemap-06")),
    Q("alias", "IL23R R381Q: posterior inclusion probability and colocalisation in inflammatory bowel disease",
      g3=("finemap-03", "finemap-04")),
    # --- spatial transcriptomics -----------------------------------------------------------------------------
    Q("lay", "Heart muscle cells looked absent everywhere when we mapped the nucleus reference onto the "
      "heart-attack tissue spots; why?",
      g3=("spatial-deconv-04",), g2=("spatial-deconv-03",)),
    Q("lay", "The atlas we used to decompose the bowel tumour spots lacked the stromal cells that feed the "
      "cancer, so those spots got confidently mislabelled",
      g3=("spatial-deconv-07",), g2=("spatial-deconv-08",), g1=("sc-annotation-03", "sc-annotation-05")),
    Q("inflection", "Deconvoluting the murine forebrain slices: did the six-layered neocortex come out in the "
      "right sequence?",
      g3=("spatial-deconv-05", "spatial-deconv-06")),
    Q("alias", "Where did the CD21-high follicular B cells land on the lymphoid organ sections, and did "
      "histology agree?",
      g3=("spatial-deconv-01", "spatial-deconv-02")),
    Q("lay", "Growing each nucleus outline by 15 microns pulled in the neighbours' transcripts",
      g3=("spatial-imaging-01", "spatial-imaging-06"), g2=("spatial-imaging-02",)),
    Q("lay", "The big hormone-secreting hypothalamic neurons got cut into two pieces by the segmentation; "
      "which setting did that?",
      g3=("spatial-imaging-04",), g2=("spatial-imaging-03",)),
    Q("alias", "Oxytocin and vasopressin region imaged with multiplexed FISH: how many cells did the "
      "molecule-based outlining give?",
      g3=("spatial-imaging-03",), g2=("spatial-imaging-04",)),
    Q("lay", "Each slide formed its own clusters instead of following the anatomy; what should have happened "
      "before clustering them together?",
      g3=("spatial-domains-02",), g2=("spatial-domains-01", "spatial-domains-07")),
    Q("lay", "We asked for too many tissue regions and the pericentral band broke into bands that didn't "
      "replicate across slices",
      g3=("spatial-domains-04",), g2=("spatial-domains-03",)),
    Q("alias", "Glypican-3 and alpha-fetoprotein zones in the liver cancer spatial data",
      g3=("spatial-domains-05", "spatial-domains-06")),
    # --- imaging ---------------------------------------------------------------------------------------------
    Q("lay", "Nuclei were cut in half because the expected size was half what they really were at that "
      "magnification",
      g3=("img-seg-01",), g2=("img-seg-08",)),
    Q("inflection", "Which stain color normalization rescued the faint nuclei in the scanned breast tissue?",
      g3=("img-seg-04",), g2=("img-seg-03",)),
    Q("lay", "Cells drifted out of the imaging plane during the visual cortex recordings",
      g3=("img-seg-07",), g2=("img-seg-06",)),
    Q("synonym", "Laplacian-of-Gaussian spot detection and frame-to-frame linking in the cervical cancer cell "
      "movie",
      g3=("img-seg-05",)),
    Q("lay", "Wells at the plate border dried out and produced most of the hits",
      g3=("img-hcs-04", "img-hcs-07")),
    Q("lay", "Our plates were photographed on two different scopes and the replicates stopped agreeing; which "
      "screen was it?",
      g3=("img-hcs-03",), g2=("img-hcs-01",)),
    Q("synonym", "Deep CNN features for the hepatotoxicity screen of a few hundred medicines: how reproducible "
      "were replicates?",
      g3=("img-hcs-06",), g2=("img-hcs-07",)),
    Q("lay", "Image patches from the same patient landed in both training and test sets",
      g3=("img-hist-02",), g1=("img-hist-04",)),
    Q("lay", "Our pathology network could tell which hospital a slide came from better than it could grade it",
      g3=("img-hist-04", "img-hist-07"), g1=("img-hcs-03",)),
    Q("abbreviation", "Microsatellite instability from haematoxylin and eosin slides",
      g3=("img-hist-01", "img-hist-02", "img-hist-07")),
    Q("synonym", "How well did our models score lymphocytic infiltration on ER/PR/HER2-negative breast sections?",
      g3=("img-hist-05", "img-hist-06")),
    # --- cheminformatics and structure -----------------------------------------------------------------------
    Q("lay", "Random splitting put near-identical molecules in both halves so the model looked great, until it "
      "met new chemistry",
      g3=("qsar-03", "qsar-08"), g2=("qsar-04", "qsar-07")),
    Q("lay", "Mixing nanomolar and micromolar potencies with inhibition percentages gave some training values "
      "wrong by a factor of a thousand",
      g3=("qsar-06",), g1=("chembl-01", "chembl-04")),
    Q("alias", "Kv11.1 potassium channel blocker model: how well did it generalise to new chemotypes?",
      g3=("qsar-03", "qsar-04")),
    Q("lay", "Models predicting which compounds stop the malaria parasite from growing",
      g3=("qsar-07", "qsar-08")),
    Q("lay", "The docking box sat on the empty structure where a loop shuts the pocket",
      g3=("docking-02",), g2=("docking-01", "docking-07")),
    Q("lay", "Wrong charge states for the amines sank the dopamine receptor screen",
      g3=("docking-05",), g2=("docking-06",)),
    Q("inflection", "How close did re-docking the co-crystallized inhibitor come for the main protease screens?",
      g3=("docking-03", "docking-04"), g1=("docking-01", "docking-06", "docking-07")),
    Q("lay", "Salt forms got counted as separate compounds in our activity download",
      g3=("chembl-03", "chembl-05", "chembl-06"), g1=("chembl-01", "chembl-02", "chembl-04")),
    Q("alias", "beta-secretase 1 inhibitor dataset curation: how many unique compounds after merging?",
      g3=("chembl-04",), g2=("chembl-05",)),
    Q("inflection", "Standardizing and deduplicating the EGFR bioactivity records: how many distinct molecules "
      "remained?",
      g3=("chembl-01",), g2=("chembl-06",), g1=("chembl-04",)),
    Q("lay", "Someone in the lab took the noodle-like, poorly scored region of the FUS prediction for genuine "
      "folding",
      g3=("alphafold-05", "alphafold-06")),
    Q("lay", "Modelling the trastuzumab-like binder on HER2: why was the docked binding site wrong, and what "
      "score warned us?",
      g3=("alphafold-07", "alphafold-08")),
    Q("alias", "Kelch-like ECH-associated protein 1 with the Nrf2 peptide: how confident was the interface?",
      g3=("alphafold-03", "alphafold-04", "alphafold-09")),
    Q("alias", "p53 arginine-175-to-histidine mutant structure prediction",
      g3=("alphafold-01", "alphafold-02")),
    Q("lay", "The particles all lay flat the same way on the grid and the density came out smeared along one "
      "axis; how was it fixed?",
      g3=("cryoem-02",)),
    Q("lay", "A mobile domain of the G protein was blurry even in the overall reconstruction; how did we sort out "
      "its states?",
      g3=("cryoem-05",), g2=("cryoem-06",)),
    Q("alias", "P-glycoprotein (MDR1) in nanodiscs: what resolution did we reach and did the drug show?",
      g3=("cryoem-01",), g2=("cryoem-02",), g1=("md-03", "md-04")),
    Q("lay", "Our G12C mutant with its warhead-bearing drug exploded within tens of picoseconds in MD; what was "
      "wrong with the ligand setup?",
      g3=("md-02",)),
    Q("lay", "One brief trajectory of the multidrug efflux pump in a lipid bilayer hinted at an opened "
      "conformation; was it real?",
      g3=("md-04",), g2=("md-03",)),
    Q("synonym", "Hydrocarbon-crosslinked helix binding the p53 E3 ligase: how long did the helicity last in "
      "simulation?",
      g3=("md-05", "md-06")),
    # --- genomes and microbes --------------------------------------------------------------------------------
    Q("lay", "The heterozygous wild Solanum genome came out about a quarter too large with many single-copy "
      "genes doubled; what went wrong?",
      g3=("assembly-02",), g2=("assembly-01", "assembly-07")),
    Q("lay", "Microbial sequence hiding in our freshwater fish draft: how big a share was it, and what tool "
      "should screen for it?",
      g3=("assembly-04",), g2=("assembly-03",)),
    Q("alias", "Carbapenemase-carrying plasmid in the hospital Klebsiella genomes: how big, and in how many "
      "isolates?",
      g3=("assembly-05", "assembly-06")),
    Q("lay", "Our drought rhizosphere 16S pairs stopped joining once cut short: what went wrong?",
      g3=("amplicon-03",), g2=("amplicon-07",)),
    Q("lay", "Reagent contaminants took over the low-biomass lung wash samples",
      g3=("amplicon-06",), g2=("amplicon-05",)),
    Q("synonym", "Inflammatory bowel disease stool marker-gene survey: exact sequence variants and the butyrate "
      "producer depletion",
      g3=("amplicon-01", "amplicon-02")),
    Q("lay", "Forgot to filter out the patient's own DNA before classifying microbes: what showed up?",
      g3=("shotgun-02", "shotgun-04")),
    Q("lay", "Hundreds of spurious low-level organisms in the tumour transcriptome microbe mining; how do we cut "
      "those down?",
      g3=("shotgun-03",)),
    Q("synonym", "Sewage metagenome time series over a year",
      g3=("shotgun-05", "shotgun-06")),
    Q("lay", "Throwing every sample into one joint assembly blended strains together; how many genome bins were "
      "lost?",
      g3=("mags-02", "mags-05"), g2=("mags-01", "mags-03")),
    Q("synonym", "Biogas reactor nanopore genome-resolved metagenomics",
      g3=("mags-04",)),
    # --- cytometry, immune repertoires, qPCR -----------------------------------------------------------------
    Q("inflection", "Normalizing septic-patient mass cytometry runs collected over a week: why did clusters split "
      "by day?",
      g3=("cytometry-02",), g2=("cytometry-01",)),
    Q("lay", "A spurious double-positive CD8 subset from fluorochrome spillover in the 28-colour panel: how did "
      "it go away?",
      g3=("cytometry-03",), g2=("cytometry-04",)),
    Q("abbreviation", "Mass cytometry of blood from septic patients who died versus those who lived: which "
      "monocyte subset grew?",
      g3=("cytometry-01",), g2=("cytometry-02",)),
    Q("lay", "Enormous families of unrelated antibody sequences lumped together because the grouping threshold "
      "came from someone else's data",
      g3=("repertoire-03",), g2=("repertoire-02",)),
    Q("abbreviation", "T-cell receptor beta chains in coeliac patients' gluten-reactive helper cells: any shared "
      "sequences across people?",
      g3=("repertoire-04",)),
    Q("lay", "The housekeeping gene we normalised to went up itself in low oxygen",
      g3=("qpcr-01",), g2=("qpcr-02",)),
    Q("alias", "Interleukin-6 induction in inflamed mouse colon after dextran sulfate: how big at day 7?",
      g3=("qpcr-04",)),
)
# fmt: on


if __name__ == "__main__":
    sys.exit(main())
