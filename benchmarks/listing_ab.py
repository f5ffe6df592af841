"""`episode list`, `episode show` and `log` of a week on a large vault, beside `python -c pass`.

The daily listings (issue 17: "tens of milliseconds at 100k"): whole processes in turns
(:func:`startup.in_turns`), wall and CPU medians, and with ``--instructions`` callgrind's
instruction counts, which do not depend on the machine's load. ``--base REV`` runs that
revision's ``biocortex_cli`` too (``git archive`` to a temporary folder, ``PYTHONPATH``), on the
same vault and index — so pick a revision whose index format is the current one.

``log`` is asked for the last ``--log-commits`` commits (``--since`` the commit before them):
give the vault a few ordinary commits on top first, as a week of work would, e.g.

    cp -a benchmarks/out/vaults/synthetic-100000-s7 /tmp/v100k
    for i in $(seq 10); do .venv/bin/biocortex --vault /tmp/v100k episode add --task "Run $i" --success; done
    .venv/bin/python benchmarks/listing_ab.py /tmp/v100k --runs 7 --instructions --base 87de1ad

For the instruction counts the check for hand edits is made not due and the watcher turned off
(``BIOCORTEX_WATCH=0``), so every revision does the same refresh; the timed runs use the default
configuration.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import check_not_due, in_turns, instructions

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--log-commits", type=int, default=10, help="log --since the commit before the last N")
    parser.add_argument("--base", help="also run this revision's code (same vault and index)")
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind (callgrind)")
    args = parser.parse_args()
    vault = args.vault.resolve()
    since = subprocess.run(["git", "-C", str(vault), "rev-parse", f"HEAD~{args.log_commits}"], capture_output=True,
                           text=True, check=True).stdout.strip()
    newest = subprocess.run([sys.executable, "-m", "biocortex_cli", "--vault", str(vault), "episode", "list", "--limit",
                             "1", "--json"], capture_output=True, text=True, check=True).stdout
    ident = json.loads(newest)[0]["id"]
    commands = {"episode list --limit 5": ["episode", "list", "--limit", "5"],
                "episode show ID": ["episode", "show", ident],
                "episode show ID --json": ["episode", "show", ident, "--json"],
                f"log --since HEAD~{args.log_commits}": ["log", "--since", since]}
    revisions: dict[str, dict[str, str]] = {"working tree": {"PYTHONPATH": str(REPO)}}
    with tempfile.TemporaryDirectory(prefix="listing-ab-") as tmp:
        if args.base:
            archive = subprocess.run(["git", "-C", str(REPO), "archive", args.base, "biocortex_cli"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            revisions = {args.base: {"PYTHONPATH": tmp}, **revisions}
        rows: list[tuple[str, list[str], dict[str, str]]] = [("python -c pass", [sys.executable, "-c", "pass"], {})]
        for rev, env in revisions.items():
            # -P: the current folder (this repository) does not go before PYTHONPATH on sys.path
            rows += [(f"{rev}: {name}", [sys.executable, "-P", "-m", "biocortex_cli", "--vault", str(vault), *argv],
                      env)
                     for name, argv in commands.items()]
        print(f"vault {vault}, {args.runs} rounds in turns; log --since {since[:10]}", file=sys.stderr)
        timed = in_turns(rows, args.runs)
        for label, _cmd, _env in rows:
            walls, cpus = timed[label]
            print(f"{label:48} wall median {statistics.median(walls) * 1000:7.1f} ms  "
                  f"CPU median {statistics.median(cpus) * 1000:7.1f} ms")
        if args.instructions:
            for label, cmd, env in rows:
                check_not_due(vault)
                count = instructions(cmd, {**env, "BIOCORTEX_WATCH": "0"})
                print(f"{label:48} {count / 1e6:8.1f} M instructions")


if __name__ == "__main__":
    main()
