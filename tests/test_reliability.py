"""A small run of the crash harness (benchmarks/crash.py; `make stress` runs 200 trials)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import crash  # noqa: E402


def test_killed_writes_lose_nothing_and_block_nothing(tmp_path: Path) -> None:
    """One kill trial of each write command. SIGKILL to biocortex alone: the kill of a whole
    process group (git too, mid-write) is the 200-trial harness's; how long the write after a
    kill takes is its figure too (docs/reliability.md), not an assertion here."""
    results = crash.run_trials(len(crash.COMMANDS), seed=3, base=tmp_path, max_delay_ms=300, modes=("process",))
    assert [t.command for t in results] == list(crash.COMMANDS)
    assert {t.outcome for t in results} <= {"killed", "finished"}
    assert [(t.n, t.failures) for t in results if t.failures] == []
