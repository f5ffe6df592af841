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
    with would you your s t ever just did didn""".split()
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
    Q("alias", "PU.1 motif activity versus PU.1 transcript levels across blood clusters in the joint "
      "expression/accessibility data",
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
    Q("alias", "hMLH1 promoter hypermethylation in bowel tumours vs paired normal: how many samples?",
      g3=("methylation-01", "methylation-07"), g2=("methylation-02",)),
)
# fmt: on


if __name__ == "__main__":
    sys.exit(main())
