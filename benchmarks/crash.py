"""Crash safety: kill real writes with SIGKILL at random moments, then prove nothing was lost.

Each trial starts one write as its own process against a real vault (``biocortex init`` in a
temporary folder, with an isolated HOME and git identity):

- ``episode add`` (one episode), ``episode import`` (a 200-line JSON Lines file, one commit),
  ``fact add`` (a new triple each time, so there are no contradictions), ``index --rebuild``,
  ``entity alias`` (rewrites an existing entity note), ``feedback`` (appends a line to the day's
  feedback file, which is rewritten to a temporary file and renamed);

sleeps a random time within the command's own duration (measured first, uncontended) and sends
SIGKILL, either to the biocortex process alone (its git child, if any, runs on: the usual case
when an agent is killed) or to its whole process group (git dies
too, mid-write, and leaves ``.git/index.lock`` behind: what a crash of the machine does), or
SIGTERM to the process (what ``timeout``, ``kill`` and agent frameworks send: it must roll back
like Ctrl-C and exit 143).

Before each write a person's hand edits are made and left uncommitted (issue 14): one to a note
no command touches (the seed episode) and, for ``entity alias`` and ``feedback``, one to the very
file the command rewrites (``entities/TP53.md``, the day's feedback file). Then it checks, before
the next trial:

1. every note parses and ``check`` finds no problem;
2. ``git fsck --strict --no-dangling`` is clean;
3. no stale lock blocks the next write: a fresh ``episode add`` (as a process) succeeds, and how
   long it took is recorded (a stale ``index.lock`` is cleared after
   ``biocortex_cli.store.git.STALE_LOCK_SECONDS``);
4. every record whose command printed its id (reported written) is in HEAD;
5. ``recall`` works and finds the episode written in step 3 (the index refreshes or rebuilds);
6. every hand edit is still in its file (recovery put back only what the killed write changed).

Prints a table and writes ``benchmarks/out/crash-<trials>.json``.

    .venv/bin/python benchmarks/crash.py                  # 200 trials
    .venv/bin/python benchmarks/crash.py --trials 20 --seed 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
COMMANDS = ("episode add", "episode import", "fact add", "index --rebuild", "entity alias", "feedback")
IMPORT_LINES = 200
#: the longest the write after a trial may take: a stale git lock is cleared after 10 s
NEXT_WRITE_LIMIT = 20.0


@dataclass
class Trial:
    n: int
    command: str
    mode: str  # "process" (SIGKILL to biocortex), "group" (to it and its git children), "term" (SIGTERM)
    delay_ms: int
    outcome: str = ""  # "killed" or "finished"
    reported: list[str] = field(default_factory=list)
    next_write_s: float = 0.0
    cleared_locks: list[str] = field(default_factory=list)  # stale git locks the next write removed
    hand_edits: list[str] = field(default_factory=list)  # files a person edited (uncommitted) before the write
    failures: list[str] = field(default_factory=list)


def child_env(home: Path, vault: Path) -> dict[str, str]:
    """An environment isolated from the user's HOME and git config, with bytecode caching on."""
    env = {k: v for k, v in os.environ.items()
           if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("GIT_", "BIOCORTEX_"))}
    env.update({
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"), "BIOCORTEX_VAULT": str(vault),
        "BIOCORTEX_AUTHOR": "Crash Harness <crash@lab.example>",
        "GIT_AUTHOR_NAME": "Crash Harness", "GIT_AUTHOR_EMAIL": "crash@lab.example",
        "GIT_COMMITTER_NAME": "Crash Harness", "GIT_COMMITTER_EMAIL": "crash@lab.example",
    })
    return env


def _argv(command: str, n: int, work: Path) -> tuple[list[str], str | None]:
    """The arguments of trial ``n``'s write, and the stdin it reads (None: none)."""
    if command == "episode add":
        return ["episode", "add", "--task", f"Crash trial {n}: DESeq2 on TP53 knockout organoids",
                "--id", f"crash-{n:04d}", "--tool", "DESeq2", "--domain", "bulk-RNA-seq",
                "--entity", f"CRASHG{n}", "--lesson", "Check the design matrix"], None
    if command == "episode import":
        src = work / f"import-{n:04d}.jsonl"
        with src.open("w") as fh:
            for i in range(IMPORT_LINES):
                fh.write(json.dumps({
                    "id": f"imp{n:04d}-{i:03d}", "created": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T08:00:00Z",
                    "task": f"Imported analysis {i} of batch {n}: MACS2 peaks in ATAC-seq of KRAS mutants",
                    "tools": ["MACS2"], "domains": ["ATAC-seq"], "success": i % 3 != 0,
                    "quality": round((i % 10) / 10, 1), "lessons": ["Check FRiP before calling peaks"],
                }) + "\n")
        return ["episode", "import", str(src)], None
    if command == "fact add":
        return ["fact", "add", f"CRASHS{n}", "regulates", f"CRASHO{n}", "--source", f"PMID:{1000 + n}"], None
    if command == "index --rebuild":
        return ["index", "--rebuild"], None
    if command == "entity alias":
        return ["entity", "alias", "TP53", f"p53-crash-{n}"], None
    if command == "feedback":  # a recall id this vault never logged: the named episode counts
        return ["feedback", f"r{n:010x}", "--outcome", "success", "--helpful", "crash-seed",
                "--note", f"crash trial {n}"], None
    raise ValueError(command)


