"""What one `biocortex feedback` costs in a vault that has received a lot of feedback.

Feedback lives in one file per writer and day (store/feedback.py). A vote must not repeat one
its writer already recorded, and a retraction (in anyone's file) withdraws votes; this measures
that a vote's cost stays that of its own writer's files when nothing of the kind is at stake.

The vault: the shipped sample episodes, plus ``--records`` synthetic feedback lines spread over
``--writers`` agents and ``--days`` days, committed. Each run records feedback on a different
recall (ids made by recall beforehand), so no two share a second or a key. ``--before DIR`` runs
the code in DIR (an exported tree of another commit) on its own copy of the vault, in the same
rounds, for a side-by-side figure.

Reproduce:
    .venv/bin/python benchmarks/feedback_write.py --runs 11 [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import machine, run_cli, tree_env  # noqa: E402

REPO = HERE.parent
QUERIES = ("doublets multiome", "KRAS screen", "proteomics liver", "variant calling", "docking EGFR",
           "QSAR model", "spatial transcriptomics", "CRISPR guides", "bulk RNA-seq", "cell segmentation")


def _env(home: Path, code: Path | None) -> dict[str, str]:
    return tree_env(home, code, BIOCORTEX_AUTHOR="Bench <b@lab.example>")


def _cli(env: dict[str, str], vault: Path, *args: str) -> str:
    return run_cli(env, vault, *args)[0]


def _vault(tmp: Path, env: dict[str, str], records: int, writers: int, days: int) -> Path:
    vault = tmp / "vault"
    _cli(env, tmp, "init", str(vault))
    _cli(env, vault, "episode", "import", str(REPO / "examples" / "sample_episodes.jsonl"))
    ids = [json.loads(line)["id"] for line in (REPO / "examples" / "sample_episodes.jsonl").read_text().splitlines()
           if line.strip()]
    rng = random.Random(7)
    for n in range(records):
        day, writer = n % days, (n // days) % writers
        date = time.strftime("%Y-%m-%d", time.gmtime(1_767_225_600 + day * 86_400))  # from 2026-01-01
        path = vault / "feedback" / date[:4] / date[5:7] / f"{date}.agent-{writer}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as out:
            out.write(json.dumps({"recall_id": f"r{rng.randrange(10**12):012d}", "outcome": "success",
                                  "helpful": [rng.choice(ids)], "unhelpful": [], "injected": [rng.choice(ids)],
                                  "query": "doublets in multiome data", "note": "", "author": f"agent-{writer} <a@x>",
                                  "created": f"{date}T10:{n % 60:02d}:00Z"}) + "\n")
    subprocess.run(["git", "-C", str(vault), "add", "-A"], env=env, check=True)
    subprocess.run(["git", "-C", str(vault), "commit", "-qm", "feedback: synthetic"], env=env, check=True)
    return vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--records", type=int, default=18_000)
    parser.add_argument("--writers", type=int, default=20)
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--before", type=Path, help="also run the code in this folder (an exported tree)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        home = tmp / "home"
        home.mkdir()
        (home / "gitconfig").write_text("[user]\n\tname = Bench\n\temail = b@lab.example\n")
        trees: dict[str, Path | None] = {"this tree": REPO}
        if args.before:
            trees["before"] = args.before.resolve()
        base = _vault(tmp, _env(home, REPO), args.records, args.writers, args.days)
        files = sum(1 for _ in (base / "feedback").rglob("*.jsonl"))
        vaults: dict[str, Path] = {}
        rids: dict[str, list[str]] = {}
        for label, code in trees.items():
            vaults[label] = tmp / f"vault-{len(vaults)}"
            shutil.copytree(base, vaults[label], symlinks=True)
            env = _env(home, code)
            rids[label] = [json.loads(_cli(env, vaults[label], "recall", QUERIES[i % len(QUERIES)] + f" {i}",
                                           "--json"))["recall_id"] for i in range(args.runs + 1)]
        times: dict[str, list[float]] = {label: [] for label in trees}
        for i in range(args.runs + 1):  # the first round warms the caches and is not counted
            for label, code in trees.items():
                env = _env(home, code)
                started = time.perf_counter()
                _cli(env, vaults[label], "feedback", rids[label][i], "--outcome", "success")
                if i:
                    times[label].append(time.perf_counter() - started)
        print(f"machine: {machine()}")
        print(f"vault: {args.records:,} feedback records in {files:,} files ({args.writers} writers, {args.days} days)")
        for label, samples in times.items():
            ms = sorted(t * 1000 for t in samples)
            print(f"feedback ({label}): median {statistics.median(ms):.0f} ms  min {ms[0]:.0f} ms  (n={len(ms)})")


if __name__ == "__main__":
    main()
