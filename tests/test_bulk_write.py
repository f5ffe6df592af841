"""The batch write path (issue 15: `fact import` at thousands of facts a second): ``Transaction.write_many``
keeps every guarantee of ``Transaction.write`` — the same bytes, secrets refused before anything is
written, a kill leaves nothing, one commit — while paying per-folder checks, the journal and the
staging once per batch. Timings: benchmarks/facts.py and docs/performance.md."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli, HeldGit, git

from biocortex_cli.errors import DataError
from biocortex_cli.store import secrets
from biocortex_cli.store.git import PACK_AFTER_FILES, Author
from biocortex_cli.store.notes import rendered_note
from biocortex_cli.store.vault import JOURNAL_NAME, Transaction, Vault, recover_killed_transaction

WHO = Author("Test Person", "test@example.org")
GITHUB_PAT = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _notes(folder: str, n: int) -> list[tuple[str, str, object]]:
    out = []
    for i in range(n):
        meta = {"id": f"n{i}", "type": "fact", "subject": f"GENE{i % 7}", "predicate": "activates",
                "object": f"TARGET{i}", "source": [f"PMID:{1000 + i}"], "confidence": 0.8}
        rel = f"{folder}/g{i % 3}/n{i}.md"
        out.append((rel, *rendered_note(rel, meta, f"# GENE{i % 7} activates TARGET{i}\n")))
    return out


def test_write_many_writes_the_bytes_write_writes_and_commits_once(vault: Path) -> None:
    v = Vault(vault)
    one, many = _notes("facts/one", 40), _notes("facts/many", 40)
    head = git(vault, "rev-parse", "HEAD").strip()
    with v.transaction("fact: bulk test", WHO) as txn:
        for rel, text, parsed in one:
            txn.write(rel, text, batch=True, parsed=parsed)
        assert txn.write_many(many) == 40
    assert git(vault, "rev-parse", "HEAD~1").strip() == head  # one commit holds both
    for (a, _t, _p), (b, _u, _q) in zip(one, many, strict=True):
        assert (vault / a).read_bytes() == (vault / b).read_bytes()
        assert stat.S_IMODE((vault / a).stat().st_mode) == stat.S_IMODE((vault / b).stat().st_mode)
        assert git(vault, "rev-parse", f"HEAD:{a}") == git(vault, "rev-parse", f"HEAD:{b}")
    assert git(vault, "status", "--porcelain") == ""
    assert not (vault / ".biocortex" / JOURNAL_NAME).exists()


def test_write_many_replaces_an_existing_file_through_write(vault: Path) -> None:
    v = Vault(vault)
    notes = _notes("facts/x", 3)
    with v.transaction("fact: first", WHO) as txn:
        txn.write_many(notes[:1])
    with v.transaction("fact: second", WHO) as txn:
        rel, _text, _parsed = notes[0]
        txn.write_many([(rel, notes[1][1], None), *notes[2:]])
    assert (vault / notes[0][0]).read_text() == notes[1][1]
    assert git(vault, "status", "--porcelain") == ""


def test_a_large_batch_is_packed_not_loose(vault: Path) -> None:
    v = Vault(vault)
    with v.transaction("fact: many", WHO) as txn:
        txn.write_many(_notes("facts/big", PACK_AFTER_FILES))
    counts = dict(line.split(": ") for line in git(vault, "count-objects", "-v").splitlines())
    assert int(counts["count"]) < 50, counts  # the notes' blobs went into a pack
    assert git(vault, "status", "--porcelain") == ""


def test_a_secret_in_the_last_note_writes_nothing(vault: Path) -> None:
    v = Vault(vault)
    notes = _notes("facts/s", 30)
    rel = "facts/s/g0/leak.md"
    notes.append((rel, *rendered_note(rel, {"id": "leak", "context": f"token {GITHUB_PAT}"}, "x\n")))
    head = git(vault, "rev-parse", "HEAD")
    with pytest.raises(DataError, match="github-pat"), v.transaction("fact: leak", WHO) as txn:
        txn.write_many(notes)
    assert git(vault, "rev-parse", "HEAD") == head
    assert not (vault / "facts/s").exists() or not any((vault / "facts/s").rglob("*.md"))
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_linked_folder_is_refused_before_anything_is_written(vault: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "facts" / "linked").symlink_to(outside)
    notes = [*_notes("facts/ok", 3), ("facts/linked/x.md", "---\nid: x\n---\n", None)]
    with pytest.raises(DataError, match="symbolic link"), Vault(vault).transaction("fact: link", WHO) as txn:
        txn.write_many(notes)
    assert list(outside.iterdir()) == [] and not (vault / "facts/ok").exists()


def test_a_batch_killed_before_its_commit_is_undone_exactly(vault: Path) -> None:
    v = Vault(vault)
    txn = Transaction(v)
    notes = _notes("facts/k", 20)
    txn.write_many(notes)
    assert txn._journal_fh is not None
    txn._journal_fh.close()  # the process dies here: files written, journal left, nothing committed
    orphan = vault / "facts/k/g0/.n0.md.abcd1234.tmp"  # and a kill inside a file's write leaves this
    orphan.write_text("---\nid: n")
    put_back = recover_killed_transaction(v)
    assert sorted(put_back) == sorted(rel for rel, _t, _p in notes)
    assert not any((vault / "facts/k").rglob("*.md")) and not orphan.exists()
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""


def test_keyword_free_is_exact_line_by_line() -> None:
    """The quick check that skips a clean string decides per line: it is exact only if no rule's
    keyword holds a newline and every keyword is ASCII (lowered alike in a line and in the text)."""
    keywords = secrets._ruleset().by_keyword
    assert not any("\n" in k for k in keywords) and all(k.isascii() for k in keywords)
    assert secrets._keyword_free("one line\nanother line, TP53 activates CDKN1A")
    assert not secrets._keyword_free(f"first\ntoken {GITHUB_PAT}")
    note = {"id": "x", "evidence": [{"source": "PMID:1", "by": {"name": "a"}}], "n": 3}
    assert secrets._texts(note, []) == [t for _p, t in secrets._strings(note, "")]


# --- fact import through the batch path -----------------------------------------------------


def _rows(n: int, leak_at: int | None = None) -> str:
    lines = ["subject\tpredicate\tobject\tsource\tcontext"]
    for i in range(1, n + 1):
        context = f"token {GITHUB_PAT}" if i == leak_at else ""
        lines.append(f"TF{i % 50}\tactivates\tG{i}\tPMID:{10_000 + i}\t{context}")
    return "\n".join(lines) + "\n"


def test_a_secret_in_row_9000_refuses_the_whole_import(vault: Path, cli: Cli, tmp_path: Path) -> None:
    data = tmp_path / "edges.tsv"
    data.write_text(_rows(9000, leak_at=9000))
    head = git(vault, "rev-parse", "HEAD")
    r = cli("fact", "import", str(data))
    assert r.code != 0 and "github-pat" in r.err and "nothing was written" in r.err
    assert GITHUB_PAT not in r.out + r.err
    assert git(vault, "rev-parse", "HEAD") == head
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""


def test_an_import_is_one_commit_and_leaves_a_clean_tree(vault: Path, cli: Cli, tmp_path: Path) -> None:
    data = tmp_path / "edges.tsv"
    data.write_text(_rows(600))
    head = git(vault, "rev-parse", "HEAD").strip()
    r = cli("fact", "import", str(data), "--json")
    assert r.code == 0, r.err
    assert r.json()["created"] == 600
    assert git(vault, "rev-parse", "HEAD~1").strip() == head
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""
    assert len(git(vault, "ls-tree", "-r", "--name-only", "HEAD", "facts/").split()) == 601  # and README


def test_an_import_killed_before_its_commit_leaves_nothing(vault: Path, cli: Cli, tmp_path: Path,
                                                           held_git: HeldGit) -> None:
    data = tmp_path / "edges.tsv"
    data.write_text(_rows(700))
    head = git(vault, "rev-parse", "HEAD")
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", "fact", "import", str(data)],
                            env={**os.environ, **held_git.env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    held_git.wait_for(proc)
    assert len(list((vault / "facts").rglob("*.md"))) > 700  # written, not committed
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    r = cli("episode", "add", "--task", "Any later write")
    assert r.code == 0, r.err
    assert "undid a write that was killed" in r.err
    assert git(vault, "rev-parse", "HEAD~1") == head  # only the later write's commit
    assert [p.name for p in (vault / "facts").rglob("*.md")] == ["README.md"]
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""
