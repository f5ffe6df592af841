"""Datasets as sources of record (issue 15): registering, answering, and where the edges live.

Run: .venv/bin/python benchmarks/datasets.py --trrust PATH [--edges 1000000] [--runs 15] [--episodes 10000]

The script fetches nothing: ``--trrust`` is a TRRUST-like TSV you downloaded (TF, target, mode,
PMIDs; with or without a header row), e.g. TRRUST v2 human (9,396 rows, CC BY-SA 4.0). Every
timing is a whole process started from here, as an agent starts biocortex, with bytecode caching
on and a warm page cache; commands compared with each other run interleaved, one round each at a
time, so a busy shared machine slows them alike. Reported: medians, p90, and min.

1. TRRUST: ``dataset add`` (indexing included), the first ``fact query`` after it, then
   ``fact query`` / ``fact verify`` beside ``python -c pass``.
2. A synthetic file of ``--edges`` edges (cached under benchmarks/out/): ``dataset add``, the size
   of its index, then ``fact verify`` and ``fact query`` against it beside ``python -c pass`` and
   beside the same commands on a vault without the dataset.
3. Where the edges live: recall on a ``--episodes`` synthetic vault with its index as built,
   and with the 1M edges' tables copied into that index (the alternative to one file per
   dataset), interleaved; the sizes of both.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine
from synthetic import OUT, ensure_vault

BIN = str(Path(sys.executable).with_name("biocortex"))
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TRRUST_MAP = ["--map", "subject=1", "--map", "object=2", "--map", "predicate=3", "--map", "publications=4",
              "--predicate-map", "Activation=activates", "--predicate-map", "Repression=inhibits",
              "--predicate-map", "Unknown=regulates", "--qualifier", "taxon=9606"]


CPU: list[float] = []  # user+sys seconds of the last child, set by run()


def run(cmd: Sequence[str], vault: Path | None = None, ok: Sequence[int] = (0,)) -> tuple[float, str, str]:
    import resource

    env = {**ENV, **({"BIOCORTEX_VAULT": str(vault)} if vault else {})}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[:] = [after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime]
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {proc.returncode}: {proc.stderr[-800:]}")
    return elapsed, proc.stdout, proc.stderr


def interleaved(rows: list[tuple[str, list[str], Path | None]], runs: int,
                warmup: int = 2) -> dict[str, tuple[list[float], list[float]]]:
    """label -> (wall seconds, CPU seconds) per run, the commands taking turns."""
    out: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label, _, _ in rows}
    for i in range(warmup + runs):
        for label, cmd, vault in rows:
            elapsed = run(cmd, vault, ok=(0, 1, 4, 5, 6))[0]
            if i >= warmup:
                out[label][0].append(elapsed)
                out[label][1].append(CPU[0])
    return out


def summary(samples: Sequence[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]
    return f"median {statistics.median(ms):7.1f} ms  p90 {p90:7.1f} ms  min {ms[0]:7.1f} ms"


def print_rows(results: dict[str, tuple[list[float], list[float]]], floor: str) -> None:
    wall0, cpu0 = (statistics.median(x) for x in results[floor])
    for label, (wall, cpu) in results.items():
        print(f"  {label:<56} wall {summary(wall)} ({statistics.median(wall) / wall0:4.1f}×)  "
              f"CPU median {statistics.median(cpu) * 1000:6.1f} ms ({statistics.median(cpu) / cpu0:4.1f}×)")


def new_vault(root: Path) -> Path:
    run([BIN, "init", str(root)])
    return root


def synthetic_tsv(n: int, seed: int = 7) -> tuple[Path, list[str]]:
    """``n`` edges over n/50 gene-like names with a Zipf-like spread (a few hubs, a long tail),
    TRRUST's layout; cached."""
    path = OUT / f"synthetic-edges-{n}-s{seed}.tsv"
    rng = random.Random(seed)
    names = [f"{rng.choice(['TP', 'BRCA', 'CD', 'IL', 'KRT', 'SLC', 'ZNF', 'MAP', 'CXCL', 'ATP'])}{i}"
             for i in range(max(201, n // 50))]  # names[200] is used below
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        weights = [1.0 / (i + 1) ** 0.8 for i in range(len(names))]
        modes = ["Activation", "Repression", "Unknown"]
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write("TF\tTarget\tRegulation\tReference\n")
            left = n
            while left:
                chunk = min(left, 100_000)
                subjects = rng.choices(names, weights, k=chunk)
                objects = rng.choices(names, k=chunk)
                for s, o in zip(subjects, objects, strict=True):
                    pmids = ";".join(str(rng.randrange(1_000_000, 39_000_000)) for _ in range(rng.randint(0, 4)))
                    fh.write(f"{s}\t{o}\t{rng.choice(modes)}\t{pmids}\n")
                left -= chunk
        tmp.rename(path)
    return path, names


def add(vault: Path, path: Path, name: str, version: str, licence: str, *extra: str) -> tuple[float, dict[str, Any]]:
    elapsed, out, _err = run([BIN, "dataset", "add", str(path), "--name", name, "--version", version,
                             "--licence", licence, *TRRUST_MAP, *extra, "--json"], vault)
    return elapsed, json.loads(out)


def section_trrust(trrust: Path, runs: int, tmp: Path) -> None:
    vault = new_vault(tmp / "trrust-vault")
    has_header = trrust.read_text(encoding="utf-8").startswith("TF\t")  # TRRUST's own file has none
    started = time.perf_counter()
    elapsed, out, _err = run([BIN, "dataset", "add", str(trrust), "--name", "trrust", "--version", "2",
                              "--licence", "CC BY-SA 4.0", *([] if has_header else ["--no-header"]), *TRRUST_MAP,
                              "--json"], vault)
    add_cpu = CPU[0]
    added = json.loads(out)
    query = run([BIN, "fact", "query", "TP53", "--json"], vault)[0]
    total = time.perf_counter() - started
    print(f"TRRUST ({trrust.name}, {added['size']:,} bytes): {added['rows']:,} rows → {added['edges']:,} edges")
    print(f"  dataset add (whole process, indexing {added['build']['seconds']:.2f} s): {elapsed:.2f} s wall, "
          f"{add_cpu:.2f} s CPU; "
          f"first fact query: {query:.2f} s; registered and queryable in {total:.2f} s (target ≤ 10 s)")
    print(f"  index: {added['build']['index_bytes'] / 2**20:.2f} MiB; the note: "
          f"{(vault / 'datasets/trrust.md').stat().st_size:,} bytes")
    rows = [("python -c pass (the floor)", [sys.executable, "-c", "pass"], None),
            ("fact query TP53 (TRRUST)", [BIN, "fact", "query", "TP53"], vault),
            ("fact verify TP53 activates CDKN1A (TRRUST)", [BIN, "fact", "verify", "TP53", "activates", "CDKN1A"],
             vault),
            ("fact verify KEAP1 inhibits NFE2L2 (TRRUST)", [BIN, "fact", "verify", "KEAP1", "inhibits", "NFE2L2"],
             vault)]
    print_rows(interleaved(rows, runs), rows[0][0])


def section_million(n: int, runs: int, tmp: Path) -> Path:
    path, names = synthetic_tsv(n)
    vault = new_vault(tmp / "million-vault")
    plain = new_vault(tmp / "plain-vault")
    for v in (vault, plain):  # a few notes, so both vaults answer from notes too
        run([BIN, "fact", "add", names[100], "activates", names[200], "--source", "PMID:1"], v)
    elapsed, added = add(vault, path, "synth", "1", "CC0")
    add_cpu = CPU[0]
    print(f"\nsynthetic {path.name} ({path.stat().st_size / 2**20:.1f} MiB): {added['rows']:,} rows → "
          f"{added['edges']:,} edges over {added['build']['nodes']:,} names")
    print(f"  dataset add (whole process, indexing {added['build']['seconds']:.1f} s): {elapsed:.1f} s wall, "
          f"{add_cpu:.1f} s CPU (target ≤ 120 s); index {added['build']['index_bytes'] / 2**20:.1f} MiB "
          f"({added['build']['index_bytes'] / added['edges']:.0f} bytes per edge)")
    mid, rare, hub = names[100], names[len(names) // 2], names[0]
    degree = {}
    with sqlite3.connect(vault / ".biocortex/datasets/synth.sqlite") as conn:
        for name in (mid, rare, hub):
            degree[name] = conn.execute("SELECT count(*) FROM edges WHERE s IN (SELECT node FROM names WHERE key = ?) "
                                        "OR o IN (SELECT node FROM names WHERE key = ?)",
                                        (name.casefold(), name.casefold())).fetchone()[0]
    print(f"  degrees: {hub} {degree[hub]:,} (the biggest hub), {mid} {degree[mid]:,}, {rare} {degree[rare]:,}")
    rows = [("python -c pass (the floor)", [sys.executable, "-c", "pass"], None),
            (f"fact verify {mid} activates {rare} (1M edges)", [BIN, "fact", "verify", mid, "activates", rare], vault),
            (f"fact verify {mid} activates {rare} (no dataset)", [BIN, "fact", "verify", mid, "activates", rare],
             plain),
            (f"fact verify {hub} activates {mid} (1M edges, the hub)",
             [BIN, "fact", "verify", hub, "activates", mid], vault),
            (f"fact query {mid} (1M edges)", [BIN, "fact", "query", mid], vault),
            (f"fact query {mid} (no dataset)", [BIN, "fact", "query", mid], plain),
            (f"recall '{mid} and {rare} in T cells' (1M edges)", [BIN, "recall", f"{mid} and {rare} in T cells"],
             vault)]
    print_rows(interleaved(rows, runs), rows[0][0])
    return vault


def section_placement(million: Path, episodes: int, runs: int, tmp: Path) -> None:
    base = ensure_vault(episodes, quiet=True)
    vault = tmp / "placement-vault"
    shutil.copytree(base, vault, symlinks=True)
    run([BIN, "index"], vault)
    index = vault / ".biocortex/index.sqlite"
    pristine = tmp / "index-pristine.sqlite"
    shutil.copy2(index, pristine)
    inside = tmp / "index-with-edges.sqlite"
    shutil.copy2(index, inside)
    started = time.perf_counter()
    with sqlite3.connect(inside) as conn:
        conn.execute("ATTACH ? AS ds", (str(million / ".biocortex/datasets/synth.sqlite"),))
        for table in ("nodes", "names", "predicates", "quals", "edges"):
            conn.execute(f"CREATE TABLE ds_{table} AS SELECT * FROM ds.{table}")
        conn.execute("CREATE INDEX ds_edges_s ON ds_edges(s)")
        conn.execute("CREATE INDEX ds_edges_o ON ds_edges(o)")
        conn.commit()
    copied = time.perf_counter() - started
    query = "what went wrong when we removed doublets from 10x multiome data?"
    results: dict[str, tuple[list[float], list[float]]] = {"index as built": ([], []),
                                                           "index with the 1M edges inside": ([], [])}
    for i in range(2 + runs):
        for label, source in (("index as built", pristine), ("index with the 1M edges inside", inside)):
            shutil.copy2(source, index)
            run([BIN, "recall", query], vault)  # settle (same HEAD: no refresh)
            elapsed = run([BIN, "recall", query], vault)[0]
            if i >= 2:
                results[label][0].append(elapsed)
                results[label][1].append(CPU[0])
    print(f"\nwhere the edges live ({episodes:,}-episode vault, recall {query!r}):")
    print(f"  index.sqlite as built: {pristine.stat().st_size / 2**20:.1f} MiB; with the 1M edges' tables: "
          f"{inside.stat().st_size / 2**20:.1f} MiB (copying them in: {copied:.1f} s)")
    for label, (wall, cpu) in results.items():
        print(f"  recall, {label:<40} wall {summary(wall)}  CPU median {statistics.median(cpu) * 1000:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trrust", type=Path, required=True, help="a TRRUST-like TSV (TF, target, mode, PMIDs)")
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--skip-placement", action="store_true")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        section_trrust(args.trrust, args.runs, tmp)
        million = section_million(args.edges, args.runs, tmp)
        if not args.skip_placement:
            section_placement(million, args.episodes, max(5, args.runs // 3), tmp)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
