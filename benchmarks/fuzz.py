"""Hostile input at length: the properties of ``tests/test_fuzz.py`` with thousands of examples.

Each target is a parser of outside input; its property is "a result, or a DataError / usage
error naming the input, never another exception (exit 3)":

- ``note text``: frontmatter notes built from YAML corner cases (tags that construct objects,
  anchors and aliases, merge keys, open flow collections, bad dates, BOM, CRLF/CR, tabs, long lines);
- ``note bytes``: arbitrary bytes and those notes in UTF-8 / UTF-16 / Latin-1, read from a file;
- ``frontmatter edit``: ruamel round-trip edits of those notes (what ``entity alias``, ``fact retract`` do);
- ``episode import``: JSON Lines of arbitrary JSON values, wrong types, NaN/Infinity, huge numbers,
  lone surrogates, deep nesting;
- ``conversation``: what ``compress`` reads (arrays, ``{"messages"}``, JSON Lines, arbitrary JSON);
- ``CLI arguments``: 30 command shapes filled with hostile strings (``..``, absolute paths, NUL,
  invalid UTF-8, 300-character names, shell syntax), run in-process against a real vault; exit
  codes must be 0, 1 or 2 (4 for ``fact verify``), nothing may be written outside the vault.

Writes ``benchmarks/out/fuzz-<examples>.json`` and prints a table.

    .venv/bin/python benchmarks/fuzz.py                    # 5000 examples a target (CLI arguments: 1000)
    .venv/bin/python benchmarks/fuzz.py --examples 500 --seed 7
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))


def _isolate(home: Path) -> None:
    os.environ.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "GIT_CONFIG_NOSYSTEM": "1",
                       "GIT_CONFIG_GLOBAL": str(home / ".gitconfig")})
    for var in ("BIOCORTEX_VAULT", "BIOCORTEX_AUTHOR", "GIT_DIR", "GIT_WORK_TREE"):
        os.environ.pop(var, None)


def _in_process(*argv: str) -> Any:
    """Run biocortex in this process, as tests/conftest.py's ``cli`` fixture does."""
    from conftest import Result

    from biocortex_cli.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return Result(code, out.getvalue(), err.getvalue())


def run_target(name: str, test: Any, strategies: dict[str, Any], extra: dict[str, Any], examples: int,
               seed: int) -> dict[str, Any]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    inner: Callable[..., None] = test.hypothesis.inner_test
    count = failed = 0
    failures: list[str] = []

    def prop(**drawn: Any) -> None:
        nonlocal count, failed
        count += 1
        try:
            inner(**drawn, **extra)
        except Exception as exc:  # a property broken: keep the example (the first 20), carry on
            failed += 1
            if len(failures) < 20:
                failures.append(f"{type(exc).__name__}: {str(exc)[:300]} <- {str(drawn)[:300]}")

    runner = settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                      suppress_health_check=list(HealthCheck))(hseed(seed)(given(**strategies)(prop)))
    started = time.perf_counter()
    runner()
    seconds = time.perf_counter() - started
    return {"target": name, "examples": count, "failures": failed, "seconds": round(seconds, 1),
            "failure_examples": failures}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", type=int, default=5000, help="examples per parser target")
    parser.add_argument("--cli-examples", type=int, default=None, help="examples of CLI arguments (default examples/5)")
    parser.add_argument("--seed", type=int, default=20268)
    args = parser.parse_args()
    cli_examples = args.cli_examples or max(1, args.examples // 5)

    work = Path(tempfile.mkdtemp(prefix="biocortex-fuzz-"))
    _isolate(work / "home")
    import test_fuzz as t

    from biocortex_cli.cli.main import main as biocortex

    vault = work / "cli" / "vault"
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert biocortex(["init", str(vault)]) == 0
    os.environ["BIOCORTEX_VAULT"] = str(vault)
    notes_dir = work / "notes"
    notes_dir.mkdir()

    targets: list[tuple[str, Any, dict[str, Any], dict[str, Any]]] = [
        ("note text", t.test_parse_note_returns_a_note_or_a_data_error, {"text": t.frontmatter_note}, {}),
        ("note bytes", t.test_note_bytes_read_as_text_or_a_data_error, {"raw": t.raw_note}, {"tmp_path": notes_dir}),
        ("frontmatter edit", t.test_edit_frontmatter_keeps_notes_parseable,
         {"text": t.frontmatter_note, "updates": t.frontmatter_updates}, {}),
        ("episode import", t.test_import_lines_give_episodes_or_a_data_error, {"lines": t.jsonl_batch}, {}),
        ("conversation", t.test_conversations_parse_or_give_a_data_error, {"text": t.conversation}, {}),
        ("CLI arguments", t.test_hostile_arguments_exit_cleanly, {"args": t.argv},
         {"vault": vault, "cli": _in_process, "tmp_path": work / "cli"}),
    ]
    rows = []
    for name, test, strategies, extra in targets:
        n = cli_examples if name == "CLI arguments" else args.examples
        try:
            rows.append(run_target(name, test, strategies, extra, n, args.seed))
        except Exception:
            traceback.print_exc()
            return 3
        row = rows[-1]
        print(f"{row['target']:<18} {row['examples']:>7} examples  {row['failures']:>3} failures  "
              f"{row['seconds']:>7.1f} s", file=sys.stderr, flush=True)
        for f in row["failure_examples"]:
            print(f"    {f}", file=sys.stderr)

    from common import machine

    total = sum(r["examples"] for r in rows)
    failed = sum(r["failures"] for r in rows)
    print("\n| target | examples | failures | seconds |\n|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['target']} | {r['examples']} | {r['failures']} | {r['seconds']} |")
    print(f"| **all** | **{total}** | **{failed}** | **{sum(r['seconds'] for r in rows):.1f}** |")
    out = REPO / "benchmarks" / "out"
    out.mkdir(exist_ok=True)
    (out / f"fuzz-{args.examples}.json").write_text(json.dumps(
        {"machine": machine(), "seed": args.seed, "examples": args.examples, "cli_examples": cli_examples,
         "targets": rows}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
