"""A vault the user cannot write can still be read (issue 14): recall, fact query and verify,
context, lessons and episode list work, the index and the recall log going to a per-user
cache folder; a write is refused with a clear message, never an internal error.

The reads run as a separate process that really cannot write: when the tests run as root
(where permissions do not bite), under ``setpriv`` without CAP_DAC_OVERRIDE, so root is held to
the folder's mode bits like anyone else."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Cli, Result

SETPRIV = shutil.which("setpriv")
DROP = "-dac_override,-dac_read_search,-fowner"


def _reader(args: list[str], env: dict[str, str]) -> Result:
    cmd = [sys.executable, "-m", "biocortex_cli", *args]
    if os.geteuid() == 0:
        cmd = [str(SETPRIV), f"--inh-caps={DROP}", f"--bounding-set={DROP}", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, timeout=120, check=False)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def _chmod_tree(root: Path, writable: bool) -> None:
    for dirpath, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            path = Path(dirpath) / name
            if not path.is_symlink():
                mode = path.stat().st_mode
                path.chmod(mode | 0o200 if writable else mode & ~0o222)
    root.chmod(root.stat().st_mode | 0o200 if writable else root.stat().st_mode & ~0o222)


@pytest.fixture
def readonly(vault: Path, cli: Cli, tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    if os.geteuid() == 0 and SETPRIV is None:
        pytest.skip("running as root without setpriv: no way to take away root's write permission")
    lesson = "Call doublets per sample before merging."
    for ident in ("ep-a", "ep-b"):
        assert cli("episode", "add", "--id", ident, "--task", f"Doublet calling in PBMC {ident}",
                   "--lesson", lesson, "--entity", "TP53").code == 0
    assert cli("fact", "add", "TP53", "regulates", "MDM2").code == 0
    index = vault / ".biocortex" / "index.sqlite"
    index.unlink()  # as a fresh clone has it: the reader must build its own
    cache = tmp_path / "reader-cache"
    cache.mkdir()
    env = {"BIOCORTEX_VAULT": str(vault), "XDG_CACHE_HOME": str(cache)}
    _chmod_tree(vault, writable=False)
    try:
        probe = _reader(["--version"], env)
        assert probe.code == 0, probe.err
        yield vault, env
    finally:
        _chmod_tree(vault, writable=True)


def test_reads_work_on_a_vault_the_user_cannot_write(readonly: tuple[Path, dict[str, str]]) -> None:
    vault, env = readonly
    denied = subprocess.run([str(SETPRIV), f"--inh-caps={DROP}", f"--bounding-set={DROP}", "touch",
                             str(vault / "probe")] if os.geteuid() == 0 else ["touch", str(vault / "probe")],
                            capture_output=True, check=False)
    assert denied.returncode != 0  # the reader really cannot write here
    for args in (["recall", "doublet calling PBMC", "--json"], ["fact", "query", "TP53"],
                 ["fact", "verify", "TP53", "regulates", "MDM2"], ["context", "doublet calling", "--budget", "800"],
                 ["lessons"], ["episode", "list"], ["episode", "show", "ep-a"], ["check"]):
        r = _reader(args, env)
        assert r.code == 0, (args, r.err)
        assert "internal error" not in r.err
    assert not (vault / ".biocortex" / "index.sqlite").exists()
    cached = list(Path(env["XDG_CACHE_HOME"]).glob("biocortex/vaults/*/index.sqlite"))
    logs = list(Path(env["XDG_CACHE_HOME"]).glob("biocortex/vaults/*/logs/recalls-*.jsonl"))
    assert len(cached) == 1 and len(logs) == 1


def test_a_write_to_a_read_only_vault_is_refused_clearly(readonly: tuple[Path, dict[str, str]]) -> None:
    _vault, env = readonly
    r = _reader(["episode", "add", "--task", "x"], env)
    assert r.code == 1 and "read-only" in r.err and "internal error" not in r.err
    crash = Path(env["XDG_CACHE_HOME"]) / "biocortex" / "crash"
    assert not crash.exists() or not list(crash.iterdir())
