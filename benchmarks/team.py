"""Team scale: git as the distributed engine of one shared memory, at N episodes.

A bare repository on local disk plays the team's remote (so the figures are git's and
biocortex's, not the network's). Clone A is a fresh ``git clone``; clone B is a copy of A with its
index (what a colleague's machine looks like after its own first ``index --rebuild``). Measures:

- ``git clone`` of the remote and the sizes of the remote, the clone's ``.git`` and work tree;
- ``biocortex index --rebuild`` on the fresh clone;
- ``biocortex sync`` on A when nothing changed;
- ``sync`` on A after B added 1 episode, and after B imported 100 episodes (pushed by B's sync);
- the publish cycle: A and B alternately add one episode and sync (each sync rebases on the
  other's commit and pushes): the seconds per published commit bound the commit rate one remote
  sustains when every writer syncs after every write;
- repository growth per episode (remote's size before and after the 100-episode import, repacked).

Prints a summary and writes ``benchmarks/out/team-<N>.json``.

    .venv/bin/python benchmarks/team.py                        # 100k episodes (cached synthetic vault)
    .venv/bin/python benchmarks/team.py --episodes 10000 --runs 3
    .venv/bin/python benchmarks/team.py --vault PATH           # reuse a vault (its committed HEAD)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import synthetic  # noqa: E402
from common import BIOCORTEX, machine  # noqa: E402

ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, **synthetic.GIT_ENV,
       "BIOCORTEX_AUTHOR": "Bench <bench@lab.example>"}


def timed(cmd: list[str], cwd: Path | None = None, stdin: str | None = None) -> tuple[float, float, str]:
    """(wall seconds, user+sys CPU seconds of the process tree, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True, env=ENV, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def bc(vault: Path, *args: str, stdin: str | None = None) -> tuple[float, float, str]:
    return timed([*BIOCORTEX, "--vault", str(vault), *args], stdin=stdin)


def du(path: Path) -> int:
    return int(subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout.split()[0])


def stats(samples: list[tuple[float, float]]) -> dict[str, Any]:
    walls, cpus = [s[0] for s in samples], [s[1] for s in samples]
    return {"median_s": round(statistics.median(walls), 3), "min_s": round(min(walls), 3),
            "max_s": round(max(walls), 3), "cpu_median_s": round(statistics.median(cpus), 3), "n": len(samples)}


def episodes_jsonl(start: int, count: int, seed: int) -> str:
    lines = []
    for i in range(start, start + count):
        record = synthetic.episode_record(i, seed)
        record["id"] = f"team-{i}"
        lines.append(json.dumps(record, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--vault", type=Path, help="use this vault's HEAD instead of the synthetic one")
    parser.add_argument("--runs", type=int, default=3, help="runs of each sync measurement")
    parser.add_argument("--seed", type=int, default=synthetic.DEFAULT_SEED)
    parser.add_argument("--keep", action="store_true", help="keep the temporary clones")
    args = parser.parse_args()

    source = args.vault or synthetic.ensure_vault(args.episodes, args.seed)
    work = Path(tempfile.mkdtemp(prefix="biocortex-team-"))
    remote, a, b = work / "remote.git", work / "a", work / "b"
    out: dict[str, Any] = {"machine": machine(), "episodes": args.episodes, "source": str(source),
                           "command": " ".join(sys.argv)}
    try:
        timed(["git", "clone", "-q", "--bare", "--no-local", str(source), str(remote)])
        out["remote_bytes"] = du(remote)
        clone = timed(["git", "clone", "-q", str(remote), str(a)])
        out["clone"] = stats([clone[:2]])
        out["clone_git_bytes"], out["clone_worktree_bytes"] = du(a / ".git"), du(a) - du(a / ".git")
        print(f"clone: {clone[0]:.1f} s (cpu {clone[1]:.1f} s); remote {out['remote_bytes'] / 2**20:.0f} MiB, "
              f".git {out['clone_git_bytes'] / 2**20:.0f} MiB, notes {out['clone_worktree_bytes'] / 2**20:.0f} MiB",
              flush=True)
        rebuild = bc(a, "index", "--rebuild")
        out["index_rebuild"] = stats([rebuild[:2]])
        out["index_bytes"] = sum(p.stat().st_size for p in (a / ".biocortex").glob("index.*"))
        print(f"index --rebuild on the fresh clone: {rebuild[0]:.1f} s (cpu {rebuild[1]:.1f} s)", flush=True)
        subprocess.run(["cp", "-a", str(a), str(b)], check=True)  # B: a colleague's indexed clone

        out["sync_nothing"] = stats([bc(a, "sync")[:2] for _ in range(args.runs)])
        print(f"sync, nothing changed: {out['sync_nothing']}", flush=True)

        one, hundred, push1, push100 = [], [], [], []
        next_id = args.episodes + 1_000_000
        for _ in range(args.runs):
            bc(b, "episode", "import", "-", stdin=episodes_jsonl(next_id, 1, args.seed))
            next_id += 1
            push1.append(bc(b, "sync")[:2])
            one.append(bc(a, "sync")[:2])
        out["sync_push_1"], out["sync_pull_1"] = stats(push1), stats(one)
        print(f"sync pushing 1 episode: {out['sync_push_1']}\nsync pulling 1 episode: {out['sync_pull_1']}",
              flush=True)
        subprocess.run(["git", "-C", str(remote), "gc", "-q"], check=True, env=ENV)
        before_100 = du(remote)
        for _ in range(args.runs):
            bc(b, "episode", "import", "-", stdin=episodes_jsonl(next_id, 100, args.seed))
            next_id += 100
            push100.append(bc(b, "sync")[:2])
            hundred.append(bc(a, "sync")[:2])
        subprocess.run(["git", "-C", str(remote), "gc", "-q"], check=True, env=ENV)
        out["bytes_per_episode_packed"] = round((du(remote) - before_100) / (100 * args.runs))
        out["sync_push_100"], out["sync_pull_100"] = stats(push100), stats(hundred)
        print(f"sync pushing 100 episodes: {out['sync_push_100']}\nsync pulling 100 episodes: "
              f"{out['sync_pull_100']}\nremote growth: {out['bytes_per_episode_packed']} B per episode (packed)",
              flush=True)

        cycle = []
        for i in range(2 * args.runs):  # A and B alternate: every sync rebases on the other's commit
            who = a if i % 2 == 0 else b
            add = bc(who, "episode", "add", "--task", f"cycle episode {i} on a shared remote", "--result", "ok",
                     "--success", "--id", f"cycle-{next_id + i}")
            syn = bc(who, "sync")
            cycle.append((add[0] + syn[0], add[1] + syn[1]))
        out["publish_cycle"] = stats(cycle)
        print(f"publish cycle (episode add + sync that rebases and pushes): {out['publish_cycle']}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    dest = HERE / "out" / f"team-{args.episodes}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {dest}")


if __name__ == "__main__":
    main()
