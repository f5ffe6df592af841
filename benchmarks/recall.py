"""Index and recall at 1k, 10k and 100k episodes, side by side with grep and bm25s (issue #3 §8).

For each size, on a synthetic vault (``benchmarks/synthetic.py``, cached under benchmarks/out/):

- ``index --rebuild``: wall time of the whole process (the full index);
- refresh after one new episode: ``episode add`` then ``biocortex index`` (the quick path:
  changed folders and git), ``biocortex index --full`` (stats every note), and, separately, a
  ``recall`` whose own refresh picks the new episode up;
- index size: bytes of ``.biocortex/index.sqlite`` per episode;
- ``recall``: whole-process wall time over ~20 realistic queries with a fresh index
  (median, p90) and peak memory (max RSS of the process, from ``wait4``);
- the same queries through ``grep -ril --exclude-dir=.git WORD VAULT`` (one word each) and
  through bm25s (a fresh process that loads a saved bm25s index with mmap and answers);
- the floor, ``python -c pass``.

Wall time and, where it matters, user+sys CPU time (a shared machine inflates the first).
Every figure is a whole process started from this script, as an agent starts biocortex, with
a warm page cache (one untimed run first) and bytecode caching on (PYTHONDONTWRITEBYTECODE is
removed from the children's environment: with it, each process compiles biocortex from source).
Results go to stdout as a table and to ``benchmarks/out/recall-<sizes>.json``.

Reproduce (the first run generates the vaults: ~2-3 minutes for 100k, then cached):
    .venv/bin/pip install bm25s           # optional: the bm25s column is skipped without it
    .venv/bin/python benchmarks/recall.py                     # 1k, 10k, 100k, 5 runs per query
    .venv/bin/python benchmarks/recall.py --sizes 1000,10000 --runs 3     # a quick look
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine
from synthetic import GIT_ENV, OUT, ensure_vault, episode_record, reset

HERE = Path(__file__).resolve().parent
#: (query, the one word grep looks for)
QUERIES: list[tuple[str, str]] = [
    ("what went wrong last time we removed doublets from 10x Multiome data?", "doublets"),
    ("scDblFinder doublets per sample in PBMC", "scDblFinder"),
    ("KRAS G12C CRISPR screen resistance genes under sotorasib", "sotorasib"),
    ("MAGeCK essential genes Brunello pooled screen", "MAGeCK"),
    ("MaxQuant LFQ missing values before imputation", "imputing"),
    ("DESeq2 differential expression with RIN as a covariate", "DESeq2"),
    ("GATK HaplotypeCaller germline variants coverage gaps", "HaplotypeCaller"),
    ("cell2location cell-type proportions per spot in Visium", "cell2location"),
    ("Kraken2 contamination in shotgun metagenomics", "Kraken2"),
    ("ChEMBL QSAR models and duplicate compounds with RDKit", "QSAR"),
    ("cryo-EM conformational states RELION 3D classification", "RELION"),
    ("TP53 R175H carriers", "R175H"),
    ("Harmony batch correction by donor in scRNA-seq", "Harmony"),
    ("Cellpose nuclei segmentation diameter", "Cellpose"),
    ("MACS2 peaks with low FRiP in ATAC-seq", "FRiP"),
    ("pitfalls of population stratification in GWAS with PLINK", "stratification"),
    ("TADs and compartments from in situ Hi-C", "compartments"),
    ("Sniffles2 structural variants from Oxford Nanopore reads", "Sniffles2"),
    ("what worked for T cell exhaustion states in tumour", "exhaustion"),
    ("do not regress out cell cycle phase when confounded", "regress"),
]
PYTHON = sys.executable
BIN = str(Path(sys.executable).with_name("biocortex"))


def _child_env(extra: dict[str, str] | None) -> dict[str, str]:
    """The environment of a timed process. PYTHONDONTWRITEBYTECODE is dropped: with it, every
    process compiles biocortex's modules from source (~40 ms), which no installed copy does."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **(extra or {})}


def timed(
    cmd: Sequence[str], *, env: dict[str, str] | None = None, stdin: str | None = None, ok: Sequence[int] = (0,)
) -> tuple[float, float, str]:
    """Run a whole process: (wall seconds, its own peak RSS in MB from ``wait4``, stdout)."""
    wall, _cpu, rss, out = timed_cpu(cmd, env=env, stdin=stdin, ok=ok)
    return wall, rss, out


