"""Crash recovery never destroys work (issue 14): a killed write is undone exactly, a person's
uncommitted hand edit survives it, SIGTERM and SIGHUP roll back like Ctrl-C, and the temporary
files a killed write leaves are cleaned up, never offered for a commit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli, HeldGit, git

from biocortex_cli.store.vault import JOURNAL_NAME, Transaction, Vault, recover_killed_transaction

HAND = "\nA note a person added by hand, not committed yet.\n"


def _start(vault: Path, held: HeldGit, *args: str) -> subprocess.Popen[str]:
    """A write caught before its commit (where a kill does harm): its files written and journaled."""
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", *args], env={**os.environ, **held.env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    held.wait_for(proc)
    journal = vault / ".biocortex" / JOURNAL_NAME
    assert journal.exists() and journal.stat().st_size, "staging began before the journal was written"
    return proc


def _hand_edit(vault: Path, rel: str) -> str:
    path = vault / rel
    path.write_text(path.read_text() + HAND)
    return path.read_text()


@pytest.fixture
def tp53(vault: Path, cli: Cli) -> Path:
    assert cli("entity", "alias", "TP53", "p53").code == 0
    return vault


def test_a_killed_write_keeps_the_hand_edit_of_the_file_it_was_rewriting(tp53: Path, cli: Cli,
                                                                          held_git: HeldGit) -> None:
    edited = _hand_edit(tp53, "entities/TP53.md")
    proc = _start(tp53, held_git, "entity", "alias", "TP53", "p53-killed")
    assert "p53-killed" in (tp53 / "entities/TP53.md").read_text()  # written, not committed
    proc.kill()
    proc.communicate()
    r = cli("episode", "add", "--task", "Any later write")
    assert r.code == 0, r.err
    assert "undid a write that was killed" in r.err
    assert (tp53 / "entities/TP53.md").read_text() == edited  # the hand edit, as the person left it
    assert "p53-killed" not in git(tp53, "show", "HEAD:entities/TP53.md")
    assert git(tp53, "status", "--porcelain") == " M entities/TP53.md\n"  # still the person's to commit


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_sigterm_and_sighup_roll_back_like_ctrl_c(tp53: Path, held_git: HeldGit, signum: int,
                                                  code: int) -> None:
    edited = _hand_edit(tp53, "entities/TP53.md")
    head = git(tp53, "rev-parse", "HEAD")
    proc = _start(tp53, held_git, "entity", "alias", "TP53", "p53-stopped")
    proc.send_signal(signum)
    _out, err = proc.communicate()
    assert proc.returncode == code, err
    assert "interrupted" in err
    assert (tp53 / "entities/TP53.md").read_text() == edited
    assert git(tp53, "rev-parse", "HEAD") == head
    assert not (tp53 / ".biocortex" / JOURNAL_NAME).exists()
    assert git(tp53, "status", "--porcelain") == " M entities/TP53.md\n"


def test_a_file_edited_after_the_kill_is_left_as_it_is(tp53: Path, cli: Cli, held_git: HeldGit) -> None:
    proc = _start(tp53, held_git, "entity", "alias", "TP53", "p53-killed")
    proc.kill()
    proc.communicate()
    edited = _hand_edit(tp53, "entities/TP53.md")  # someone saves the file in Obsidian meanwhile
    r = cli("episode", "add", "--task", "Any later write")
    assert r.code == 0, r.err
    assert "left as they are: entities/TP53.md" in r.err
    assert (tp53 / "entities/TP53.md").read_text() == edited


def test_a_journaled_file_the_write_never_reached_is_not_touched(tp53: Path) -> None:
    edited = _hand_edit(tp53, "entities/TP53.md")
    vault = Vault(tp53)
    txn = Transaction(vault)
    txn._remember("entities/TP53.md", tp53 / "entities/TP53.md", b"what it was about to write\n")
    txn.write("entities/NEW.md", "---\nid: NEW\n---\n")
    assert txn._journal_fh is not None
    txn._journal_fh.close()  # the process dies here: the journal stays behind
    put_back = recover_killed_transaction(vault)
    assert put_back == ["entities/NEW.md"]
    assert (tp53 / "entities/TP53.md").read_text() == edited and not (tp53 / "entities/NEW.md").exists()


def test_a_killed_write_that_had_committed_is_kept(tp53: Path, cli: Cli) -> None:
    vault = Vault(tp53)
    txn = Transaction(vault)
    txn.write("entities/NEW.md", "---\nid: NEW\n---\n")
    git(tp53, "add", "entities/NEW.md")
    git(tp53, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "the commit landed")
    assert txn._journal_fh is not None
    txn._journal_fh.close()  # killed after its commit, before removing the journal
    assert recover_killed_transaction(vault) == []
    assert (tp53 / "entities/NEW.md").exists() and git(tp53, "status", "--porcelain") == ""


def test_orphan_temporary_files_are_removed_and_never_offered_for_commit(tp53: Path, cli: Cli,
                                                                         held_git: HeldGit) -> None:
    proc = _start(tp53, held_git, "entity", "alias", "TP53", "p53-killed")
    proc.kill()
    proc.communicate()
    orphan = tp53 / "entities" / ".TP53.md.k3x9q2ab.tmp"  # what a kill inside an atomic write leaves
    orphan.write_text("---\nid: TP53\naliases: [TP")
    r = cli("doctor")
    assert r.code == 1
    assert "1 temporary file left by a killed write: entities/.TP53.md.k3x9q2ab.tmp" in r.out + r.err
    assert "never commit them" in r.out + r.err and "git add -A && git commit" not in r.out + r.err
    assert cli("episode", "add", "--task", "Any later write").code == 0
    assert not orphan.exists()
    r = cli("doctor")
    assert "temporary" not in r.out + r.err


def test_a_tracked_journal_is_not_trusted(tp53: Path, cli: Cli) -> None:
    """A journal someone committed (to make a teammate's next write delete their drafts)."""
    draft = tp53 / "episodes" / "draft.md"
    draft.write_text("---\nid: draft\n---\nmy draft\n")
    journal = tp53 / ".biocortex" / JOURNAL_NAME
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text("episodes/draft.md\n")
    git(tp53, "add", "-f", str(journal))
    git(tp53, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "plant")
    r = cli("episode", "add", "--task", "Any later write")
    assert r.code == 0, r.err
    assert "not trusted" in r.err and draft.read_text() == "---\nid: draft\n---\nmy draft\n"


def test_index_workers_do_not_inherit_the_command_s_signal_handlers() -> None:
    """The command turns SIGTERM into an exception (to roll a write back); the index build's
    worker processes must not: the pool's own shutdown sends them SIGTERM, and the exception,
    raised inside a worker that held the task queue's lock, printed a traceback or hung the pool."""
    from biocortex_cli.cli.errors import _on_signal
    from biocortex_cli.index.build import worker_pool

    previous = signal.signal(signal.SIGTERM, _on_signal)
    try:
        with worker_pool(2) as pool:
            term, interrupt = pool.apply(_worker_handlers)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert term == signal.SIG_DFL and interrupt == signal.SIG_IGN


def _worker_handlers() -> tuple[object, object]:
    return signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)


