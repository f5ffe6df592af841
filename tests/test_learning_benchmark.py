"""benchmarks/learning.py: feedback on one set of questions teaches recall words that answer *other*
questions (issue 13: memory that learns its vocabulary, measured without a question teaching itself)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "learning.py"
CORPUS = [
    {"_id": "amp-1", "title": "16S amplicons of rhizosphere soil under drought",
     "text": "DADA2 ASVs, SILVA taxonomy; Actinobacteria bacteria enriched under drought. Tools: DADA2."},
    {"_id": "amp-2", "title": "Drought and the rhizosphere: 16S amplicon community of soil",
     "text": "bacteria shifted; rarefied to 10,000 reads. Tools: DADA2."},
    {"_id": "amp-3", "title": "Rhizosphere bacteria after drought, second season",
     "text": "Same pipeline; Streptomyces up. Tools: DADA2, phyloseq."},
    {"_id": "pbmc", "title": "Remove doublets from PBMC scRNA-seq", "text": "scDblFinder per sample."},
    {"_id": "trio", "title": "Call variants in an exome trio", "text": "GATK joint genotyping."},
    {"_id": "lps", "title": "Bulk RNA-seq of LPS-stimulated macrophages", "text": "DESeq2 time course."},
]


def write_set(folder: Path, query: dict[str, str], qrels: list[tuple[str, int]]) -> Path:
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CORPUS))
    (folder / "queries.jsonl").write_text(json.dumps(query) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n"
                                      + "".join(f"{query['_id']}\t{d}\t{g}\n" for d, g in qrels))
    return folder


def test_feedback_on_one_question_answers_another_in_its_words(tmp_path: Path) -> None:
    # The train question shares "soil bacteria" with two drought episodes, so recall injects them
    # and the simulated agent calls them helpful; the test question shares no word with any
    # episode ("dry spell in plant roots": a lab's own wording, which no shipped vocabulary joins
    # to drought) and finds nothing until the suggested groups, dry | drought among them, are accepted.
    train = write_set(tmp_path / "train", {"_id": "t1", "text": "soil bacteria during the dry spell"},
                      [("amp-1", 3), ("amp-2", 3)])
    test = write_set(tmp_path / "test", {"_id": "s1", "text": "dry spell in plant roots"}, [("amp-3", 3)])
    r = subprocess.run([sys.executable, str(SCRIPT), "--train", str(train), "--test", str(test), "--json"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["feedback"] == {"recalls": 1, "helpful": 2, "unhelpful": 0, "pointed": 0}
    assert "dry | drought" in [s["group"] for s in report["accepted"]], report["accepted"]
    before, after_feedback, after_vocabulary = (s["metrics"] for s in report["stages"])
    assert before["Hit@10"] == after_feedback["Hit@10"] == 0.0  # no vote concerns this question's words
    assert after_vocabulary["Hit@10"] == 1.0 and after_vocabulary["NDCG@10"] > 0.5
