"""init, vault discovery, author resolution."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import Cli, git


def test_init_creates_layout_and_first_commit(tmp_path: Path, cli: Cli) -> None:
    root = tmp_path / "lab"
    r = cli("init", root)
    assert r.code == 0, r.err
    assert r.out.strip() == str(root.resolve())
    for rel in (".biocortex/config.yaml", ".gitignore", ".gitattributes", "Home.md",
                ".obsidian/graph.json", ".obsidian/templates.json", "templates/episode.md",
                "templates/fact.md", "episodes", "facts", "entities", "lessons", "archive"):
        assert (root / rel).exists(), rel
    assert git(root, "log", "--format=%s").strip() == "vault: init lab — biocortex vault from template"
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "check-ignore", ".biocortex/index.sqlite").strip() == ".biocortex/index.sqlite"


def test_init_refuses_existing_vault_and_changes_nothing(tmp_path: Path, cli: Cli) -> None:
    root = tmp_path / "lab"
    assert cli("init", root).code == 0
    config = root / ".biocortex/config.yaml"
    config.write_text(config.read_text() + "# mine\n")
    r = cli("init", root)
    assert r.code == 1 and "already a biocortex vault" in r.err
    assert config.read_text().endswith("# mine\n")


def test_init_refuses_to_overwrite_a_clashing_file(tmp_path: Path, cli: Cli) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "Home.md").write_text("my own home\n")
    r = cli("init", root)
    assert r.code == 1 and "Home.md" in r.err
    assert (root / "Home.md").read_text() == "my own home\n"
    assert not (root / ".biocortex").exists()


def test_init_refuses_the_home_folder(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the install trial: `biocortex init` run in the wrong folder (no PATH given) made
    the home folder a vault and a git repository, taking in every folder under it."""
    home = Path.home()
    (home / "Documents").mkdir(parents=True, exist_ok=True)
    for given in (str(home), "~", "."):
        monkeypatch.chdir(home)
        r = cli("init", given, "--json")
        assert r.code == 1 and "your home folder" in r.err_json()["error"]["message"]
        assert "biocortex init lab-memory" in r.err_json()["error"]["hint"]
        assert not (home / ".git").exists() and not (home / ".biocortex").exists()
    assert cli("init", home / "lab-memory").code == 0  # a folder in it is fine


def test_init_inside_an_existing_repo_refuses_unless_asked(tmp_path: Path, cli: Cli) -> None:
    git(tmp_path, "init", "-q")
    for target in (tmp_path / "memory", tmp_path / "deeper/still/memory", tmp_path):
        r = cli("init", target, "--json")
        error = r.err_json()["error"]
        assert r.code == 1 and f"inside the git repository {tmp_path.resolve()}" in error["message"], r.err
        assert "--in-repo" in error["hint"] and "Traceback" not in r.err
    assert not (tmp_path / "memory").exists() and not (tmp_path / "deeper").exists()
    assert not (tmp_path / ".biocortex").exists()
    assert git(tmp_path, "status", "--porcelain") == ""


def test_init_inside_an_existing_repo_uses_it_with_in_repo(tmp_path: Path, cli: Cli) -> None:
    git(tmp_path, "init", "-q")
    r = cli("init", tmp_path / "memory", "--in-repo")
    assert r.code == 0, r.err
    assert not (tmp_path / "memory/.git").exists()
    assert "memory/.biocortex/config.yaml" in git(tmp_path, "show", "--name-only", "--format=", "HEAD")
    assert cli("--vault", tmp_path / "memory", "episode", "add", "--task", "x").code == 0


def test_init_in_a_folder_the_enclosing_repo_ignores_gets_its_own_repo(tmp_path: Path, cli: Cli) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("demo-vault/\n")
    r = cli("init", tmp_path / "demo-vault")
    assert r.code == 0, r.err
    assert (tmp_path / "demo-vault/.git").is_dir()
    assert git(tmp_path / "demo-vault", "log", "--format=%s").startswith("vault: init demo-vault")
    assert git(tmp_path, "status", "--porcelain").strip() == "?? .gitignore"


