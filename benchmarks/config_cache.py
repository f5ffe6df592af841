"""Does the config cache pay (issue 16)? A ``recall`` with the cached config, the same ``recall``
parsing the YAML (the cache removed before each run), and ``python -c pass``, interleaved so the
three see the same load.

Run: .venv/bin/python benchmarks/config_cache.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BIOCORTEX, machine, summary

from biocortex_cli.store.config import CACHE_REL

REPO = Path(__file__).resolve().parents[1]
QUERY = "what went wrong last time we removed doublets from 10x multiome data?"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(BIOCORTEX_VAULT=str(vault), HOME=tmp)
        for cmd in (["init", str(vault)], ["episode", "import", str(REPO / "examples/sample_episodes.jsonl")],
                    ["recall", QUERY]):
            subprocess.run([*BIOCORTEX, *cmd], check=True, capture_output=True, env=env)
        recall = [*BIOCORTEX, "recall", QUERY]
        samples: dict[str, list[float]] = {"cached config": [], "YAML parsed": [], "python -c pass": []}
        for _ in range(args.runs):
            for label, cmd in (("cached config", recall), ("YAML parsed", recall),
                               ("python -c pass", [sys.executable, "-c", "pass"])):
                if label == "YAML parsed":
                    (vault / CACHE_REL).unlink(missing_ok=True)
                started = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True, env=env)
                samples[label].append(time.perf_counter() - started)
                if label == "YAML parsed":  # the next "cached" run finds the cache again
                    subprocess.run(recall, check=True, capture_output=True, env=env)
        for label, values in samples.items():
            print(f"{label:<16} {summary(values)}")


if __name__ == "__main__":
    main()
