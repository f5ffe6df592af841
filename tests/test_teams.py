"""Joining a team's memory: docs/teams.md followed literally, `biocortex clone`, and the remote's
HEAD that `sync` sets so a plain `git clone` works — on a machine whose git names new branches
`master` while the vault's branch is `main`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, Cli, git

from biocortex_cli.ops.clone import default_folder


@pytest.fixture
def master_default(isolated_env: Path) -> Path:
    """git's default branch is master here (the isolated global config)."""
    git(isolated_env, "config", "--global", "init.defaultBranch", "master")
    return isolated_env


@pytest.fixture
def lab(tmp_path: Path, cli: Cli, master_default: Path) -> Path:
    """A vault with one episode, and a folder for the shared remote."""
    work = tmp_path / "work"
    work.mkdir()
    assert cli("init", work / "my-lab-memory").code == 0
    add = cli("--vault", work / "my-lab-memory", "--author", "Ada <ada@lab.example>", "episode", "add", "--no-suggest",
              "--task", "Remove doublets from 10x Multiome PBMC with scDblFinder", "--tool", "scDblFinder",
              "--result", "9.5% of barcodes removed", "--success", "--entity", "CD14")
    assert add.code == 0, add.err
    (tmp_path / "shared").mkdir()
    return work


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    shim = f'biocortex() {{ "{sys.executable}" -m biocortex_cli "$@"; }}\n'
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(["bash", "-e", "-c", shim + script], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=300, check=False)


