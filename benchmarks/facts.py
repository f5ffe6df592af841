"""Facts on the real write path, from a TRRUST-like TSV (issue 15 finding 9). Fetches nothing.

Run: .venv/bin/python benchmarks/facts.py --tsv PATH [--scale 10000 100000] [--adds 30] [--runs 15]
                                          [--matrix 200] [--imports 3] [--list-runs 9] [--out benchmarks/out/facts]

PATH is a TRRUST-like file: TF, target, mode (Activation / Repression / Unknown), PMIDs separated
by ";", with or without a header (TRRUST v2 human, CC BY-SA 4.0: keep it outside the repository,
e.g. under /work/tmp/). For each size it builds a fresh vault through `biocortex fact import` —
entity notes, index, one commit, packing: what a user runs — and reports:

* import: wall and CPU seconds of the whole process (its git children included), facts per
  second, the load average before each import (other jobs on the machine); ``--imports N``
  imports N times, each into a vault of its own, and gives the median; history (.git) per fact
  after the import's own packing, loose objects left;
* `fact add`: single adds as whole processes on that vault (new facts; the index warm), median;
* `fact query` / `fact verify`: whole processes against `python -c pass`;
* with ``--list-runs N``: `fact list --json` and `fact list` of every fact, whole processes (stdout
  to /dev/null), median of N;
* the verification confusion matrix (first size only): `fact verify` of sampled true triples
  (a row's own sign), sign-flipped ones (activates <-> inhibits) and random TF-target pairs that
  the file does not link, run in-process, counted by verdict.

Sizes beyond the file's rows are TRRUST-like rows made from it: each extra row copies a real
row with its target replaced by a gene symbol of the same file drawn at random (a seeded RNG),
so hubs, sign mix and PMIDs per row keep the file's shape.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, summary, time_process

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BIN = str(Path(sys.executable).with_name("biocortex"))
MODES = {"Activation": "activates", "Repression": "inhibits", "Unknown": "regulates"}
IMPORT_ARGS = ["--columns", "subject,object,predicate,source", "--source-prefix", "PMID",
               "--dataset", "TRRUST@2.0", "--taxon", "human", "--subject-kind", "gene", "--object-kind", "gene",
               "--confidence", "0.8", *(a for k, v in MODES.items() for a in ("--predicate-map", f"{k}={v}"))]
ENV = {"BIOCORTEX_AUTHOR": "bench <bench@example.org>", "PYTHONDONTWRITEBYTECODE": ""}


def read_tsv(path: Path) -> list[tuple[str, str, str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) < 4 or cells[2] not in MODES:
            continue  # the header, or a blank line
        rows.append((cells[0], cells[1], cells[2], cells[3]))
    return rows


def scaled(rows: list[tuple[str, str, str, str]], n: int, seed: int = 15) -> list[tuple[str, str, str, str]]:
    if n <= len(rows):
        return rows[:n]
    rng = random.Random(seed)
    genes = sorted({r[0] for r in rows} | {r[1] for r in rows})
    out = list(rows)
    while len(out) < n:
        tf, _target, mode, pmids = rng.choice(rows)
        out.append((tf, rng.choice(genes), mode, pmids))
    return out


def hgnc_aliases(names: set[str]) -> str:
    """A TSV of aliases (``symbol``, ``alias``, ``hgnc_id``) for the genes among ``names``, from the
    HGNC table biocortex ships (biocortex_cli/data/vocabulary.sqlite, CC0): each gene's alias and
    previous symbols, without those that name another gene of the file or are given to several
    (which `entity import` refuses, as it should)."""
    import sqlite3

    conn = sqlite3.connect(ROOT / "biocortex_cli" / "data" / "vocabulary.sqlite")
    genes: dict[str, tuple[str, list[str]]] = {}
    for label, members in conn.execute("SELECT label, members FROM synonym_group WHERE source = 'hgnc'"):
        spellings = [line.split("\t", 1)[0].lstrip("<>") for line in str(members).split("\n")]
        if spellings and spellings[0] in names:
            genes[spellings[0]] = (str(label), spellings[1:])
    taken = Counter(a.casefold() for _id, aliases in genes.values() for a in set(aliases))
    folded = {n.casefold() for n in names}
    lines = ["symbol\talias\thgnc_id"]
    for symbol, (label, aliases) in sorted(genes.items()):
        keep = [a for a in dict.fromkeys(aliases) if taken[a.casefold()] == 1 and a.casefold() not in folded
                and len(a) > 1]
        if keep:
            lines.append(f"{symbol}\t{';'.join(keep)}\t{label}")
    return "\n".join(lines) + "\n"


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall s, CPU s of the child and its children, process); the system part of that CPU time
    (the kernel's, e.g. creating files) is left in :data:`LAST_SYSTEM_CPU`."""
    global LAST_SYSTEM_CPU
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    LAST_SYSTEM_CPU = after.ru_stime - before.ru_stime
    return wall, cpu, proc