def _expected(command: str, n: int, out: str) -> list[str]:
    """What the command's output says it wrote: ``kind:key`` strings to find in HEAD."""
    if not out.endswith("\n") or not out.strip():
        return []  # killed before it reported anything
    text = out.strip()
    if command == "episode add":
        return [f"episode:{text}"]
    if command == "episode import":
        return [f"episode:imp{n:04d}-{i:03d}" for i in range(int(text))]
    if command == "fact add":
        return [f"fact:{text}"]
    if command == "entity alias":
        return [f"alias:p53-crash-{n}"]
    if command == "feedback":
        return [f"feedback:r{n:010x}"]
    return []


def _git(vault: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(vault), *args], capture_output=True, text=True, env=env,
                          check=False, timeout=60)


def _missing_from_head(vault: Path, env: dict[str, str], expected: list[str]) -> list[str]:
    if not expected:
        return []
    names = _git(vault, env, "ls-tree", "-r", "--name-only", "HEAD").stdout.splitlines()
    stems = {Path(p).stem for p in names if p.startswith("episodes/")}
    missing = []
    for item in expected:
        kind, key = item.split(":", 1)
        if kind == "episode" and key not in stems:
            missing.append(item)
        elif kind == "fact" and _git(vault, env, "grep", "-q", "-F", f"id: {key}", "HEAD", "--", "facts").returncode:
            missing.append(item)
        elif kind == "alias" and key not in _git(vault, env, "show", "HEAD:entities/TP53.md").stdout:
            missing.append(item)
        elif kind == "feedback" and _git(vault, env, "grep", "-q", "-F", f'"recall_id": "{key}"', "HEAD", "--",
                                         "feedback").returncode:
            missing.append(item)
    return missing


def _check_notes(vault: Path) -> list[str]:
    from biocortex_cli.ops.check import check_vault
    from biocortex_cli.store.vault import find_vault

    report = check_vault(find_vault(str(vault)))
    return [str(p) for p in report.problems if "contradicts" not in p.message]


def _recall_finds(vault: Path, query: str, ident: str) -> str | None:
    """None when recall works and returns ``ident``; else what went wrong."""
    from biocortex_cli.recall.service import options_from_config, recall_vault
    from biocortex_cli.store.vault import find_vault

    found = find_vault(str(vault))
    try:
        result = recall_vault(found, options_from_config(found, query, top_k=5, budget=2000))
    except Exception as exc:  # any failure of recall is the finding
        return f"recall failed: {type(exc).__name__}: {exc}"
    ids = [hit.id for hit in result.results]
    return None if ident in ids else f"recall did not find {ident} (got {ids})"


def _hand_edit(vault: Path, env: dict[str, str], trial: Trial) -> dict[str, str]:
    """Edit by hand (uncommitted) a note no command touches and, where the command rewrites an
    existing file, that file; returns {path: the text that must survive}."""
    seed = _git(vault, env, "ls-files", "episodes").stdout.split()
    targets = [next(p for p in seed if p.endswith("/crash-seed.md"))]
    if trial.command == "entity alias":
        targets.append("entities/TP53.md")
    if trial.command == "feedback":
        day = time.strftime("%Y-%m-%d", time.gmtime())
        feedback = vault / "feedback" / day[:4] / day[5:7] / f"{day}.crash-lab.example.jsonl"
        if feedback.exists():
            targets.append(feedback.relative_to(vault).as_posix())
    marks = {}
    for rel in targets:
        path = vault / rel
        if rel.endswith(".jsonl"):
            mark = json.dumps({"recall_id": f"r{trial.n:010x}", "outcome": "failure", "note": f"by hand {trial.n}"})
        else:
            mark = f"Hand edit {trial.n}, not committed."
        text = path.read_text(encoding="utf-8")
        path.write_text(text + ("" if text.endswith("\n") else "\n") + mark + "\n", encoding="utf-8")
        marks[rel] = mark
    trial.hand_edits = sorted(marks)
    return marks