def timed_cpu(
    cmd: Sequence[str], *, env: dict[str, str] | None = None, stdin: str | None = None, ok: Sequence[int] = (0,)
) -> tuple[float, float, float, str]:
    """Run a whole process: (wall seconds, user+sys CPU seconds of it and the processes it waited
    for, e.g. a rebuild's workers, its peak RSS in MB, stdout). CPU time is what to compare on a
    shared machine: wall time there depends on the other jobs."""
    import tempfile

    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        started = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            env=_child_env(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out_f,
            stderr=err_f,
        )
        if stdin is not None and proc.stdin is not None:
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    if code not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited {code}: {err.decode(errors='replace')[-800:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.decode(errors="replace")


#: the episode index's tables (the same file also holds the facts' tables)
EPISODE_TABLES = {"meta", "docs", "bodies", "postings", "doclens", "attrs", "problems", "sqlite_schema"}


def _table_bytes(index_file: Path) -> dict[str, int]:
    """Bytes per table and index of an SQLite file (empty if SQLite lacks the dbstat table)."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"file:{index_file}?mode=ro", uri=True)) as conn:
            return {name: int(size) for name, size in conn.execute(
                "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")}
    except sqlite3.Error:
        return {}


def _own_seconds(out: str) -> float:
    """The episode index's own time, from ``index --json`` ("seconds"; facts are indexed after)."""
    try:
        return float(json.loads(out)["seconds"])
    except (ValueError, KeyError, TypeError):
        return float("nan")


def stats_ms(samples: Sequence[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]
    return {"median": round(statistics.median(ms), 1), "p90": round(p90, 1), "min": round(ms[0], 1), "n": len(ms)}


def bc(vault: Path, *args: str) -> list[str]:
    return [BIN, "--vault", str(vault), *args]


def bench_size(n: int, runs: int, grep_queries: int, env: dict[str, str]) -> dict[str, Any]:
    t0 = time.perf_counter()
    vault = ensure_vault(n)
    print(f"[{n}] vault ready in {time.perf_counter() - t0:.1f} s: {vault}", file=sys.stderr)
    index_file = vault / ".biocortex" / "index.sqlite"
    res: dict[str, Any] = {"episodes": n, "vault": str(vault)}

    # (a) full index
    rebuild_runs = max(1, min(runs, 3)) if n <= 10_000 else 1
    samples, own, cpu = [], [], []
    for _ in range(rebuild_runs):
        secs, cpu_s, rss, out = timed_cpu(bc(vault, "index", "--rebuild", "--json"), env=env)
        samples.append(secs)
        cpu.append(cpu_s)
        own.append(_own_seconds(out))
        res["rebuild_peak_mb"] = round(max(rss, res.get("rebuild_peak_mb", 0.0)), 1)
    res["rebuild_s"] = round(statistics.median(samples), 2)
    res["rebuild_cpu_s"] = round(statistics.median(cpu), 2)
    res["rebuild_episodes_s"] = round(statistics.median(own), 2)
    print(f"[{n}] index --rebuild {res['rebuild_s']} s (episodes {res['rebuild_episodes_s']} s)", file=sys.stderr)

    # (c) size
    size = sum(p.stat().st_size for p in index_file.parent.glob("index.sqlite*"))
    res["index_bytes"] = size
    res["index_kb_per_episode"] = round(size / n / 1024, 2)
    by_table = _table_bytes(index_file)
    res["index_bytes_by_table"] = by_table
    if by_table:
        episodes = sum(v for k, v in by_table.items() if k in EPISODE_TABLES or k.startswith("sqlite_autoindex_docs"))
        res["episode_tables_kb_per_episode"] = round(episodes / n / 1024, 2)

    # (d) recall with a fresh index
    timed(bc(vault, "recall", QUERIES[0][0]), env=env)  # warm the page cache
    lat: list[float] = []
    lat_cpu: list[float] = []
    peak = 0.0
    for query, _word in QUERIES:
        for _ in range(runs):
            secs, cpu_s, rss, _ = timed_cpu(bc(vault, "recall", query), env=env)
            lat.append(secs)
            lat_cpu.append(cpu_s)
            peak = max(peak, rss)
    res["recall_ms"] = stats_ms(lat)
    res["recall_cpu_ms"] = stats_ms(lat_cpu)
    res["recall_peak_mb"] = round(peak, 1)
    json_secs = [timed(bc(vault, "recall", q, "--json"), env=env)[0] for q, _w in QUERIES[:5] for _ in range(runs)]
    res["recall_json_ms"] = stats_ms(json_secs)
    print(f"[{n}] recall {res['recall_ms']} peak {peak:.1f} MB", file=sys.stderr)

    # (b) refresh after one new episode
    base = json.loads(vault.with_suffix(".json").read_text())["head"]
    add_s, idx_s, idx_cpu, idx_own, full_s, full_cpu, rec_s = [], [], [], [], [], [], []
    refresh_runs = max(1, min(runs, 3))
    for k in range(refresh_runs):
        record = json.dumps(episode_record(n + k))
        secs, _, _ = timed(bc(vault, "episode", "add", "--from-json", "-"), env=env, stdin=record)
        add_s.append(secs)
        secs, cpu_s, _, out = timed_cpu(bc(vault, "index", "--json"), env=env)
        idx_s.append(secs)
        idx_cpu.append(cpu_s)
        idx_own.append(_own_seconds(out))
        reset(vault, base)
        timed(bc(vault, "index"), env=env)
        timed(bc(vault, "episode", "add", "--from-json", "-"), env=env, stdin=record)
        secs, cpu_s, _, _ = timed_cpu(bc(vault, "index", "--full"), env=env)
        full_s.append(secs)
        full_cpu.append(cpu_s)
        reset(vault, base)
        timed(bc(vault, "index", "--full"), env=env)
        timed(bc(vault, "episode", "add", "--from-json", "-"), env=env, stdin=record)
        secs, _, _ = timed(bc(vault, "recall", QUERIES[k % len(QUERIES)][0]), env=env)
        rec_s.append(secs)
        reset(vault, base)
        timed(bc(vault, "index", "--full"), env=env)
    res["episode_add_s"] = round(statistics.median(add_s), 3)
    res["refresh_index_s"] = round(statistics.median(idx_s), 3)
    res["refresh_index_cpu_s"] = round(statistics.median(idx_cpu), 3)
    res["refresh_index_episodes_s"] = round(statistics.median(idx_own), 3)
    res["refresh_index_full_s"] = round(statistics.median(full_s), 3)
    res["refresh_index_full_cpu_s"] = round(statistics.median(full_cpu), 3)
    res["refresh_recall_s"] = round(statistics.median(rec_s), 3)
    print(
        f"[{n}] refresh: index {res['refresh_index_s']} s, inside recall {res['refresh_recall_s']} s", file=sys.stderr
    )

    # (f) grep
    grep = shutil.which("grep")
    if grep:
        g = [
            timed([grep, "-ril", "--exclude-dir=.git", word, str(vault)], ok=(0, 1))[0]
            for _q, word in QUERIES[:grep_queries]
            for _ in range(runs)
        ]
        res["grep_ms"] = stats_ms(g)

    # (g) bm25s
    res.update(bench_bm25s(vault, n, runs))
    return res


def bench_bm25s(vault: Path, n: int, runs: int) -> dict[str, Any]:
    try:
        import bm25s
    except ImportError:
        return {"bm25s": "not installed (pip install bm25s)"}
    folder = OUT / "bm25s" / f"{vault.name}"
    stamp = folder / "paths.txt"
    out: dict[str, Any] = {"bm25s_version": bm25s.__version__}
    if not stamp.exists():
        started = time.perf_counter()
        paths = sorted(str(p.relative_to(vault)) for p in (vault / "episodes").rglob("*.md") if p.name != "README.md")
        corpus = [(vault / p).read_text(encoding="utf-8") for p in paths]
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
        if folder.exists():
            shutil.rmtree(folder)
        retriever.save(str(folder), show_progress=False)
        stamp.write_text("\n".join(paths), encoding="utf-8")
        out["bm25s_build_s"] = round(time.perf_counter() - started, 1)
    size = sum(p.stat().st_size for p in folder.iterdir())
    out["bm25s_index_kb_per_episode"] = round(size / n / 1024, 2)
    cmd = [PYTHON, str(HERE / "bm25s_query.py"), str(folder)]
    timed([*cmd, QUERIES[0][0]])
    lat, peak = [], 0.0
    for query, _w in QUERIES:
        for _ in range(runs):
            secs, rss, _ = timed([*cmd, query])
            lat.append(secs)
            peak = max(peak, rss)
    out["bm25s_ms"] = stats_ms(lat)
    out["bm25s_peak_mb"] = round(peak, 1)
    return out


def table(results: list[dict[str, Any]], floor: dict[str, float]) -> str:
    sizes = [r["episodes"] for r in results]
    rows: list[tuple[str, list[str], str]] = []

    def ms(key: str) -> list[str]:
        return [f"{r[key]['median']:.0f} / {r[key]['p90']:.0f}" if key in r else "-" for r in results]

    rows.append(
        ("python -c pass (floor), ms median/p90", [f"{floor['median']:.0f} / {floor['p90']:.0f}"] * len(sizes), "")
    )
    rows.append(("index --rebuild (whole process), s", [f"{r['rebuild_s']:.2f}" for r in results], ""))
    rows.append(("  its CPU (user+sys, workers included), s", [f"{r['rebuild_cpu_s']:.1f}" for r in results], ""))
    rows.append(("  of which the episode index, s", [f"{r['rebuild_episodes_s']:.2f}" for r in results],
                 "≤ 60 at 100k"))
    rows.append(("index --rebuild peak RSS, MB", [f"{r['rebuild_peak_mb']:.0f}" for r in results], ""))
    rows.append(("episode add (1 episode), s", [f"{r['episode_add_s']:.2f}" for r in results], ""))
    rows.append(("refresh: biocortex index, s", [f"{r['refresh_index_s']:.3f}" for r in results], ""))
    rows.append(("  its CPU (user+sys), s", [f"{r['refresh_index_cpu_s']:.3f}" for r in results], ""))
    rows.append(("  of which the episode index, s", [f"{r['refresh_index_episodes_s']:.3f}" for r in results],
                 "≤ 0.5 at 100k"))
    rows.append(("refresh: recall incl. refresh, s", [f"{r['refresh_recall_s']:.3f}" for r in results], ""))
    rows.append(("refresh: biocortex index --full, s", [f"{r['refresh_index_full_s']:.3f}" for r in results], ""))
    rows.append(("  its CPU (user+sys), s", [f"{r['refresh_index_full_cpu_s']:.3f}" for r in results], ""))
    rows.append(("index file, KB/episode", [f"{r['index_kb_per_episode']:.2f}" for r in results], ""))
    rows.append(("  of which the episode tables, KB/episode",
                 [f"{r.get('episode_tables_kb_per_episode', float('nan')):.2f}" for r in results], "≤ 3"))
    rows.append(("recall, ms median/p90", ms("recall_ms"), "≤ 80 at 10k, ≤ 120 at 100k"))
    rows.append(("  its CPU (user+sys), ms median/p90", ms("recall_cpu_ms"), ""))
    rows.append(("recall --json, ms median/p90", ms("recall_json_ms"), ""))
    rows.append(("recall peak RSS, MB", [f"{r['recall_peak_mb']:.0f}" for r in results], "≤ 100 at 100k"))
    rows.append(("grep -ril WORD, ms median/p90", ms("grep_ms"), ""))
    rows.append(("bm25s load+query, ms median/p90", ms("bm25s_ms"), ""))
    rows.append(
        ("bm25s peak RSS, MB", [f"{r['bm25s_peak_mb']:.0f}" if "bm25s_peak_mb" in r else "-" for r in results], "")
    )
    rows.append(
        (
            "bm25s index, KB/episode",
            [f"{r['bm25s_index_kb_per_episode']:.2f}" if "bm25s_index_kb_per_episode" in r else "-" for r in results],
            "",
        )
    )
    width = max(len(r[0]) for r in rows) + 2
    head = "".join(f"{n:>16,}" for n in sizes)
    lines = [f"{'episodes':<{width}}{head}   target"]
    for label, cells, target in rows:
        lines.append(f"{label:<{width}}" + "".join(f"{c:>16}" for c in cells) + (f"   {target}" if target else ""))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated episode counts")
    parser.add_argument("--runs", type=int, default=5, help="runs per query (and per other measurement)")
    parser.add_argument("--grep-queries", type=int, default=5, help="how many queries grep runs (it is slow)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    env = {**GIT_ENV, "BIOCORTEX_AUTHOR": "bench <bench@localhost>"}
    load_before = os.getloadavg()
    floor = stats_ms([timed([PYTHON, "-c", "pass"])[0] for _ in range(max(10, args.runs * 4))])
    results = []
    for n in sizes:
        results.append(bench_size(n, args.runs, args.grep_queries, env))
    report = {
        "machine": machine(),
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "git": subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip(),
        "command": " ".join([Path(PYTHON).name, *sys.argv]),
        "runs": args.runs,
        "queries": [q for q, _w in QUERIES],
        "floor_ms": floor,
        "results": results,
        "loadavg_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"recall-{'-'.join(str(n) for n in sizes)}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"machine: {report['machine']}")
    print(f"command: {report['command']}  ({len(QUERIES)} queries x {args.runs} runs; whole processes;"
          f" 1-min load average before/after {report['loadavg_before_after']})")
    print(table(results, floor))
    print(f"results: {path}")


if __name__ == "__main__":
    main()