LAST_SYSTEM_CPU = 0.0


def git_sizes(vault: Path) -> dict[str, int]:
    out = subprocess.run(["git", "-C", str(vault), "count-objects", "-v"], capture_output=True, text=True,
                         check=True).stdout
    return {k: int(v) for k, v in (line.split(": ") for line in out.splitlines())}


def confusion(vault: Path, rows: list[tuple[str, str, str, str]], stored: list[tuple[str, str, str, str]], n: int,
              seed: int = 9) -> dict[str, Counter[str]]:
    """Verdicts of ``n`` true and sign-flipped claims drawn from the ``stored`` rows (the ones
    imported: a row beyond the size was never stored) and ``n`` random TF-target pairs of
    ``rows``' names that no stored row links."""
    from biocortex_cli.facts import memory
    from biocortex_cli.store.vault import Vault

    rng = random.Random(seed)
    signed = [r for r in stored if r[2] != "Unknown"]
    linked = {(r[0], r[1]) for r in stored}
    tfs = sorted({r[0] for r in rows})
    genes = sorted({r[1] for r in rows})
    flip = {"Activation": "inhibits", "Repression": "activates"}
    cases: dict[str, list[tuple[str, str, str]]] = {
        "true": [(tf, MODES[mode], target) for tf, target, mode, _p in rng.sample(signed, n)],
        "sign-flipped": [(tf, flip[mode], target) for tf, target, mode, _p in rng.sample(signed, n)],
        "random": [],
    }
    while len(cases["random"]) < n:
        tf, target = rng.choice(tfs), rng.choice(genes)
        if (tf, target) not in linked and tf != target:
            cases["random"].append((tf, rng.choice(["activates", "inhibits"]), target))
    v = Vault(vault.resolve())
    return {label: Counter(memory.verify(v, s, p, o)[0].verdict for s, p, o in triples)
            for label, triples in cases.items()}