def run_trial(trial: Trial, vault: Path, work: Path, env: dict[str, str], rng: random.Random) -> None:
    argv, stdin = _argv(trial.command, trial.n, work)
    marks = _hand_edit(vault, env, trial)
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", *argv], env=env,
                            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    time.sleep(trial.delay_ms / 1000)
    if proc.poll() is None:
        if trial.mode == "group":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.send_signal(signal.SIGTERM if trial.mode == "term" else signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    # a SIGTERM that lands before our handler is installed (interpreter start-up) kills like SIGKILL
    trial.outcome = "killed" if proc.returncode in (-signal.SIGKILL, -signal.SIGTERM, 143) else "finished"
    if trial.outcome == "finished" and proc.returncode != 0:
        trial.failures.append(f"exit {proc.returncode}: {err.strip()[-300:]}")
    trial.reported = _expected(trial.command, trial.n, out)

    # 3. the next write is not blocked (run first: it is what clears a stale git lock)
    sentinel = f"sentinel-{trial.n:04d}"
    started = time.perf_counter()
    try:
        nxt = subprocess.run([sys.executable, "-m", "biocortex_cli", "episode", "add", "--id", sentinel,
                              "--task", f"Sentinel write after crash trial {trial.n} zebrafish {sentinel}"],
                             env=env, capture_output=True, text=True, timeout=NEXT_WRITE_LIMIT, check=False)
        trial.next_write_s = round(time.perf_counter() - started, 3)
        trial.cleared_locks = [Path(m).name for m in re.findall(r"removed a stale git lock (\S+)", nxt.stderr)]
        if nxt.returncode != 0:
            trial.failures.append(f"next write failed ({nxt.returncode}): {nxt.stderr.strip()[-300:]}")
    except subprocess.TimeoutExpired:
        trial.next_write_s = NEXT_WRITE_LIMIT
        trial.failures.append(f"next write blocked for {NEXT_WRITE_LIMIT:.0f} s")
    # 1. every note parses, check is clean
    trial.failures += [f"check: {p}" for p in _check_notes(vault)[:5]]
    # 2. git is consistent
    fsck = _git(vault, env, "fsck", "--strict", "--no-dangling")
    if fsck.returncode != 0:
        trial.failures.append(f"git fsck: {(fsck.stderr or fsck.stdout).strip()[-300:]}")
    # 4. nothing reported written is missing
    trial.failures += [f"reported written but not in HEAD: {m}" for m in
                       _missing_from_head(vault, env, [*trial.reported, f"episode:{sentinel}"])[:5]]
    # 5. recall works on whatever index the crash left
    problem = _recall_finds(vault, f"sentinel write after crash trial {trial.n} zebrafish {sentinel}", sentinel)
    if problem:
        trial.failures.append(problem)
    # 6. no hand edit was lost
    for rel, mark in marks.items():
        if mark not in (vault / rel).read_text(encoding="utf-8"):
            trial.failures.append(f"hand edit lost: {rel}")


def make_vault(base: Path) -> tuple[Path, dict[str, str]]:
    home, vault = base / "home", base / "vault"
    home.mkdir(parents=True)
    env = child_env(home, vault)
    subprocess.run([sys.executable, "-m", "biocortex_cli", "init", str(vault)], env=env, check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-m", "biocortex_cli", "entity", "alias", "TP53", "p53"], env=env,
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "biocortex_cli", "episode", "add", "--id", "crash-seed",
                    "--task", "Seed episode that feedback trials mark helpful"], env=env, check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-m", "biocortex_cli", "feedback", "r0000000000", "--outcome", "success",
                    "--helpful", "crash-seed"], env=env, check=True, capture_output=True)  # the day's file
    return vault, env


def calibrate(vault: Path, work: Path, env: dict[str, str]) -> dict[str, int]:
    """How long each command takes here when nobody kills it (ms): on a loaded machine the
    start-up alone can outlast a fixed 300 ms, and the kills would never reach a write."""
    took = {}
    for i, command in enumerate(COMMANDS):
        argv, _stdin = _argv(command, 90000 + i, work)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "biocortex_cli", *argv], env=env, capture_output=True, check=False)
        took[command] = int((time.perf_counter() - started) * 1000)
    return took


