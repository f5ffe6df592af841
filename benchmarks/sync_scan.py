"""What scanning outgoing commits for secrets adds to ``sync`` (ops/sync.py ``_refuse_secrets``).

Every file that the commits a push would send add or change is read from git (one ``cat-file
--batch``) and scanned as a write scans it. The usual sync sends a few commits; the worst case
is a vault's first push, which sends its whole history. This times the scan alone, in-process,
on the synthetic vault (``benchmarks/synthetic.py``): over the whole history (the first push) and
over its last commit.

Reproduce:
    .venv/bin/python benchmarks/sync_scan.py --episodes 10000 --runs 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import machine
from synthetic import ensure_vault

from biocortex_cli.ops.sync import _refuse_secrets
from biocortex_cli.store import git
from biocortex_cli.store.vault import Vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    root = ensure_vault(args.episodes)
    vault = Vault(root)
    commits = int(git.run(root, "rev-list", "--count", "HEAD").strip())
    files = len(git.run(root, "log", "--format=", "--name-only", "--diff-filter=AM", "HEAD").split())
    print(f"machine: {machine()}")
    print(f"vault: {root} ({args.episodes:,} episodes; {commits} commits adding or changing {files:,} files)")
    for label, upstream in (("whole history (a first push)", None), ("last commit", "HEAD~1")):
        if upstream and commits < 2:
            continue
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            _refuse_secrets(vault, Path(root), upstream, set())
            times.append(time.perf_counter() - started)
        print(f"{label}: median {statistics.median(times):.2f} s (min {min(times):.2f} s, n={len(times)})")


if __name__ == "__main__":
    main()
