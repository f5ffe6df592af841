"""A symbolic link in a vault is never followed (issue 14): not for AGENTS.md, not inside
.biocortex/ (logs, journal, index, the write lock); check and doctor report committed links;
sync refuses a remote that brings one."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import Cli, git

from biocortex_cli.store.vault import JOURNAL_NAME

SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n"


def _commit(root: Path, *paths: str) -> None:
    git(root, "add", "-f", *paths)
    git(root, "-c", "user.name=Mallory", "-c", "user.email=m@x", "commit", "-qm", "links")


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "home-of-someone" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_rsa").write_text(SECRET)
    return outside / "id_rsa"


def test_guide_never_prints_what_a_linked_agents_md_points_to(vault: Path, cli: Cli, tmp_path: Path) -> None:
    (vault / "AGENTS.md").unlink()
    os.symlink(_outside(tmp_path), vault / "AGENTS.md")
    _commit(vault, "AGENTS.md")
    r = cli("guide")
    assert r.code == 0
    assert "PRIVATE KEY" not in r.out and "symbolic link" in r.err
    assert "recall" in r.out  # the guide biocortex ships


def test_a_linked_logs_folder_is_not_written_through(vault: Path, cli: Cli, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, vault / ".biocortex" / "logs")
    _commit(vault, ".biocortex/logs")
    assert cli("episode", "add", "--task", "Doublet calling in PBMC", "--id", "ep").code == 0
    r = cli("recall", "doublet calling", "--json")
    assert r.code == 0, r.err
    assert list(elsewhere.iterdir()) == []  # the query went to the per-user cache, not through the link
    rid = r.json()["recall_id"]
    assert cli("feedback", rid, "--outcome", "success").code == 0  # and is found there
    r = cli("check")
    assert r.code == 1 and ".biocortex/logs:1: committed symbolic link" in r.out


def test_a_linked_tmp_folder_and_a_planted_journal_delete_nothing(vault: Path, cli: Cli, tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "txn.journal").write_text("episodes/draft.md\n")
    os.symlink(planted, vault / ".biocortex" / "tmp")
    _commit(vault, ".biocortex/tmp")
    draft = vault / "episodes" / "draft.md"
    draft.write_text("---\nid: draft\n---\nmy draft\n")
    r = cli("episode", "add", "--task", "A teammate's next write")
    assert r.code == 1 and ".biocortex/tmp: .biocortex/tmp is a symbolic link" in r.err
    assert git(vault, "log", "-1", "--format=%s") == "links\n"
    assert draft.read_text() == "---\nid: draft\n---\nmy draft\n"
    assert (planted / "txn.journal").read_text() == "episodes/draft.md\n"


def test_a_linked_state_folder_or_lock_is_refused(vault: Path, cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "bashrc"
    target.write_text("export PATH\n")
    (vault / ".biocortex" / "write.lock").unlink(missing_ok=True)
    os.symlink(target, vault / ".biocortex" / "write.lock")
    r = cli("episode", "add", "--task", "x")
    assert r.code == 1 and "write.lock is a symbolic link" in r.err
    assert target.read_text() == "export PATH\n"


def test_check_and_doctor_report_committed_links(vault: Path, cli: Cli, tmp_path: Path) -> None:
    os.symlink(_outside(tmp_path), vault / "entities" / "KEY.md")
    os.symlink("../Home.md", vault / "lessons" / "home.md")
    _commit(vault, "entities/KEY.md", "lessons/home.md")
    r = cli("check")
    assert r.code == 1
    assert "entities/KEY.md:1: committed symbolic link" in r.out and "lessons/home.md:1: committed" in r.out
    assert "PRIVATE KEY" not in r.out + r.err
    r = cli("doctor")
    assert r.code == 1 and "symbolic link" in r.out


def test_sync_refuses_a_remote_that_brings_a_link(tmp_path: Path, cli: Cli) -> None:
    remote, a, b = tmp_path / "remote.git", tmp_path / "a", tmp_path / "b"
    assert cli("init", a).code == 0
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(a, "remote", "add", "origin", str(remote))
    assert cli("--vault", a, "sync").code == 0
    git(tmp_path, "clone", "-q", str(remote), str(b))
    (b / "AGENTS.md").unlink()
    os.symlink(_outside(tmp_path), b / "AGENTS.md")
    _commit(b, "AGENTS.md")
    git(b, "push", "-q", "origin", "main")
    head = git(a, "rev-parse", "HEAD")
    r = cli("--vault", a, "sync")
    assert r.code == 1 and "1 symbolic link: AGENTS.md; nothing was synced" in r.err
    assert git(a, "rev-parse", "HEAD") == head and not (a / "AGENTS.md").is_symlink()
    assert not (a / ".biocortex" / JOURNAL_NAME).exists()