def run_trials(trials: int, seed: int, base: Path, max_delay_ms: int = 0,
               modes: tuple[str, ...] = ("process", "group", "term")) -> list[Trial]:
    """Run ``trials`` kill trials on a new vault under ``base``; every trial, checked. Each kill
    comes after a random 0 to ``max_delay_ms`` (0: to 1.1 times the command's own duration)."""
    rng = random.Random(seed)
    vault, env = make_vault(base)
    work = base / "work"
    work.mkdir()
    took = calibrate(vault, work, env) if not max_delay_ms else {c: max_delay_ms for c in COMMANDS}
    saved = {k: os.environ.get(k) for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")}
    os.environ.update({k: env[k] for k in saved})  # the in-process checks see the same git config
    results = []
    try:
        for n in range(trials):
            command = COMMANDS[n % len(COMMANDS)]
            trial = Trial(n=n, command=command, mode=rng.choice(modes),
                          delay_ms=rng.randint(0, int(took[command] * (1.1 if not max_delay_ms else 1))))
            run_trial(trial, vault, work, env, rng)
            results.append(trial)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return results


def summarize(results: list[Trial]) -> dict[str, Any]:
    rows = {}
    for command in COMMANDS:
        mine = [t for t in results if t.command == command]
        nxt = sorted(t.next_write_s for t in mine)
        rows[command] = {
            "trials": len(mine),
            "killed": sum(t.outcome == "killed" for t in mine),
            "finished": sum(t.outcome == "finished" for t in mine),
            "group_kills": sum(t.mode == "group" and t.outcome == "killed" for t in mine),
            "term_stops": sum(t.mode == "term" and t.outcome == "killed" for t in mine),
            "hand_edits": sum(len(t.hand_edits) for t in mine),
            "hand_edits_lost": sum(f.startswith("hand edit lost") for t in mine for f in t.failures),
            "reported_records": sum(len(t.reported) for t in mine),
            "next_write_max_s": nxt[-1] if nxt else 0.0,
            "failures": sum(bool(t.failures) for t in mine),
        }
    return rows


def cleared_locks(results: list[Trial]) -> dict[str, int]:
    """Stale git locks the next write found and removed, by file name."""
    counts: dict[str, int] = {}
    for t in results:
        for name in t.cleared_locks:
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def table(rows: dict[str, Any]) -> str:
    head = f"{'command':<16}{'trials':>7}{'killed':>8}{'(group)':>8}{'(TERM)':>8}{'finished':>9}{'records':>9}" \
           f"{'hand edits':>11}{'lost':>6}{'next write max':>16}{'failures':>10}"
    lines = [head, "-" * len(head)]
    for command, r in rows.items():
        lines.append(f"{command:<16}{r['trials']:>7}{r['killed']:>8}{r['group_kills']:>8}{r['term_stops']:>8}"
                     f"{r['finished']:>9}{r['reported_records']:>9}{r['hand_edits']:>11}{r['hand_edits_lost']:>6}"
                     f"{r['next_write_max_s']:>15.2f}s{r['failures']:>10}")
    total = {k: sum(r[k] for r in rows.values()) for k in ("trials", "killed", "group_kills", "term_stops", "finished",
                                                           "reported_records", "hand_edits", "hand_edits_lost",
                                                           "failures")}
    lines.append(f"{'all':<16}{total['trials']:>7}{total['killed']:>8}{total['group_kills']:>8}{total['term_stops']:>8}"
                 f"{total['finished']:>9}{total['reported_records']:>9}{total['hand_edits']:>11}"
                 f"{total['hand_edits_lost']:>6}"
                 f"{max(r['next_write_max_s'] for r in rows.values()):>15.2f}s{total['failures']:>10}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20260)
    parser.add_argument("--max-delay-ms", type=int, default=0,
                        help="kill within this many ms (default 0: within 1.1x each command's measured duration)")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from common import machine

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="biocortex-crash-") as tmp:
        results = run_trials(args.trials, args.seed, Path(tmp), args.max_delay_ms)
    seconds = time.perf_counter() - started
    rows = summarize(results)
    print(table(rows))
    kill_points = Counter(t.delay_ms // 50 * 50 for t in results if t.outcome == "killed")
    print("kill delays (ms, killed trials): " +
          ", ".join(f"{k}-{k + 49}: {v}" for k, v in sorted(kill_points.items())))
    locks = cleared_locks(results)
    print("stale git locks the next write removed: " + (", ".join(f"{k}: {v}" for k, v in locks.items()) or "none"))
    failed = [t for t in results if t.failures]
    for t in failed[:20]:
        print(f"FAIL trial {t.n} {t.command} ({t.mode}, {t.delay_ms} ms): {'; '.join(t.failures)}", file=sys.stderr)
    OUT.mkdir(parents=True, exist_ok=True)
    dest = OUT / f"crash-{args.trials}.json"
    dest.write_text(json.dumps({
        "machine": machine(), "trials": args.trials, "seed": args.seed, "max_delay_ms": args.max_delay_ms,
        "seconds": round(seconds, 1), "summary": rows, "kill_delays_ms": dict(sorted(kill_points.items())),
        "cleared_locks": locks,
        "results": [asdict(t) for t in results],
    }, indent=1) + "\n")
    print(f"{len(failed)} failing trial(s) of {len(results)} in {seconds:.0f} s; details in {dest}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
