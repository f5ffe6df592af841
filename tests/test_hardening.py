"""The smaller findings of issue 14, each as it was reported: a date past year 9999, NUL in JSON,
U+2028 in JSON Lines, a damaged index and `fact verify`, `doctor` during a merge, terminal
escape sequences, entity names that differ only in case, a hand-made alias loop, private crash
logs, notes written with the user's umask."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli, git


def test_a_created_date_past_year_9999_is_bad_input(vault: Path, cli: Cli) -> None:
    r = cli("episode", "add", "--task", "x", "--created", "9999-12-31T23:59:59-01:00")
    assert r.code in (1, 2) and "beyond the last date-time" in r.err and "internal error" not in r.err
    r = cli("episode", "import", "-", stdin=json.dumps({"task": "x", "created": "9999-12-31T23:59:59-01:00"}) + "\n")
    assert r.code == 1 and "<stdin>:1: created" in r.err


def test_nul_inside_json_is_a_clear_error(vault: Path, cli: Cli) -> None:
    r = cli("episode", "add", "--from-json", "-", stdin='{"task": "a\\u0000b"}')
    assert r.code == 1 and "NUL character" in r.err
    r = cli("episode", "import", "-", stdin='{"task": "ok"}\n{"task": "a\\u0000b"}\n')
    assert r.code == 1 and "<stdin>:2: text holds a NUL character" in r.err
    assert git(vault, "status", "--porcelain") == ""


def test_json_lines_may_hold_line_and_paragraph_separators(vault: Path, cli: Cli) -> None:
    task = "first\u2028second\u2029third"
    r = cli("episode", "import", "-", stdin=json.dumps({"id": "seps", "task": task}, ensure_ascii=False) + "\n")
    assert r.code == 0, r.err
    assert cli("episode", "show", "seps", "--json").json()["task"] == task


@pytest.mark.parametrize("damage", ["zeroed pages", "rows deleted"])
def test_a_damaged_index_is_rebuilt_never_a_wrong_verdict(vault: Path, cli: Cli, damage: str,
                                                          built_vaults: BuiltVaults) -> None:
    def build() -> None:  # 41 facts and their index, built once per process
        assert cli("fact", "add", "KEAP1", "inhibits", "NFE2L2").code == 0
        for i in range(40):
            assert cli("fact", "add", f"GENE{i}", "regulates", f"TARGET{i}").code == 0

    built_vaults.get("hardening-41-facts", vault, build)
    assert cli("fact", "verify", "KEAP1", "inhibits", "NFE2L2").code == 0
    index = vault / ".biocortex" / "index.sqlite"
    if damage == "rows deleted":
        with sqlite3.connect(index) as conn:
            conn.execute("DELETE FROM facts")
    else:
        with sqlite3.connect(index) as conn:
            root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'facts'").fetchone()[0]
            size = conn.execute("PRAGMA page_size").fetchone()[0]
        with index.open("r+b") as fh:
            fh.seek((root - 1) * size)
            fh.write(b"\0" * size * 4)
    r = cli("fact", "verify", "KEAP1", "inhibits", "NFE2L2")
    assert r.code == 0, r.out + r.err
    assert "supported" in r.out
    r = cli("fact", "query", "GENE7", "--json")
    assert r.code == 0 and r.json()["facts"], r.err


def test_doctor_is_not_healthy_during_a_merge(vault: Path, cli: Cli) -> None:
    assert cli("doctor").code == 0
    head = git(vault, "rev-parse", "HEAD").strip()
    (vault / ".git" / "MERGE_HEAD").write_text(head + "\n")
    r = cli("doctor")
    assert r.code == 1 and "a merge is in progress" in r.out


def test_escape_sequences_from_notes_are_neutralised_on_a_terminal(vault: Path, cli: Cli) -> None:
    evil = "Doublet calling \x1b]0;pwned\x07 \x1b[2J\x9b31m in PBMC"
    assert cli("episode", "add", "--from-json", "-", stdin=json.dumps({"id": "esc", "task": evil})).code == 0
    piped = cli("recall", "doublet calling PBMC")
    assert "\x1b]0;pwned" in piped.out  # a pipe gets the bytes as they are (byte-identical output)
    for args in (["recall", "doublet calling PBMC"], ["episode", "show", "esc"], ["episode", "list"],
                 ["recall", "doublet calling PBMC", "--json"]):
        shown = _on_a_terminal(vault, *args)
        assert "\x1b" not in shown and "\x9b" not in shown and "\x07" not in shown, args
        assert "\\x1b" in shown or "\\u001b" in shown, shown


def _on_a_terminal(vault: Path, *args: str) -> str:
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", *args], stdout=follower,
                            stderr=subprocess.DEVNULL, env={**os.environ, "BIOCORTEX_VAULT": str(vault)})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", errors="replace")


def test_entity_names_differing_only_in_case_share_one_note(vault: Path, cli: Cli) -> None:
    r = cli("episode", "import", "-", stdin=json.dumps({"id": "mouse", "task": "Tox in mouse T cells",
                                                        "entities": ["Tox"]}) + "\n"
            + json.dumps({"id": "human", "task": "TOX in human T cells", "entities": ["TOX"]}) + "\n")
    assert r.code == 0, r.err
    assert cli("fact", "add", "TOX", "regulates", "PDCD1").code == 0
    names = [p.name for p in (vault / "entities").glob("*.md")]
    assert len([n for n in names if n.casefold() == "tox.md"]) == 1  # portable: no TOX.md beside Tox.md
    human = (vault / "episodes").rglob("human.md").__next__().read_text()
    assert "[[Tox|TOX]]" in human  # the link names the file that exists
    assert cli("check").code == 0


def test_check_reports_files_that_differ_only_in_case(vault: Path, cli: Cli) -> None:
    for name in ("TOX", "Tox"):  # made elsewhere, e.g. by an older biocortex on Linux
        (vault / "entities" / f"{name}.md").write_text(
            f"---\nid: {name}\ntype: entity\ncreated: '2026-01-01T00:00:00Z'\nauthor: a\nname: {name}\n---\n")
    r = cli("check")
    assert r.code == 1 and "entities/TOX.md:1: file name differs only in case from entities/Tox.md" in r.out
    assert cli("episode", "list").code == 0  # still readable


def test_a_hand_made_alias_loop_is_reported_and_never_rewrites_a_fact(vault: Path, cli: Cli) -> None:
    assert cli("entity", "alias", "TP53", "p53").code == 0
    assert cli("entity", "alias", "MDM2", "HDM2").code == 0
    for note, other in (("TP53", "MDM2"), ("MDM2", "TP53")):
        path = vault / "entities" / f"{note}.md"
        path.write_text(path.read_text().replace("aliases:\n", f"aliases:\n- {other}\n"))
    git(vault, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "hand-made loop")
    r = cli("fact", "add", "MDM2", "ubiquitinates", "TP53", "--json")
    assert r.code == 0, r.err
    fact = r.json().get("fact", r.json())
    assert (fact["subject"], fact["object"]) == ("MDM2", "TP53")
    r = cli("check")
    assert r.code == 1 and "'tp53' is claimed by 2 entity notes" in r.out


def test_crash_logs_are_private_and_scrubbed(isolated_env: Path, monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    from biocortex_cli.cli import errors

    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    monkeypatch.setattr(sys, "argv", ["biocortex", "episode", "add", "--plan", f"token {token}"])
    try:
        raise RuntimeError(f"boom with {token}")
    except RuntimeError as exc:
        path = Path(errors._crash_log(exc))
    assert path.parent == cache / "biocortex" / "crash"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text()
    assert token not in text and "[REDACTED:github-pat]" in text and "RuntimeError" in text


def test_notes_are_written_with_the_users_umask(vault: Path, cli: Cli) -> None:
    old = os.umask(0o002)  # a lab's shared folder: group-writable
    try:
        assert cli("episode", "add", "--task", "Shared with the group", "--id", "shared").code == 0
    finally:
        os.umask(old)
    note = next((vault / "episodes").rglob("shared.md"))
    assert stat.S_IMODE(note.stat().st_mode) == 0o664