def _walkthrough() -> str:
    text = (REPO / "docs/teams.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block is not None
    return block.group(1)


def test_the_teams_walkthrough_works_as_written(lab: Path, tmp_path: Path, master_default: Path) -> None:
    script = _walkthrough()
    assert "biocortex clone /shared/lab-memory.git" in script and "git init --bare /shared/" in script
    run = _bash(script.replace("/shared/", f"{tmp_path}/shared/"), cwd=lab)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Remove doublets from 10x Multiome PBMC" in run.stdout  # the teammate's recall found it
    assert "building the index of 1 note…" in run.stderr and "it holds 1 episode, 0 facts" in run.stderr
    clone = master_default / "lab-memory"
    assert git(clone, "branch", "--show-current").strip() == "main"
    assert (clone / ".biocortex/index.sqlite").is_file()
    # a plain `git clone` works too: sync pointed the bare remote's HEAD at main
    remote = tmp_path / "shared/lab-memory.git"
    assert git(remote, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    plain = _bash(f"git clone -q {remote} plain && cd plain && biocortex episode list", cwd=tmp_path)
    assert plain.returncode == 0 and "Remove doublets" in plain.stdout, plain.stderr


def test_sync_says_it_set_the_remote_head_once(lab: Path, tmp_path: Path, cli: Cli) -> None:
    remote = tmp_path / "shared/lab-memory.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    assert git(remote, "symbolic-ref", "HEAD").strip() == "refs/heads/master"
    git(lab / "my-lab-memory", "remote", "add", "origin", str(remote))
    first = cli("--vault", lab / "my-lab-memory", "sync", "--json")
    assert first.code == 0, first.err
    assert "set the default branch (HEAD)" in first.err and "to main" in first.err
    assert first.json()["notices"] and "it named master" in first.json()["notices"][0]
    again = cli("--vault", lab / "my-lab-memory", "sync", "--json")
    assert again.code == 0 and again.json()["notices"] == [] and "default branch" not in again.err


def test_sync_repairs_a_remote_made_before_it_set_heads(lab: Path, tmp_path: Path, cli: Cli) -> None:
    """A remote pushed to by plain git (HEAD still names master, which does not exist): the next
    sync, even with nothing to push, points HEAD at the vault's branch."""
    remote = tmp_path / "shared/old.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    vault = lab / "my-lab-memory"
    git(vault, "remote", "add", "origin", os.path.relpath(remote, vault))  # a relative address, as git allows
    git(vault, "push", "-q", "-u", "origin", "main")
    broken = subprocess.run(["git", "clone", str(remote), str(tmp_path / "empty")], capture_output=True, text=True)
    assert "remote HEAD refers to nonexistent ref" in broken.stderr
    r = cli("--vault", vault, "sync")
    assert r.code == 0 and "set the default branch (HEAD)" in r.err
    assert git(remote, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_sync_leaves_a_remote_head_that_names_another_real_branch_and_says_so(
        lab: Path, tmp_path: Path, cli: Cli) -> None:
    remote = tmp_path / "shared/lab.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    (other / "README.md").write_text("lab code\n", encoding="utf-8")
    git(other, "add", "README.md")
    git(other, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "-m", "code")
    git(other, "push", "-q", str(remote), "master")
    vault = lab / "my-lab-memory"
    git(vault, "remote", "add", "origin", str(remote))
    r = cli("--vault", vault, "sync")
    assert r.code == 0, r.err
    assert "default branch is master, not main" in r.err and f"biocortex clone {remote}" in r.err
    assert git(remote, "symbolic-ref", "HEAD").strip() == "refs/heads/master"  # someone's branch: untouched


def test_sync_to_a_server_says_exactly_what_to_do(lab: Path, tmp_path: Path, cli: Cli,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A remote reached over ssh (an `ssh` that runs git's command here, so no server is needed):
    its HEAD cannot be set from here, so sync says what to do, once, at the first push."""
    server = tmp_path / "srv"
    server.mkdir()
    git(server, "init", "-q", "--bare", "memory.git")
    fake_ssh = tmp_path / "fake-ssh"
    fake_ssh.write_text('#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n', encoding="utf-8")
    fake_ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(fake_ssh))
    url = f"lab.example:{server}/memory.git"
    vault = lab / "my-lab-memory"
    git(vault, "remote", "add", "origin", url)
    r = cli("--vault", vault, "sync", "--json")
    assert r.code == 0, r.err
    notice = r.json()["notices"][0]
    assert f"a plain `git clone {url}` will not check out the vault" in notice
    assert "symbolic-ref HEAD refs/heads/main" in notice and f"biocortex clone {url}" in notice
    assert notice in r.err
    assert git(server / "memory.git", "symbolic-ref", "HEAD").strip() == "refs/heads/master"
    assert cli("--vault", vault, "sync", "--json").json()["notices"] == []  # said once, at the first push
    joined = cli("clone", url, str(tmp_path / "teammate"))  # and biocortex clone works meanwhile
    assert joined.code == 0 and git(tmp_path / "teammate", "branch", "--show-current").strip() == "main"


def _plain_remote(lab: Path, tmp_path: Path) -> Path:
    """A bare remote the vault was pushed to with plain git: its HEAD names master, which it lacks."""
    remote = tmp_path / "shared/plain.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(lab / "my-lab-memory", "push", "-q", str(remote), "main")
    return remote


def test_clone_checks_out_the_vault_whatever_the_remote_head_says(lab: Path, tmp_path: Path, cli: Cli,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    remote = _plain_remote(lab, tmp_path)
    monkeypatch.chdir(tmp_path)
    r = cli("clone", str(remote), "--json")
    assert r.code == 0, r.err
    report = r.json()
    assert report["path"] == str((tmp_path / "plain").resolve()) and report["branch"] == "main"
    assert report["notes"] == {"episodes": 1, "archive": 0, "facts": 0, "lessons": 0, "entities": 1}
    assert report["index"] == {"episodes": 1, "facts": 0}
    assert report["last_commit"]["author"] == "Ada" and report["last_commit"]["subject"].startswith("episode: add")
    assert "building the index of 1 note…" in r.err
    clone = tmp_path / "plain"
    assert git(clone, "rev-parse", "--abbrev-ref", "main@{upstream}").strip() == "origin/main"
    found = cli("--vault", clone, "recall", "doublets in multiome", "--json")
    assert found.code == 0 and found.json()["results"][0]["task"].startswith("Remove doublets")
    assert "rebuilding" not in found.err and "building the index" not in found.err  # clone built it


def test_clone_prefers_the_branch_that_holds_the_vault(lab: Path, tmp_path: Path, cli: Cli) -> None:
    remote = _plain_remote(lab, tmp_path)
    other = tmp_path / "code"
    git(tmp_path, "init", "-q", str(other))
    (other / "README.md").write_text("code\n", encoding="utf-8")
    git(other, "add", "README.md")
    git(other, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "-m", "code")
    git(other, "push", "-q", str(remote), "master", "master:aaa")  # HEAD names master: a real branch now
    r = cli("clone", str(remote), str(tmp_path / "c1"), "--json")
    assert r.code == 0, r.err
    assert r.json()["branch"] == "main" and r.json()["remote_head"] == "master"
    assert "the remote's default branch is master" in r.err
    explicit = cli("clone", str(remote), str(tmp_path / "c2"), "--branch", "aaa")
    assert explicit.code == 1 and "no .biocortex/config.yaml on aaa" in explicit.err
    assert not (tmp_path / "c2").exists()


@pytest.mark.parametrize("case", ["not empty", "unreachable", "empty remote", "no vault", "no such branch"])
def test_clone_failures_say_why_and_leave_nothing(lab: Path, tmp_path: Path, cli: Cli, case: str) -> None:
    url, dest = str(_plain_remote(lab, tmp_path)), tmp_path / "dest"
    extra: list[str] = []
    if case == "not empty":
        dest.mkdir()
        (dest / "notes.txt").write_text("mine\n", encoding="utf-8")
    elif case == "unreachable":
        url = str(tmp_path / "nowhere.git")
    elif case == "empty remote":
        url = str(tmp_path / "empty.git")
        git(tmp_path, "init", "-q", "--bare", url)
    elif case == "no vault":
        url = str(tmp_path / "code")
        git(tmp_path, "init", "-q", url)
        (Path(url) / "x.md").write_text("x\n", encoding="utf-8")
        git(Path(url), "add", "x.md")
        git(Path(url), "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "-m", "x")
    else:
        extra = ["--branch", "nope"]
    r = cli("clone", url, str(dest), *extra, "--json")
    error = r.err_json()["error"]
    assert r.code == 1 and error["hint"], r.err
    expected = {"not empty": "is not an empty folder", "unreachable": "cannot clone", "empty remote": "is empty",
                "no vault": "holds no biocortex vault", "no such branch": "has no branch 'nope'"}[case]
    assert expected in error["message"]
    if case == "not empty":
        assert [p.name for p in dest.iterdir()] == ["notes.txt"]
    else:
        assert not dest.exists()


def test_clone_finds_a_vault_in_a_folder_of_a_larger_repository(tmp_path: Path, cli: Cli,
                                                                 master_default: Path) -> None:
    repo = tmp_path / "project"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    (repo / "code.py").write_text("print(1)\n", encoding="utf-8")
    git(repo, "add", "code.py")
    git(repo, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "-m", "code")
    assert cli("init", repo / "memory", "--in-repo").code == 0
    r = cli("clone", str(repo), str(tmp_path / "copy"), "--json")
    assert r.code == 0, r.err
    assert r.json()["path"] == str((tmp_path / "copy" / "memory").resolve())


@pytest.mark.parametrize(("url", "folder"), [("/shared/lab-memory.git", "lab-memory"), ("/shared/lab/", "lab"),
                                             ("git@host:team/memory.git", "memory"), ("host:memory", "memory"),
                                             ("https://example.org/lab/memory.git/", "memory")])
def test_the_default_folder_is_the_one_git_would_make(url: str, folder: str) -> None:
    assert default_folder(url) == folder


def test_a_clone_that_hangs_gives_up_and_leaves_nothing(tmp_path: Path, cli: Cli,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    hang = tmp_path / "hanging-ssh"
    hang.write_text("#!/bin/sh\nexec sleep 20\n", encoding="utf-8")
    hang.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(hang))
    r = cli("clone", "lab.example:/srv/memory.git", str(tmp_path / "c"), "--timeout", "1", "--json")
    error = r.err_json()["error"]
    assert r.code == 1 and error["message"] == "git clone gave no answer within 1 s", error
    assert not (tmp_path / "c").exists()
