"""A git ``index.lock`` left by a killed process is stale at once (no live process uses it);
one a live process holds is left alone until the age rule applies (issue 8 §1)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Cli, run_process

from biocortex_cli.errors import BiocortexError
from biocortex_cli.store import git as store_git

LINUX_PROC = Path("/proc/self/fd").is_dir()
HOLD = ("import os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)\n"
        "os.write(fd, b'x'); print('ready', flush=True); time.sleep(60)\n")


def _holder(lock: Path, cwd: Path | None = None) -> subprocess.Popen[str]:
    """A process that creates the lock the way git does and keeps it open."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE, text=True,
                            cwd=cwd)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _never_old(lock: Path) -> None:
    """Date the lock a day ahead, so the age rule (a lock ``STALE_LOCK_SECONDS`` old goes) can never
    apply however slow the machine is: a lock removed now was removed because no process uses it.
    The next write's time is benchmarks/crash.py's figure ("next write"), not an assertion."""
    ahead = time.time() + 86_400
    os.utime(lock, (ahead, ahead))


@pytest.mark.skipif(not LINUX_PROC, reason="needs /proc")
def test_a_lock_left_by_a_killed_process_is_cleared_at_once(vault: Path, cli: Cli) -> None:
    lock = vault / ".git" / "index.lock"
    proc = _holder(lock)
    assert store_git.lock_in_use(lock) is True
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert lock.exists() and store_git.lock_in_use(lock) is False
    _never_old(lock)
    r = run_process("episode", "add", "--task", "after a killed git", "--id", "after-kill")
    assert r.code == 0, r.err
    assert "removed a stale git lock" in r.err
    assert not lock.exists()
    code = cli("doctor", "--json").code
    assert code == 0


@pytest.mark.skipif(not LINUX_PROC, reason="needs /proc")
def test_the_lock_of_a_real_git_killed_mid_write_is_cleared_at_once(vault: Path) -> None:
    """``git update-index --index-info`` takes index.lock, then waits for its stdin: kill it there."""
    lock = vault / ".git" / "index.lock"
    proc = subprocess.Popen(["git", "-C", str(vault), "update-index", "--index-info"], stdin=subprocess.PIPE)
    while not lock.exists():  # git takes it before reading stdin, which stays open: no time limit
        assert proc.poll() is None
        time.sleep(0.01)
    assert lock.exists() and store_git.lock_in_use(lock) is True  # git is alive: not stale
    proc.kill()
    proc.wait()
    assert lock.exists()  # SIGKILL: git could not clean up
    _never_old(lock)
    r = run_process("episode", "add", "--task", "after a killed git", "--id", "after-git")
    assert r.code == 0 and "removed a stale git lock" in r.err, r.err
    assert not lock.exists()


@pytest.mark.skipif(not LINUX_PROC, reason="needs /proc")
def test_a_lock_a_live_process_holds_is_not_stale(vault: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    lock = vault / ".git" / "index.lock"
    proc = _holder(lock)
    try:
        assert store_git.lock_in_use(lock) is True
        r = cli("doctor", "--json")
        assert r.code == 0 and "git is writing right now" in r.err + r.out
        # a writer waits for it, then gives up with a clear error: it never pulls a live lock away
        monkeypatch.setattr(store_git, "STALE_LOCK_SECONDS", 0.3)
        with pytest.raises(BiocortexError, match="git is busy"):
            store_git.clear_stale_locks(vault)
        assert lock.exists()
    finally:
        proc.kill()
        proc.wait()
    lock.unlink()
    assert store_git.lock_in_use(lock) is False  # gone: nothing to clear


@pytest.mark.skipif(not LINUX_PROC, reason="needs /proc")
def test_a_git_process_working_in_the_repository_counts_as_a_user(vault: Path) -> None:
    """git closes index.lock before renaming it into place: its cwd still shows it is at work."""
    lock = vault / ".git" / "index.lock"
    lock.write_text("")
    assert store_git.lock_in_use(lock) is False
    fake_git = vault.parent / "git"
    fake_git.symlink_to(sys.executable)  # a process whose name (comm) is "git"
    proc = subprocess.Popen([str(fake_git), "-c", "import time; time.sleep(3600)"], cwd=vault)
    try:
        stat = Path(f"/proc/{proc.pid}/stat")
        while "(git)" not in stat.read_text():  # until it runs as "git" (after exec), in the repository
            assert proc.poll() is None
            time.sleep(0.02)
        assert store_git.lock_in_use(lock) is True
    finally:
        proc.kill()
        proc.wait()
    assert store_git.lock_in_use(lock) is False


@pytest.mark.skipif(not LINUX_PROC, reason="needs /proc")
@pytest.mark.parametrize("name", ["HEAD.lock", "refs/heads/{branch}.lock", "packed-refs.lock"])
def test_a_ref_lock_left_by_a_killed_update_ref_is_cleared(vault: Path, cli: Cli, name: str) -> None:
    """A kill inside `git update-ref` (the plumbing commit) leaves the branch's ref lock: found by
    the crash harness (benchmarks/crash.py), every later write failed until it was removed."""
    branch = store_git.run(vault, "symbolic-ref", "--short", "HEAD").strip()
    lock = vault / ".git" / name.format(branch=branch)
    proc = _holder(lock, cwd=vault)
    assert lock in store_git.git_locks(vault) and store_git.lock_in_use(lock) is True
    doctor = cli("doctor", "--json").json()
    assert any("git is writing" in f["message"] for f in doctor["findings"])
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert any("stale git lock" in f["message"] for f in cli("doctor", "--json").json()["findings"])
    r = run_process("episode", "add", "--task", "after a killed update-ref", "--id", "after-ref-kill")
    assert r.code == 0, r.err
    assert "removed a stale git lock" in r.err and not lock.exists()
    assert "after-ref-kill" in store_git.run(vault, "log", "-1", "--format=%s")
