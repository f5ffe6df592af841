"""A small run of the crash harness (benchmarks/crash.py; `make stress` runs 200 trials)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import crash  # noqa: E402


def test_killed_writes_lose_nothing_and_block_nothing(tmp_path: Path) -> None:
    started = time.perf_counter()
    # SIGKILL to biocortex alone: a kill of git itself leaves index.lock, which the next write
    # waits 10 s for before clearing it (the 200-trial harness covers that case)
    results = crash.run_trials(10, seed=3, base=tmp_path, max_delay_ms=300, modes=("process",))
    assert [t.command for t in results[:6]] == list(crash.COMMANDS)
    assert {t.outcome for t in results} <= {"killed", "finished"}
    assert [(t.n, t.failures) for t in results if t.failures] == []
    assert time.perf_counter() - started < 15  # ~5 s on 2 cores
