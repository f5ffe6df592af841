"""``biocortex doctor`` on real vaults, broken for real: each problem found, with its fix."""

from __future__ import annotations

import os
import time
from pathlib import Path

from conftest import Cli, git


def findings(cli: Cli) -> tuple[int, list[dict[str, str]]]:
    r = cli("doctor", "--json")
    return r.code, r.json()["findings"]


def test_a_new_vault_is_healthy(vault: Path, cli: Cli) -> None:
    r = cli("doctor")
    assert r.code == 0, r.out
    assert "healthy" in r.err


def test_stale_git_index_lock(vault: Path, cli: Cli) -> None:
    lock = vault / ".git" / "index.lock"
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))
    code, found = findings(cli)
    assert code == 1
    [f] = [f for f in found if f["check"] == "git"]
    assert f["severity"] == "error" and "stale git lock" in f["message"] and "rm " in f["hint"]


def test_corrupt_index_and_stale_index(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "DESeq2 on organoids", "--id", "d1").code == 0
    assert cli("index").code == 0
    assert findings(cli) == (0, [])
    index = next((vault / ".biocortex").glob("index.*"))
    index.write_bytes(b"this is not an index" * 100)
    code, found = findings(cli)
    assert code == 1 and [f["check"] for f in found] == ["index"]
    assert found[0]["severity"] == "error" and "--rebuild" in found[0]["hint"]
    assert cli("index", "--rebuild").code == 0
    assert cli("episode", "add", "--task", "another one", "--id", "d2").code == 0
    code, found = findings(cli)
    assert code == 1 and found[0]["severity"] == "warning" and "stale" in found[0]["message"]


def test_broken_note_uncommitted_change_and_missing_template_file(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "Cellpose segmentation", "--id", "c1").code == 0
    note = next((vault / "episodes").rglob("c1.md"))
    note.write_text(note.read_text().replace("type: episode", "type: episode\n  bad: [", 1))
    (vault / "AGENTS.md").unlink()
    code, found = findings(cli)
    assert code == 1
    by_check = {f["check"]: f for f in found}
    assert "1 uncommitted change" in by_check["git"]["message"] and "c1.md" in by_check["git"]["message"]
    assert "AGENTS.md" in by_check["template"]["message"]
    assert by_check["notes"]["severity"] == "error" and "c1.md" in by_check["notes"]["message"]
    assert "biocortex check" in by_check["notes"]["hint"]
    text = cli("doctor")
    assert text.code == 1 and "fix: " in text.out


def test_invalid_config_and_detached_head(vault: Path, cli: Cli) -> None:
    config = vault / ".biocortex" / "config.yaml"
    config.write_text(config.read_text().replace("encoding: cl100k_base", "encoding: 42"))
    git(vault, "checkout", "-q", "--detach")
    code, found = findings(cli)
    assert code == 1
    by_check = {f["check"]: f for f in found}
    assert "tokenizer.encoding" in by_check["config"]["message"]
    assert "detached" in by_check["git"]["message"]


def test_a_killed_write_is_reported_then_undone_by_the_next_write(vault: Path, cli: Cli) -> None:
    (vault / "episodes" / "orphan.md").write_text("---\ntype: episode\n---\nhalf written [[NOPE]]\n")
    journal = vault / ".biocortex" / "tmp" / "txn.journal"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text("episodes/orphan.md\n")
    code, found = findings(cli)
    assert code == 1 and any(f["check"] == "lock" and "killed" in f["message"] for f in found)
    r = cli("episode", "add", "--task", "after the crash", "--id", "after")
    assert r.code == 0 and "undid a write" in r.err
    assert not (vault / "episodes" / "orphan.md").exists() and not journal.exists()
    assert findings(cli)[0] == 0
