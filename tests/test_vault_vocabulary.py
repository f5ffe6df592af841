"""The vault's vocabulary note (store/vocabulary.py): parsing, check, the compiled cache, refusals."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli, git

from biocortex_cli.store.vocabulary import VOCABULARY_REL, cycles, local_vocabulary, parse

NOTE = """---
type: vocabulary
---
# Vocabulary

Prose | with a pipe is not a group.

- doublet | multiplet   # the same thing
- cardiotoxic | QT prolongation -> hERG
- [[KCNH2]] | Kv11.1
- resistant | resistance
- T cell | T lymphocyte
- single cell RNA sequencing data | scRNA-seq
- a || b
- x -> y -> z
- alone
<!-- an example, not used:
- foo | bar
-->
```
- code | block
```
- normalise | normalize
"""


def test_every_list_item_is_a_group_and_a_bad_line_is_left_out_with_its_line() -> None:
    parsed = parse(NOTE)
    assert [(g.line, g.keys, g.targets) for g in parsed.groups] == [
        (8, ("doublet", "multiplet"), ()),
        (9, ("cardiotoxic", "QT prolongation"), ("hERG",)),
        (10, ("KCNH2", "Kv11.1"), ()),  # a wikilink counts as its name
        (23, ("normalise", "normalize"), ()),
    ]
    assert parsed.groups[0].comment == "the same thing"
    problems = {p.line: p.message for p in parsed.problems}
    assert sorted(problems) == [11, 12, 13, 14, 15, 16]
    assert "already one term to recall" in problems[11]  # resistant/resistance: the stemmer joins them
    assert "loses a stop word" in problems[12]  # "T cell" would be "cell"
    assert "5 words once tokenised" in problems[13]
    assert "more than one '->'" in problems[15]
    assert "not a group" in problems[16]
    assert all(p.path == VOCABULARY_REL and p.hint for p in parsed.problems)


def test_a_cycle_of_one_way_entries_is_reported_with_the_group_to_write() -> None:
    parsed = parse("- qc -> quality control\n- doublet | multiplet\n- quality control -> qc\n")
    [problem] = cycles(parsed)
    assert problem.line == 3
    assert "cycle" in problem.message and "qc -> quality control (line 1) -> qc (line 3)" in problem.message
    assert problem.hint == "write them as one group: qc | quality control"
    assert len(parsed.groups) == 3  # each entry is still valid alone, and used


def test_check_reports_the_note_as_path_line_and_uses_the_rest(vault: Path, cli: Cli) -> None:
    (vault / VOCABULARY_REL).write_text("- doublet | multiplet\n- T cell | T lymphocyte\n- a -> b -> c\n")
    r = cli("check")
    assert r.code == 1
    assert "vocabulary.md:2: 'T cell' loses a stop word" in r.out
    assert "vocabulary.md:3: more than one '->'" in r.out
    r = cli("check", "--json")
    lines = {p["line"] for p in r.json()["problems"] if p["path"] == VOCABULARY_REL}
    assert lines == {2, 3}
    assert all(p["hint"] for p in r.json()["problems"])


def test_the_template_note_is_valid_and_its_examples_are_not_used(vault: Path, cli: Cli) -> None:
    text = (vault / VOCABULARY_REL).read_text()
    assert "organoid QC | organoid quality control" in text  # the commented example
    assert parse(text) == parse("")
    assert cli("check").code == 0
    assert local_vocabulary(vault) is None  # nothing to open on recall's path
    assert local_vocabulary(vault) is None and len(list((vault / ".biocortex" / "tmp").glob("vocabulary-*"))) == 1


def test_a_group_of_two_separate_entity_notes_is_refused_with_a_hint_to_merge(vault: Path, cli: Cli) -> None:
    assert cli("entity", "alias", "NFE2L2", "Nrf2 protein").code == 0
    assert cli("entity", "alias", "NRF2", "nuclear respiratory factor").code == 0
    (vault / VOCABULARY_REL).write_text("- NRF2 | NFE2L2\n- Nrf2 protein | NFE2L2 protein\n")
    r = cli("check", "--json")
    [problem] = [p for p in r.json()["problems"] if p["path"] == VOCABULARY_REL]
    assert problem["line"] == 1
    assert "'NFE2L2' and 'NRF2' are separate entities (entities/NFE2L2.md, entities/NRF2.md)" in problem["message"]
    assert "biocortex entity merge NFE2L2 NRF2" in problem["hint"]
    # recall does not use the refused group, and says why in --explain
    local = local_vocabulary(vault)
    assert local is not None and local.refuses is not None
    assert "separate entities" in (local.refuses(["NRF2", "NFE2L2"]) or "")
    assert local.refuses(["Nrf2 protein", "NFE2L2 protein"]) is None
    cli("episode", "add", "--task", "ChIP-seq of NFE2L2 targets in A549 cells")
    r = cli("recall", "NRF2 targets", "--json", "--explain", "--min-relevance", "0")
    explain = r.json()["explain"]
    assert not [s for s in explain["synonyms"] if s["synonym"] == "nfe2l2"]
    [refused] = [w for w in explain["withheld_terms"] if w["reason"].startswith("refused")]
    assert refused["term"] == "nrf2" and "vocabulary.md:1" in refused["reason"]


def test_the_compiled_form_follows_the_note_and_is_git_ignored(vault: Path, cli: Cli) -> None:
    note = vault / VOCABULARY_REL
    note.write_text("- doublet | multiplet\n")
    first = local_vocabulary(vault)
    assert first is not None and Path(first.path).parent == vault / ".biocortex" / "tmp"
    again = local_vocabulary(vault)
    assert again is not None and again.path == first.path  # compiled once per content
    note.write_text("- doublet | multiplet | heterotypic doublet\n")
    second = local_vocabulary(vault)
    assert second is not None and second.path != first.path
    assert not Path(first.path).exists()  # the older compiled form is removed
    assert git(vault, "status", "--porcelain", "--", ".biocortex") == ""
    note.unlink()
    assert local_vocabulary(vault) is None


def test_a_malformed_note_warns_once_when_compiled(vault: Path, cli: Cli) -> None:
    (vault / VOCABULARY_REL).write_text("- doublet | multiplet\n- alone\n")
    cli("episode", "add", "--task", "Remove doublets from organoid scRNA-seq")
    r = cli("recall", "multiplets in organoids")
    assert "vocabulary.md:2: 'alone' alone is not a group" in r.err and "biocortex check" in r.err
    assert "doublet" in r.out.lower()
    again = cli("recall", "multiplets in organoids")
    assert "vocabulary.md" not in again.err  # compiled once: said once


def test_a_ten_thousand_line_vocabulary_works(vault: Path, cli: Cli) -> None:
    lines = [f"- zzterm{i} | zzsyn{i} | zzother{i}" for i in range(10_000)]
    lines[5000] = "- organoid dissociation | tissue dissociation"
    (vault / VOCABULARY_REL).write_text("# Vocabulary\n\n" + "\n".join(lines) + "\n")
    cli("episode", "add", "--task", "Tissue dissociation of kidney organoids before 10x capture")
    cli("episode", "add", "--task", "Bulk RNA-seq of liver biopsies")
    r = cli("recall", "organoid dissociation protocol", "--json", "--explain")
    assert r.code == 0, r.err
    data = r.json()
    assert [s["synonym"] for s in data["explain"]["synonyms"]] == ["tissu dissoci"]
    assert data["results"][0]["task"].startswith("Tissue dissociation")
    assert cli("check").code == 0


def test_groups_accepted_in_two_clones_merge_without_conflict(vault: Path, cli: Cli, tmp_path: Path) -> None:
    remote, other = tmp_path / "remote.git", tmp_path / "other"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(vault, "remote", "add", "origin", str(remote))
    assert cli("sync").code == 0
    git(tmp_path, "clone", "-q", str(remote), str(other))
    assert cli("vocabulary", "accept", "doublet | multiplet").code == 0
    assert cli("--vault", other, "vocabulary", "accept", "hERG | Kv11.1").code == 0
    assert cli("sync").code == 0
    r = cli("--vault", other, "sync")
    assert r.code == 0, r.err
    groups = [g.text() for g in parse((other / VOCABULARY_REL).read_text()).groups]
    assert sorted(groups) == ["doublet | multiplet  # accepted", "hERG | Kv11.1  # accepted"]


def test_a_bad_accepted_group_is_removed_in_one_commit(vault: Path, cli: Cli) -> None:
    """User trial: `git revert` of an accept that is not the last commit on vocabulary.md does
    nothing (merge=union keeps the line), so a bad group could only be deleted by hand."""
    assert cli("vocabulary", "accept", "multiplet | seq").code == 0
    assert cli("vocabulary", "accept", "rerun | redo").code == 0
    head = git(vault, "rev-parse", "HEAD").strip()
    missing = cli("vocabulary", "remove", "doublet | singlet", "--json")
    assert missing.code == 1 and "not a group of vocabulary.md" in missing.err_json()["error"]["message"]
    assert git(vault, "rev-parse", "HEAD").strip() == head  # nothing written
    r = cli("vocabulary", "remove", "seq | multiplet", "--json")  # the terms in any order, no comment
    assert r.code == 0, r.err
    assert [g["group"] for g in r.json()["removed"]] == ["multiplet | seq  # accepted"]
    assert git(vault, "log", "-1", "--format=%s") == "vocabulary: remove vocabulary.md — multiplet | seq\n"
    assert git(vault, "show", "--stat", "--format=", "HEAD").split()[0] == VOCABULARY_REL
    groups = [g.text() for g in parse((vault / VOCABULARY_REL).read_text()).groups]
    assert groups == ["rerun | redo  # accepted"]
    shown = cli("vocabulary", "show", "multiplet removal", "--json").json()
    assert "seq" not in [s["synonym"] for s in shown["synonyms"]]
    assert cli("check").code == 0


def test_check_names_conflict_markers_in_the_vocabulary_note(vault: Path, cli: Cli) -> None:
    """Sync trial: a vocabulary note committed as git left an unmerged conflict passed `check`
    (both sides' lines read as groups); sync refused to push it, check said nothing."""
    note = vault / "vocabulary.md"
    lines = note.read_text(encoding="utf-8").splitlines()
    start = len(lines) + 1
    note.write_text("\n".join([*lines, "<<<<<<< HEAD", "- doublet | multiplet", "=======",
                               "- doublet | heterotypic doublet", ">>>>>>> 1a2b3c4 (vocabulary)"]) + "\n",
                    encoding="utf-8")
    r = cli("check")
    assert r.code == 1 and f"vocabulary.md:{start}: a git conflict marker" in r.out + r.err, r.out + r.err

