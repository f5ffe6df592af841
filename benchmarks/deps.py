"""What each dependency costs: its import time and what it installs (docs/architecture.md,
"Dependencies and why").

For every requirement of the installed ``biocortex`` (and of its ``mcp`` extra, if installed), the
distributions reached only through it, their count and size on disk; then the import time of each
module: its CPU time in a fresh process, the minimum of ``--runs`` (bytecode caching on; where the
time goes inside an import: ``python -X importtime -c 'import MODULE'``).
``--python`` measures another environment, e.g. a fresh venv with the wheel installed.

    .venv/bin/python benchmarks/deps.py
    .venv/bin/python benchmarks/deps.py --python /tmp/venv/bin/python --runs 9
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

#: the modules whose import is measured: each dependency's, and those the design card named
MODULES = ("typer", "rich", "rich.progress", "yaml", "ruamel.yaml", "tiktoken", "xxhash", "mcp.server.mcpserver",
           "git", "frontmatter")


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _requires(dist: metadata.Distribution, extras: set[str]) -> list[tuple[str, set[str]]]:
    """(name, extras asked for) of what ``dist`` installed with ``extras`` requires."""
    from pip._vendor.packaging.requirements import Requirement  # every venv has pip's copy

    out = []
    for line in dist.requires or []:
        req = Requirement(line)
        if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras | {""}):
            out.append((_name(req.name), set(req.extras)))
    return out


def footprint() -> list[tuple[str, int, int]]:
    """(requirement, distributions only it brings, their bytes) for biocortex's requirements and
    its ``mcp`` extra's, those installed."""
    dists = {_name(d.metadata["Name"]): d for d in metadata.distributions()}
    extras = {"mcp"}

    def closure(roots: list[tuple[str, set[str]]]) -> set[str]:
        seen: set[tuple[str, frozenset[str]]] = set()
        todo = [r for r in roots if r[0] in dists]
        while todo:
            name, asked = todo.pop()
            if (name, frozenset(asked)) not in seen:
                seen.add((name, frozenset(asked)))
                todo += [r for r in _requires(dists[name], asked) if r[0] in dists]
        return {name for name, _ in seen}

    def size(name: str) -> int:
        files = dists[name].files or []
        paths = (Path(str(dists[name].locate_file(f))) for f in files)
        return sum(p.stat().st_size for p in paths if p.is_file())

    top = list({r[0]: r for r in _requires(dists["biocortex"], extras) if r[0] in dists}.values())
    rows = []
    for req in top:
        only = closure([req]) - closure([r for r in top if r != req])
        rows.append((req[0], len(only), sum(size(n) for n in only)))
    return rows


def import_ms(python: str, module: str, runs: int) -> float | None:
    """CPU milliseconds of ``import module`` in a fresh process, the minimum of ``runs``: CPU, not
    wall time, so that other jobs on a shared machine change the figure little."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    code = f"import time; t = time.process_time(); import {module}; print(time.process_time() - t)"
    samples = []
    for _ in range(runs):
        proc = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            return None
        samples.append(float(proc.stdout) * 1000)
    return min(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--footprint-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.footprint_only:
        for req, count, size in footprint():
            print(f"{req:<22}{count:>4} distribution(s) {size / 2**20:7.1f} MiB")
        return 0
    print(f"python: {args.python}; load average {os.getloadavg()[0]:.2f}")
    print("installed through each requirement alone (its own distribution included):")
    subprocess.run([args.python, __file__, "--footprint-only"], check=True)
    site = subprocess.run([args.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    total = sum(f.stat().st_size for f in Path(site).rglob("*") if f.is_file())
    print(f"site-packages in all: {total / 2**20:.1f} MiB (pip and setuptools included)")
    print(f"import, CPU time, minimum of {args.runs} processes:")
    for module in MODULES:
        ms = import_ms(args.python, module, args.runs)
        print(f"  {module:<22}" + ("not installed" if ms is None else f"{ms:7.1f} ms"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