def alias_imports(out: Path, n: int, count: int, names: set[str]) -> dict[str, object]:
    """`entity import` of :func:`hgnc_aliases` into the ``count`` vaults of size ``n`` (their
    entity notes exist: each is edited) and into ``count`` new vaults (each note is made)."""
    data = out / "hgnc-aliases.tsv"
    data.write_text(hgnc_aliases(names), encoding="utf-8")
    result: dict[str, object] = {"rows": data.read_text(encoding="utf-8").count("\n") - 1}
    for label, vaults in (("into the imported vaults", [out / f"vault-{n}-{i}" for i in range(count)]),
                          ("into new vaults", [out / f"aliases-{i}" for i in range(count)])):
        runs = []
        for vault in vaults:
            if not vault.exists():
                subprocess.run([BIN, "init", str(vault)], check=True, capture_output=True, env={**os.environ, **ENV})
            load = os.getloadavg()[0]
            env = {**ENV, "BIOCORTEX_VAULT": str(vault)}
            wall, cpu, proc = run([BIN, "entity", "import", str(data), "--json"], env)
            if proc.returncode != 0:
                raise SystemExit(proc.stderr[-2000:])
            report = json.loads(proc.stdout)
            runs.append((wall, cpu, load, report))
            print(f"entity import {label}: {result['rows']} rows -> {report['aliases']} aliases, {report['notes']} "
                  f"notes ({report['entities']} new): {wall:.2f} s wall, {cpu:.2f} s CPU, load average {load:.1f}: "
                  f"{report['aliases'] / wall:,.0f} aliases/s wall")
        wall = statistics.median(r[0] for r in runs)
        result[label] = {"aliases": runs[0][3]["aliases"], "notes": runs[0][3]["notes"],
                         "wall_s": [round(r[0], 2) for r in runs], "cpu_s": [round(r[1], 2) for r in runs],
                         "load_average": [round(r[2], 1) for r in runs],
                         "aliases_per_s_wall": round(runs[0][3]["aliases"] / wall)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tsv", type=Path, required=True, help="a TRRUST-like TSV (nothing is fetched)")
    parser.add_argument("--scale", type=int, nargs="*", default=[10_000], help="sizes in rows")
    parser.add_argument("--adds", type=int, default=30, help="single `fact add` processes per size")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--matrix", type=int, default=200,
                        help="triples per row of the confusion matrix (0: none)")
    parser.add_argument("--imports", type=int, default=1, help="imports per size, each into a new vault (median)")
    parser.add_argument("--aliases", action="store_true",
                        help="also time `entity import` of the file's genes' HGNC aliases (shipped table), "
                             "into each imported vault (notes exist) and into as many new vaults")
    parser.add_argument("--list-runs", type=int, default=0,
                        help="also time `fact list --json` and `fact list` of every fact, whole processes (0: not)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "facts")
    args = parser.parse_args()
    rows = read_tsv(args.tsv)
    print(f"machine: {machine()}")
    print(f"input: {args.tsv} ({len(rows)} rows)")
    results = []
    for n in args.scale:
        stale = [p for p in (args.out / f"vault-{n}", *sorted(args.out.glob(f"vault-{n}-*")),
                             *sorted(args.out.glob("aliases-*"))) if p.exists()]
        for old in stale:
            shutil.rmtree(old)
        if stale:
            # ext4 without a journal skips inodes freed in the last ~30 s when it allocates new ones:
            # right after deleting a 10k-note vault, creating the next one's notes spent 18 % of the
            # import's samples in the kernel's recently_deleted() (perf); a user's import follows no purge
            time.sleep(35)
        args.out.mkdir(parents=True, exist_ok=True)
        data = args.out / f"rows-{n}.tsv"
        data.write_text("".join("\t".join(r) + "\n" for r in scaled(rows, n)), encoding="utf-8")
        imports = []
        for i in range(max(1, args.imports)):
            vault = args.out / f"vault-{n}-{i}"
            subprocess.run([BIN, "init", str(vault)], check=True, capture_output=True, env={**os.environ, **ENV})
            env = {**ENV, "BIOCORTEX_VAULT": str(vault)}
            load = os.getloadavg()[0]
            wall, cpu, proc = run([BIN, "fact", "import", str(data), *IMPORT_ARGS, "--json"], env)
            if proc.returncode != 0:
                raise SystemExit(proc.stderr[-2000:])
            report = json.loads(proc.stdout)
            system = LAST_SYSTEM_CPU
            # the first command after the import: it pays for whatever the import left the index to do
            hub = Counter(r[0] for r in rows).most_common(1)[0][0]
            first_wall, first_cpu, _proc = run([BIN, "fact", "query", hub], env)
            print(f"import {i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU ({system:.2f} s system), "
                  f"load average {load:.1f}: {report['facts'] / wall:,.0f} facts/s wall; then `fact query "
                  f"{hub}` {first_wall:.2f} s wall, {first_cpu:.2f} s CPU: import and query "
                  f"{report['facts'] / (wall + first_wall):,.0f} facts/s wall")
            imports.append((wall, cpu, load, report))
        wall = statistics.median(w for w, _c, _l, _r in imports)
        cpu = statistics.median(c for _w, c, _l, _r in imports)
        report = imports[0][3]
        sizes = git_sizes(vault)
        history = (sizes["size-pack"] + sizes["size"]) * 1024
        facts = report["facts"]
        row = {"rows": n, "facts": facts, "entities": report["entities"], "imports": len(imports),
               "import_wall_s": [round(w, 2) for w, _c, _l, _r in imports],
               "import_cpu_s": [round(c, 2) for _w, c, _l, _r in imports],
               "load_average": [round(ld, 1) for _w, _c, ld, _r in imports],
               "facts_per_s_wall": round(facts / wall), "facts_per_s_cpu": round(facts / cpu),
               "history_bytes_per_fact": round(history / facts),
               "loose_objects": sizes["count"], "packs": sizes["packs"], "contradictions": report["contradictions"]}
        print(f"\n== {n} rows -> {report['facts']} facts, {report['entities']} entity notes")
        print(f"fact import, median of {len(imports)}: {wall:.2f} s wall, {cpu:.2f} s CPU: "
              f"{row['facts_per_s_wall']} facts/s wall, {row['facts_per_s_cpu']} facts/s CPU; history "
              f"{history / 2**20:.1f} MiB ({row['history_bytes_per_fact']} B a fact), {sizes['count']} loose "
              f"objects, {sizes['packs']} pack(s)")
        if args.aliases:
            row["alias_import"] = alias_imports(args.out, n, len(imports), {r[0] for r in rows} | {r[1] for r in rows})
        genes = sorted({r[1] for r in rows})
        adds = []
        for i in range(args.adds):
            started = time.perf_counter()
            done = subprocess.run([BIN, "fact", "add", f"BENCHTF{i}", "activates", genes[i % len(genes)],
                                   "--source", f"PMID:{40_000_000 + i}"], env={**os.environ, **env},
                                  capture_output=True, check=False)
            if done.returncode != 0:
                raise SystemExit(done.stderr.decode()[-1000:])
            adds.append(time.perf_counter() - started)
        if adds:
            row["fact_add"] = summary(adds)
            print(f"fact add (new fact, whole process) {row['fact_add']}")
        hub = Counter(r[0] for r in rows).most_common(1)[0][0]
        tf, target, mode, _p = rows[len(rows) // 2]
        for label, cmd in [] if not args.runs else [("python -c pass (the floor)", [sys.executable, "-c", "pass"]),
                           (f"fact query {tf}", [BIN, "fact", "query", tf]),
                           (f"fact query {hub} (the biggest hub)", [BIN, "fact", "query", hub]),
                           (f"fact verify {tf} {MODES[mode]} {target} (via sh)",
                            ["sh", "-c", f"{BIN} fact verify {tf} {MODES[mode]} {target} >/dev/null; exit 0"])]:
            line = summary(time_process(cmd, args.runs, env=env))
            row[label] = line
            print(f"{label:<45} {line}")
        listing = [("fact list --json (every fact)", [BIN, "fact", "list", "--json"]),
                   ("fact list (every fact)", [BIN, "fact", "list"])]
        for label, cmd in listing if args.list_runs else []:
            line = summary(time_process(cmd, args.list_runs, env=env, warmup=1))
            row[label] = line
            print(f"{label:<45} {line}")
        if args.matrix and n == args.scale[0]:
            matrix = confusion(vault, rows, scaled(rows, n), args.matrix)
            row["confusion"] = {k: dict(v) for k, v in matrix.items()}
            print("verify confusion matrix (rows: claims; columns: verdicts)")
            for label, counts in matrix.items():
                print(f"  {label:<13} " + "  ".join(f"{v} {counts.get(v, 0)}" for v in
                                                     ("supported", "contested", "contradicted", "unknown")))
        results.append(row)
    (args.out / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
