"""How a large import reaches git (issue 15, `fact import` at thousands of facts a second): the
batch's blobs and trees go into one pack before the commit stages them, so the commit writes no
loose object of its own and nothing is packed and deleted afterwards; the sync of the files runs
while git stages them, and HEAD moves only after it. Timings: benchmarks/facts.py and
docs/performance.md."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from conftest import Cli, HeldGit, git

from biocortex_cli.store import git as gitops
from biocortex_cli.store.git import PACK_AFTER_FILES, PRELOAD_REF, Author
from biocortex_cli.store.notes import rendered_note
from biocortex_cli.store.vault import JOURNAL_COPIES, Transaction, Vault, recover_killed_transaction

WHO = Author("Test Person", "test@example.org")


def _loose(root: Path) -> int:
    counts = dict(line.split(": ") for line in git(root, "count-objects", "-v").splitlines())
    return int(counts["count"])


def _notes(n: int) -> list[tuple[str, str, object]]:
    out = []
    for i in range(n):
        rel = f"facts/tf{i % 9}/n{i}.md"
        meta = {"id": f"n{i}", "type": "fact", "subject": f"TF{i % 9}", "predicate": "activates",
                "object": f"G{i}", "source": [f"PMID:{1000 + i}"], "confidence": 0.8}
        out.append((rel, *rendered_note(rel, meta, f"# TF{i % 9} activates G{i}\n")))
    return out


def test_preloaded_trees_leave_the_commit_nothing_loose_to_write(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "old").mkdir()
    (repo / "old" / "a.md").write_text("kept\n")
    git(repo, "add", "old")
    git(repo, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "first")
    git(repo, "-c", "gc.auto=0", "gc", "-q")
    head = git(repo, "rev-parse", "HEAD").strip()
    files = {f"notes/d{i % 7}/n{i}.md": f"note {i}\n".encode() * 3 for i in range(150)}
    files['old/"quoted\\name.md'] = b"an awkward name\n"
    assert gitops.preload(repo, list(files.items()), head)
    assert git(repo, "for-each-ref", PRELOAD_REF) == ""  # the preload's own ref is gone
    before = _loose(repo)
    for rel, raw in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(raw)
    git(repo, "add", "-A")
    tree = git(repo, "write-tree").strip()
    assert _loose(repo) == before == 0  # every blob and tree the commit needs was there already
    assert git(repo, "ls-tree", "-r", "--name-only", tree).split("\n")[:-1] == git(
        repo, "ls-files").split("\n")[:-1]
    assert git(repo, "cat-file", "-p", f"{tree}:old/\"quoted\\name.md") == "an awkward name\n"


def test_a_large_batch_commits_without_loose_objects_and_with_its_bytes(vault: Path) -> None:
    notes = _notes(PACK_AFTER_FILES + 10)
    with Vault(vault).transaction("fact: many", WHO) as txn:
        txn.write_many(notes)
    assert _loose(vault) == 0
    for rel, text, _parsed in notes[:: 97]:
        assert (vault / rel).read_text() == text == git(vault, "show", f"HEAD:{rel}")
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(vault, "for-each-ref", "refs/biocortex") == ""


def test_head_moves_only_after_the_files_are_synced(vault: Path) -> None:
    head = git(vault, "rev-parse", "HEAD").strip()
    (vault / "facts" / "x.md").write_text("---\nid: x\n---\n")
    seen: list[str] = []
    gitops.commit(vault, ["facts/x.md"], "fact: x", WHO,
                  ready=lambda: seen.append(git(vault, "rev-parse", "HEAD").strip()))
    assert seen == [head]  # called once, before HEAD moved
    assert git(vault, "rev-parse", "HEAD~1").strip() == head


# --- the fact tables after an import -------------------------------------------------------


def _tables(vault: Path) -> dict[str, list[tuple[object, ...]]]:
    import sqlite3

    from biocortex_cli.index.store import index_path

    conn = sqlite3.connect(index_path(vault / ".biocortex"))
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}")) for t in ("facts", "entity_aliases", "entity_files")}
    finally:
        conn.close()


def test_an_import_leaves_the_fact_tables_as_reading_every_note_would(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """The import hands its notes to the index from memory (the next command read 12,000 notes
    back after a 10,000-fact import, ~5 s): what it stores is what reading the files gives."""
    assert cli("fact", "add", "TF1", "activates", "G1", "--source", "PMID:1").code == 0
    rows = "".join(f"TF{i % 40}\tactivates\tG{i}\tPMID:{2000 + i}\n" for i in range(PACK_AFTER_FILES))
    (tmp_path / "f.tsv").write_text("subject\tpredicate\tobject\tsource\n" + rows + "TF1\tactivates\tG1\tPMID:7\n")
    r = cli("fact", "import", str(tmp_path / "f.tsv"), "--json")
    assert r.code == 0, r.err
    assert r.json()["merged"] == 1
    from_memory = _tables(vault)
    assert len(from_memory["facts"]) == PACK_AFTER_FILES  # TF1 -> G1 was there: merged
    assert cli("index", "--full").code == 0  # every note read from its file
    assert _tables(vault) == from_memory


# --- a batch that edits committed notes ------------------------------------------------------


def test_a_killed_batch_edit_is_undone_from_git_without_copies(vault: Path) -> None:
    """A batch that rewrites committed notes keeps no copy of what git's object store holds (an
    alias import of 2,300 entity notes wrote as many copies, then deleted them); a kill before
    the commit is still undone exactly, from the store; a note with a hand edit git lacks keeps
    its copy and gets the hand edit back."""
    v = Vault(vault)
    notes = _notes(40)
    with v.transaction("fact: first", WHO) as txn:
        txn.write_many(notes)
    committed = {rel: (vault / rel).read_bytes() for rel, _t, _p in notes}
    hand = notes[7][0]
    (vault / hand).write_bytes(committed[hand] + b"\nA line typed by hand.\n")
    txn = Transaction(v)
    txn.write_many([(rel, text.replace("activates", "inhibits"), None) for rel, text, _p in notes])
    assert (vault / notes[0][0]).read_text() != committed[notes[0][0]].decode()
    copies = sorted((vault / ".biocortex" / JOURNAL_COPIES).iterdir())
    assert len(copies) == 1  # the hand-edited note's only
    assert txn._journal_fh is not None
    txn._journal_fh.close()  # the process dies here: files rewritten, journal left, nothing committed
    put_back = recover_killed_transaction(v)
    assert sorted(put_back) == sorted(rel for rel, _t, _p in notes)
    for rel, raw in committed.items():
        assert (vault / rel).read_bytes() == (raw + b"\nA line typed by hand.\n" if rel == hand else raw)
    assert git(vault, "status", "--porcelain") == f" M {hand}\n"


def test_an_alias_import_killed_before_its_commit_leaves_every_note_as_it_was(
        vault: Path, cli: Cli, tmp_path: Path, held_git: HeldGit) -> None:
    rows = "".join(f"TF{i}\tactivates\tG{i}\tPMID:{3000 + i}\n" for i in range(300))
    (tmp_path / "f.tsv").write_text("subject\tpredicate\tobject\tsource\n" + rows)
    assert cli("fact", "import", str(tmp_path / "f.tsv")).code == 0
    entities = sorted((vault / "entities").glob("*.md"))
    before = {p: p.read_bytes() for p in entities}
    aliases = "".join(f"TF{i}\tTFALIAS{i}\nG{i}\tGALIAS{i}\n" for i in range(300))
    (tmp_path / "a.tsv").write_text("name\talias\n" + aliases)
    head = git(vault, "rev-parse", "HEAD")
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", "entity", "import", str(tmp_path / "a.tsv")],
                            env={**os.environ, **held_git.env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    held_git.wait_for(proc)
    assert b"GALIAS1" in (vault / "entities" / "G1.md").read_bytes()  # written, not committed
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    r = cli("episode", "add", "--task", "Any later write")
    assert r.code == 0, r.err
    assert "undid a write that was killed" in r.err
    assert git(vault, "rev-parse", "HEAD~1") == head
    assert {p: p.read_bytes() for p in entities} == before
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_batch_alias_edit_gives_the_bytes_of_the_round_trip(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """``edit_rendered`` (no round-trip loader) where it applies, the round trip elsewhere: every
    note as ``entity alias`` would write it, one alias at a time."""
    names = ["TP53", "MYC", "CDKN1A", "Hes1", "ESR1"]
    rows = "".join(f"{n}\tactivates\tX{i}\tPMID:{10 + i}\n" for i, n in enumerate(names))
    (tmp_path / "f.tsv").write_text("subject\tpredicate\tobject\tsource\n" + rows)
    assert cli("fact", "import", str(tmp_path / "f.tsv")).code == 0
    single = tmp_path / "single"
    shutil.copytree(vault, single)
    given = {"TP53": ["p53", "LFS1"], "MYC": ["c-Myc", "bHLHe39"], "CDKN1A": ["p21", "CIP1", "WAF1"],
             "Hes1": ["HES-1", "bHLHb39"], "ESR1": ["ER-alpha", "NR3A1", "1e3", "no"]}
    (tmp_path / "a.tsv").write_text("name\talias\n" + "".join(f"{n}\t{';'.join(a)}\n" for n, a in given.items()))
    assert cli("entity", "import", str(tmp_path / "a.tsv"), "--allow-ambiguous").code == 0
    for name, aliases in given.items():
        for alias in aliases:
            assert cli("--vault", str(single), "entity", "alias", name, alias, "--allow-ambiguous").code == 0, alias
    for note in sorted((vault / "entities").glob("*.md")):
        assert note.read_text() == (single / "entities" / note.name).read_text(), note.name


def test_an_alias_import_leaves_the_alias_table_as_reading_every_note_would(vault: Path, cli: Cli,
                                                                             tmp_path: Path) -> None:
    rows = "".join(f"TF{i}\tactivates\tG{i}\tPMID:{10 + i}\n" for i in range(40))
    (tmp_path / "f.tsv").write_text("subject\tpredicate\tobject\tsource\n" + rows)
    assert cli("fact", "import", str(tmp_path / "f.tsv")).code == 0
    aliases = "".join(f"G{i}\tGENEALIAS{i};GA-{i}\n" for i in range(40)) + "TF3\t1e3\n"
    (tmp_path / "a.tsv").write_text("name\talias\n" + aliases)
    assert cli("entity", "import", str(tmp_path / "a.tsv")).code == 0
    from_memory = _tables(vault)
    assert ("genealias7", "entities/G7.md", "G7", "GENEALIAS7") in from_memory["entity_aliases"]
    assert cli("index", "--full").code == 0
    assert _tables(vault) == from_memory
