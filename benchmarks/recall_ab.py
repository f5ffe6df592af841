"""Whole-process ``recall`` time of two revisions side by side (did a change slow recall?).

Each revision's ``biocortex_cli`` is exported with ``git archive`` and run with PYTHONPATH on its
own copy of the cached synthetic vault (``benchmarks/synthetic.py``), alternating revisions run by
run so machine load hits both alike. Prints the median and p90 wall time and the median user+sys
CPU time per recall.

``--feedback N`` commits the same N feedback records to both copies first (one file per day, as
``biocortex feedback`` writes them): each given on one of the timed questions or a variant of it,
naming and injecting episodes that question recalls, so the recalls timed read votes on the very
episodes they rank (the worst case for question-dependent utility, docs/learning.md).

    .venv/bin/python benchmarks/recall_ab.py --base main --size 1000 --runs 8
    .venv/bin/python benchmarks/recall_ab.py --base main --size 10000 --runs 5 --feedback 1000

``--in-process K`` times the recall itself instead of whole processes: each run starts one
process per revision that recalls every question K times (``recall_vault``, index freshness check
included, no recall log) and reports each recall's time — start-up left out, so a difference of
a few milliseconds is not lost in a loaded machine's noise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import GIT_ENV, ensure_vault

REPO = Path(__file__).resolve().parents[1]
QUERIES = ("doublet removal in 10x multiome pbmc", "differential expression with DESeq2 in liver",
           "peak calling MACS2 ATAC-seq", "what went wrong with batch correction", "variant calling GATK exome")
#: words added to a timed question to make the questions feedback was given on
VARIANTS = ("", "in tumour", "for the new cohort", "per sample", "with low coverage", "pitfalls")


def feedback_lines(vault: Path, env: dict[str, str], count: int) -> str:
    """``count`` feedback records (JSON lines) on the timed questions and variants of them."""
    recalled: dict[str, list[str]] = {}
    for query in QUERIES:
        out = subprocess.run([sys.executable, "-m", "biocortex_cli", "recall", query, "--json", "--top-k", "30"],
                             env=env, capture_output=True, check=True).stdout
        recalled[query] = [hit["id"] for hit in json.loads(out)["results"]]
    rng = random.Random(13)
    lines = []
    for n in range(count):
        query = QUERIES[n % len(QUERIES)]
        ids = recalled[query]
        injected = rng.sample(ids, min(5, len(ids)))
        judged = rng.sample(injected, min(2, len(injected)))
        record = {"recall_id": f"r{n:012d}", "outcome": rng.choice(("success", "failure")),
                  "helpful": judged[:1], "unhelpful": judged[1:], "injected": injected,
                  "query": f"{query} {rng.choice(VARIANTS)}".strip(), "note": "", "author": "bench",
                  "created": f"2026-01-{1 + n % 28:02d}T00:00:00Z"}
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


IN_PROCESS = """
import json, sys, time
from biocortex_cli.recall.service import options_from_config, recall_vault
from biocortex_cli.store.vault import Vault
from pathlib import Path
vault = Vault(Path(sys.argv[1]).resolve())
out = []
for query in json.loads(sys.argv[2]):
    for _ in range(int(sys.argv[3])):
        started = time.perf_counter()
        recall_vault(vault, options_from_config(vault, query), log=False)
        out.append(time.perf_counter() - started)
print(json.dumps(out))
"""


def add_feedback(vault: Path, text: str) -> None:
    folder = vault / "feedback" / "2026" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "2026-01-01.bench.jsonl").write_text(text, encoding="utf-8")
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "-C", str(vault), "add", "feedback"], check=True, env=env)
    subprocess.run(["git", "-C", str(vault), "commit", "-qm", "feedback: bench"], check=True, env=env)


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
    parser.add_argument("--feedback", type=int, default=0, help="feedback records committed to both vaults")
    parser.add_argument("--in-process", type=int, default=0, metavar="K",
                        help="time K recalls of each question inside one process per run (no start-up)")
    args = parser.parse_args()
    source = ensure_vault(args.size, quiet=True)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {args.base: export(args.base, Path(tmp) / "base"), "working tree": REPO}
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in trees}
        envs = {}
        lines = ""
        for i, (name, tree) in enumerate(trees.items()):
            vault = Path(tmp) / f"vault-{i}"
            # a clone, not a copy: git may be repacking the cached vault in the background
            subprocess.run(["git", "clone", "-q", str(source), str(vault)], check=True)
            env = {**os.environ, "PYTHONPATH": str(tree), "BIOCORTEX_VAULT": str(vault)}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            envs[name] = env
            if args.feedback:
                lines = lines or feedback_lines(vault, {**env, "PYTHONPATH": str(REPO)}, args.feedback)
                add_feedback(vault, lines)
            subprocess.run([sys.executable, "-m", "biocortex_cli", "recall", "warm up"], env=env,
                           capture_output=True, check=True)
        for _ in range(args.runs):
            for name in trees:
                if args.in_process:
                    out = subprocess.run([sys.executable, "-c", IN_PROCESS, envs[name]["BIOCORTEX_VAULT"],
                                          json.dumps(QUERIES), str(args.in_process)], env=envs[name],
                                         capture_output=True, check=True).stdout
                    times[name][0].extend(json.loads(out))
                    continue
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
        if args.in_process:
            print(f"{name}: {args.size} episodes, {args.feedback} feedback records, {len(walls)} recalls in-process:"
                  f" median {statistics.median(walls) * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms")
            continue
        wall = statistics.median(walls) * 1000
        print(f"{name}: {args.size} episodes, {args.feedback} feedback records, {len(walls)} recalls:"
              f" wall median {wall:.1f} ms,"
              f" p90 {p90 * 1000:.1f} ms; user+sys median {statistics.median(cpu) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