WORKER_MASKS = """
import os, signal, sys
from biocortex_cli.cli.errors import _on_signal
from biocortex_cli.index.build import worker_pool

out = sys.argv[1]


def record() -> None:  # in each forked worker, before its initializer sets its own handlers
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with open(out, "a") as fh:
        fh.write(f"{int(signal.SIGTERM in blocked)}{int(signal.SIGINT in blocked)}\\n")


os.register_at_fork(after_in_child=record)
signal.signal(signal.SIGTERM, _on_signal)
with worker_pool(2) as pool:
    pool.map(abs, range(4))  # both workers are up
print(signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, []))
"""


def test_workers_are_forked_with_the_stop_signals_held(tmp_path: Path) -> None:
    """A SIGTERM from ``terminate`` that reached a worker before its initializer went to the
    inherited handler, was dropped, and the pool waited for that worker forever (it hung
    ``make test``). So each worker starts with SIGTERM and SIGINT blocked, until its initializer
    has set its own handlers: a signal that arrives meanwhile waits for them. The parent's mask is
    restored. (Run apart: ``register_at_fork`` cannot be undone.)"""
    out = tmp_path / "masks"
    proc = subprocess.run([sys.executable, "-c", WORKER_MASKS, str(out)], capture_output=True, text=True,
                          timeout=600, check=False)  # a guard against a hang, not what is tested
    assert (proc.returncode, proc.stdout) == (0, "False\n"), proc.stderr[-2000:]
    assert out.read_text().splitlines() == ["11", "11"]
