"""Whole-process ``recall`` time of two revisions side by side (did a change slow recall?).

Each revision's ``biocortex_cli`` is exported with ``git archive`` and run with PYTHONPATH on its
own copy of the cached synthetic vault (``benchmarks/synthetic.py``), alternating revisions run by
run so machine load hits both alike. Prints the median and p90 wall time and the median user+sys
CPU time per recall.

    .venv/bin/python benchmarks/recall_ab.py --base main --size 1000 --runs 8
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import ensure_vault

REPO = Path(__file__).resolve().parents[1]
QUERIES = ("doublet removal in 10x multiome pbmc", "differential expression with DESeq2 in liver",
           "peak calling MACS2 ATAC-seq", "what went wrong with batch correction", "variant calling GATK exome")


def export(rev: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "biocortex_cli", "vault_template"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="main", help="revision to compare the working tree with")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    source = ensure_vault(args.size, quiet=True)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {args.base: export(args.base, Path(tmp) / "base"), "working tree": REPO}
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in trees}
        envs = {}
        for i, (name, tree) in enumerate(trees.items()):
            vault = Path(tmp) / f"vault-{i}"
            # a clone, not a copy: git may be repacking the cached vault in the background
            subprocess.run(["git", "clone", "-q", str(source), str(vault)], check=True)
            env = {**os.environ, "PYTHONPATH": str(tree), "BIOCORTEX_VAULT": str(vault)}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            envs[name] = env
            subprocess.run([sys.executable, "-m", "biocortex_cli", "recall", "warm up"], env=env,
                           capture_output=True, check=True)
        for _ in range(args.runs):
            for name in trees:
                for query in QUERIES:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    started = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "biocortex_cli", "recall", query], env=envs[name],
                                   capture_output=True, check=True)
                    wall = time.perf_counter() - started
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    times[name][0].append(wall)
                    times[name][1].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    for name, (walls, cpu) in times.items():
        p90 = sorted(walls)[int(len(walls) * 0.9)]
        wall = statistics.median(walls) * 1000
        print(f"{name}: {args.size} episodes, {len(walls)} recalls: wall median {wall:.1f} ms,"
              f" p90 {p90 * 1000:.1f} ms; user+sys median {statistics.median(cpu) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
