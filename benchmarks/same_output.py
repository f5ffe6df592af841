"""Do two revisions print the same bytes? (A check for changes meant to alter only speed.)

Runs the same commands with the code of ``--before`` (an exported tree, run with
``PYTHONPATH``) and with this tree, each on its own copy of the vaults, and compares stdout,
stderr and the exit code of every command, byte for byte:

* 100 recalls on the synthetic vault of ``--size`` episodes (benchmarks/synthetic.py): 25
  questions of benchmarks/data/biorecall × default, ``--top-k 15 --explain``, ``--min-relevance
  0.2 --success-only`` and ``--domain scRNA-seq --budget 4000``, each as text and with ``--json``;
* with ``--facts VAULT`` (a vault with fact notes and, say, a registered dataset): ``fact verify``
  and ``fact query`` of the claims and names given by ``--claim`` / ``--entity``, text and
  ``--json``.

    git archive main | tar -x -C /tmp/before
    .venv/bin/python benchmarks/same_output.py --before /tmp/before --size 10000 \\
        --facts /tmp/factvault --claim 'MAP100 activates BRCA10000' --entity MAP100

Exits 1 and prints the first differences when any command differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import ensure_vault

BIN = str(Path(sys.executable).with_name("biocortex"))
HERE = Path(__file__).resolve().parent
VARIANTS: tuple[tuple[str, ...], ...] = ((), ("--top-k", "15", "--explain"),
                                         ("--min-relevance", "0.2", "--success-only"),
                                         ("--domain", "scRNA-seq", "--budget", "4000"))
VERIFY_VARIANTS: tuple[tuple[str, ...], ...] = ((), ("--json",), ("--hops", "2"), ("--min-confidence", "0.9", "--json"))
QUERY_VARIANTS: tuple[tuple[str, ...], ...] = ((), ("--json",), ("--hops", "2", "--limit", "20"), ("--fuzzy", "--json"))


def questions(n: int = 25) -> list[str]:
    lines = (HERE / "data" / "biorecall" / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines[:n]]


def commands(facts: bool, claims: list[str], entities: list[str]) -> list[tuple[str, list[str]]]:
    """(vault kind, arguments) of every command compared."""
    out: list[tuple[str, list[str]]] = []
    for question in questions():
        for variant in VARIANTS:
            for json_ in ((), ("--json",)):
                out.append(("episodes", ["recall", question, *variant, *json_]))
    if facts:
        for claim in claims:
            for extra in VERIFY_VARIANTS:
                out.append(("facts", ["fact", "verify", *claim.split(), *extra]))
        for entity in entities:
            for extra in QUERY_VARIANTS:
                out.append(("facts", ["fact", "query", entity, *extra]))
    return out


def run_all(code: Path | None, vaults: dict[str, Path], cmds: list[tuple[str, list[str]]],
            home: Path) -> list[tuple[int, bytes, bytes]]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "BIOCORTEX_VAULT")}
    env.update(HOME=str(home), BIOCORTEX_WATCH="0", PYTHONHASHSEED="0")
    if code is not None:
        env["PYTHONPATH"] = str(code)
    results = []
    for kind, args in cmds:
        proc = subprocess.run([BIN, "--vault", str(vaults[kind]), *args], env=env, capture_output=True, check=False)
        results.append((proc.returncode, proc.stdout, proc.stderr))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--before", type=Path, required=True, help="an exported tree of the other revision")
    parser.add_argument("--size", type=int, default=10000, help="episodes in the recall vault")
    parser.add_argument("--facts", type=Path, help="a vault with facts (and datasets) for verify and query")
    parser.add_argument("--claim", action="append", default=[], help="'SUBJECT PREDICATE OBJECT' to verify")
    parser.add_argument("--entity", action="append", default=[], help="a name to query")
    args = parser.parse_args()
    cmds = commands(args.facts is not None, args.claim, args.entity)
    runs = []
    base = Path(tempfile.mkdtemp())
    for code in (args.before.resolve(), None):
        tmp = base / "run"  # the same paths for both, in case a message names one
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        vaults = {"episodes": Path(tmp) / "episodes"}
        shutil.copytree(ensure_vault(args.size, quiet=True), vaults["episodes"], symlinks=True)
        if args.facts:
            vaults["facts"] = Path(tmp) / "facts"
            shutil.copytree(args.facts, vaults["facts"], symlinks=True)
        home = Path(tmp) / "home"
        home.mkdir()
        for vault in vaults.values():  # the index brought up to date before any compared command
            subprocess.run([BIN, "--vault", str(vault), "index"], capture_output=True, check=False,
                           env={**os.environ, "HOME": str(home), "BIOCORTEX_WATCH": "0",
                                **({"PYTHONPATH": str(code)} if code else {})})
        runs.append(run_all(code, vaults, cmds, home))
    shutil.rmtree(base)
    before, after = runs
    differ = [(cmd, b, a) for cmd, b, a in zip(cmds, before, after, strict=True) if b != a]
    for (kind, cmd), b, a in differ[:5]:
        print(f"DIFFERENT ({kind}): biocortex {' '.join(cmd)}")
        for name, i in (("exit code", 0), ("stdout", 1), ("stderr", 2)):
            if b[i] != a[i]:
                print(f"  {name}: before {b[i]!r:.300}\n  {name}: after  {a[i]!r:.300}")
    print(f"{len(cmds) - len(differ)} of {len(cmds)} commands printed the same bytes (stdout, stderr, exit code)")
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
