"""``forget`` moves episodes to archive/ and ``restore`` brings them back; nothing is deleted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli, git

QUERY = "doublet detection pbmc"
EPISODES = [
    {"id": "old-fail", "task": "Doublet detection on PBMC with a fixed threshold", "success": False,
     "quality": 0.2, "created": "2023-02-01T00:00:00Z"},
    {"id": "old-good", "task": "Doublet detection on PBMC per sample", "success": True, "quality": 0.9,
     "created": "2023-03-01T00:00:00Z"},
    {"id": "new-fail", "task": "Doublet detection on PBMC after merging", "success": False, "quality": 0.3,
     "created": "2026-10-01T00:00:00Z"},
    {"id": "other", "task": "Variant calling on exomes with GATK", "created": "2022-01-01T00:00:00Z"},
]


@pytest.fixture
def memory(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    def build() -> None:
        r = cli("episode", "import", "-", stdin="".join(json.dumps(e) + "\n" for e in EPISODES))
        assert r.code == 0, r.err

    return built_vaults.get("forget-memory", vault, build)


def notes(root: Path) -> set[str]:
    return {p.name for p in root.rglob("*.md") if p.name != "README.md" and ".biocortex" not in p.parts}


def ids(cli: Cli, *args: str) -> list[str]:
    r = cli("recall", QUERY, "--json", *args)
    assert r.code == 0, r.err
    return [h["id"] for h in r.json()["results"]]


def test_forget_without_criteria_refuses(memory: Path, cli: Cli) -> None:
    head = git(memory, "rev-parse", "HEAD")
    r = cli("forget")
    assert r.code == 2 and "at least one criterion" in r.err and "--older-than" in r.err
    assert cli("forget", "--older-than", "last spring").code == 2
    assert git(memory, "rev-parse", "HEAD") == head


def test_dry_run_lists_and_changes_nothing(memory: Path, cli: Cli) -> None:
    head = git(memory, "rev-parse", "HEAD")
    r = cli("forget", "--older-than", "2024-01-01", "--failed", "--dry-run", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["dry_run"] is True and [e["id"] for e in data["episodes"]] == ["old-fail"]
    assert data["episodes"][0]["to"] == "archive/episodes/2023/02/old-fail.md"
    assert data["episodes"][0]["reasons"] == ["created 2023-02-01, before 2024-01-01", "failed"]
    assert git(memory, "rev-parse", "HEAD") == head and (memory / "episodes/2023/02/old-fail.md").is_file()


def test_forget_archives_in_one_commit_and_restore_brings_back(memory: Path, cli: Cli) -> None:
    before = notes(memory)
    assert sorted(ids(cli)) == ["new-fail", "old-fail", "old-good"]
    r = cli("forget", "--older-than", "365d", "--quality-below", "0.5")
    assert r.code == 0, r.err
    cut = r.out.split("before ")[1].split(";")[0]  # a year ago today
    assert r.out == f"old-fail\tcreated 2023-02-01, before {cut}; quality 0.20 < 0.5\n"
    assert not (memory / "episodes/2023/02/old-fail.md").exists()
    assert (memory / "archive/episodes/2023/02/old-fail.md").is_file()
    message = git(memory, "log", "-1", "--format=%B")
    assert message.startswith("forget: archive 1 episode — older than 365d, quality below 0.5\n\n- old-fail: created")
    changed = git(memory, "show", "--name-status", "--format=", "HEAD").split("\n")
    assert sorted(line.split("\t")[0][0] for line in changed if line) in (["R"], ["A", "D"])
    assert notes(memory) == before  # moved, not deleted
    assert sorted(ids(cli)) == ["new-fail", "old-good"]
    assert sorted(ids(cli, "--include-archived")) == ["new-fail", "old-fail", "old-good"]
    shown = cli("episode", "show", "old-fail", "--json")
    assert shown.code == 0 and shown.json()["path"] == "archive/episodes/2023/02/old-fail.md"

    back = cli("restore", "old-fail")
    assert back.code == 0 and back.out == "episodes/2023/02/old-fail.md\n"
    assert git(memory, "log", "-1", "--format=%s") == "episode: restore old-fail — back from the archive\n"
    assert sorted(ids(cli)) == ["new-fail", "old-fail", "old-good"] and notes(memory) == before


def test_a_recall_that_only_archived_memory_answers_says_so(memory: Path, cli: Cli) -> None:
    # forgotten is not absent: an agent must not read the miss as "the lab never did this"
    assert cli("forget", "--older-than", "365d", "--quality-below", "0.5").code == 0  # archives old-fail
    r = cli("recall", "fixed threshold")
    assert r.code == 0 and r.out == ""
    assert "1 archived (forgotten) episode does: add --include-archived" in r.err
    # an agent over MCP sees no stderr: the reason is in the JSON too
    data = cli("recall", "fixed threshold", "--json").json()
    assert data["results"] == [] and "add --include-archived" in data["reason"]
    assert [h["id"] for h in cli("recall", "fixed threshold", "--include-archived", "--json").json()["results"]] == [
        "old-fail"]
    quiet = cli("recall", "fixed threshold", "--success-only")  # the archived one failed: no hint
    assert quiet.code == 0 and "archived" not in quiet.err
    assert "archived" not in cli("recall", "GATK exomes").err  # answered from current memory
    assert "reason" not in cli("recall", "GATK exomes", "--json").json()  # only when nothing is given


def test_criteria_combine_with_and(memory: Path, cli: Cli) -> None:
    failed = cli("forget", "--failed", "--dry-run", "--json").json()
    assert [e["id"] for e in failed["episodes"]] == ["old-fail", "new-fail"]
    both = cli("forget", "--failed", "--quality-below", "0.25", "--dry-run", "--json").json()
    assert [e["id"] for e in both["episodes"]] == ["old-fail"]
    none = cli("forget", "--older-than", "2000-01-01", "--failed")
    assert none.code == 0 and none.out == "" and "archived 0 episodes" in none.err


def test_forget_by_utility(memory: Path, cli: Cli) -> None:
    rid = cli("recall", QUERY, "--json").json()["recall_id"]
    for n in range(3):
        r = cli("feedback", rid, "--outcome", "failure", "--unhelpful", "new-fail", "--note", str(n))
        assert r.code == 0, r.err
    data = cli("forget", "--utility-below", "0.4", "--json").json()
    assert [e["id"] for e in data["episodes"]] == ["new-fail"] and data["dry_run"] is False
    assert data["episodes"][0]["reasons"][0].startswith("utility 0.")
    assert (memory / "archive/episodes/2026/10/new-fail.md").is_file()
    # injected into failed runs: a small debit; never recalled ("other"): 0.5, not below 0.5
    listed = cli("forget", "--utility-below", "0.5", "--dry-run", "--json").json()["episodes"]
    assert [e["id"] for e in listed] == ["old-fail", "old-good"]


def test_restore_refuses_what_is_not_archived(memory: Path, cli: Cli) -> None:
    live = cli("restore", "old-good")
    assert live.code == 1 and "not archived" in live.err
    missing = cli("restore", "no-such-id")
    assert missing.code == 1 and "no-such-id" in missing.err


@pytest.mark.parametrize("age", ["99999y", "999999999d", "9" * 5000 + "w"])
def test_an_age_beyond_the_calendar_is_a_usage_error(memory: Path, cli: Cli, age: str) -> None:
    head = git(memory, "rev-parse", "HEAD")
    r = cli("forget", "--older-than", age, "--dry-run")
    assert r.code == 2 and "before the year 1" in r.err and "Traceback" not in r.err
    assert git(memory, "rev-parse", "HEAD") == head
    assert cli("forget", "--older-than", "100y", "--dry-run").code == 0  # long but on the calendar
