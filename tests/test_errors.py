"""Exit codes, error codes and streams (docs/json.md, "Exit codes and errors"): every code has a test."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Cli

from biocortex_cli.cli.errors import guarded


def test_exit_0_and_stdout_only_data(vault: Path, cli: Cli) -> None:
    r = cli("episode", "add", "--task", "Quantify TMT plexes with MaxQuant")
    assert r.code == 0 and len(r.out.splitlines()) == 1


def test_exit_1_not_found_with_json_error(vault: Path, cli: Cli) -> None:
    r = cli("episode", "show", "missing", "--json")
    assert r.code == 1 and r.out == ""
    err = r.err_json()["error"]
    assert set(err) == {"code", "message", "path", "line", "hint"} and err["hint"]
    assert err["code"] == "not_found"


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
    _wait_until_reading_stdin(proc)  # inside the command: our SIGINT handler is set
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err


def _wait_until_reading_stdin(proc: subprocess.Popen[bytes]) -> None:
    """Until the process blocks reading its stdin (Linux: its wait channel is a pipe read), however
    slow a loaded machine is to start it (it waits there for ever: no time limit); elsewhere, a
    second."""
    wchan = Path(f"/proc/{proc.pid}/wchan")
    if not wchan.exists():
        time.sleep(1.0)
        return
    while "pipe_read" not in wchan.read_text():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)


def test_error_codes_name_what_an_agent_can_act_on(vault: Path, cli: Cli, tmp_path: Path) -> None:
    from biocortex_cli.errors import CODES

    def code(*args: str) -> tuple[int, str]:
        r = cli(*args, "--json")
        assert r.out == "", r.out
        err = r.err_json()["error"]
        assert err["code"] in CODES and CODES[err["code"]] in (r.code, 130)
        return r.code, err["code"]

    assert code("--vault", str(tmp_path / "nowhere"), "episode", "list") == (1, "not_a_vault")
    assert code("episode", "show", "missing") == (1, "not_found")
    assert code("episode", "list", "--limit", "-3") == (2, "usage")
    (tmp_path / "bad.json").write_text("{not json")
    assert code("episode", "add", "--from-json", str(tmp_path / "bad.json")) == (1, "bad_data")
    assert code("sync") == (1, "failed")  # no remote


def test_missing_task_is_a_usage_error(vault: Path, cli: Cli, tmp_path: Path) -> None:
    r = cli("episode", "add", "--json")
    assert r.code == 2 and r.out == "" and r.err_json()["error"]["code"] == "usage"
    assert "--task" in r.err_json()["error"]["message"]
    (tmp_path / "e.json").write_text('{"plan": "no task here"}')
    r = cli("episode", "add", "--from-json", str(tmp_path / "e.json"))
    assert r.code == 1 and "task is required" in r.err  # given as data: bad data


def test_no_arguments_prints_help_and_exits_0(cli: Cli) -> None:
    r = cli()
    assert r.code == 0 and r.err == ""
    assert r.out.startswith("Usage: biocortex") and "recall" in r.out
    r = cli("episode")  # a group without its command: its help
    assert r.code == 0 and "Usage: biocortex episode" in r.out and "list" in r.out


def test_interrupted_with_json_says_so_in_the_error_form(capsys) -> None:  # type: ignore[no-untyped-def]
    def stop() -> int:
        raise KeyboardInterrupt

    assert guarded(stop, as_json=True, debug=False) == 130
    assert json.loads(capsys.readouterr().err)["error"]["code"] == "interrupted"
    assert guarded(stop, as_json=False, debug=False) == 130
    assert capsys.readouterr().err == "biocortex: interrupted\n"


def test_the_one_table_of_exit_codes_lists_every_code() -> None:
    """docs/json.md, "Exit codes and errors", names each code of errors.CODES with its exit."""
    import re

    from biocortex_cli.errors import CODES

    text = (Path(__file__).resolve().parents[1] / "docs" / "json.md").read_text(encoding="utf-8")
    table = text.split("## Exit codes and errors", 1)[1].split("\n\n", 3)[2]
    rows = re.findall(r"^\| ([\d, ]+) \| `([a-z_]+)` \|", table, re.MULTILINE)
    documented = {code: int(exits.split(",")[0]) for exits, code in rows}
    assert documented == CODES


def test_an_unquoted_query_gets_a_hint_to_quote_it(vault: Path, cli: Cli) -> None:
    """Found by an agent trial: `biocortex recall doublets in multiome` (the query not quoted) said
    only "Got unexpected extra argument(s) (in multiome)" and "see --help"."""
    r = cli("recall", "doublets", "in", "multiome", "--json")
    error = r.err_json()["error"]
    assert r.code == 2 and error["code"] == "usage" and "unexpected extra argument" in error["message"]
    assert error["hint"] == 'quote text that has spaces, e.g. biocortex recall "doublets in 10x multiome"'
    r = cli("fact", "verify", "KEAP1", "inhibits", "NFE2L2", "extra")
    assert r.code == 2 and 'quote text that has spaces, e.g. biocortex fact verify "…"' in r.err


@pytest.mark.parametrize("args", [["fact", "query", ""], ["fact", "query", "  "], ["vocabulary", "show", ""],
                                  ["recall", ""], ["context", " "], ["entity", "show", ""]])
def test_an_empty_name_or_question_is_a_usage_error(vault: Path, cli: Cli, args: list[str]) -> None:
    """Found by the agent trial: `fact query ""` exited 0 listing ten names "containing ''" as if
    they matched, and `vocabulary show ""` printed nothing, exit 0, while `recall ""` said it is empty."""
    r = cli(*args, "--json")
    assert r.code == 2 and r.out == ""
    error = r.err_json()["error"]
    assert error["code"] == "usage" and "empty" in error["message"] and error["hint"]


def test_an_unknown_encoding_in_the_config_is_the_config_s_error(vault: Path, cli: Cli) -> None:
    """Install trial: `tokenizer.encoding: p50k_base` gave "unknown token encoding 'p50k_base'" (exit 2, no file named)
    at the first token count; `doctor` said nothing."""
    config = vault / ".biocortex/config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("encoding: cl100k_base", "encoding: p50k_base"),
                      encoding="utf-8")
    for argv in (["recall", "doublets"], ["context", "doublets"]):
        r = cli(*argv, "--json")
        error = json.loads(r.err)["error"]
        assert r.code == 1 and error["path"] == ".biocortex/config.yaml", (argv, r.err)
        assert error["message"] == ("setting tokenizer.encoding must be one of cl100k_base, o200k_base, estimate, "
                                    "not 'p50k_base'"), error
    doctor = cli("doctor")
    assert doctor.code == 1 and ".biocortex/config.yaml" in doctor.out + doctor.err
    assert "setting tokenizer.encoding must be one of" in doctor.out + doctor.err
    # `check` validates the vault, its config included (it said "0 problem(s)", exit 0)
    checked = cli("check", "--json")
    assert checked.code == 1
    [problem] = [p for p in checked.json()["problems"] if p["path"] == ".biocortex/config.yaml"]
    assert problem["message"].startswith("setting tokenizer.encoding must be one of") and problem["hint"]
