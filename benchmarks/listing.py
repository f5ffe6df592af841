"""Listings, digests and a fresh clone's first recall at 10k and 100k episodes (issue 17 item 2).

For each size, on a copy (``cp -a``) of the synthetic vault (``benchmarks/synthetic.py``) whose
index is built first, whole processes, as an agent starts them:

- the floor, ``python -c pass``;
- ``episode list --limit 5``; with ``--domain D --failure --limit 5``; with ``--tool T --since
  DATE --limit 20``; ``episode list --json`` (every episode: one run);
- ``episode show ID`` (an episode that exists) and ``episode show`` of an id that does not;
- ``log --json`` and ``log`` over the whole history (one commit holding every episode);
- the first ``recall`` in a fresh clone (``git clone`` of the vault, then ``recall``, which
  builds the index: one run; the clone is not timed);
- hand edits (issue 17 item 3): ``git status`` over the indexed folders as the refresh asks it
  (the full check's own cost), ``recall`` with nothing changed without the watcher
  (``BIOCORTEX_WATCH=0``) and with it (index/watch.py; its own CPU from ``/proc``), and
  ``recall`` right after one episode's lessons were saved in place (a new edit before every
  run; its folder's mtime kept), with whether that recall found the edited note.

Wall time and user+sys CPU time of each process and its children (a shared machine inflates
the first). With ``--before DIR``, the same commands also run with the code in DIR (e.g. main
exported with ``git archive main | tar -x -C DIR``) on a copy of their own, side by side.
Results go to stdout and to ``benchmarks/out/listing-<sizes>.json``.

Reproduce:
    .venv/bin/python benchmarks/listing.py --sizes 10000,100000 --runs 5
    .venv/bin/python benchmarks/listing.py --sizes 10000 --before /tmp/biocortex-main
    .venv/bin/python benchmarks/listing.py --sizes 10000,100000 --only-hand-edits
    .venv/bin/python benchmarks/listing.py --sizes 100000 --only-hand-edits --source PATH/synthetic-100000-s7
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine
from synthetic import GIT_ENV, OUT, ensure_vault

REPO = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str], runs: int, warmup: int = 1) -> dict[str, float]:
    """Median wall and CPU milliseconds of ``runs`` processes (after ``warmup``)."""
    walls, cpus = [], []
    for i in range(warmup + runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-500:]}")
        if i >= warmup:
            walls.append(wall * 1000)
            cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return {"wall_ms": round(statistics.median(walls), 1), "cpu_ms": round(statistics.median(cpus), 1),
            "runs": runs}


def commands(vault: Path) -> dict[str, tuple[list[str], bool]]:
    """name -> (biocortex arguments, whether to run it once only)."""
    newest = max(p for p in (vault / "episodes").iterdir() if p.is_dir())  # the last year folder
    month = max(p for p in newest.iterdir() if p.is_dir())
    some = sorted(month.glob("*.md"))[0].stem
    since = f"{newest.name}-{month.name}-01"
    return {
        "episode list --limit 5": (["episode", "list", "--limit", "5"], False),
        "episode list --domain scRNA-seq --failure --limit 5": (
            ["episode", "list", "--domain", "scRNA-seq", "--failure", "--limit", "5"], False),
        f"episode list --tool MAGeCK --since {since} --limit 20": (
            ["episode", "list", "--tool", "MAGeCK", "--since", since, "--limit", "20"], False),
        "episode show ID": (["episode", "show", some], False),
        "episode show (no such id)": (["episode", "show", "no-such-episode"], False),
        "log --since 20y": (["log", "--since", "20y"], False),
        "log --since 20y --json": (["log", "--since", "20y", "--json"], True),
        "episode list --json (all)": (["episode", "list", "--json"], True),
    }


def hand_edits(vault: Path, python: list[str], env: dict[str, str], runs: int) -> dict[str, Any]:
    """The cost of seeing notes saved in place (see the module docstring)."""
    out: dict[str, Any] = {}
    status = ["git", "-C", str(vault), "--no-optional-locks", "status", "--porcelain=v1", "-z", "-uno",
              "--no-renames", "--", "episodes", "archive/episodes"]
    out["git status (the hand-edit check)"] = timed(status, env, runs)
    recall = [*python, "--vault", str(vault), "recall", "doublets in 10x multiome"]
    out["recall, nothing changed, no watcher (BIOCORTEX_WATCH=0)"] = timed(recall, {**env, "BIOCORTEX_WATCH": "0"},
                                                                           runs)
    subprocess.run(recall, env=env, capture_output=True, check=False)  # starts the watcher (index/watch.py)
    watcher = _watcher_pid(vault)
    spent = _cpu_of(watcher)
    out["recall, nothing changed"] = timed(recall, env, runs)
    out["recall, nothing changed"]["watcher_cpu_ms_per_recall"] = round((_cpu_of(watcher) - spent) / (runs + 1), 2)
    newest = max(p for p in (vault / "episodes").iterdir() if p.is_dir())
    note = next(p for p in sorted(max(p for p in newest.iterdir() if p.is_dir()).glob("*.md"))
                if "\nlessons:\n" in p.read_text(encoding="utf-8"))
    # the check runs at most once per EDITS_FACTOR times its CPU cost (index/build.py): a recall
    # right after another may skip it; one after that pause always runs it
    from biocortex_cli.index.build import EDITS_FACTOR

    pause = EDITS_FACTOR * out["git status (the hand-edit check)"]["cpu_ms"] / 1000 * 1.5 + 0.2
    for label, wait in (("recall right after a hand edit", 0.0),
                        (f"recall after a hand edit, {pause:.1f} s after the last check", pause)):
        walls, cpus, found = [], [], 0
        for i in range(runs):
            word = f"zanzibar{'due' if wait else 'now'}{'abcdefghijklmnopqrstuvwxyz'[i % 26]}"
            subprocess.run(recall, env=env, capture_output=True, check=False)  # a recall just before
            time.sleep(wait)
            folder_mtime = note.parent.stat().st_mtime_ns
            with open(note, "r+", encoding="utf-8") as fh:  # as an editor saves: same file, in place
                text = fh.read().replace("\nlessons:\n", f"\nlessons:\n- Mind the {word} step.\n", 1)
                fh.seek(0)
                fh.write(text)
                fh.truncate()
            os.utime(note.parent, ns=(folder_mtime, folder_mtime))
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            proc = subprocess.run([*python, "--vault", str(vault), "recall", word, "--json"], env=env,
                                  capture_output=True, text=True, check=False)
            walls.append((time.perf_counter() - started) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
            if proc.returncode == 0 and note.stem in [h["id"] for h in json.loads(proc.stdout)["results"]]:
                found += 1
        out[label] = {"wall_ms": round(statistics.median(walls), 1), "cpu_ms": round(statistics.median(cpus), 1),
                      "runs": runs, "found": f"{found} of {runs}"}
        print(f"  {label}: {out[label]}", file=sys.stderr)
    from biocortex_cli.index import watch

    out["watcher"] = {"pid": watcher, "cpu_ms_total": round(_cpu_of(watcher), 1),
                      "rss_kb": _rss_of(watcher)}
    watch.stop(vault / ".biocortex")
    return out


def _watcher_pid(vault: Path) -> int:
    try:
        return int((vault / ".biocortex" / "tmp" / "watch.lock").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _cpu_of(pid: int) -> float:
    """User + system CPU milliseconds a process has used so far (Linux ``/proc``), 0 if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _rss_of(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(code: Path | None, source: Path, runs: int, *, only_hand_edits: bool = False) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(GIT_ENV)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    python = [sys.executable, "-m", "biocortex_cli"]
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="biocortex-listing-") as tmp:
        vault = Path(tmp) / "vault"
        subprocess.run(["cp", "-a", str(source), str(vault)], check=True)
        subprocess.run(["git", "-C", str(vault), "update-index", "-q", "--refresh"], check=False,
                       stdout=subprocess.DEVNULL)  # the copy changed every inode: git's stat cache anew
        started = time.perf_counter()
        subprocess.run([*python, "--vault", str(vault), "index"], env=env, check=True, capture_output=True)
        out["index build (not timed below)"] = {"wall_ms": round((time.perf_counter() - started) * 1000)}
        out["python -c pass"] = timed([sys.executable, "-c", "pass"], env, runs)
        if only_hand_edits:
            out.update(hand_edits(vault, python, env, runs))
            return out
        for name, (args, once) in commands(vault).items():
            out[name] = timed([*python, "--vault", str(vault), *args], env, 1 if once else runs,
                              warmup=0 if once else 1)
            print(f"  {name}: {out[name]}", file=sys.stderr)
        out.update(hand_edits(vault, python, env, runs))
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(vault), str(clone)], check=True)
        out["first recall in a fresh clone"] = timed(
            [*python, "--vault", str(clone), "recall", "doublets in 10x multiome"], env, 1, warmup=0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--only-hand-edits", action="store_true", help="measure the hand-edit check only")
    parser.add_argument("--source", type=Path, action="append", default=[],
                        help="an existing vault to copy instead of the cached synthetic one (one per size)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    sources = dict(zip(sizes, args.source, strict=False))
    report: dict[str, Any] = {"machine": machine(), "load": os.getloadavg(), "sizes": {}}
    for n in sizes:
        source = sources[n] if n in sources else ensure_vault(n)
        print(f"{n} episodes ({source})", file=sys.stderr)
        row: dict[str, Any] = {"after": measure(REPO, source, args.runs, only_hand_edits=args.only_hand_edits)}
        if args.before is not None:
            row["before"] = measure(args.before.resolve(), source, args.runs)
        report["sizes"][str(n)] = row
    report["load_after"] = os.getloadavg()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"listing-{'-'.join(map(str, sizes))}{'-hand-edits' if args.only_hand_edits else ''}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    for n, row in report["sizes"].items():
        print(f"\n## {n} episodes")
        for name, after in row["after"].items():
            if "wall_ms" not in after:  # the watcher's own figures: no process timed
                print(f"{name:55} " + ", ".join(f"{k} {v}" for k, v in after.items()))
                continue
            before = row.get("before", {}).get(name)
            was = f"   before: {before.get('wall_ms')} ms wall / {before.get('cpu_ms')} ms CPU" if before else ""
            print(f"{name:55} {after.get('wall_ms'):>9} ms wall / {after.get('cpu_ms', '-'):>8} ms CPU{was}")
    print(f"\n{report['machine']}; load {report['load']} -> {report['load_after']}; raw: {path}")


if __name__ == "__main__":
    main()
