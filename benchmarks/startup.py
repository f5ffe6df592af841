"""Start-up time of whole biocortex processes (issues 2 and 16): the floor, --version, --help,
episode list, and recall on a vault of ``--size`` episodes, measured in turns (one run of each
process, then the next round), so every row sees the same load.

Run: .venv/bin/python benchmarks/startup.py [--runs 30] [--size 10000] [--instructions] [--before DIR]

The recall vault is benchmarks/synthetic.py's (generated once, cached); ``--size 0`` skips it.
``--instructions`` also counts the instructions each of the floor, recall and recall's imports
alone executes, under valgrind's callgrind: unlike times, the counts do not depend on the load
of a shared machine (git's child processes are not counted). Where a process's time goes:
``python -X importtime -m biocortex_cli … 2> imports.txt`` (with PYTHONDONTWRITEBYTECODE unset).
``--before DIR`` adds a row for the code in DIR (an exported tree of another commit, run on its
own copy of the vault with ``PYTHONPATH=DIR``, so a renderer changed between the two does not
re-render the index on every run): before and after side by side, in the same rounds.
``--facts VAULT`` adds ``fact verify`` of ``--claim`` (default ``MAP100 activates BRCA10000``) on
that vault — one with a registered dataset, e.g. the 1M-edge file of benchmarks/datasets.py (issue
15's target: ≤ 3× the floor) — with its instructions, and before/after with ``--before``.

Recall is measured without the check for hand edits (index/build.py): ``BIOCORTEX_WATCH=0`` (no
watcher process, index/watch.py) and, before every run, the index's bookkeeping says the check
ran just now and is slow (:func:`check_not_due`), so it is not due. What it costs when it runs
is measured by benchmarks/listing.py.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BIOCORTEX, machine, summary

BIN = str(Path(sys.executable).with_name("biocortex"))
QUERY = "doublet detection in 10x multiome scRNA-seq with scDblFinder"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check_not_due(vault: Path) -> None:
    """Make the check for hand edits not due in the next refresh: checked just now, at a cost
    that throttles it (index/build.py ``_edits_due``)."""
    import json
    import sqlite3

    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    with conn:
        conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                         [("edits_checked", json.dumps(time.time())), ("edits_cost", json.dumps(10.0))])
    conn.close()


def in_turns(rows: list[tuple[str, list[str], dict[str, str]]], runs: int, warmup: int = 2,
             before: Callable[[str], None] = lambda label: None) -> dict[str, tuple[list[float], list[float]]]:
    """Wall-clock and CPU (user + system) seconds of each row's process (its children included),
    ``runs`` rounds of one run each (after ``warmup``); ``before(label)`` runs before each, unmeasured."""
    out: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label, _cmd, _env in rows}
    for i in range(warmup + runs):
        for label, cmd, env in rows:
            before(label)
            # bytecode caching on, as on any normal machine (this sandbox sets PYTHONDONTWRITEBYTECODE)
            full_env = {k: v for k, v in {**os.environ, **env}.items() if k != "PYTHONDONTWRITEBYTECODE"}
            cpu, started = _children_cpu(), time.perf_counter()
            proc = subprocess.run(cmd, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
            elapsed, used = time.perf_counter() - started, _children_cpu() - cpu
            if proc.returncode not in (0, 1):
                raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-500:]}")
            if i >= warmup:
                out[label][0].append(elapsed)
                out[label][1].append(used)
    return out


def instructions(cmd: list[str], env: dict[str, str]) -> int:
    """Instructions the process executes (callgrind's "I refs")."""
    full_env = {k: v for k, v in {**os.environ, **env}.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd], env=full_env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    line = next(ln for ln in proc.stderr.splitlines() if "I   refs:" in ln or "I refs:" in ln)
    return int(line.rsplit(":", 1)[1].replace(",", "").strip())


def recall_modules(vault: Path) -> list[str]:
    """The modules a recall imports (run in-process once)."""
    code = ("import io, sys; before = set(sys.modules); from biocortex_cli.cli.main import main; "
            "out, sys.stdout = sys.stdout, io.StringIO(); main(sys.argv[1:]); sys.stdout = out; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    check_not_due(vault)
    done = subprocess.run([sys.executable, "-c", code, "--vault", str(vault), "recall", QUERY], capture_output=True,
                          text=True, check=True, env={**os.environ, "BIOCORTEX_WATCH": "0"})
    return done.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--size", type=int, default=10000, help="episodes in the recall vault (0: no recall row)")
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind (callgrind)")
    parser.add_argument("--before", type=Path, help="also recall with the code in this folder (an exported tree)")
    parser.add_argument("--facts", type=Path, help="also `fact verify` on this vault (with a registered dataset)")
    parser.add_argument("--claim", default="MAP100 activates BRCA10000", help="what `fact verify` is asked")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        env = {"BIOCORTEX_VAULT": str(vault), "HOME": tmp}
        subprocess.run([*BIOCORTEX, "init", str(vault)], check=True, capture_output=True, env={**os.environ, **env})
        rows = [
            ("python -c pass (the floor)", [sys.executable, "-c", "pass"], {}),
            ("python -c 'import typer'", [sys.executable, "-c", "import typer"], {}),
            ("biocortex --version", [BIN, "--version"], env),
            ("biocortex --help", [BIN, "--help"], env),
            ("biocortex episode list (empty vault)", [BIN, "episode", "list"], env),
        ]
        if args.size:
            from synthetic import ensure_vault

            big = ensure_vault(args.size)
            recall_env = {"HOME": tmp, "BIOCORTEX_WATCH": "0"}  # no watcher process left behind
            subprocess.run([BIN, "--vault", str(big), "index"], check=True, capture_output=True,
                           env={**os.environ, **recall_env})
            if args.before:  # on its own copy: a renderer changed between the two re-renders the index
                old = Path(tmp) / "before-vault"
                shutil.copytree(big, old, symlinks=True)
                before_env = {**recall_env, "PYTHONPATH": str(args.before.resolve())}
                subprocess.run([BIN, "--vault", str(old), "index"], check=True, capture_output=True,
                               env={**os.environ, **before_env})
                rows.append((f"recall ({args.size:,}), before", [BIN, "--vault", str(old), "recall", QUERY],
                             before_env))
            rows.append((f"biocortex recall ({args.size:,} episodes)", [BIN, "--vault", str(big), "recall", QUERY],
                         recall_env))
        recall_at = len(rows) - 1  # the recall row (after it, before's), when --size
        verify_rows = []
        if args.facts:
            facts_env = {"HOME": tmp, "BIOCORTEX_WATCH": "0"}
            verify = [BIN, "--vault", str(args.facts), "fact", "verify", *args.claim.split()]
            subprocess.run(verify, capture_output=True, env={**os.environ, **facts_env}, check=False)  # indexes fresh
            if args.before:
                old_facts = Path(tmp) / "before-facts"
                shutil.copytree(args.facts, old_facts, symlinks=True)
                before_env = {**facts_env, "PYTHONPATH": str(args.before.resolve())}
                before_verify = [BIN, "--vault", str(old_facts), *verify[3:]]
                subprocess.run(before_verify, capture_output=True, env={**os.environ, **before_env}, check=False)
                verify_rows.append(("fact verify, before", before_verify, before_env))
            verify_rows.append((f"fact verify {args.claim}", verify, facts_env))
        rows += verify_rows
        def not_due(label: str) -> None:
            if "recall (" in label:
                check_not_due(Path(tmp) / "before-vault" if label.endswith("before") else big)

        times = in_turns(rows, args.runs, before=not_due)
        for label, (wall, cpu) in times.items():
            print(f"{label:<44} {summary(wall)}  CPU median {statistics.median(cpu) * 1000:6.1f} ms")
        if args.size:
            (floor, floor_cpu), (recall, recall_cpu) = times[rows[0][0]], times[rows[recall_at][0]]
            print(f"recall / floor, medians: wall {statistics.median(recall) / statistics.median(floor):.1f}x, "
                  f"CPU {statistics.median(recall_cpu) / statistics.median(floor_cpu):.1f}x")
        if verify_rows:
            floor, floor_cpu = times[rows[0][0]]
            wall, cpu = times[verify_rows[-1][0]]
            print(f"verify / floor, medians: wall {statistics.median(wall) / statistics.median(floor):.1f}x, "
                  f"CPU {statistics.median(cpu) / statistics.median(floor_cpu):.1f}x")
        if verify_rows and args.instructions:
            floor_i = instructions([sys.executable, "-c", "pass"], {})
            for label, cmd, env in verify_rows:
                count = instructions(cmd, env)
                print(f"instructions: {label} {count / 1e6:.1f}M "
                      f"({count / floor_i:.1f}x the floor, {floor_i / 1e6:.1f}M)")
        if args.size and args.instructions:
            floor_i = instructions([sys.executable, "-c", "pass"], {})
            check_not_due(big)
            recall_i = instructions(rows[recall_at][1], rows[recall_at][2])
            if args.before:
                check_not_due(Path(tmp) / "before-vault")
                before_i = instructions(rows[recall_at - 1][1], rows[recall_at - 1][2])
                print(f"instructions: recall before {before_i / 1e6:.1f}M ({before_i / floor_i:.1f}x the floor)")
            imports = " ".join(f"import {m};" for m in recall_modules(big))
            imports_i = instructions([sys.executable, "-c", imports], {})
            share = (imports_i - floor_i) / (recall_i - floor_i)
            print(f"instructions: floor {floor_i / 1e6:.1f}M, recall {recall_i / 1e6:.1f}M "
                  f"({recall_i / floor_i:.1f}x), recall's imports alone {imports_i / 1e6:.1f}M "
                  f"({share:.0%} of what recall adds to the floor)")


if __name__ == "__main__":
    main()
