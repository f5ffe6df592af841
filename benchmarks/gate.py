"""What the recall gate lets through on a BEIR-style set: NDCG@10 and, per question, how many
results come back, how many of them are not relevant, and how many questions get nothing.

``biocortex eval`` scores rankings; NDCG never counts a wrong result at the bottom of a list
against it, so a gate that drops noise looks no better there. This prints the other half:
results an agent receives that the set does not judge relevant (grade 0 or unjudged), by
category, for the gate off (``min_relevance`` 0) and the config's gate.

    .venv/bin/python benchmarks/gate.py benchmarks/data/biorecall benchmarks/data/biorecall-paraphrase
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # biocortex_cli from a checkout, if not installed


def main() -> None:
    from biocortex_cli.evaluate.run import evaluate

    parser = argparse.ArgumentParser()
    parser.add_argument("datasets", nargs="+", type=Path)
    args = parser.parse_args()
    for root in args.datasets:
        report = evaluate(root)
        print(f"## {root} ({report.judged} questions)\n")
        print("| system | category | n | NDCG@10 | results / question | not relevant / question | no result |")
        print("|---|---|--:|--:|--:|--:|--:|")
        from biocortex_cli.evaluate.dataset import load_beir

        beir = load_beir(root)
        category = {q.id: q.category or "-" for q in beir.judged(1)}
        for system in report.systems:
            if system.name == "bm25":
                continue
            groups: dict[str, list[str]] = {"all": list(system.rankings)}
            for qid in system.rankings:
                groups.setdefault(category[qid], []).append(qid)
            for name, qids in groups.items():
                shown = [len(system.rankings[q]) for q in qids]
                wrong = [sum(1 for d in system.rankings[q] if beir.qrels[q].get(d, 0) <= 0) for q in qids]
                ndcg = statistics.fmean(system.per_query[q]["NDCG@10"] for q in qids)
                print(f"| {system.label} | {name} | {len(qids)} | {ndcg:.4f} | {statistics.fmean(shown):.2f} |"
                      f" {statistics.fmean(wrong):.2f} | {sum(1 for s in shown if not s)} |")
        print()


if __name__ == "__main__":
    main()
