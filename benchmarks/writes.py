"""Writes at scale, timed: a large ``episode import`` and the write after a killed git.

The tests assert what these writes do (tests/test_concurrency.py: an import is one commit holding
every note; tests/test_stale_lock.py: a lock left by a killed process is removed by the next
write, not after the 10 s age rule); how long they take is measured here, where a loaded machine
makes a slow figure, not a failing test.

1. ``episode import`` of N episodes (the test's records, ``big_episode``) into a new vault, as a
   whole process: wall and CPU time (user + sys, git children included), checked to be one
   commit holding N notes.
2. ``episode add`` on a clean vault, and ``episode add`` right after a process that held
   ``.git/index.lock`` was killed with SIGKILL (the lock is left behind; the write must remove it
   at once because no process uses it).

Prints a table and writes ``benchmarks/out/writes-<episodes>.json``. ``--code TREE`` runs the
biocortex of another checkout (e.g. ``git archive main | tar -x -C /tmp/main``), so two versions
are measured side by side on the same machine; CPU time (process + git) is given beside wall time,
which a loaded machine stretches.

    .venv/bin/python benchmarks/writes.py                         # 10,000 episodes, 3 runs
    .venv/bin/python benchmarks/writes.py --episodes 1000 --runs 5
    .venv/bin/python benchmarks/writes.py --episodes 200 --runs 10 --code /tmp/main
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from common import BIOCORTEX, machine  # noqa: E402
from crash import child_env  # noqa: E402
from test_concurrency import big_episode  # noqa: E402

HOLD = ("import os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)\n"
        "print('ready', flush=True); time.sleep(600)\n")


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall s, CPU s of the process and its children, the result) of one biocortex process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([*BIOCORTEX, *argv], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"biocortex {' '.join(argv[:2])} failed: {proc.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


#: the checkout whose biocortex runs (``--code``), None: this one
CODE: Path | None = None


def new_vault(base: Path) -> tuple[Path, dict[str, str]]:
    home, vault = base / "home", base / "vault"
    home.mkdir(parents=True)
    env = child_env(home, vault)
    if CODE is not None:
        env["PYTHONPATH"] = str(CODE)
    subprocess.run([*BIOCORTEX, "init", str(vault)], env=env, check=True, capture_output=True)
    return vault, env


def git(vault: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", "-C", str(vault), *args], env=env, capture_output=True, text=True,
                          check=True).stdout


def import_run(base: Path, n: int, source: Path) -> dict[str, float]:
    vault, env = new_vault(base)
    wall, cpu, proc = timed(["episode", "import", str(source)], env)
    notes = sum(1 for _ in (vault / "episodes").rglob("big-*.md"))
    commits = int(git(vault, env, "rev-list", "--count", "HEAD"))
    if proc.stdout.strip() != str(n) or notes != n or commits != 2:
        raise SystemExit(f"import of {n}: printed {proc.stdout.strip()!r}, {notes} notes, {commits} commits")
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def add_runs(base: Path, runs: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall seconds of `episode add` on a clean vault and right after a killed lock holder, and
    the CPU seconds (process + git) of the clean ones."""
    vault, env = new_vault(base)
    lock = vault / ".git" / "index.lock"
    out: dict[str, list[float]] = {"clean": [], "after_killed_lock": []}
    cpu: dict[str, list[float]] = {"clean": []}
    for i in range(runs):
        wall, used, _proc = timed(["episode", "add", "--task", f"Clean write {i}", "--id", f"clean-{i}"], env)
        out["clean"].append(wall)
        cpu["clean"].append(used)
        holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE, text=True)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        wall, _, proc = timed(["episode", "add", "--task", f"After a kill {i}", "--id", f"kill-{i}"], env)
        if "removed a stale git lock" not in proc.stderr or lock.exists():
            raise SystemExit(f"the stale lock was not removed: {proc.stderr[-300:]}")
        out["after_killed_lock"].append(wall)
    return out, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, default=None, metavar="TREE",
                        help="run the biocortex of this checkout (default: this one)")
    args = parser.parse_args()
    global CODE
    CODE = args.code.resolve() if args.code else None
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}; code {CODE or HERE.parent}")
    with tempfile.TemporaryDirectory(prefix="biocortex-writes-") as tmp:
        base = Path(tmp)
        source = base / "import.jsonl"
        source.write_text("".join(json.dumps(big_episode(i)) + "\n" for i in range(args.episodes)))
        imports = [import_run(base / f"import-{r}", args.episodes, source) for r in range(args.runs)]
        adds, add_cpu = add_runs(base / "adds", args.runs)
    walls, cpus = [r["wall_s"] for r in imports], [r["cpu_s"] for r in imports]
    print(f"episode import of {args.episodes:,} (one commit): wall median {statistics.median(walls):.1f} s "
          f"(min {min(walls):.1f}, max {max(walls):.1f}), CPU median {statistics.median(cpus):.1f} s")
    for name, samples in adds.items():
        print(f"episode add, {name.replace('_', ' ')}: median {statistics.median(samples) * 1000:.0f} ms "
              f"(max {max(samples) * 1000:.0f} ms, n={len(samples)})"
              + (f", CPU median {statistics.median(add_cpu[name]) * 1000:.0f} ms" if name in add_cpu else ""))
    dest = HERE / "out" / f"writes-{args.episodes}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps({"machine": machine(), "load_average": os.getloadavg()[0], "episodes": args.episodes,
                                "code": str(CODE or HERE.parent), "imports": imports, "episode_add_s": adds,
                                "episode_add_cpu_s": add_cpu}, indent=1) + "\n")
    print(f"details in {dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
