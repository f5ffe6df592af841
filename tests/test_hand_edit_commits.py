"""A person's uncommitted hand edit is never absorbed into a tool's commit (trial of a lab syncing a
vault): when a write touches a file the person edited by hand and did not commit, biocortex first
commits the file as the person left it, under the person's git identity, then its own change on top
(store/vault.py, ``Transaction.commit_hand_edits``). A hand edit to another file stays uncommitted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli, gated_git, git

PERSON = ("Pat Bench", "pat@lab.example")
AGENT = "Agent Smith <agent@lab.example>"
EPISODES = [
    {"id": "old-fail", "task": "Doublet detection on PBMC with a fixed threshold", "success": False,
     "quality": 0.2, "created": "2023-02-01T00:00:00Z", "lessons": ["Thresholds do not transfer."]},
    {"id": "new-good", "task": "Doublet detection on PBMC per sample", "success": True, "quality": 0.9,
     "created": "2026-10-01T00:00:00Z"},
]


@pytest.fixture
def lab(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The vault of a person (the repository's git identity) whose agent writes as AGENT."""
    git(vault, "config", "user.name", PERSON[0])
    git(vault, "config", "user.email", PERSON[1])
    monkeypatch.setenv("BIOCORTEX_AUTHOR", AGENT)
    return vault


def _edit(path: Path, old: str, new: str) -> bytes:
    """As an editor saves: ``old`` replaced by ``new``; returns the bytes the person left."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path.read_bytes()


def _other_edit(vault: Path) -> bytes:
    """A hand edit to a file no write touches: it must stay uncommitted, byte for byte."""
    return _edit(vault / "Home.md", "\n", "\nPat: ordered new reagents.\n")


def _subjects(vault: Path, n: int) -> list[str]:
    return git(vault, "log", f"-{n}", "--format=%s").splitlines()


def _who(vault: Path, rev: str) -> tuple[str, str]:
    """(author, committer) of ``rev``."""
    author, committer = git(vault, "log", "-1", "--format=%an <%ae>%n%cn <%ce>", rev).splitlines()
    return author, committer


def _changed(vault: Path, old: str, new: str) -> list[str]:
    return git(vault, "diff", "--name-only", "--no-renames", old, new).split()


def _assert_hand_commit(vault: Path, rel: str, person_bytes: bytes, tool_subject: str) -> None:
    """HEAD~1 holds exactly the person's version of ``rel`` (nothing else changed, the person's
    identity); HEAD is the tool's commit on top."""
    subjects = _subjects(vault, 2)
    assert subjects[0].startswith(tool_subject), subjects
    assert subjects[1].startswith(f"hand: edit {rel} — uncommitted, recorded before \"{tool_subject}"), subjects
    assert _who(vault, "HEAD~1") == (f"{PERSON[0]} <{PERSON[1]}>", AGENT)
    assert _who(vault, "HEAD") == (AGENT, AGENT)
    assert _changed(vault, "HEAD~2", "HEAD~1") == [rel]
    assert subprocess.run(["git", "-C", str(vault), "show", f"HEAD~1:{rel}"], capture_output=True,
                          check=True).stdout == person_bytes
    body = git(vault, "log", "-1", "--format=%b", "HEAD~1")
    assert "not committed" in body and rel in body.splitlines()


def _status(vault: Path) -> list[str]:
    return git(vault, "status", "--porcelain").splitlines()


def test_an_entity_note_edited_by_hand_is_committed_on_its_own_before_entity_alias(lab: Path, cli: Cli) -> None:
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1614537").code == 0
    note = lab / "entities/TP53.md"
    start = git(lab, "rev-parse", "HEAD").strip()
    person = _edit(note, "\n---\n", "\n---\n\nPat: the R175H isoform behaves differently.\n")
    home = _other_edit(lab)

    r = cli("entity", "alias", "TP53", "p53")
    assert r.code == 0, r.err
    _assert_hand_commit(lab, "entities/TP53.md", person, "entity: alias")
    assert git(lab, "rev-parse", "HEAD~2").strip() == start
    tool_diff = git(lab, "show", "--format=", "HEAD")
    assert "p53" in tool_diff and "R175H" not in tool_diff  # only the tool's change
    assert "R175H" in note.read_text()  # the person's words are kept in the file
    assert _status(lab) == [" M Home.md"] and (lab / "Home.md").read_bytes() == home


