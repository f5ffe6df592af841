"""Paths and ids never leave the vault; symlinks are never read as notes nor written through;
YAML never constructs objects, in notes, in config.yaml or in round-trip edits (issue 8 §3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import Cli, git

from biocortex_cli.errors import DataError
from biocortex_cli.store.vault import Vault

SECRET = ("---\nid: leaked\ntype: episode\ncreated: 2026-01-01T00:00:00Z\nauthor: x\ntask: zanzibar leak\n"
          "---\nzanzibar\n")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "leaked.md").write_text(SECRET)
    return out


def _files_outside(outside: Path) -> set[str]:
    return {p.relative_to(outside).as_posix() for p in outside.rglob("*")}


def test_symlinked_notes_are_never_read(vault: Path, cli: Cli, outside: Path) -> None:
    folder = vault / "episodes/2026/01"
    folder.mkdir(parents=True)
    (folder / "leaked.md").symlink_to(outside / "leaked.md")
    (folder / "passwd.md").symlink_to("/etc/passwd")
    os.mkfifo(folder / "fifo.md")  # would hang a plain open()
    r = cli("check")
    assert r.code == 1
    assert "episodes/2026/01/leaked.md:1: a symbolic link where a note was expected; it is not read" in r.out
    assert "episodes/2026/01/passwd.md:1: a symbolic link" in r.out
    assert "episodes/2026/01/fifo.md:1: not a regular file" in r.out
    assert cli("index").code == 0
    r = cli("recall", "zanzibar leak", "--json")
    assert r.code == 0 and r.json()["results"] == []
    r = cli("episode", "list", "--json")
    assert r.code == 0 and r.json() == [] and "symbolic link" in r.err
    r = cli("episode", "show", "leaked")
    assert r.code == 1 and "zanzibar" not in r.out


def test_symlinked_folders_are_never_read_nor_written_through(vault: Path, cli: Cli, outside: Path) -> None:
    (outside / "ents").mkdir()
    (outside / "ents" / "KRAS.md").write_text("---\ntype: entity\nname: KRAS\n---\nzanzibar\n")
    real = vault / "entities"
    real.rename(vault / "entities-real")
    real.symlink_to(outside / "ents")
    (vault / "episodes/2025").symlink_to(outside)
    before = _files_outside(outside)

    r = cli("check")
    assert r.code == 1 and "entities/KRAS.md:1: folder entities is a symbolic link" in r.out
    r = cli("episode", "add", "--task", "BRAF screen", "--entity", "BRAF", "--id", "k1")
    assert r.code == 1 and "entities/BRAF.md' leads outside the vault through a symbolic link" in r.err
    r = cli("episode", "add", "--task", "x", "--created", "2025-05-01T00:00:00Z", "--id", "old")
    assert r.code == 1 and "through a symbolic link" in r.err
    r = cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1")
    assert r.code == 1 and "through a symbolic link" in r.err
    r = cli("entity", "show", "KRAS")
    assert "zanzibar" not in r.out
    assert _files_outside(outside) == before  # nothing placed outside the vault
    assert git(vault, "status", "--porcelain", "--", "episodes", "facts").strip() == "?? episodes/2025"  # our link
    assert git(vault, "rev-list", "--count", "HEAD").strip() == "1"  # no write was committed


def test_a_note_symlinked_to_a_file_outside_is_not_written_through(vault: Path, cli: Cli, outside: Path) -> None:
    assert cli("episode", "add", "--task", "KRAS screen", "--entity", "KRAS").code == 0
    target = outside / "KRAS.md"
    target.write_text("---\ntype: entity\nname: KRAS\naliases: [KRAS]\n---\nkeep me\n")
    note = vault / "entities/KRAS.md"
    note.unlink()
    note.symlink_to(target)
    r = cli("entity", "alias", "KRAS", "K-Ras")
    assert r.code == 1 and "entities/KRAS.md" in r.err and "symbolic link" in r.err, r.err
    assert target.read_text().endswith("keep me\n") and "K-Ras" not in target.read_text()


@pytest.mark.parametrize("rel", ["../x.md", "episodes/../../x.md", "/etc/passwd", "episodes/a\x00b.md",
                                 "../../../../../../tmp/x"])
def test_vault_path_refuses_escapes(vault: Path, rel: str) -> None:
    with pytest.raises(DataError, match="leaves the vault"):
        Vault(vault.resolve()).path(rel)


def test_backslashes_and_long_names_stay_inside(vault: Path) -> None:
    v = Vault(vault.resolve())
    assert v.path("episodes/a\\..\\..\\x.md").parent == v.root / "episodes"  # a plain name on POSIX
    assert v.path("episodes/" + "x" * 300 + ".md").parent == v.root / "episodes"


@pytest.mark.parametrize("bad", ["..", "../../etc/passwd", "/etc/passwd", "a/b", "x" * 129, ".hidden",
                                 "C:\\x", "a\\..\\x", "-x"])
def test_ids_from_every_door_are_validated(vault: Path, cli: Cli, bad: str) -> None:
    r = cli("episode", "add", "--task", "t", "--id", bad)
    assert r.code in (1, 2), r.err
    r = cli("episode", "import", "-", stdin=json.dumps({"task": "t", "id": bad}) + "\n")
    assert r.code == 1 and "<stdin>:1:" in r.err
    for args in (["episode", "show", bad], ["fact", "retract", bad, "--reason", "r"],
                 ["fact", "supersede", bad, "--by", bad]):
        r = cli(*args)
        assert r.code in (1, 2) and "Traceback" not in r.err, (args, r.err)
    assert git(vault, "status", "--porcelain").strip() == ""
    assert not list(vault.parent.glob("*.md"))


def test_yaml_tags_in_config_never_construct(vault: Path, cli: Cli, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    config = vault / ".biocortex/config.yaml"
    original = config.read_text()
    config.write_text(original + f"evil: !!python/object/apply:os.system ['touch {marker}']\n")
    r = cli("recall", "anything")
    assert r.code == 1 and ".biocortex/config.yaml:" in r.err and "YAML tag not allowed" in r.err
    line = original.count("\n") + 1
    assert f".biocortex/config.yaml:{line}:" in r.err
    config.write_text(original + "evil: !!binary aGVsbG8=\n")
    r = cli("recall", "anything")
    assert r.code == 1 and "YAML tag not allowed" in r.err
    assert not marker.exists()


def test_round_trip_edits_never_construct_tagged_values(vault: Path, cli: Cli, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    assert cli("episode", "add", "--task", "KRAS screen", "--entity", "KRAS").code == 0
    note = vault / "entities/KRAS.md"
    note.write_text(note.read_text().replace(
        "type: entity", f"type: entity\nx: !!python/object/apply:os.system ['touch {marker}']"))
    r = cli("entity", "alias", "KRAS", "K-Ras")
    assert r.code == 1 and "entities/KRAS.md:" in r.err and "YAML tag not allowed" in r.err
    assert not marker.exists()
    note.write_text(note.read_text().replace(f"!!python/object/apply:os.system ['touch {marker}']",
                                             "&a [*a]"))
    r = cli("entity", "alias", "KRAS", "K-Ras")
    assert r.code == 1 and "entities/KRAS.md:" in r.err
