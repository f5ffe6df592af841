"""One rule for which files are notes (store/walk.py): check, the index and the commands agree."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli

from biocortex_cli.store.walk import has_notes, note_paths, walk


def _episode(ident: str) -> str:
    return (f"---\nid: {ident}\ntype: episode\ncreated: 2026-01-05T00:00:00Z\nauthor: x\n"
            f"task: zanzibar analysis {ident}\n---\n")


def _layout(vault: Path) -> None:
    month = vault / "episodes/2026/01"
    month.mkdir(parents=True)
    (month / "a.md").write_text(_episode("a"))
    (month / ".a.md.swp").write_text("editor state")  # hidden: not memory
    (vault / "episodes/.drafts").mkdir()
    (vault / "episodes/.drafts/b.md").write_text(_episode("b"))  # in a hidden folder: not memory
    (vault / "episodes/2026/README.md").write_text(_episode("README"))  # below the top: a note
    (month / "notes.txt").write_text("a stray file")
    (month / "link.md").symlink_to(month / "a.md")  # a note that cannot be read
    (vault / "archive/episodes/2025").mkdir(parents=True)
    (vault / "archive/episodes/README.md").write_text("---\ntype: readme\n---\n")  # the folder's readme
    (vault / "archive/episodes/2025/old.md").write_text(_episode("old"))


def test_the_rule(vault: Path) -> None:
    _layout(vault)
    assert note_paths(vault) == ["archive/episodes/2025/old.md", "episodes/2026/01/a.md",
                                 "episodes/2026/01/link.md", "episodes/2026/README.md"]
    strays = [s for folder in walk(vault) for s in folder.strays]
    assert strays == ["episodes/2026/01/notes.txt"]
    assert not any(f.rel.startswith("templates") for f in walk(vault))
    assert has_notes(vault, "episodes") and not has_notes(vault, "facts")  # facts/ holds only its README


def test_check_index_and_commands_agree(vault: Path, cli: Cli) -> None:
    _layout(vault)
    r = cli("check")
    assert r.code == 1
    assert "episodes/2026/01/link.md:1: a symbolic link where a note was expected" in r.out
    assert "episodes/2026/01/notes.txt:1: not a markdown note" in r.out
    assert ".a.md.swp" not in r.out and "drafts" not in r.out and "archive/episodes/README.md" not in r.out
    r = cli("index", "--json")
    assert r.code == 0, r.err
    report = r.json()
    assert report["episodes"] == 3  # a, README and the archived one
    assert [p["path"] for p in report["problems"]] == ["episodes/2026/01/link.md"]
    r = cli("episode", "list", "--json")
    assert sorted(e["id"] for e in r.json()) == ["README", "a"] and "link.md" in r.err
    r = cli("recall", "zanzibar analysis", "--include-archived", "--json")
    assert sorted(h["id"] for h in r.json()["results"]) == ["README", "a", "old"]