def test_with_another_file_staged_by_the_person_the_hand_edit_is_still_committed_first(lab: Path, cli: Cli) -> None:
    # something staged elsewhere sends the write's commit down `git commit -- paths`: same outcome
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1614537").code == 0
    home = _other_edit(lab)
    git(lab, "add", "Home.md")
    person = _edit(lab / "entities/TP53.md", "\n---\n", "\n---\n\nPat: the R175H isoform.\n")
    r = cli("entity", "alias", "TP53", "p53")
    assert r.code == 0, r.err
    _assert_hand_commit(lab, "entities/TP53.md", person, "entity: alias")
    assert _changed(lab, "HEAD~1", "HEAD") == ["entities/TP53.md"]
    assert _status(lab) == ["M  Home.md"] and (lab / "Home.md").read_bytes() == home  # still staged, not committed


def test_fact_add_over_a_fact_note_edited_by_hand(lab: Path, cli: Cli) -> None:
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1614537").code == 0
    rel = next(p for p in git(lab, "ls-files", "facts").split() if p.endswith(".md") and not p.endswith("README.md"))
    person = _edit(lab / rel, "\n---\n", "\n---\n\nPat: seen in our HCT116 line too.\n")

    r = cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905")
    assert r.code == 0, r.err
    _assert_hand_commit(lab, rel, person, "fact: update")
    tool_diff = git(lab, "show", "--format=", "HEAD")
    assert "PMID:8319905" in tool_diff and "+Pat: seen" not in tool_diff
    assert _status(lab) == []


def test_forget_of_an_episode_edited_by_hand(lab: Path, cli: Cli) -> None:
    r = cli("episode", "import", "-", stdin="".join(json.dumps(e) + "\n" for e in EPISODES))
    assert r.code == 0, r.err
    rel = "episodes/2023/02/old-fail.md"
    person = _edit(lab / rel, "Thresholds do not transfer.", "Thresholds do not transfer between chemistries.")
    home = _other_edit(lab)

    r = cli("forget", "--older-than", "365d", "--quality-below", "0.5")
    assert r.code == 0, r.err
    _assert_hand_commit(lab, rel, person, "forget: archive 1 episode")
    assert _changed(lab, "HEAD~1", "HEAD") == ["archive/" + rel, rel]  # moved, nothing else
    assert git(lab, "diff", "-M", "--name-status", "HEAD~1", "HEAD").split()[0] == "R100"
    assert (lab / "archive" / rel).read_bytes() == person
    assert _status(lab) == [" M Home.md"] and (lab / "Home.md").read_bytes() == home


def test_vocabulary_accept_over_vocabulary_md_edited_by_hand(lab: Path, cli: Cli) -> None:
    vocab = lab / "vocabulary.md"
    home = _other_edit(lab)
    count = int(git(lab, "rev-list", "--count", "HEAD"))
    assert cli("vocabulary", "accept", "rerun | redo").code == 0  # nothing edited by hand: one commit
    assert int(git(lab, "rev-list", "--count", "HEAD")) == count + 1
    assert _status(lab) == [" M Home.md"]
    person = _edit(vocab, "-->\n", "-->\n- organoid QC | organoid quality control\n")

    r = cli("vocabulary", "accept", "doublet | multiplet")
    assert r.code == 0, r.err
    _assert_hand_commit(lab, "vocabulary.md", person, "vocabulary: accept")
    tool_diff = [ln for ln in git(lab, "show", "--format=", "HEAD").splitlines() if ln[:1] in "+-"]
    added = [ln for ln in tool_diff if not ln.startswith(("+++", "---"))]
    assert len(added) == 1 and added[0].startswith("+- doublet | multiplet")
    assert int(git(lab, "rev-list", "--count", "HEAD")) == count + 3
    assert _status(lab) == [" M Home.md"] and (lab / "Home.md").read_bytes() == home


def test_a_file_created_by_hand_and_not_added_is_committed_as_the_persons(lab: Path, cli: Cli) -> None:
    # an entity note the person made by hand, untracked, then aliased: the person's file comes first
    note = lab / "entities/KEAP1.md"
    note.write_text("---\ntype: entity\nname: KEAP1\n---\n\nPat: the NRF2 repressor.\n", encoding="utf-8")
    person = note.read_bytes()
    r = cli("entity", "alias", "KEAP1", "INrf2")
    assert r.code == 0, r.err
    _assert_hand_commit(lab, "entities/KEAP1.md", person, "entity: alias")
    assert git(lab, "show", "--name-status", "--format=", "HEAD~1").split() == ["A", "entities/KEAP1.md"]
    assert _status(lab) == []


def test_log_shows_the_hand_edit_under_the_persons_name(lab: Path, cli: Cli) -> None:
    vocab = lab / "vocabulary.md"
    _edit(vocab, "-->\n", "-->\n- organoid QC | organoid quality control\n")
    assert cli("vocabulary", "accept", "doublet | multiplet").code == 0
    data = cli("log", "--json").json()
    assert data["authors"].get(PERSON[0]) == 1 or data["authors"].get(f"{PERSON[0]} <{PERSON[1]}>") == 1, data
    out = cli("log").out
    assert PERSON[0] in out


