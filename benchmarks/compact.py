"""How many of recall's tokens go to ids and paths, with and without ``--compact`` (issue 17 item 7).

On the demo vault (``make demo``'s: a new vault and the shipped sample episodes), every question
below is recalled twice, as printed and with ``--compact``. For each output: its tokens (the
vault's encoding), and the tokens left when every id, path, the recall id and the vault commit
are taken out (with the `` · `` before each); the difference is what ids and paths cost.

Reproduce:
    .venv/bin/python benchmarks/compact.py
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from biocortex_cli.tokens import get_counter

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "what went wrong last time we removed doublets from 10x multiome data?",
    "KRAS G12C CRISPR screen resistance",
    "doublet detection in single-cell data",
    "call doublets per sample before merging libraries",
    "KEAP1 knockout and p53 in lung cancer cells",
    "differential expression with DESeq2 and batch effects",
    "variant calling with GATK on exomes",
    "spatial transcriptomics deconvolution",
]


def run(vault: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "biocortex_cli", "--vault", str(vault), *args],
                          capture_output=True, text=True, check=True).stdout


def stripped(data: dict[str, object]) -> str:
    text = str(data["context"])
    for hit in data["results"]:  # type: ignore[attr-defined]
        text = text.replace(f" · {hit['path']}", "").replace(f" · {hit['id']}", "")
    commit = str(data["vault_commit"] or "none")[:7]
    return text.replace(f" · vault {commit}", "").replace(f" · recall {data['recall_id']}", "")


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()  # no options: --help only
    count = get_counter("cl100k_base").count
    totals = {"default": [0, 0], "compact": [0, 0]}
    with tempfile.TemporaryDirectory(prefix="biocortex-compact-") as tmp:
        vault = Path(tmp) / "demo"
        subprocess.run([sys.executable, "-m", "biocortex_cli", "init", str(vault)], check=True, capture_output=True)
        run(vault, "episode", "import", str(REPO / "examples" / "sample_episodes.jsonl"))
        print(f"{'question':72} {'tokens':>7} {'ids+paths':>10} {'compact':>8} {'ids+paths':>10}")
        for question in QUESTIONS:
            row = []
            for mode, extra in (("default", []), ("compact", ["--compact"])):
                data = json.loads(run(vault, "recall", question, "--json", *extra))
                tokens = count(str(data["context"]))
                cost = tokens - count(stripped(data))
                totals[mode][0] += tokens
                totals[mode][1] += cost
                row += [tokens, cost]
            print(f"{question[:72]:72} {row[0]:>7} {row[1]:>10} {row[2]:>8} {row[3]:>10}")
    for mode, (tokens, cost) in totals.items():
        print(f"{mode}: {tokens} tokens, {cost} on ids and paths ({100 * cost / tokens:.1f}%)")
    saved = totals["default"][0] - totals["compact"][0]
    print(f"--compact saves {saved} tokens ({100 * saved / totals['default'][0]:.1f}% of the output)")


if __name__ == "__main__":
    main()
