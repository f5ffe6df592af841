"""`fact query` and `fact verify` on a vault of N facts, as whole processes (issue #4).

Run: .venv/bin/python benchmarks/facts.py [--facts 100000] [--runs 15]

Builds (once, cached under benchmarks/out/facts-N/) a vault of N fact notes over a realistic
vocabulary — gene symbols, identifiers, cell types, samples, compounds — with predicates from
biology, written as biocortex writes them (render_fact) and committed in one commit; then times
the first query (which builds the fact tables of the index), and then `fact query` /
`fact verify` with a fresh index, next to `recall` on the same vault and the floor.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, summary, time_process

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BIN = str(Path(sys.executable).with_name("biocortex"))

PREDICATES = ["regulates", "activates", "inhibits", "binds", "phosphorylates", "ubiquitinates",
              "upregulates", "downregulates", "marker_of", "expressed_in", "associated_with",
              "interacts_with", "targets", "sensitises_to", "is_a", "part_of", "hit", "failed_qc_on"]


def vocabulary(n: int, seed: int = 7) -> tuple[random.Random, list[str]]:
    rng = random.Random(seed)
    genes = [f"{rng.choice(['TP', 'BRCA', 'CD', 'IL', 'KRT', 'SLC', 'ZNF', 'MAP', 'CXCL', 'ATP'])}{i}"
             for i in range(max(200, n // 5))]
    others = ([f"CL:{i:07d}" for i in range(200)] + [f"GO:{i:07d}" for i in range(500)]
              + [f"CHEMBL{i}" for i in range(300)] + [f"sample S{i}" for i in range(300)])
    return rng, genes + others


def make_vault(path: Path, n: int) -> None:
    from biocortex_cli.facts.model import fact_id, fact_rel
    from biocortex_cli.facts.notes import render_fact
    from biocortex_cli.store.vault import Vault, init_vault

    rng, names = vocabulary(n)
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(names))]  # a few hubs, a long tail
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}
    init_vault(path, "bench <bench@example.org>")
    vault = Vault(path.resolve())
    now = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    written = 0
    seen: set[str] = set()
    while written < n:
        s, o = rng.choices(names, weights, k=2)
        p = rng.choice(PREDICATES)
        ident = fact_id(s, p, o)
        if s == o or ident in seen:
            continue
        seen.add(ident)
        conf = round(rng.uniform(0.3, 0.99), 2)
        src = f"PMID:{rng.randrange(1_000_000, 39_000_000)}"
        record = {"id": ident, "type": "fact", "created": now, "author": "bench <bench@example.org>",
                  "subject": s, "predicate": p, "object": o, "confidence": conf, "source": [src],
                  "status": "current",
                  "evidence": [{"source": src, "confidence": conf, "author": "bench", "added": now}]}
        target = path / fact_rel(s, p, o)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_fact(vault, record), encoding="utf-8")
        written += 1
    subprocess.run(["git", "-C", str(path), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(path), "commit", "-qm", f"bench: {n} facts"], check=True, env=env)
    (path / ".bench-ready").write_text(json.dumps({"facts": n, "hub": names[0]}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    out = ROOT / "benchmarks" / "out" / f"facts-{args.facts}"
    if not (out / ".bench-ready").exists():
        t0 = time.perf_counter()
        if out.exists():
            subprocess.run(["rm", "-rf", str(out)], check=True)
        make_vault(out, args.facts)
        print(f"generated {args.facts} facts in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    info = json.loads((out / ".bench-ready").read_text())
    env = {"BIOCORTEX_VAULT": str(out)}
    index = out / ".biocortex" / "index.sqlite"
    if index.exists():
        index.unlink()
    t0 = time.perf_counter()
    subprocess.run([BIN, "fact", "query", "GO:0000001"], env={**os.environ, **env}, capture_output=True, check=True)
    first = time.perf_counter() - t0
    hub = info["hub"]
    _rng, names = vocabulary(args.facts)
    mid, rare = names[100], names[len(names) // 3]
    print(f"machine: {machine()}")
    print(f"vault: {args.facts} facts, {sum(1 for _ in (out / 'entities').glob('*.md'))} entity notes "
          f"(first query, building the fact tables: {first:.1f} s; index {index.stat().st_size / 2**20:.0f} MiB)")
    rows = [
        ("python -c pass (the floor)", [sys.executable, "-c", "pass"]),
        (f"fact query {rare} (a rare entity)", [BIN, "fact", "query", rare]),
        (f"fact query {mid} (a common entity)", [BIN, "fact", "query", mid]),
        (f"fact query {hub} (the biggest hub)", [BIN, "fact", "query", hub]),
        (f"fact query {mid} --hops 2", [BIN, "fact", "query", mid, "--hops", "2"]),
        # verify exits 4 for "unknown": run through sh so the timing helper sees 0 (~1 ms of sh)
        (f"fact verify {mid} regulates {rare} (via sh)",
         ["sh", "-c", f"{BIN} fact verify '{mid}' regulates '{rare}' >/dev/null; exit 0"]),
        ("recall 'TP53 regulation' (no episodes)", [BIN, "recall", "TP53 regulation"]),
    ]
    for label, cmd in rows:
        print(f"{label:<42} {summary(time_process(cmd, args.runs, env=env))}")


if __name__ == "__main__":
    main()