def test_vault_discovery(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "lab"
    assert cli("init", root).code == 0
    sub = root / "episodes"
    monkeypatch.chdir(sub)
    assert cli("episode", "list").code == 0
    monkeypatch.chdir(tmp_path)
    r = cli("episode", "list")
    assert r.code == 1 and "biocortex init" in r.err
    r = cli("--vault", tmp_path, "episode", "list", "--json")
    assert r.code == 1 and "not a biocortex vault" in r.err_json()["error"]["message"]
    monkeypatch.setenv("BIOCORTEX_VAULT", str(root))
    assert cli("episode", "list").code == 0


def test_author_resolution(vault: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    def last_author() -> str:
        return git(vault, "log", "-1", "--format=%an <%ae>").strip()

    git(vault, "config", "user.name", "Git User")
    git(vault, "config", "user.email", "git@lab.example")
    cli("episode", "add", "--task", "one")
    assert last_author() == "Git User <git@lab.example>"
    monkeypatch.setenv("BIOCORTEX_AUTHOR", "Env Agent <agent@lab.example>")
    cli("episode", "add", "--task", "two")
    assert last_author() == "Env Agent <agent@lab.example>"
    cli("--author", "Ada Lovelace <ada@lab.example>", "episode", "add", "--task", "three")
    assert last_author() == "Ada Lovelace <ada@lab.example>"
    r = cli("--author", "<broken", "episode", "add", "--task", "four")
    assert r.code == 1 and "Name <email>" in r.err


def test_author_from_git_config_follows_gits_precedence(vault: Path, cli: Cli) -> None:
    """The repository's value wins over the global one, per key, as ``git config user.name`` says
    (read in one process: store/git.py configured_author)."""
    def last_author() -> str:
        return git(vault, "log", "-1", "--format=%an <%ae>").strip()

    git(vault, "config", "--global", "user.name", "Global Person")
    git(vault, "config", "--global", "user.email", "global@lab.example")
    cli("episode", "add", "--task", "one")
    assert last_author() == "Global Person <global@lab.example>"
    git(vault, "config", "user.name", "Ada  Lovelace, PhD")
    cli("episode", "add", "--task", "two")
    assert last_author() == "Ada  Lovelace, PhD <global@lab.example>"
    git(vault, "config", "--global", "--unset", "user.email")
    cli("episode", "add", "--task", "three")  # no email anywhere: the default author
    assert last_author() == "biocortex <biocortex@localhost>"


def test_read_only_vault_is_refused_cleanly(vault: Path, cli: Cli) -> None:
    import os
    import subprocess

    before = git(vault, "rev-parse", "HEAD")
    if os.geteuid() == 0:  # root ignores permission bits: make the files immutable instead
        if subprocess.run(["chattr", "-R", "+i", str(vault)], capture_output=True).returncode:
            pytest.skip("chattr is not supported on this filesystem")
        undo = ["chattr", "-R", "-i", str(vault)]
    else:
        subprocess.run(["chmod", "-R", "a-w", str(vault)], check=True)
        undo = ["chmod", "-R", "u+w", str(vault)]
    try:
        r = cli("episode", "add", "--task", "Dock ligands against KEAP1", "--json")
        assert r.code == 1
        assert "read-only" in r.err_json()["error"]["message"]
    finally:
        subprocess.run(undo, check=True)
    assert git(vault, "rev-parse", "HEAD") == before
    assert not list((vault / "episodes").rglob("*dock*"))


def test_a_write_commits_exactly_its_files_whatever_else_is_staged(vault: Path, cli: Cli) -> None:
    # fast path: nothing else staged -> one commit with just the episode and its entity note
    assert cli("episode", "add", "--task", "TP53 ChIP-seq", "--id", "fast").code == 0
    files = set(git(vault, "show", "--name-only", "--format=", "HEAD").split())
    assert files == {"episodes/" + next(p for p in git(vault, "ls-files").split() if p.endswith("fast.md"))
                     .split("episodes/", 1)[1], "entities/TP53.md"}
    assert git(vault, "status", "--porcelain") == ""
    # someone's staged work in progress never rides along
    (vault / "notes-wip.md").write_text("draft\n")
    git(vault, "add", "notes-wip.md")
    assert cli("episode", "add", "--task", "MDM2 knockdown", "--id", "slow").code == 0
    files = set(git(vault, "show", "--name-only", "--format=", "HEAD").split())
    assert "notes-wip.md" not in files and any(f.endswith("slow.md") for f in files)
    assert git(vault, "status", "--porcelain").strip() == "A  notes-wip.md"
    subprocess.run(["git", "-C", str(vault), "fsck", "--strict"], check=True, capture_output=True)


def test_init_json_says_where_and_what_it_committed(tmp_path: Path, cli: Cli) -> None:
    r = cli("init", tmp_path / "lab", "--json")
    assert r.code == 0, r.err
    data = r.json()
    root = (tmp_path / "lab").resolve()
    assert data == {"path": str(root), "git_root": str(root), "in_repo": False, "branch": "main",
                    "commit": git(root, "rev-parse", "HEAD").strip()}
    git(tmp_path, "init", "-q")
    nested = cli("init", tmp_path / "memory", "--in-repo", "--json").json()
    assert nested["in_repo"] is True and nested["git_root"] == str(tmp_path.resolve())
