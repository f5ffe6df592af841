"""Load: 16 writers and 16 readers at once on a large vault, for a bounded time.

The vault is a copy of the cached synthetic vault (``benchmarks/synthetic.py``, N episodes in
one commit), indexed once. Then, until ``--seconds`` have passed, each writer runs
``biocortex episode add`` (a new id each time) as a process, again and again, and each reader
runs ``recall``, ``episode list --limit 20`` and ``fact query`` in turn. Every process has a
timeout: one that hangs is a deadlock. Afterwards: every id a writer was told was written is in
HEAD, every read exited 0, ``git fsck`` is clean, the work tree is clean and no lock is left.

Prints throughput and latency percentiles; writes ``benchmarks/out/load-<episodes>.json``.

    .venv/bin/python benchmarks/load.py                          # 10k episodes, 30 s
    .venv/bin/python benchmarks/load.py --episodes 1000 --seconds 10
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import machine  # noqa: E402
from synthetic import OUT, ensure_vault  # noqa: E402

#: a process slower than this is counted as a deadlock
HANG_SECONDS = 120.0
READS = (
    ["recall", "what went wrong with doublets in 10x Multiome data", "--json"],
    ["episode", "list", "--limit", "20"],
    ["fact", "query", "TP53"],
    ["recall", "DESeq2 differential expression with RIN as a covariate"],
)


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"n": 0}
    ms = sorted(s * 1000 for s in samples)

    def pick(q: float) -> float:
        return round(ms[min(len(ms) - 1, round(q * (len(ms) - 1)))], 1)

    return {"n": len(ms), "p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99), "max": round(ms[-1], 1)}


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = {"write": [], "read": []}
        self.written: list[str] = []
        self.failures: list[str] = []

    def run(self, kind: str, argv: list[str], env: dict[str, str]) -> str | None:
        started = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-m", "biocortex_cli", *argv], env=env, capture_output=True,
                                  text=True, timeout=HANG_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            with self.lock:
                self.failures.append(f"{kind} hung over {HANG_SECONDS:.0f} s (deadlock?): {' '.join(argv)}")
            return None
        elapsed = time.perf_counter() - started
        with self.lock:
            self.latency[kind].append(elapsed)
            if proc.returncode != 0:
                self.failures.append(f"{kind} exit {proc.returncode}: {' '.join(argv)}: {proc.stderr.strip()[-300:]}")
                return None
        return proc.stdout


def writer(rec: Recorder, w: int, env: dict[str, str], deadline: float) -> None:
    k = 0
    while time.monotonic() < deadline:
        ident = f"load-w{w:02d}-{k:04d}"
        out = rec.run("write", ["--author", f"Writer {w} <w{w}@lab.example>", "episode", "add", "--id", ident,
                                "--task", f"Load test write {k} by writer {w}: scDblFinder doublets in PBMC",
                                "--tool", "scDblFinder", "--domain", "scRNA-seq"], env)
        if out is not None:
            if out.strip() != ident:
                with rec.lock:
                    rec.failures.append(f"write {ident} printed {out.strip()!r}")
            else:
                with rec.lock:
                    rec.written.append(ident)
        k += 1


def reader(rec: Recorder, r: int, env: dict[str, str], deadline: float) -> None:
    k = r
    while time.monotonic() < deadline:
        rec.run("read", READS[k % len(READS)], env)
        k += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--readers", type=int, default=16)
    args = parser.parse_args()

    source = ensure_vault(args.episodes)
    result: dict[str, Any]
    with tempfile.TemporaryDirectory(prefix="biocortex-load-") as tmp:
        vault, home = Path(tmp) / "vault", Path(tmp) / "home"
        home.mkdir()
        shutil.copytree(source, vault, symlinks=True)
        env = {k: v for k, v in os.environ.items()
               if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("GIT_", "BIOCORTEX_"))}
        env.update({"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
                    "BIOCORTEX_VAULT": str(vault)})
        subprocess.run([sys.executable, "-m", "biocortex_cli", "index"], env=env, check=True, capture_output=True)
        base = subprocess.run(["git", "-C", str(vault), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()

        rec = Recorder()
        started = time.monotonic()
        deadline = started + args.seconds
        threads = [threading.Thread(target=writer, args=(rec, w, env, deadline)) for w in range(args.writers)]
        threads += [threading.Thread(target=reader, args=(rec, r, env, deadline)) for r in range(args.readers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - started

        def git(*a: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(["git", "-C", str(vault), *a], capture_output=True, text=True, check=False,
                                  env=env)

        stems = {Path(p).stem for p in git("ls-tree", "-r", "--name-only", "HEAD", "--", "episodes").stdout.split()}
        lost = sorted(set(rec.written) - stems)
        commits = int(git("rev-list", "--count", f"{base}..HEAD").stdout.strip() or 0)
        fsck = git("fsck", "--strict", "--no-dangling")
        status = git("status", "--porcelain").stdout.strip()
        left_locks = [p for p in (".git/index.lock", ".biocortex/tmp/txn.journal") if (vault / p).exists()]
        problems = list(rec.failures)
        problems += [f"lost: {i}" for i in lost]
        if commits != len(rec.written):
            problems.append(f"{commits} commits for {len(rec.written)} writes")
        if fsck.returncode:
            problems.append(f"git fsck: {fsck.stderr.strip()[-300:]}")
        if status:
            problems.append(f"work tree not clean: {status[:300]}")
        problems += [f"left behind: {p}" for p in left_locks]
        result = {
            "machine": machine(), "episodes": args.episodes, "seconds": args.seconds, "wall": round(wall, 1),
            "writers": args.writers, "readers": args.readers,
            "writes": percentiles(rec.latency["write"]), "reads": percentiles(rec.latency["read"]),
            "writes_per_s": round(len(rec.latency["write"]) / wall, 2),
            "reads_per_s": round(len(rec.latency["read"]) / wall, 2),
            "written": len(rec.written), "in_head": len(set(rec.written) & stems), "lost": len(lost),
            "failed_reads": sum(f.startswith("read") for f in rec.failures),
            "failed_writes": sum(f.startswith("write") for f in rec.failures),
            "problems": problems,
        }
    w, r = result["writes"], result["reads"]
    print(f"{args.writers} writers + {args.readers} readers, {args.episodes} episodes, {result['wall']} s "
          f"({result['machine']})")
    print(f"{'':8}{'ops':>6}{'ops/s':>8}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}{'failed':>8}")
    for name, p, rate, failed in (("writes", w, result["writes_per_s"], result["failed_writes"]),
                                  ("reads", r, result["reads_per_s"], result["failed_reads"])):
        print(f"{name:8}{p['n']:>6}{rate:>8}{p.get('p50', 0):>9}{p.get('p90', 0):>9}{p.get('p99', 0):>9}"
              f"{p.get('max', 0):>9}{failed:>8}")
    print(f"written {result['written']}, in HEAD {result['in_head']}, lost {result['lost']}")
    for p in problems[:20]:
        print(f"PROBLEM {p}", file=sys.stderr)
    OUT.mkdir(parents=True, exist_ok=True)
    dest = OUT / f"load-{args.episodes}.json"
    dest.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{len(problems)} problem(s); details in {dest}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
