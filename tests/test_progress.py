"""Progress people see and agents do not pay for (issue 17 item 1): a bar on stderr when it is a
terminal, nothing of it anywhere else; a one-line notice before a long index build even off a
terminal; never a byte on stdout; rich never loaded by a recall that has nothing to report."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from conftest import REPO, Cli, run_process

from biocortex_cli import progress
from biocortex_cli.index.build import NOTICE_MIN

SAMPLES = REPO / "examples" / "sample_episodes.jsonl"
BAR = "━"  # rich's bar


def run_in_terminal(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """biocortex with stderr on a pseudo-terminal (as in a person's shell) and stdout on a pipe:
    (exit code, stdout, everything the terminal received)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave,
                            env={**os.environ, "TERM": "xterm-256color", **(env or {})})
    os.close(slave)
    received: list[bytes] = []

    def drain() -> None:  # read while it runs: a full terminal buffer would block the bars
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the process closed its end
                return
            if not data:
                return
            received.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    out = proc.stdout.read() if proc.stdout is not None else b""
    code = proc.wait(timeout=120)
    reader.join(timeout=30)
    os.close(master)
    return code, out.decode(), b"".join(received).decode("utf-8", "replace")


def test_the_demo_shows_bars_only_in_a_terminal(tmp_path: Path) -> None:
    """`make demo`'s first steps (init, import the samples, the first listing and recall, which build
    the index): bars on the terminal, none through pipes, and the same stdout both ways."""
    outputs = {}
    for where in ("terminal", "pipe"):
        vault = tmp_path / where
        steps = [("init", str(vault)), ("--vault", str(vault), "episode", "import", str(SAMPLES)),
                 ("--vault", str(vault), "recall", "doublets in 10x multiome", "--top-k", "2")]
        outs, errs = [], []
        for args in steps:
            if where == "terminal":
                code, out, err = run_in_terminal(*args)
            else:
                r = run_process(*args)
                code, out, err = r.code, r.out, r.err
            assert code == 0, err
            outs.append(out)
            errs.append(err)
        outputs[where] = outs
        if where == "terminal":
            assert BAR in errs[1] and "writing 53 episodes" in errs[1]  # the import
            assert BAR in errs[2] and "building the index of 53 notes" in errs[2]  # the first recall
        else:
            assert all(BAR not in e and "\x1b[" not in e for e in errs)
            assert "writing" not in errs[1] and "building the index" not in errs[2]  # 53 notes: no notice
        assert outs[1] == "53\n" and BAR not in "".join(outs)
    # the same text but for the header (vault commit, recall id) and init's line (the vault's path)
    assert outputs["terminal"][1] == outputs["pipe"][1]
    assert [o.split("\n", 1)[1] for o in (outputs["terminal"][2], outputs["pipe"][2])] == \
        [outputs["pipe"][2].split("\n", 1)[1]] * 2


GENES = ("KRAS", "TP53", "EGFR", "BRAF", "MYC", "PTEN", "KEAP1", "STK11", "NF1", "CUL3")


def _episodes(n: int) -> str:
    return "".join(json.dumps({"task": f"Quantify TMT plex {i} of the {GENES[i % 10]} knockout cohort",
                               "success": i % 3 != 0, "tools": ["MaxQuant"]}) + "\n" for i in range(n))


def test_notice_before_a_long_implicit_index_build(vault: Path, cli: Cli) -> None:
    assert cli("episode", "import", "-", stdin=_episodes(NOTICE_MIN)).code == 0
    r = cli("recall", "STK11 knockout plex")  # stderr is not a terminal here: no bars
    assert r.code == 0 and r.out.startswith("## Relevant past analyses")
    notice = f"biocortex: building the index of {NOTICE_MIN:,} notes…"
    assert r.err.splitlines().count(notice) == 1 and notice not in r.out
    again = cli("recall", "STK11 knockout plex")
    assert again.out == r.out and "building" not in again.err  # built: nothing to say
    (vault / ".biocortex" / "index.sqlite").unlink()
    r = run_process("--vault", str(vault), "episode", "list", "--limit", "1")  # listings read the index too
    assert notice in r.err and "building" not in r.out and r.out.count("\n") == 1


def test_a_small_build_says_nothing_off_a_terminal(vault: Path, cli: Cli) -> None:
    assert cli("episode", "import", "-", stdin=_episodes(10)).code == 0
    r = cli("recall", "STK11 knockout plex")
    assert r.code == 0 and "building" not in r.err


def test_recall_never_loads_rich_unless_a_bar_is_drawn(vault: Path, cli: Cli) -> None:
    assert cli("episode", "import", "-", stdin=_episodes(10)).code == 0
    assert cli("index").code == 0
    importtime = {"PYTHONPROFILEIMPORTTIME": "1"}
    code, out, err = run_in_terminal("--vault", str(vault), "recall", "STK11 knockout plex", env=importtime)
    assert code == 0 and out.startswith("## Relevant past analyses")
    assert "| rich" not in err and "biocortex_cli.cli.progress" in err  # the renderer, without rich
    (vault / ".biocortex" / "index.sqlite").unlink()
    code, out2, err = run_in_terminal("--vault", str(vault), "recall", "STK11 knockout plex", env=importtime)
    assert code == 0 and out2 == out and "| rich.progress" in err  # a build to show: now it is loaded
    r = run_process("--vault", str(vault), "recall", "STK11 knockout plex", env=importtime)
    assert "| rich" not in r.err and "biocortex_cli.cli.progress" not in r.err  # no terminal: no renderer


def test_one_notice_per_stage_until_it_finishes(capsys) -> None:  # type: ignore[no-untyped-def]
    progress.report(progress.Progress("clone", 0, 0, "cloning a into b", notice=True))
    progress.report(progress.Progress("index", 0, 9, "building the index of 9 notes…", notice=True))
    progress.report(progress.Progress("index", 0, 7, "building the index of 7 notes…", notice=True))
    progress.report(progress.Progress("index", 3, 7, "building the index of 7 notes…"))
    progress.report(progress.Progress("index", 7, 7, "index built"))
    progress.report(progress.Progress("clone", 1, 1, "cloned"))
    progress.report(progress.Progress("index", 0, 5, "building the index of 5 notes…", notice=True))
    progress.report(progress.Progress("index", 5, 5, "index built"))
    assert capsys.readouterr() == ("", "biocortex: cloning a into b\nbiocortex: building the index of 9 notes…\n"
                                       "biocortex: building the index of 5 notes…\n")
    seen: list[progress.Progress] = []
    with progress.reporting(seen.append):
        stage = progress.Stage("write", 1000, "writing", notice=True)
        for done in range(1000):
            stage.advance(done)
        stage.finish()
    assert capsys.readouterr() == ("", "")  # a renderer takes every event
    assert 100 <= len(seen) <= 102 and seen[0].notice and seen[-1].finished
