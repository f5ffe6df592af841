"""How biocortex commits: signed when the repository asks (commit.gpgsign), hooks skipped and
`doctor` saying so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import Cli, git

AUTHOR = "Ada <ada@lab.example>"


def _ssh_key(tmp_path: Path) -> Path:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is needed to make a signing key")
    key = tmp_path / "signing-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f", str(key)], check=True)
    return key


def _sign_with(vault: Path, key: Path) -> None:
    git(vault, "config", "gpg.format", "ssh")
    git(vault, "config", "user.signingkey", f"{key}.pub")
    git(vault, "config", "commit.gpgsign", "true")
    allowed = key.parent / "allowed_signers"
    allowed.write_text(f"ada@lab.example {Path(f'{key}.pub').read_text(encoding='utf-8')}", encoding="utf-8")
    git(vault, "config", "gpg.ssh.allowedSignersFile", str(allowed))


def _verified(vault: Path) -> bool:
    return subprocess.run(["git", "-C", str(vault), "verify-commit", "HEAD"], capture_output=True).returncode == 0


def test_commits_are_signed_when_the_repository_asks(vault: Path, cli: Cli, tmp_path: Path) -> None:
    _sign_with(vault, _ssh_key(tmp_path))
    fast = cli("--author", AUTHOR, "episode", "add", "--task", "Signed analysis", "--no-suggest")
    assert fast.code == 0, fast.err
    assert "gpgsig" in git(vault, "cat-file", "commit", "HEAD") and _verified(vault)
    (vault / "notes.txt").write_text("a person's work in progress\n", encoding="utf-8")
    git(vault, "add", "notes.txt")  # something else staged: the pathspec `git commit` runs instead
    slow = cli("--author", AUTHOR, "fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905")
    assert slow.code == 0, slow.err
    assert "gpgsig" in git(vault, "cat-file", "commit", "HEAD") and _verified(vault)
    assert "notes.txt" not in git(vault, "show", "--name-only", "--format=", "HEAD")


def test_a_commit_that_cannot_be_signed_fails_clearly_and_writes_nothing(vault: Path, cli: Cli,
                                                                          tmp_path: Path) -> None:
    key = _ssh_key(tmp_path)
    _sign_with(vault, key)
    git(vault, "config", "user.signingkey", str(tmp_path / "no-such-key.pub"))
    head = git(vault, "rev-parse", "HEAD")
    r = cli("--author", AUTHOR, "episode", "add", "--task", "Unsignable analysis", "--no-suggest", "--json")
    error = r.err_json()["error"]
    assert r.code == 1 and "commit.gpgsign is on" in error["hint"] and "Traceback" not in r.err
    assert git(vault, "rev-parse", "HEAD") == head
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""


def test_hooks_are_skipped_and_doctor_says_so(vault: Path, cli: Cli, tmp_path: Path) -> None:
    hook = vault / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho 'rejected by the hook' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    assert cli("episode", "add", "--task", "Written past a hook", "--no-suggest").code == 0
    report = cli("doctor", "--json")
    assert report.code == 0, report.out  # worth knowing, nothing broken
    said = [f for f in report.json()["findings"] if "hooks" in f["message"]]
    assert said and said[0]["severity"] == "info" and "pre-commit" in said[0]["message"]
    _sign_with(vault, _ssh_key(tmp_path))
    signed = [f for f in cli("doctor", "--json").json()["findings"] if "commit.gpgsign" in f["message"]]
    assert signed and signed[0]["severity"] == "info"


def test_the_repository_s_top_folder_is_found_as_git_finds_it(tmp_path: Path, cli: Cli) -> None:
    """``Vault.git_root`` reads the file system (recall starts no git): the answer must be git's, for
    a vault of its own, one inside another repository, a linked worktree and a link to the vault."""
    from biocortex_cli.store.git import toplevel, worktree_root

    own = tmp_path / "own"
    assert cli("init", own).code == 0
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    assert cli("init", outer / "lab" / "memory", "--in-repo").code == 0
    linked = tmp_path / "linked"
    git(own, "worktree", "add", "-q", str(linked))
    (tmp_path / "alias").symlink_to(own)
    for folder in (own, outer / "lab" / "memory", linked, tmp_path / "alias", own / "episodes"):
        assert worktree_root(str(folder)) == str(toplevel(folder)), folder  # a str: recall imports no pathlib
    assert worktree_root(str(tmp_path)) is None and toplevel(tmp_path) is None
