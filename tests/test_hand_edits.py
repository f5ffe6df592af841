"""Hand edits seen by the next recall (issue 17 item 3): an episode's lessons edited in place, in
Obsidian or an editor, and not committed, are found by the next ``recall``, listing and
``biocortex index`` — without a commit and without ``index --full``."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from conftest import Cli, git

from biocortex_cli.index import build


def _add(cli: Cli, task: str, lesson: str) -> Path:
    r = cli("episode", "add", "--task", task, "--tool", "scDblFinder", "--lesson", lesson, "--success",
            "--no-suggest", "--json")
    assert r.code == 0, r.err
    return Path(os.environ["BIOCORTEX_VAULT"]) / r.json()["path"]


def _save_in_place(note: Path, old: str, new: str) -> None:
    """As an editor saves: the same file rewritten (same inode), its folder's mtime unchanged."""
    folder_mtime = note.parent.stat().st_mtime_ns
    inode = note.stat().st_ino
    with open(note, "r+", encoding="utf-8") as fh:
        text = fh.read().replace(old, new)
        fh.seek(0)
        fh.write(text)
        fh.truncate()
    assert note.stat().st_ino == inode and note.parent.stat().st_mtime_ns == folder_mtime


def test_a_lesson_edited_in_place_is_found_by_the_next_recall(vault: Path, cli: Cli) -> None:
    note = _add(cli, "Doublet removal on 10x Multiome PBMC", "Call doublets per sample before merging.")
    _add(cli, "Ambient RNA removal with CellBender", "Run CellBender before doublet calling.")
    assert cli("recall", "doublets multiome").code == 0  # the index is built and fresh
    assert "zanzibar" not in cli("recall", "zanzibar quarantine protocol").out.lower()
    _save_in_place(note, "Call doublets per sample before merging.",
                   "Call doublets per sample before merging; see the Zanzibar quarantine protocol.")
    assert git(vault, "status", "--porcelain").strip()  # not committed
    r = cli("recall", "zanzibar quarantine protocol", "--json")
    assert r.code == 0 and [h["id"] for h in r.json()["results"]] == [note.stem]
    assert "Zanzibar quarantine protocol" in r.json()["context"]
    listed = cli("episode", "list", "--json").json()
    assert any("Zanzibar" in lesson for e in listed for lesson in e.get("lessons", []))


def test_biocortex_index_picks_up_notes_edited_in_place(vault: Path, cli: Cli) -> None:
    note = _add(cli, "Bulk RNA-seq of KEAP1 knockout with DESeq2", "Use RIN as a covariate.")
    assert cli("index").code == 0
    _save_in_place(note, "Use RIN as a covariate.", "Use RIN and batch as covariates.")
    r = cli("index", "--json")
    assert r.code == 0 and r.json()["updated"] == 1 and r.json()["added"] == 0
    assert cli("index", "--check").code == 0  # nothing left to see


def test_the_check_is_throttled_where_it_is_slow(vault: Path, cli: Cli) -> None:
    """Below EDITS_ALWAYS a check runs before every refresh; a slower one at most once per
    EDITS_FACTOR times its cost (the time it took is kept in the index's meta)."""
    assert build._edits_due({}, forced=False)
    assert build._edits_due({"edits_cost": build.EDITS_ALWAYS / 2, "edits_checked": 9e99}, forced=False)
    slow = {"edits_cost": 0.4}
    import time

    assert not build._edits_due({**slow, "edits_checked": time.time()}, forced=False)
    assert build._edits_due({**slow, "edits_checked": time.time()}, forced=True)  # biocortex index
    assert build._edits_due({**slow, "edits_checked": time.time() - 0.4 * build.EDITS_FACTOR - 1}, forced=False)
    # a fast check records nothing: no write for a refresh that found nothing
    _add(cli, "Proteomics with MaxQuant", "Impute after filtering.")
    assert cli("recall", "maxquant").code == 0
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    keys = {k for (k,) in conn.execute("SELECT key FROM meta")}
    conn.close()
    assert "edits_checked" not in keys


def test_uncommitted_names_notes_saved_since_their_commit(vault: Path, cli: Cli) -> None:
    from biocortex_cli.store.vault import Vault

    note = _add(cli, "GWAS fine-mapping with SuSiE", "Check LD reference ancestry.")
    v = Vault(vault)
    assert build.uncommitted(v, build.INDEXED) == set()
    _save_in_place(note, "ancestry", "ancestry and sample size")
    assert build.uncommitted(v, build.INDEXED) == {note.relative_to(vault).as_posix()}
