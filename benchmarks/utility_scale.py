"""What utility without a question costs at scale: `forget --utility-below` and `lessons`.

Without a question of its own, a memory's utility is the one for its own subject (its task), so
each judged memory weighs the questions it was voted on against its task (index/feedback.py
``own_evidence``): one similarity per judged memory, where a question-free sum was one query.

The vault: a copy of the synthetic vault (``benchmarks/synthetic.py``) with ``--records`` feedback
records on ``--judged`` episodes, committed. Each record's question is the task of a random
episode (its own in half of them, another's in the rest), so the index holds thousands of
distinct questions that share words with the tasks. ``--before DIR`` runs the code in DIR (an
exported tree of another commit) on its own copy, in the same rounds.

Reproduce:
    .venv/bin/python benchmarks/utility_scale.py --episodes 10000 --runs 5 [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import machine, run_cli, tree_env  # noqa: E402
from synthetic import ensure_vault  # noqa: E402

REPO = HERE.parent
TASK = re.compile(r"^task: (.*)$", re.MULTILINE)
ID = re.compile(r"^id: (.*)$", re.MULTILINE)


def _run(env: dict[str, str], vault: Path, *args: str) -> float:
    return run_cli(env, vault, *args)[1]


def _feedback(vault: Path, records: int, judged: int) -> None:
    episodes = []
    for path in sorted((vault / "episodes").rglob("*.md")):
        head = path.read_text(encoding="utf-8")[:4000]
        id_line, task_line = ID.search(head), TASK.search(head)
        if id_line and task_line:
            episodes.append((id_line.group(1).strip().strip("'\""), task_line.group(1).strip().strip("'\"")))
    rng = random.Random(7)
    chosen = rng.sample(episodes, min(judged, len(episodes)))
    folder = vault / "feedback" / "2026" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    lines: dict[str, list[str]] = {}
    for n in range(records):
        ident, task = rng.choice(chosen)
        question = task if n % 2 else rng.choice(episodes)[1]
        vote = "helpful" if rng.random() < 0.6 else "unhelpful"
        day = f"2026-01-{n % 28 + 1:02d}"
        lines.setdefault(f"{day}.agent-{n % 10}.jsonl", []).append(json.dumps(
            {"recall_id": f"r{rng.randrange(10**12):012d}", "outcome": "success",
             "helpful": [ident] if vote == "helpful" else [], "unhelpful": [ident] if vote == "unhelpful" else [],
             "injected": [ident], "query": question, "note": "", "author": f"agent-{n % 10} <a@x>",
             "created": f"{day}T10:00:{n % 60:02d}Z"}))
    for name, body in lines.items():
        (folder / name).write_text("\n".join(body) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--judged", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="also run the code in this folder (an exported tree)")
    args = parser.parse_args()
    source = ensure_vault(args.episodes)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        home = tmp / "home"
        home.mkdir()
        (home / "gitconfig").write_text("[user]\n\tname = Bench\n\temail = b@lab.example\n")
        base = tmp / "base"
        shutil.copytree(source, base, symlinks=True)
        _feedback(base, args.records, args.judged)
        subprocess.run(["git", "-C", str(base), "add", "-A"], env=tree_env(home, REPO), check=True)
        subprocess.run(["git", "-C", str(base), "commit", "-qm", "feedback: synthetic"], env=tree_env(home, REPO),
                       check=True)
        trees = {"this tree": REPO, **({"before": args.before.resolve()} if args.before else {})}
        vaults: dict[str, Path] = {}
        for label, code in trees.items():
            vaults[label] = tmp / f"vault-{len(vaults)}"
            shutil.copytree(base, vaults[label], symlinks=True)
            _run(tree_env(home, code), vaults[label], "index")  # built once, outside the rounds
        commands = {"forget --utility-below 0.5 --dry-run": ("forget", "--utility-below", "0.5", "--dry-run",
                                                             "--json"),
                    "lessons": ("lessons", "--json")}
        times: dict[tuple[str, str], list[float]] = {}
        for i in range(args.runs + 1):  # the first round warms the caches and is not counted
            for command, argv in commands.items():
                for label, code in trees.items():
                    took = _run(tree_env(home, code), vaults[label], *argv)
                    if i:
                        times.setdefault((command, label), []).append(took)
        print(f"machine: {machine()}")
        print(f"vault: {args.episodes:,} episodes; {args.records:,} feedback records on {args.judged:,} episodes")
        for (command, label), samples in times.items():
            ms = sorted(t * 1000 for t in samples)
            print(f"{command} ({label}): median {statistics.median(ms):.0f} ms  min {ms[0]:.0f} ms  (n={len(ms)})")


if __name__ == "__main__":
    main()
