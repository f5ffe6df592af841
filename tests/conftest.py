"""Shared fixtures: every test runs on a real vault in tmp_path with real git, isolated from the
user's HOME, git config and environment."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from biocortex_cli.cli.main import main

REPO = Path(__file__).resolve().parents[1]

# A loaded machine (CI shares its cores) must not fail a property test on time: no deadline per
# example, no health check on slow data generation. Tests assert behaviour; benchmarks/ measure.
# `make test` (and so CI) draws the same examples on every run, so a commit that passed passes
# again: CI failed once on a case a random draw found after the same commit had passed. `make
# explore` draws new examples each run (profile "explore"): run it before landing a change to
# the code a property test covers, and keep what it finds as an @example.
settings.register_profile("biocortex", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          derandomize=True, database=None)
settings.register_profile("explore", settings.get_profile("biocortex"), derandomize=False)
settings.load_profile("biocortex")

#: Where the tests' vaults live when nobody says (``--basetemp``): in memory (tmpfs) if the machine
#: has one with room. Every test writes real notes and commits with real git; on a disk, the
#: flushes of those thousands of small writes cost as much as the tests (docs/performance.md).
TMPFS = Path("/dev/shm")
_OWN_BASETEMP = pytest.StashKey[Path]()
_PASSED = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # Bytecode cached, as on any normal machine (benchmarks/common.py does the same): with
    # PYTHONDONTWRITEBYTECODE (set in some sandboxes) every biocortex process the tests start
    # compiled the package again, and every xdist worker rewrote every test module again.
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        sys.dont_write_bytecode = False
    if config.option.basetemp is not None or hasattr(config, "workerinput"):
        return  # chosen by the user, or by the controller for this xdist worker
    try:
        roomy = os.access(TMPFS, os.W_OK) and shutil.disk_usage(TMPFS).free > 4 << 30
    except OSError:
        roomy = False
    if roomy and os.environ.get("BIOCORTEX_TEST_TMP") != "disk":
        _remove_ended_runs()
        config.option.basetemp = tempfile.mkdtemp(prefix=f"biocortex-tests-{os.getpid()}-", dir=TMPFS)
        config.stash[_OWN_BASETEMP] = Path(config.option.basetemp)


def _remove_ended_runs() -> None:
    """The folders a failed run kept, once its process is gone (a run still going keeps its own)."""
    for folder in TMPFS.glob("biocortex-tests-*-*"):
        try:
            os.kill(int(folder.name.split("-")[2]), 0)
        except ValueError:
            continue
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            continue  # alive, someone else's


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_PASSED] = exitstatus == 0


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """The in-memory folder goes when the run passed; after a failure it stays for a look, until
    the next run starts."""
    own = config.stash.get(_OWN_BASETEMP, None)
    if own is None:
        return
    if config.stash.get(_PASSED, False):
        shutil.rmtree(own, ignore_errors=True)
    else:
        sys.stderr.write(f"the tests' files are kept in {own} until the next run (in memory)\n")


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The environment of every test: ``home`` as HOME, no user or system git config, no
    biocortex or git identity from outside."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for var in ("BIOCORTEX_VAULT", "BIOCORTEX_AUTHOR", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(home / "no-tiktoken-cache"))
    # no hand-edit watcher outliving a test (index/watch.py); tests/test_hand_edits.py turns it on
    monkeypatch.setenv("BIOCORTEX_WATCH", "0")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    # in a folder of their own: pytest's mktemp lists the whole base folder to number a new one
    homes = tmp_path_factory.getbasetemp() / "homes"
    homes.mkdir(exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="home", dir=homes))
    isolate(monkeypatch, home)
    return home


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def err_json(self) -> Any:
        return json.loads(self.err.strip().splitlines()[-1])


Cli = Callable[..., Result]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """Run biocortex in-process: cli('recall', 'x', stdin='...') -> Result."""

    def run(*args: str, stdin: str | bytes | None = None) -> Result:
        capsys.readouterr()
        if stdin is not None:
            raw = stdin.encode() if isinstance(stdin, str) else stdin
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def invoke(*args: str | Path, home: Path) -> Result:
    """Run biocortex in-process outside a test, isolated with ``home`` as HOME: for a vault that
    a module or session fixture builds once (the ``cli`` fixture belongs to one test)."""
    import contextlib

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        isolate(mp, home)
        code = main([str(a) for a in args])
    return Result(code, out.getvalue(), err.getvalue())


class BuiltVaults:
    """Vaults built once per test process and copied for every test that asks for one: each test
    gets the same files and git history as if it had built its own (mtimes too), for the cost of
    a copy. Only for fixtures whose building is not what the test is about."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get(self, name: str, dest: Path, build: Callable[[], object]) -> Path:
        """``dest`` as ``build()`` leaves it: built the first time, copied from then on."""
        saved = self.root / name
        if saved.exists():
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(saved, dest, symlinks=True)
        else:
            build()
            shutil.copytree(dest, saved, symlinks=True)
        return dest


