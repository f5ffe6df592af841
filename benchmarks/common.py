"""Helpers shared by the benchmark scripts: timing whole processes, machine description."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

BIOCORTEX = [sys.executable, "-m", "biocortex_cli"]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (f"{cpu}, {os.cpu_count()} cores{mem}; Python {platform.python_version()}; "
            f"{platform.system()} {platform.release()}")


def time_process(cmd: Sequence[str], runs: int, env: dict[str, str] | None = None,
                 cwd: str | None = None, warmup: int = 2) -> list[float]:
    """Wall-clock seconds of ``runs`` executions of a whole process (after ``warmup`` runs)."""
    # Bytecode caching on, as on any normal machine (this sandbox sets PYTHONDONTWRITEBYTECODE,
    # which would make every process compile biocortex from source, ~40 ms).
    full_env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = []
    for i in range(warmup + runs):
        started = time.perf_counter()
        proc = subprocess.run(cmd, env=full_env, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, check=False)
        elapsed = time.perf_counter() - started
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-500:]}")
        if i >= warmup:
            out.append(elapsed)
    return out


def summary(samples: Sequence[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]
    return f"median {statistics.median(ms):6.1f} ms  p90 {p90:6.1f} ms  min {ms[0]:6.1f} ms  (n={len(ms)})"


def tree_env(home: Path, code: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a benchmark's own user (``home``, with ``home/gitconfig``), running the
    code in ``code`` (a tree; None: the installed package), bytecode cached as on any machine."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(home / "gitconfig"), **extra)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def run_cli(env: dict[str, str], vault: Path, *args: str) -> tuple[str, float]:
    """``biocortex --vault VAULT ARGS`` as a process: its stdout and wall seconds; exit on failure.
    Run from the vault's folder: ``python -m`` puts the working folder ahead of PYTHONPATH."""
    started = time.perf_counter()
    proc = subprocess.run([*BIOCORTEX, "--vault", str(vault), *args], env=env, cwd=vault.parent,
                          capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"biocortex {' '.join(args)} failed: {proc.stderr[-500:]}")
    return proc.stdout, elapsed

