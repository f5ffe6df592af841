"""Start-up time of whole biocortex processes (issue #2): the floor, --version, episode list.

Run: .venv/bin/python benchmarks/startup.py [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BIOCORTEX, machine, summary, time_process

BIN = str(Path(sys.executable).with_name("biocortex"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        env = {"BIOCORTEX_VAULT": str(vault), "HOME": tmp}
        subprocess.run([*BIOCORTEX, "init", str(vault)], check=True, capture_output=True, env={**os.environ, **env})
        rows = [
            ("python -c pass (the floor)", [sys.executable, "-c", "pass"]),
            ("python -c 'import typer'", [sys.executable, "-c", "import typer"]),
            ("biocortex --version", [BIN, "--version"]),
            ("biocortex --help", [BIN, "--help"]),
            ("biocortex episode list (empty vault)", [BIN, "episode", "list"]),
        ]
        for label, cmd in rows:
            print(f"{label:<40} {summary(time_process(cmd, args.runs, env=env))}")


if __name__ == "__main__":
    main()
