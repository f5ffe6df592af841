"""The vault as a PI reviews it, as `git log -p`: a write changes the lines it means to change and
no other (no re-folded text, no requoted values, no trailing spaces)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.conftest import Cli, git

LONG_PLAN = ("salmon 1.10 against GENCODE v44 (GRCh38) transcripts, tximport to gene level, DESeq2 with design"
             " ~ batch + genotype and apeglm shrinkage; 3 KO clones vs 3 parental replicates.")
LONG_LESSON = "Confirm the knockout at the transcript level (exon coverage) before interpreting downstream changes."


def changed_lines(root: Path, rev: str = "HEAD") -> list[str]:
    """The lines a commit removes or adds (``-…`` / ``+…``), file headers left out."""
    diff = git(root, "show", "--format=", "--unified=0", rev)
    return [line for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_a_second_source_changes_only_the_lines_of_the_new_evidence(vault: Path, cli: Cli) -> None:
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905", "--confidence", "0.9").code == 0
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1614537").code == 0
    changed = changed_lines(vault)
    # the first evidence item's `added:` stays as it was written ('…'), not requoted ("…")
    assert not [line for line in changed if line.startswith("-")
                and "added:" not in line and "confidence" not in line and "[!info]" not in line], changed
    assert not [line for line in changed if line.startswith("-  added:")], changed
    assert all("\"" not in line for line in changed if line.startswith("+") and ":" in line
               and not line.startswith("+-")), changed  # quoted as new notes are: '2026-…'


def test_an_entity_merge_touches_only_the_entity_lines_of_an_episode(vault: Path, cli: Cli) -> None:
    episode = {"task": "What changes when KEAP1 is knocked out in NCI-H1299 cells?", "plan": LONG_PLAN,
               "result": "NFE2L2 targets NQO1 (LFC 4.2), AKR1C1 and GCLM strongly up; an NRF2 signature rose.",
               "lessons": [LONG_LESSON], "entities": ["KEAP1", "NFE2L2", "NRF2"], "success": True}
    assert cli("episode", "add", "--from-json", "-", stdin=json.dumps(episode)).code == 0
    assert cli("entity", "merge", "NFE2L2", "NRF2").code == 0
    (rel,) = git(vault, "show", "--format=", "--name-only", "HEAD", "--", "episodes").split()
    diff = git(vault, "show", "--format=", "--unified=0", "HEAD", "--", rel)
    removed = [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert removed and all("NRF2" in line for line in removed), diff  # plan, result, lessons untouched
    text = (vault / rel).read_text(encoding="utf-8")
    entities_line = next(line for line in text.splitlines() if line.startswith("[[KEAP1]]"))
    assert entities_line.count("[[NFE2L2]]") == 1 and "NRF2" not in entities_line, entities_line


def test_no_note_has_trailing_spaces_after_edits(vault: Path, cli: Cli) -> None:
    episode = {"task": "KEAP1 knockout", "plan": LONG_PLAN, "lessons": [LONG_LESSON],
               "entities": ["KEAP1", "NRF2"]}
    assert cli("episode", "add", "--from-json", "-", stdin=json.dumps(episode)).code == 0
    assert cli("fact", "add", "NRF2", "regulates", "HMOX1", "--source", "PMID:9887101").code == 0
    assert cli("entity", "merge", "NFE2L2", "NRF2").code == 0
    assert cli("entity", "alias", "NFE2L2", "Nrf-2").code == 0
    files = [rel for rel in git(vault, "ls-files", "-z", "*.md").split("\0")
             if rel and not rel.startswith("templates/")]
    trailing = [f"{rel}:{n}" for rel in files
                for n, line in enumerate((vault / rel).read_text(encoding="utf-8").splitlines(), 1)
                if re.search(r"[ \t]$", line)]
    assert not trailing, trailing


SUBJECT = re.compile(r"(?P<kind>[a-z]+): (?P<verb>[a-z]+) (?P<id>\S.*?) — (?P<summary>\S.*)")


def test_every_write_is_one_reviewable_commit(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """Each write command: exactly one commit, by the configured author, with a subject
    `<kind>: <verb> <id> — <summary>`, a clean work tree after it, and nothing derived committed."""
    git(vault, "config", "user.name", "Dana Okafor")
    git(vault, "config", "user.email", "dokafor@lab.example")
    table = tmp_path / "regulation.tsv"
    table.write_text("TF\tTarget\tMode\nTP53\tCDKN1A\tActivation\n")
    sample = (Path(__file__).resolve().parents[1] / "examples/sample_episodes.jsonl").read_text().splitlines()
    writes: list[tuple[str, ...]] = [
        ("episode", "import", "-"),
        ("episode", "add", "--task", "GO enrichment of TP53 targets", "--lesson", "Use an expressed background.",
         "--failure", "--quality", "0.1", "--entity", "GO:0008150", "--no-suggest"),
        ("episode", "add", "--task", "GO enrichment again", "--lesson", "Use an expressed background.",
         "--success", "--entity", "KRAS G12C", "--no-suggest"),
        ("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905"),
        ("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1614537"),
        ("fact", "add", "TP53", "inhibits", "MDM2", "--source", "agent:draft"),
        ("fact", "retract", "<last>", "--reason", "wrong direction"),
        ("entity", "alias", "TP53", "p53"),
        ("fact", "add", "NRF2", "regulates", "HMOX1", "--source", "PMID:9887101"),
        ("entity", "merge", "NFE2L2", "NRF2"),
        ("lessons", "promote", "Use an expressed background."),
        ("feedback", "<recall>", "--outcome", "success"),
        ("forget", "--quality-below", "0.2"),
        ("restore", "<archived>"),
        ("dataset", "add", str(table), "--name", "regsample", "--version", "1", "--licence", "CC BY 4.0",
         "--map", "subject=TF", "--map", "object=Target", "--map", "predicate=Mode",
         "--predicate-map", "Activation=activates"),
        ("vocabulary", "accept", "doublet | multiplet"),
    ]
    last = ""
    for args in writes:
        before = git(vault, "rev-parse", "HEAD").strip()
        if "<last>" in args:
            args = tuple(last if a == "<last>" else a for a in args)
        if "<recall>" in args:
            recall_id = cli("recall", "GO enrichment", "--json").json()["recall_id"]
            args = tuple(recall_id if a == "<recall>" else a for a in args)
        if "<archived>" in args:
            archived = sorted(p.stem for p in (vault / "archive").rglob("*.md") if p.name != "README.md")
            args = tuple(archived[0] if a == "<archived>" else a for a in args)
        result = cli(*args, stdin="\n".join(sample[:5]) if args[-1] == "-" else None)
        assert result.code == 0, (args, result.err)
        last = result.out.strip()
        commits = git(vault, "rev-list", f"{before}..HEAD").split()
        assert len(commits) == 1, (args, commits)
        subject, author = git(vault, "log", "-1", "--format=%s%n%an <%ae>").splitlines()
        assert SUBJECT.fullmatch(subject), (args, subject)
        assert author == "Dana Okafor <dokafor@lab.example>", (args, author)
        assert git(vault, "status", "--porcelain") == "", (args, git(vault, "status", "--porcelain"))
    tracked = [f for f in git(vault, "ls-files", "-z").split("\0") if f]
    assert not [f for f in tracked if f.startswith(".biocortex/") and f != ".biocortex/config.yaml"], tracked
    crlf = [f for f in tracked if b"\r\n" in (vault / f).read_bytes()]
    assert not crlf, crlf


def test_text_with_line_breaks_renders_a_body_git_stores_as_written(vault: Path, cli: Cli) -> None:
    """A task, result or lesson pasted with Windows line ends, a line break or trailing spaces:
    the record keeps it exactly, the body a person reads has one-line title and lessons, LF line
    ends and no trailing spaces, so what git stores (`*.md text eol=lf`) is the file as written."""
    episode = {"task": "QC of the PBMC run\r\nsecond line", "result": "line one\r\nline two  \r\n",
               "lessons": ["Check the doublet rate\nper sample  "], "provenance": {"notebook": "qc.ipynb\r\n"}}
    ident = cli("episode", "add", "--from-json", "-", "--no-suggest", stdin=json.dumps(episode)).out.strip()
    (path,) = (vault / "episodes").rglob(f"{ident}.md")
    raw = path.read_bytes()
    rel = path.relative_to(vault).as_posix()
    assert b"\r" not in raw
    assert subprocess.run(["git", "-C", str(vault), "show", f"HEAD:{rel}"], capture_output=True,
                          check=True).stdout == raw
    body = raw.decode().split("\n---\n", 1)[1]
    assert body.startswith("# QC of the PBMC run second line\n")
    assert "\n- Check the doublet rate per sample\n" in body and "\nline one\nline two\n" in body
    assert not [line for line in raw.decode().splitlines() if line != line.rstrip()]
    shown = cli("episode", "show", ident, "--json").json()
    assert (shown["task"], shown["result"], shown["lessons"]) == (episode["task"], episode["result"],
                                                                  episode["lessons"])


def test_a_lesson_note_cuts_a_long_task_at_a_word(vault: Path, cli: Cli) -> None:
    task = ("GO enrichment of the TP53 targets with a long description of exactly what we did so that "
            "the line goes well beyond one hundred characters")
    for n in range(2):
        episode = {"task": f"{task} {n}", "lessons": ["Use a background of expressed genes\nfor GO enrichment."]}
        assert cli("episode", "add", "--from-json", "-", "--no-suggest", stdin=json.dumps(episode)).code == 0
    assert cli("lessons", "promote", "Use a background of expressed genes for GO enrichment.").code == 0
    (note,) = (vault / "lessons").glob("lesson-*.md")
    lines = note.read_text(encoding="utf-8").splitlines()
    evidence = [line for line in lines if line.startswith("- [[")]
    assert evidence and all(line.endswith("so that the line… (outcome unknown)")
                            for line in evidence), evidence
    assert "- Use a background of expressed genes for GO enrichment." in lines


def test_an_alias_added_to_a_hand_edited_entity_note_changes_one_line(vault: Path, cli: Cli) -> None:
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1").code == 0
    note = vault / "entities/TP53.md"
    text = note.read_text(encoding="utf-8")
    hand = text.replace("kind: gene\n", "kind: gene   # checked by Ada\n"
                        "description: Tumour suppressor p53, the guardian of the genome; mutated in about half of"
                        " all human cancers and in Li-Fraumeni\n  syndrome.\n")
    note.write_text(hand, encoding="utf-8")
    git(vault, "-c", "user.name=Ada", "-c", "user.email=ada@lab.example", "commit", "-qam", "edit TP53 by hand")
    assert cli("entity", "alias", "TP53", "p53").code == 0
    assert changed_lines(vault) == ["+- p53"]
