"""Many writers at once, and a large batch: nothing lost, nothing mixed, git stays healthy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import Cli, git

WRITERS = 16


def test_sixteen_concurrent_writers_all_land(vault: Path) -> None:
    env = {**os.environ, "BIOCORTEX_VAULT": str(vault)}
    start_at = time.time() + 1.5  # every process waits for the same moment, then writes
    code = ("import sys, time; from biocortex_cli.cli.main import main; "
            f"time.sleep(max(0, {start_at} - time.time())); sys.exit(main(sys.argv[1:]))")
    procs = [
        subprocess.Popen([sys.executable, "-c", code, "--author", f"Agent {i} <a{i}@lab.example>",
                          "episode", "add", "--task", f"Concurrent analysis {i} of KEAP1 screen",
                          "--id", f"conc-{i:02d}", "--entity", f"GENE{i}X"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(WRITERS)
    ]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
    assert all(code == 0 for code, _, _ in results), results
    assert sorted(out.strip() for _, out, _ in results) == [f"conc-{i:02d}" for i in range(WRITERS)]
    notes = sorted(p.stem for p in (vault / "episodes").rglob("conc-*.md"))
    assert notes == [f"conc-{i:02d}" for i in range(WRITERS)]
    # one commit per writer, each holding exactly that writer's episode and entity note
    log = git(vault, "log", "--format=%x00%s%x01%an", "--name-only").split("\x00")[1:]
    commits = [entry for entry in log if entry.startswith("episode: add conc-")]
    assert len(commits) == WRITERS
    for entry in commits:
        subject, rest = entry.split("\x01", 1)
        ident = subject.split()[2]
        i = int(ident.split("-")[1])
        files = {line for line in rest.splitlines()[1:] if line}
        assert rest.splitlines()[0] == f"Agent {i}"
        # its episode and its own entity note; KEAP1's note lands with whichever writer came first
        assert any(f.endswith(f"/{ident}.md") for f in files) and f"entities/GENE{i}X.md" in files, files
        assert len(files - {"entities/KEAP1.md"}) == 2, files
    assert sum("entities/KEAP1.md" in entry for entry in commits) == 1
    assert not (vault / ".git/index.lock").exists()
    assert git(vault, "status", "--porcelain") == ""
    subprocess.run(["git", "-C", str(vault), "fsck", "--strict"], check=True, capture_output=True)


def test_a_thousand_episode_import_is_one_commit(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """How long an import of 10,000 takes is a benchmark (benchmarks/writes.py, docs/performance.md);
    1,000 is enough for what is asserted here: one commit of them all, its message listing the first
    200 and counting the rest."""
    n = 1_000
    src = tmp_path / "big.jsonl"
    with src.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps(big_episode(i)) + "\n")
    r = cli("episode", "import", src)
    assert r.code == 0, r.err
    assert r.out.strip() == str(n)
    assert sum(1 for _ in (vault / "episodes").rglob("big-*.md")) == n
    assert git(vault, "rev-list", "--count", "HEAD") == "2\n"  # init, then the import
    message = git(vault, "log", "-1", "--format=%B")
    assert message.startswith(f"episode: import {n} episodes — big-00000 … big-00999\n")
    assert "- big-00199: " in message and "- big-00200: " not in message and f"- … and {n - 200} more" in message
    assert git(vault, "status", "--porcelain") == ""


def big_episode(i: int) -> dict[str, object]:
    """Episode ``i`` of a large synthetic import (shared with benchmarks/writes.py)."""
    return {
        "id": f"big-{i:05d}", "created": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T08:00:00Z",
        "task": f"Batch {i}: differential expression of TP53 targets in cohort {i % 97}",
        "tools": ["DESeq2"], "domains": ["bulk-RNA-seq"], "success": i % 3 != 0,
        "quality": round((i % 10) / 10, 1), "lessons": ["Check the design matrix"],
    }
