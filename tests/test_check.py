"""`check` and hand-edited notes: every problem as path:line with a hint; odd-but-valid notes pass."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli

GOOD = """---
id: {id}
type: episode
created: 2026-04-01T10:00:00Z
author: Dana Okafor <dokafor@lab.example>
task: Integrate three PBMC batches with Harmony
success: true
quality: 0.8
---
# Integrate three PBMC batches
"""


def write(vault: Path, rel: str, text: str | bytes) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_fresh_vault_and_demo_like_content_pass(vault: Path, cli: Cli) -> None:
    cli("episode", "add", "--task", "Run MAGeCK on the KEAP1 screen", "--entity", "GO:0006979")
    r = cli("check")
    assert r.code == 0, r.out + r.err
    assert "0 problem" in r.err


def test_the_summary_counts_in_words(vault: Path, cli: Cli) -> None:
    """It said "checked 1 notes, 1 problem(s)" (docs trial)."""
    broken = GOOD.format(id="one").replace("task: Integrate", "tools: Seurat\ntask: Integrate")  # not a list
    write(vault, "episodes/2026/04/one.md", broken)
    r = cli("check")
    assert r.code == 1 and "checked 1 note, 1 problem\n" in r.err, r.err


def test_malformed_yaml_is_reported_at_the_file_line(vault: Path, cli: Cli) -> None:
    write(vault, "episodes/2026/04/bad.md",
          "---\nid: bad\ntype: episode\ncreated: 2026-04-01T10:00:00Z\nauthor: me\n"
          "task: [unclosed\nsuccess: true\n---\nbody\n")
    r = cli("check")
    assert r.code == 1
    first = r.out.splitlines()[0]
    # the line of the unclosed "[" (task:), not the line where YAML gave up
    assert first.startswith("episodes/2026/04/bad.md:6: invalid YAML"), r.out
    assert "not closed" in first and "on line 7" in first
    assert "  hint: " in r.out


def test_bom_crlf_and_content_key_are_accepted(vault: Path, cli: Cli) -> None:
    text = GOOD.format(id="crlf").replace("quality: 0.8\n", "quality: 0.8\ncontent: a field named content\n")
    write(vault, "episodes/2026/04/crlf.md", b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    r = cli("check")
    assert r.code == 0, r.out
    shown = cli("episode", "show", "crlf", "--json").json()
    assert shown["content"] == "a field named content"
    assert shown["created"] == "2026-04-01T10:00:00Z"


def test_wrong_types_duplicate_ids_and_broken_links(vault: Path, cli: Cli) -> None:
    write(vault, "episodes/2026/04/one.md", GOOD.format(id="one"))
    write(vault, "episodes/2026/04/two.md", GOOD.format(id="one").replace("quality: 0.8", "quality: high")
          .replace("success: true", "success: maybe") + "See [[Nowhere]] and [[one]].\n")
    r = cli("check", "--json")
    assert r.code == 1
    problems = {(p["path"], p["line"], p["message"].split(" (")[0]) for p in r.json()["problems"]}
    assert ("episodes/2026/04/two.md", 2, "duplicate id 'one'") in problems
    assert ("episodes/2026/04/two.md", 7, "success must be true or false, not 'maybe'") in problems
    assert ("episodes/2026/04/two.md", 8, "quality must be a number from 0 to 1, not 'high'") in problems
    assert ("episodes/2026/04/two.md", 11, "link [[Nowhere]] points to no note") in problems
    assert all(p["hint"] for p in r.json()["problems"])


def test_python_yaml_tags_are_never_executed(vault: Path, cli: Cli, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    write(vault, "episodes/2026/04/evil.md",
          f"---\nid: evil\ntype: episode\ncreated: 2026-04-01T10:00:00Z\nauthor: x\n"
          f"task: !!python/object/apply:os.system [\"touch {marker}\"]\n---\n")
    r = cli("check")
    assert r.code == 1 and "episodes/2026/04/evil.md:6: YAML tag not allowed" in r.out
    assert not marker.exists()
    assert cli("episode", "list").code == 0  # one broken note never stops a listing
    assert "evil.md" in cli("episode", "list").err


def test_binary_and_missing_frontmatter(vault: Path, cli: Cli) -> None:
    write(vault, "episodes/2026/04/blob.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    write(vault, "episodes/2026/04/data.csv", "a,b\n1,2\n")
    write(vault, "episodes/2026/04/plain.md", "just text\n")
    write(vault, "episodes/2026/04/latin1.md", GOOD.format(id="latin1").encode().replace(b"Harmony", b"Harm\xf6ny"))
    r = cli("check")
    assert r.code == 1
    assert "episodes/2026/04/blob.md:1: binary file" in r.out
    assert "episodes/2026/04/data.csv:1: not a markdown note" in r.out
    assert "episodes/2026/04/plain.md:1: no YAML frontmatter" in r.out
    assert "episodes/2026/04/latin1.md:6: not valid UTF-8" in r.out  # the task: line


def test_missing_required_fields(vault: Path, cli: Cli) -> None:
    write(vault, "episodes/2026/04/bare.md", "---\nid: bare\ntype: episode\n---\n")
    r = cli("check")
    assert r.code == 1
    assert "task is required" in r.out and "created must be" in r.out and "author is missing" in r.out
