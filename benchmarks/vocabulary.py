"""What the shipped vocabulary costs recall (docs/vocabulary.md): size, load and lookup time.

Run: .venv/bin/python benchmarks/vocabulary.py [--runs 30]

1. size of biocortex_cli/data/vocabulary.sqlite, on disk and deflated as in a wheel;
2. a whole process: ``import`` of the tokeniser alone, then tokeniser + vocabulary module + one
   ``expand`` (the first opens the data file): the difference is what a recall process pays;
3. in process: the first ``expand`` (open + lookup) and then every BioRecall question
   tokenised and expanded, per call.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from common import machine, summary, time_process  # noqa: E402

QUESTIONS = ROOT / "benchmarks" / "data" / "biorecall" / "queries.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    from biocortex_cli.bio import vocabulary

    data = Path(vocabulary.PATH).read_bytes()
    print(f"data file: {len(data) / 1e6:.2f} MB on disk, {len(zlib.compress(data, 6)) / 1e6:.2f} MB deflated "
          "(as in a wheel)")

    # A recall process has imported sqlite3, pathlib and dataclasses already (python -X importtime
    # biocortex recall …); the base process does too, so the difference is the vocabulary's own.
    base = ("import sqlite3, pathlib, dataclasses; from biocortex_cli.bio.text import tokenize; "
            "tokenize('hERG inhibition in single-cell data')")
    full = (base + "; from biocortex_cli.bio.vocabulary import expand; "
            "expand(tokenize('hERG inhibition in single-cell data'))")
    # Interleaved, so that load from other processes on a shared machine hits both alike.
    t_base: list[float] = []
    t_full: list[float] = []
    for _ in range(args.runs):
        t_base += time_process([sys.executable, "-c", base], 1, cwd=str(ROOT), warmup=0)
        t_full += time_process([sys.executable, "-c", full], 1, cwd=str(ROOT), warmup=0)
    diffs = sorted(f - b for f, b in zip(t_full, t_base, strict=True))
    print(f"process, tokenise only          {summary(t_base)}")
    print(f"process, tokenise + expand      {summary(t_full)}")
    print(f"  paired difference: median {statistics.median(diffs) * 1000:.2f} ms; "
          f"difference of minima {(min(t_full) - min(t_base)) * 1000:.2f} ms")

    # The same cost measured inside fresh processes (less noisy than whole-process wall time):
    # import of the module (bytecode cached) plus the first expand, after recall's own imports.
    probe = ("import sqlite3, pathlib, dataclasses, time; from biocortex_cli.bio.text import tokenize; "
             "t = tokenize('hERG inhibition in single-cell data'); s = time.perf_counter(); "
             "from biocortex_cli.bio.vocabulary import expand; m = time.perf_counter(); expand(t); "
             "e = time.perf_counter(); print((m - s) * 1000, (e - m) * 1000)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    pairs = [tuple(map(float, subprocess.run([sys.executable, "-c", probe], cwd=str(ROOT), env=env, check=True,
                                             capture_output=True, text=True).stdout.split()))
             for _ in range(args.runs)]
    for label, values in (("import", [p[0] for p in pairs]), ("first expand", [p[1] for p in pairs]),
                          ("both", [p[0] + p[1] for p in pairs])):
        v = sorted(values)
        print(f"fresh process, {label:<13} median {statistics.median(v):.2f} ms, min {v[0]:.2f} ms, "
              f"max {v[-1]:.2f} ms (n={len(v)})")

    from biocortex_cli.bio.text import tokenize

    tokens = tokenize("hERG inhibition")
    vocabulary._connect.cache_clear()
    started = time.perf_counter()
    vocabulary.expand(tokens)
    first = time.perf_counter() - started
    print(f"in process, first expand (opens the file, checks the schema, looks up): {first * 1000:.2f} ms")

    questions = [json.loads(line)["text"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]
    token_lists = [tokenize(q) for q in questions]
    per_call: list[float] = []
    n_exp = 0
    for _ in range(5):
        for tokens in token_lists:
            started = time.perf_counter()
            result = vocabulary.expand(tokens)
            per_call.append(time.perf_counter() - started)
            n_exp += len(result.expansions)
    us = sorted(t * 1e6 for t in per_call)
    print(f"in process, expand per BioRecall question ({len(questions)} x 5): median {statistics.median(us):.0f} µs, "
          f"p90 {us[int(0.9 * (len(us) - 1))]:.0f} µs, max {us[-1]:.0f} µs; "
          f"{n_exp / len(per_call):.1f} synonyms per question")


if __name__ == "__main__":
    main()
