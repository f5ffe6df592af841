"""Episodes: add, import, show, list on a real vault with real git."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Cli, git

FULL = {
    "id": "2026-03-14-multiome-doublets",
    "created": "2026-03-14T16:20:00Z",
    "author": "Dana Okafor <dokafor@lab.example>",
    "task": "Remove doublets from 10x Multiome PBMC data before joint clustering",
    "plan": "scDblFinder per sample (dbr=0.08) on RNA; ArchR addDoubletScores on ATAC; union of calls",
    "tools": ["scDblFinder", "ArchR", "Seurat"],
    "domains": ["scRNA-seq", "scATAC-seq"],
    "result": "Per-modality calls kept heterotypic doublets; combining them removed 9.5% of barcodes.",
    "success": True,
    "quality": 0.85,
    "lessons": ["Call doublets on both modalities and combine the calls for Multiome."],
    "entities": ["CD8A", "GSE194122"],
    "provenance": {"code_commit": "a1b2c3d", "parameters": {"dbr": 0.08}, "data": ["GSE194122"]},
    "related": ["2026-02-01-earlier-try"],
    "lab_notebook_page": 42,
}


def test_add_from_options_writes_note_entities_and_commit(vault: Path, cli: Cli) -> None:
    r = cli("episode", "add", "--task", "Call somatic variants in tumour-normal pairs with Mutect2",
            "--tool", "GATK", "--domain", "variant-calling", "--result", "BRAF V600E in 3 of 12 tumours",
            "--success", "--quality", "0.7", "--lesson", "Use a panel of normals",
            "--created", "2026-05-02T09:00:00Z")
    assert r.code == 0, r.err
    ident = r.out.strip()
    assert ident.startswith("2026-05-02-call-somatic-variants-tumour-normal")
    note = vault / "episodes/2026/05" / f"{ident}.md"
    text = note.read_text()
    assert text.startswith("---\nid: " + ident + "\ntype: episode\ncreated: '2026-05-02T09:00:00Z'\n")
    assert "[[BRAF V600E]]" in text
    assert (vault / "entities/BRAF V600E.md").exists()
    log = git(vault, "log", "-1", "--format=%s%n%an <%ae>", "--name-only")
    assert log.splitlines()[0] == (f"episode: add {ident} — Call somatic variants in tumour-normal "
                                   "pairs with Mutect2")
    assert log.splitlines()[1] == "biocortex <biocortex@localhost>"  # no git identity configured
    assert f"episodes/2026/05/{ident}.md" in log
    assert git(vault, "status", "--porcelain") == ""


def test_show_json_returns_every_field_exactly_as_given(vault: Path, cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "ep.json"
    src.write_text(json.dumps(FULL))
    assert cli("episode", "add", "--from-json", src).code == 0
    shown = cli("episode", "show", FULL["id"], "--json").json()
    for key, value in FULL.items():
        if key == "entities":
            assert shown[key][: len(value)] == value  # given first, then extracted ones
        else:
            assert shown[key] == value, key
    assert shown["type"] == "episode"
    assert shown["path"] == "episodes/2026/03/2026-03-14-multiome-doublets.md"


def test_add_from_stdin_json_and_option_override(vault: Path, cli: Cli) -> None:
    r = cli("episode", "add", "--from-json", "-", "--failure", "--id", "ep-1",
            stdin=json.dumps({"task": "Dock ligands against KEAP1", "success": True}))
    assert r.code == 0, r.err
    shown = cli("episode", "show", "ep-1", "--json").json()
    assert shown["success"] is False and shown["task"] == "Dock ligands against KEAP1"
    assert "KEAP1" in shown["entities"]


def test_duplicate_and_invalid_ids_are_refused(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "t", "--id", "same").code == 0
    r = cli("episode", "add", "--task", "t2", "--id", "same")
    assert r.code == 1 and "already exists" in r.err
    for bad in ("../escape", "a/b", "-lead", "x" * 129, "sp ace"):
        r = cli("episode", "add", "--task", "t", "--id", bad)
        assert r.code == 1 and "invalid id" in r.err, bad
    r = cli("episode", "show", "../../etc/passwd")
    assert r.code == 1 and "invalid id" in r.err
    assert not list((vault / "episodes").rglob("escape*"))


def test_wrong_types_are_clear_errors(vault: Path, cli: Cli) -> None:
    for fields, word in (({"quality": "high"}, "quality"), ({"success": "maybe"}, "success"),
                         ({"tools": "Seurat"}, "tools"), ({"quality": 1.5}, "quality")):
        r = cli("episode", "add", "--from-json", "-", "--json", stdin=json.dumps({"task": "t", **fields}))
        assert r.code == 1
        err = r.err_json()["error"]
        assert word in err["message"] and err["hint"]
    assert cli("episode", "add", "--task", "t", "--quality", "high").code == 2
    assert cli("episode", "add", "--task", "t", "--quality", "1.5").code == 2
    assert cli("episode", "add", "--plan", "no task").code == 2  # a usage error (issue 17): --task is missing


def test_import_is_one_commit_and_all_or_nothing(vault: Path, cli: Cli, tmp_path: Path) -> None:
    lines = [json.dumps({"task": f"Task {i} on TP53", "id": f"imp-{i}", "success": i % 2 == 0,
                         "domains": ["proteomics" if i % 2 else "scRNA-seq"],
                         "created": f"2026-0{1 + i % 3}-10T10:00:00Z"}) for i in range(6)]
    bad = [*lines[:3], '{"task": "broken", "quality": "high"}', *lines[3:]]
    src = tmp_path / "batch.jsonl"
    src.write_text("\n".join(bad) + "\n")
    commits_before = git(vault, "rev-list", "--count", "HEAD")
    r = cli("episode", "import", src)
    assert r.code == 1 and f"{src}:4:" in r.err and "nothing was imported" in r.err
    assert not list((vault / "episodes").rglob("imp-*.md"))
    assert git(vault, "rev-list", "--count", "HEAD") == commits_before
    src.write_text("\n".join(lines) + "\n")
    r = cli("episode", "import", src)
    assert r.code == 0 and r.out.strip() == "6"
    assert int(git(vault, "rev-list", "--count", "HEAD")) == int(commits_before) + 1
    assert git(vault, "log", "-1", "--format=%s") == "episode: import 6 episodes — imp-0 … imp-5\n"
    body = git(vault, "log", "-1", "--format=%b").splitlines()
    assert [line for line in body if line][:2] == ["- imp-0: Task 0 on TP53", "- imp-1: Task 1 on TP53"]
    assert len([line for line in body if line]) == 6
    r = cli("episode", "import", src)
    assert r.code == 1 and "already exists" in r.err


def test_import_reports_bad_json_line(vault: Path, cli: Cli) -> None:
    r = cli("episode", "import", "-", "--json", stdin='{"task": "ok"}\n{"task": oops}\n')
    assert r.code == 1
    assert r.err_json()["error"]["line"] == 2
    dup = '{"task": "a", "id": "x"}\n{"task": "b", "id": "x"}\n'
    r = cli("episode", "import", "-", stdin=dup)
    assert r.code == 1 and "duplicate id 'x' (also on line 1)" in r.err


def test_list_filters(vault: Path, cli: Cli) -> None:
    eps = [
        {"id": "a", "task": "Doublets in PBMC", "tools": ["scDblFinder"], "domains": ["scRNA-seq"],
         "success": False, "created": "2026-01-05T00:00:00Z", "entities": ["CD8A"]},
        {"id": "b", "task": "LFQ of KEAP1 knockouts", "tools": ["MaxQuant"], "domains": ["proteomics"],
         "success": True, "created": "2026-02-05T00:00:00Z"},
        {"id": "c", "task": "Annotate T cells", "tools": ["Seurat", "scDblFinder"],
         "domains": ["scRNA-seq"], "success": True, "created": "2026-03-05T00:00:00Z"},
    ]
    assert cli("episode", "import", "-", stdin="\n".join(json.dumps(e) for e in eps)).code == 0

    def ids(*args: str) -> list[str]:
        r = cli("episode", "list", "--json", *args)
        assert r.code == 0, r.err
        return [e["id"] for e in r.json()]

    assert ids() == ["c", "b", "a"]
    assert ids("--domain", "scrna-seq") == ["c", "a"]
    assert ids("--tool", "scDblFinder", "--success") == ["c"]
    assert ids("--failure") == ["a"]
    assert ids("--entity", "cd8a") == ["a"]
    assert ids("--since", "2026-02-01") == ["c", "b"]
    assert ids("--limit", "1") == ["c"]
    plain = cli("episode", "list").out.splitlines()
    assert plain[0].startswith("c  2026-03-05  success")


def test_list_on_empty_vault_and_show_missing(vault: Path, cli: Cli) -> None:
    r = cli("episode", "list", "--json")
    assert r.code == 0 and r.json() == []
    r = cli("episode", "show", "nope")
    assert r.code == 1 and "no episode with id 'nope'" in r.err


def test_an_extra_field_named_like_a_yaml_boolean_round_trips(vault: Path, cli: Cli) -> None:
    """A key YAML 1.1 reads as a boolean or null (``on``, ``NO``, ``null``) is written quoted, so
    the note reads back with the same key (the fast renderer once wrote it bare: ``on: x`` reads
    as the key True)."""
    record = {"id": "yaml-keys", "task": "Keys that look like booleans", "on": "the cluster", "NO": 3,
              "null": "kept"}
    r = cli("episode", "add", "--from-json", "-", stdin=json.dumps(record))
    assert r.code == 0, r.err
    text = (vault / "episodes").rglob("yaml-keys.md").__next__().read_text()
    assert "'on': the cluster" in text and "'NO': 3" in text and "'null': kept" in text
    shown = cli("episode", "show", "yaml-keys", "--json").json()
    assert (shown["on"], shown["NO"], shown["null"]) == ("the cluster", 3, "kept")
    assert cli("check").code == 0


def test_from_json_on_stdin_is_named_the_same_in_every_error(vault: Path, cli: Cli) -> None:
    """Found by an agent trial: malformed JSON on stdin was at path "-", an invalid field of the same
    input at "<stdin>"; an agent matching `path` saw two inputs."""
    broken = cli("episode", "add", "--from-json", "-", "--json", stdin='{"task": "x",\n')
    invalid = cli("episode", "add", "--from-json", "-", "--json", stdin='{"task": "x", "quality": 2}')
    not_an_object = cli("episode", "add", "--from-json", "-", "--json", stdin="[1, 2]")
    for r in (broken, invalid, not_an_object):
        assert r.code == 1 and r.err_json()["error"]["path"] == "<stdin>", r.err
    assert broken.err_json()["error"]["line"] == 2
