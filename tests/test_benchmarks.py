"""Every script of benchmarks/ and scripts/ still loads against the package and answers --help.

Nothing runs those scripts between two measurements, so a function the package renamed, moved
or retyped broke them silently (benchmarks/vocabulary.py read ``vocabulary.PATH`` as a Path after
it became a str). ``make lint`` type-checks them (pyproject.toml, ``[tool.mypy]``); this test runs
each one as ``python SCRIPT --help`` would — its module-level imports, its own imports of the other
scripts, its argument parser — all in one process, and measures nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*(REPO / "benchmarks").glob("*.py"), *(REPO / "scripts").glob("*.py")])

# One process for every script: each runs as __main__ with `--help`, its folder first on sys.path
# (as `python SCRIPT` puts it); what it printed and how it exited are collected, a traceback kept.
DRIVER = r"""
import contextlib, io, json, runpy, sys, traceback
paths = sys.argv[1:]
results = {}
for path in paths:
    folder = path.rsplit("/", 1)[0]
    sys.path[:0] = [folder]
    sys.argv = [path, "--help"]
    out = io.StringIO()
    code, error = None, ""
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
    except BaseException:
        error = traceback.format_exc()
    results[path] = {"code": code, "stdout": out.getvalue(), "error": error}
print(json.dumps(results))
"""


def test_every_script_imports_and_answers_help(tmp_path: Path) -> None:
    assert len(SCRIPTS) > 20  # the glob found the folders
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", DRIVER, *map(str, SCRIPTS)], capture_output=True, text=True,
                          cwd=tmp_path, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout)
    broken = {}
    for path in SCRIPTS:
        got = results[str(path)]
        name = str(path.relative_to(REPO))
        if got["error"]:
            broken[name] = got["error"]
        elif 'if __name__ == "__main__":' in path.read_text(encoding="utf-8"):
            if got["code"] != 0 or "usage:" not in got["stdout"]:
                broken[name] = f"--help exited {got['code']!r} and printed {got['stdout'][:300]!r}"
        elif got["code"] is not None:  # a helper (common.py): importing it must not exit
            broken[name] = f"importing it exited {got['code']!r}"
    assert broken == {}, "\n\n".join(f"{name}:\n{why}" for name, why in broken.items())
    assert list(tmp_path.iterdir()) == []  # --help wrote nothing