@pytest.fixture(scope="session")
def built_vaults(tmp_path_factory: pytest.TempPathFactory) -> BuiltVaults:
    return BuiltVaults(tmp_path_factory.mktemp("built"))


@pytest.fixture
def vault(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, built_vaults: BuiltVaults) -> Path:
    root = tmp_path / "vault"

    def init() -> None:
        result = cli("init", root)
        assert result.code == 0, result.err

    built_vaults.get("init", root, init)
    monkeypatch.setenv("BIOCORTEX_VAULT", str(root))
    return root


def run_process(*args: str, cwd: Path | None = None, stdin: str | None = None,
                env: dict[str, str] | None = None, timeout: float = 60) -> Result:
    """Run biocortex as a separate process (for concurrency, signals and start-up)."""
    proc = subprocess.run([sys.executable, "-m", "biocortex_cli", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=timeout, check=False)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True).stdout


#: git, except that one step (``{step}``: a word or words of its arguments) stops at a gate: it says
#: it got there (the file ``{marker}``), waits until the test opens the gate (the file ``open``),
#: and then exits without running git (by then the process that called it has been killed or stopped).
GATED_GIT = """#!/bin/sh
case " $* " in *" {step} "*)
  touch "{gate}/{marker}"
  while [ ! -e "{gate}/open" ]; do sleep 0.05; done
  exit 1;;
esac
exec {git} "$@"
"""


def gated_git(folder: Path, step: str, marker: str) -> tuple[Path, Path]:
    """A ``git`` (:data:`GATED_GIT`) in ``folder/git-shim`` that stops at ``step``, and its gate
    folder: put the shim first on PATH."""
    gate, shim = folder / "git-gate", folder / "git-shim"
    gate.mkdir()
    shim.mkdir()
    (shim / "git").write_text(GATED_GIT.format(step=step, marker=marker, gate=gate, git=shutil.which("git")))
    (shim / "git").chmod(0o755)
    return shim, gate


@dataclass
class HeldGit:
    """An environment (``env``) whose git stops before a commit until the test is done with it."""

    env: dict[str, str]
    gate: Path

    def wait_for(self, proc: subprocess.Popen[Any]) -> None:
        """Until ``proc``'s git reaches its staging step: every note written and journaled, nothing
        committed. No time limit: ``proc`` either gets there or ends (then this fails with its output)."""
        import time

        while not (self.gate / "staging").exists():
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)


@pytest.fixture
def held_git(tmp_path: Path) -> Any:
    """git stopped at its staging step (``update-index``, just before a commit): :class:`HeldGit`."""
    shim, gate = gated_git(tmp_path, "update-index", "staging")
    yield HeldGit({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}, gate)
    (gate / "open").touch()  # a shim left waiting by a killed process ends
