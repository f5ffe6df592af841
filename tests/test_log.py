"""`biocortex log`: what changed in memory, as a digest for a reviewer."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli, git

LESSON = """---
id: call-doublets-per-sample
type: lesson
created: 2026-11-23T10:00:00Z
author: Ada <ada@lab.example>
lesson: Call doublets per sample before merging.
---
# Call doublets per sample before merging
"""


def commit_all(root: Path, message: str, who: str = "Ada") -> None:
    git(root, "add", "-A")
    git(root, "-c", f"user.name={who}", "-c", f"user.email={who.lower()}@lab.example", "commit", "-qm", message)


def test_log_groups_what_changed_by_kind(vault: Path, cli: Cli) -> None:
    start = git(vault, "rev-parse", "HEAD").strip()
    ok = cli("--author", "Ada <ada@lab.example>", "episode", "add", "--task", "Doublet removal in PBMC",
             "--result", "9% removed", "--success", "--quality", "0.9")
    failed = cli("--author", "Bob <bob@lab.example>", "episode", "add", "--task", "Batch correction with ComBat",
                 "--result", "over-corrected", "--failure", "--quality", "0.2")
    old_fact = cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:1", "--json").json()["id"]
    contra = cli("fact", "add", "TP53", "inhibits", "CDKN1A", "--source", "PMID:2", "--json").json()["id"]
    wrong = cli("fact", "add", "MYC", "regulates", "TERT", "--source", "PMID:3", "--json").json()["id"]
    assert cli("fact", "retract", wrong, "--reason", "misread the abstract").code == 0
    (vault / "lessons" / "call-doublets-per-sample.md").write_text(LESSON)
    commit_all(vault, "lesson: promote call-doublets-per-sample — from 3 episodes")
    for i in range(3):  # an agent reports three outcomes, naming memories directly
        fb = cli("--author", "agent-7 <agent-7@lab.example>", "feedback", "r0123456789",
                 "--outcome", "success" if i != 1 else "failure", "--helpful", ok.out.strip(), "--note", f"run {i}")
        assert fb.code == 0, fb.err

    result = cli("log", "--since", start, "--json")
    assert result.code == 0, result.err
    d = result.json()
    assert d["from"] == start and d["commits"] == 10
    assert {(e["id"], e["success"]) for e in d["episodes"]} == {(ok.out.strip(), True), (failed.out.strip(), False)}
    assert {f["id"] for f in d["facts"]} == {old_fact, contra, wrong}
    assert [(f["id"], f["status"], f["why"]) for f in d["retracted"]] == [(wrong, "retracted", "misread the abstract")]
    assert [sorted((c["fact"], c["other"])) for c in d["contradictions"]] == [sorted((old_fact, contra))]
    assert [(x["id"], x["text"]) for x in d["lessons"]] == [("call-doublets-per-sample",
                                                             "Call doublets per sample before merging.")]
    assert d["feedback"] == {"agent-7": 3}
    assert d["counts"]["episodes"] == {"added": 2, "modified": 0, "removed": 0}
    assert d["counts"]["facts"] == {"added": 3, "modified": 0, "removed": 0}  # retracted within the range
    assert [c["kind"] for c in d["log"]] == ["episode", "episode", "fact", "fact", "fact", "fact", "lesson",
                                             "feedback", "feedback", "feedback"]

    text = cli("log", "--since", start)
    assert text.code == 0 and text.err == ""
    out = text.out
    assert "New episodes (2)" in out and "Doublet removal in PBMC (success · quality 0.9 · Ada" in out
    assert "Batch correction with ComBat (failure · quality 0.2 · Bob" in out
    assert "Retracted or superseded facts (1)" in out and "MYC regulates TERT" in out
    assert "Contradictions to resolve (1)" in out and "Promoted lessons (1)" in out
    assert "Feedback entries (3)\n- agent-7: 3" in out
    # retracting an older fact later shows up as a retraction, not a new fact
    later = git(vault, "rev-parse", "HEAD").strip()
    assert cli("fact", "retract", contra, "--reason", "wrong direction").code == 0
    d2 = cli("log", "--since", later, "--json").json()
    assert d2["facts"] == [] and [f["id"] for f in d2["retracted"]] == [contra] and d2["contradictions"] == []


def test_archive_and_restore_are_reported(vault: Path, cli: Cli) -> None:
    ident = cli("episode", "add", "--task", "An old analysis", "--result", "r", "--success").out.strip()
    rel = next(p for p in (vault / "episodes").rglob(f"{ident}.md")).relative_to(vault).as_posix()
    start = git(vault, "rev-parse", "HEAD").strip()
    (vault / "archive/episodes").mkdir(parents=True)
    git(vault, "mv", rel, f"archive/episodes/{ident}.md")
    commit_all(vault, f"forget: archive 1 episodes — {ident}")
    d = cli("log", "--since", start, "--json").json()
    assert d["archived"] == [ident] and d["restored"] == [] and d["episodes"] == []
    mid = git(vault, "rev-parse", "HEAD").strip()
    git(vault, "mv", f"archive/episodes/{ident}.md", rel)
    commit_all(vault, f"episode: restore {ident} — back from the archive")
    d = cli("log", "--since", mid, "--json").json()
    assert d["restored"] == [ident] and d["episodes"] == [] and d["archived"] == []


def test_since_forms(vault: Path, cli: Cli) -> None:
    cli("episode", "add", "--task", "Something recent", "--result", "r", "--success")
    week = cli("log", "--json").json()  # default: the last 7 days, which holds the whole vault
    assert week["from"] is None and len(week["episodes"]) == 1
    commits = f"{week['commits']} commit{'' if week['commits'] == 1 else 's'}"
    head = f"## Memory changes since the first commit, up to {week['to'][:7]} — {commits}\n"
    assert cli("log").out.startswith(head)  # was "## Memory changes the start..e4f5a6b" (install trial)
    assert cli("log", "--since", "2000-01-01", "--json").json()["commits"] == week["commits"]
    future = cli("log", "--since", "2999-01-01")
    assert future.code == 0 and "Nothing new." in future.out
    bad = cli("log", "--since", "last tuesday")
    assert bad.code == 2 and "or a commit, not 'last tuesday'" in bad.err and "--since 7d" in bad.err
    assert cli("log", "--since", "0001-01-01", "--json").json()["commits"] == week["commits"]  # from the start
    for ages in ("1000000d", "99999999w", "9999999999999999999999h"):  # the one grammar: off the calendar
        beyond = cli("log", "--since", ages)
        assert beyond.code == 2 and "before the year 1" in beyond.err
    assert cli("log", "--since", "HEAD..HEAD~1").code == 2  # a range is not one commit


def test_text_digest_reads_only_what_it_shows(vault: Path, cli: Cli) -> None:
    from biocortex_cli.ops.history import digest
    from biocortex_cli.render import history as render
    from biocortex_cli.store.vault import Vault

    start = git(vault, "rev-parse", "HEAD").strip()
    lines = "".join(json.dumps({"task": f"Analysis {i} of liver proteomics", "result": "r", "success": True}) + "\n"
                    for i in range(render.SHOWN + 3))
    assert cli("episode", "import", "-", stdin=lines).code == 0
    short = digest(Vault(vault), start, limit=2)
    assert len(short.episodes) == 2 and short.totals["episodes"] == render.SHOWN + 3
    text = cli("log", "--since", start).out
    assert f"New episodes ({render.SHOWN + 3})" in text and "- … and 3 more (--json lists them all)" in text
    assert len(cli("log", "--since", start, "--json").json()["episodes"]) == render.SHOWN + 3


def test_a_reviewer_sees_feedback_retractions_and_vocabulary_changes(vault: Path, cli: Cli) -> None:
    """PI trial: 31 feedback entries by one agent printed "… and 11 more" under a one-line list;
    vocabulary groups the agent accepted were not in the digest at all; retractions looked like votes."""
    ok = cli("episode", "add", "--task", "Doublet removal in PBMC", "--success").out.strip()
    start = git(vault, "rev-parse", "HEAD").strip()
    lines = [json.dumps({"recall_id": f"r{i:012d}", "outcome": "success", "helpful": [ok], "injected": [],
                         "query": "doublets", "note": "", "author": "Lab Agent <agent@lab.example>",
                         "created": f"2026-11-20T10:{i:02d}:00Z"}) for i in range(25)]
    (vault / "feedback/2026/11").mkdir(parents=True)
    (vault / "feedback/2026/11/2026-11-20.agent-lab.example.jsonl").write_text("\n".join(lines) + "\n")
    commit_all(vault, "feedback: record 25 votes")
    undo = cli("--author", "PI <pi@lab.example>", "feedback", "r000000000003", "--retract", "--note", "wrong")
    assert undo.code == 0, undo.err
    assert cli("vocabulary", "accept", "doublet | multiplet", "rerun | redo").code == 0
    vocab = (vault / "vocabulary.md").read_text()
    (vault / "vocabulary.md").write_text(vocab.replace("- rerun | redo  # accepted\n", ""))
    commit_all(vault, "vocabulary: remove rerun | redo")

    d = cli("log", "--since", start, "--json").json()
    assert d["feedback"] == {"Lab Agent": 25, "PI": 1} and d["feedback_retractions"] == {"PI": 1}
    assert d["vocabulary"] == {"added": ["doublet | multiplet  # accepted"], "removed": []}
    since_accept = git(vault, "rev-parse", "HEAD~1").strip()
    assert cli("log", "--since", since_accept, "--json").json()["vocabulary"] == {
        "added": [], "removed": ["rerun | redo  # accepted"]}
    out = cli("log", "--since", start).out
    assert "Feedback entries (26)\n- Lab Agent: 25\n- PI: 1 (1 retracting earlier feedback)\n\n" in out
    assert "more (--json" not in out
    assert "Vocabulary groups (1)\n- added: doublet | multiplet  # accepted\n" in out
