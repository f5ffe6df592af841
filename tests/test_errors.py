"""Exit codes and streams (SPEC §7): every code has a test."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import Cli

from biocortex_cli.cli.errors import guarded


def test_exit_0_and_stdout_only_data(vault: Path, cli: Cli) -> None:
    r = cli("episode", "add", "--task", "Quantify TMT plexes with MaxQuant")
    assert r.code == 0 and len(r.out.splitlines()) == 1


def test_exit_1_not_found_with_json_error(vault: Path, cli: Cli) -> None:
    r = cli("episode", "show", "missing", "--json")
    assert r.code == 1 and r.out == ""
    err = r.err_json()["error"]
    assert set(err) == {"message", "path", "line", "hint"} and err["hint"]


def test_exit_2_usage(vault: Path, cli: Cli) -> None:
    assert cli("episode", "list", "--limit", "zero").code == 2
    assert cli("episode", "nosuch").code == 2
    r = cli("episode", "list", "--limit", "-3", "--json")
    assert r.code == 2 and "limit" in r.err_json()["error"]["message"]


def test_exit_3_internal_error_writes_traceback_to_a_log(capsys) -> None:  # type: ignore[no-untyped-def]
    def boom() -> int:
        raise RuntimeError("kaboom")

    assert guarded(boom, as_json=False, debug=False) == 3
    err = capsys.readouterr().err
    assert "internal error (RuntimeError: kaboom)" in err and "Traceback" not in err
    log = err.split("traceback written to ")[1].split(";")[0]
    assert "RuntimeError: kaboom" in Path(log).read_text()
    assert guarded(boom, as_json=True, debug=False) == 3
    assert json.loads(capsys.readouterr().err)["error"]["message"].startswith("internal error")


def test_exit_130_on_interrupt(vault: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", "episode", "import", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_until_reading_stdin(proc.pid)  # inside the command: our SIGINT handler is set
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err


def _wait_until_reading_stdin(pid: int) -> None:
    """Until the process blocks reading its stdin (Linux: its wait channel is a pipe read), however
    slow a loaded machine is to start it; elsewhere, a second."""
    wchan = Path(f"/proc/{pid}/wchan")
    if not wchan.exists():
        time.sleep(1.0)
        return
    deadline = time.monotonic() + 60  # a hang guard, not a time limit
    while "pipe_read" not in wchan.read_text() and time.monotonic() < deadline:
        time.sleep(0.01)