def _failing_git(tmp_path: Path, step: str) -> dict[str, str]:
    """An environment whose git fails at ``step`` (words of its arguments) and runs every other command."""
    shim, gate = gated_git(tmp_path, step, "reached")
    (gate / "open").touch()  # the gate is open: the step exits 1 at once
    return {"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}


def _run(vault: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "biocortex_cli", *args], capture_output=True, text=True,
                          env={**os.environ, "BIOCORTEX_VAULT": str(vault), **env}, check=False, timeout=120)


def test_a_write_that_fails_after_the_hand_edit_commit_loses_nothing(lab: Path, cli: Cli, tmp_path: Path) -> None:
    vocab = lab / "vocabulary.md"
    person = _edit(vocab, "-->\n", "-->\n- organoid QC | organoid quality control\n")
    home = _other_edit(lab)
    # the tool's own commit fails (its update-ref), after the hand edit's commit has landed
    env = _failing_git(tmp_path, "commit: vocabulary: accept")
    r = _run(lab, env, "vocabulary", "accept", "doublet | multiplet")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert _subjects(lab, 1)[0].startswith("hand: edit vocabulary.md")
    assert vocab.read_bytes() == person  # on disk as the person left it, and committed
    assert git(lab, "show", "HEAD:vocabulary.md").encode() == person
    assert _status(lab) == [" M Home.md"] and (lab / "Home.md").read_bytes() == home
    # the next write works and does not commit the hand edit twice
    assert cli("vocabulary", "accept", "doublet | multiplet").code == 0
    assert _subjects(lab, 2)[1].startswith("hand: edit vocabulary.md")
    assert _status(lab) == [" M Home.md"]


def test_a_write_that_fails_before_the_hand_edit_commit_changes_nothing(lab: Path, tmp_path: Path) -> None:
    vocab = lab / "vocabulary.md"
    person = _edit(vocab, "-->\n", "-->\n- organoid QC | organoid quality control\n")
    head = git(lab, "rev-parse", "HEAD")
    r = _run(lab, _failing_git(tmp_path, "commit: hand:"), "vocabulary", "accept", "doublet | multiplet")
    assert r.returncode == 1, r.stderr
    assert git(lab, "rev-parse", "HEAD") == head
    assert vocab.read_bytes() == person
    assert _status(lab) == [" M vocabulary.md"]


def test_a_write_killed_after_the_hand_edit_commit_is_undone_by_the_next(lab: Path, cli: Cli,
                                                                          tmp_path: Path) -> None:
    vocab = lab / "vocabulary.md"
    person = _edit(vocab, "-->\n", "-->\n- organoid QC | organoid quality control\n")
    shim, gate = gated_git(tmp_path, "commit: vocabulary: accept", "tool-commit")
    env = {**os.environ, "BIOCORTEX_VAULT": str(lab), "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", "vocabulary", "accept", "doublet | multiplet"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while not (gate / "tool-commit").exists():
            assert proc.poll() is None, proc.communicate()
        proc.kill()
        proc.wait()
    finally:
        (gate / "open").touch()
    assert _subjects(lab, 1)[0].startswith("hand: edit vocabulary.md")
    assert b"doublet | multiplet" in vocab.read_bytes()  # the killed write's change, not committed
    r = cli("vocabulary", "accept", "rerun | redo")  # the next write undoes it first
    assert r.code == 0, r.err
    assert "undid a write that was killed" in r.err
    subjects = _subjects(lab, 3)
    assert subjects[0].startswith("vocabulary: accept") and subjects[1].startswith("hand: edit vocabulary.md")
    assert git(lab, "show", "HEAD~1:vocabulary.md").encode() == person
    assert "doublet" not in git(lab, "show", "--format=", "HEAD") and _status(lab) == []


def test_line_endings_git_normalises_are_not_a_hand_edit(lab: Path, cli: Cli) -> None:
    # a guard of the check itself (holds before the change too): saved with Windows line ends, the
    # file is what HEAD holds once `* text eol=lf` applies, so no hand-edit commit is made
    vocab = lab / "vocabulary.md"
    vocab.write_bytes(vocab.read_bytes().replace(b"\n", b"\r\n"))
    count = int(git(lab, "rev-list", "--count", "HEAD"))
    assert cli("vocabulary", "accept", "doublet | multiplet").code == 0
    assert int(git(lab, "rev-list", "--count", "HEAD")) == count + 1
    assert _subjects(lab, 1)[0].startswith("vocabulary: accept")
