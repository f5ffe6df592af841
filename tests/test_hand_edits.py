"""Hand edits seen by the next recall (issue 17 item 3): an episode's lessons edited in place, in
Obsidian or an editor, and not committed, are found by the next ``recall``, listing and
``biocortex index`` — without a commit and without ``index --full``."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, git

from biocortex_cli.index import build, watch


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
    _check_due(vault)  # a loaded machine may have made the last check slow enough to throttle the next
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
    now = 1_800_000_000.0
    assert build._edits_due({}, forced=False, now=now)
    assert build._edits_due({"edits_cost": build.EDITS_ALWAYS / 2, "edits_checked": 9e99}, forced=False, now=now)
    slow = {"edits_cost": 0.4}
    assert not build._edits_due({**slow, "edits_checked": now}, forced=False, now=now)
    assert not build._edits_due({**slow, "edits_checked": now - 0.4 * build.EDITS_FACTOR + 1}, forced=False, now=now)
    assert build._edits_due({**slow, "edits_checked": now}, forced=True, now=now)  # biocortex index
    assert build._edits_due({**slow, "edits_checked": now - 0.4 * build.EDITS_FACTOR}, forced=False, now=now)
    # a fast check records nothing: no write for a refresh that found nothing
    assert build._edits_record({}, build.EDITS_ALWAYS / 2, now) == {}
    # a slow one records when and how long; a fast one after a slow one lifts the throttle
    assert build._edits_record({}, 0.4, now) == {"edits_checked": now, "edits_cost": 0.4}
    assert build._edits_record(slow, 0.001, now) == {"edits_checked": now, "edits_cost": 0.001}
    # and a refresh that records nothing writes nothing: the index's meta holds no check
    _add(cli, "Proteomics with MaxQuant", "Impute after filtering.")
    assert cli("recall", "maxquant").code == 0  # builds the index
    _check_due(vault)
    assert cli("recall", "maxquant").code == 0
    meta = _meta(vault)
    assert "edits_checked" not in meta or float(meta["edits_cost"]) >= build.EDITS_ALWAYS


def _meta(vault: Path) -> dict[str, Any]:
    from biocortex_cli.index.store import get_meta

    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    try:
        return get_meta(conn)
    finally:
        conn.close()


def _check_due(vault: Path) -> None:
    """Forget the last check's cost, so the next refresh checks for hand edits whatever the
    machine's load made that cost (tests assert what a check finds, not when it is throttled)."""
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    try:
        with conn:
            conn.execute("DELETE FROM meta WHERE key IN ('edits_checked', 'edits_cost')")
    finally:
        conn.close()


def test_uncommitted_names_notes_saved_since_their_commit(vault: Path, cli: Cli) -> None:
    from biocortex_cli.store.vault import Vault

    note = _add(cli, "GWAS fine-mapping with SuSiE", "Check LD reference ancestry.")
    v = Vault(vault)
    assert build.uncommitted(v, build.INDEXED) == set()
    _save_in_place(note, "ancestry", "ancestry and sample size")
    assert build.uncommitted(v, build.INDEXED) == {note.relative_to(vault).as_posix()}


def _pretend_slow(vault: Path) -> None:
    """Make the index remember a slow full check (as at 100k notes): the throttle would skip the
    next ones, so what a recall finds comes from the watcher."""
    import time

    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    try:
        with conn:
            conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                             [("edits_cost", "3600.0"), ("edits_checked", str(time.time()))])
    finally:
        conn.close()


def _throttled_check_finds(vault: Path, cli: Cli, note: Path, old: str, new: str, query: str) -> None:
    """The throttled full check still finds an edit once it is due (the last check's time forgotten)."""
    _save_in_place(note, old, new)
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    with conn:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('edits_checked', '0')")
    conn.close()
    r = cli("recall", query, "--json")
    assert r.code == 0 and [h["id"] for h in r.json()["results"]] == [note.stem]


@pytest.fixture
def watched(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if not watch.usable_platform():
        pytest.skip("the watcher needs inotify (Linux)")
    monkeypatch.setenv("BIOCORTEX_WATCH", "1")
    yield vault
    watch.stop(vault / ".biocortex")


def test_where_the_check_is_slow_a_watcher_names_every_edit_to_the_next_recall(watched: Path, cli: Cli) -> None:
    vault = watched
    note = _add(cli, "Doublet removal on 10x Multiome PBMC", "Call doublets per sample before merging.")
    other = _add(cli, "Ambient RNA removal with CellBender", "Run CellBender before doublet calling.")
    assert cli("recall", "doublets multiome").code == 0  # builds the index
    _pretend_slow(vault)
    assert cli("recall", "doublets multiome").code == 0  # starts the watcher, checks in full once
    assert "watch" in _meta(vault)
    _pretend_slow(vault)  # that check was quick here: make the throttle skip the next ones
    for n, word in enumerate(("zanzibar", "quokka", "tamarind")):  # back to back: each edit seen at once
        _save_in_place(note, "before merging", f"before merging ({word} protocol)")
        r = cli("recall", f"{word} protocol", "--json")
        assert r.code == 0 and [h["id"] for h in r.json()["results"]] == [note.stem], n
        assert float(_meta(vault)["edits_cost"]) == 3600.0  # the full check did not run again
    # a note removed, and one renamed: their folder changed, the quick scan sees both
    os.rename(other, other.with_name("renamed-by-hand.md"))
    hits = cli("recall", "cellbender ambient", "--json").json()["results"]
    assert [h["path"].rsplit("/", 1)[-1] for h in hits] == ["renamed-by-hand.md"]
    note.unlink()
    assert "tamarind" not in cli("recall", "tamarind protocol").out.lower()


def test_a_small_vault_gets_no_watcher_even_when_one_check_was_slow(vault: Path, cli: Cli,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """One slow check on a loaded machine must not leave a process behind for a vault of a few
    notes (watch.MIN_NOTES): without BIOCORTEX_WATCH=1 the throttled check applies."""
    if not watch.usable_platform():
        pytest.skip("the watcher needs inotify (Linux)")
    monkeypatch.delenv("BIOCORTEX_WATCH")  # the default: a watcher only for large vaults
    note = _add(cli, "Doublet removal on 10x Multiome PBMC", "Call doublets per sample before merging.")
    assert cli("recall", "doublets multiome").code == 0
    _pretend_slow(vault)
    try:
        assert cli("recall", "doublets multiome").code == 0
        assert "watch" not in _meta(vault)
        assert not (vault / ".biocortex" / "tmp" / watch.LOCK).exists()
        _throttled_check_finds(vault, cli, note, "before merging", "before merging (kakapo protocol)",
                               "kakapo protocol")
    finally:
        watch.stop(vault / ".biocortex")


def test_a_dead_watcher_falls_back_to_the_full_check(watched: Path, cli: Cli) -> None:
    vault = watched
    note = _add(cli, "GWAS fine-mapping with SuSiE", "Check LD reference ancestry.")
    assert cli("recall", "susie").code == 0
    _pretend_slow(vault)
    assert cli("recall", "susie").code == 0
    _pretend_slow(vault)
    watch.stop(vault / ".biocortex")  # killed (or idle): its log no longer covers what follows
    _save_in_place(note, "ancestry", "ancestry (wombat cohort)")
    r = cli("recall", "wombat cohort", "--json")
    assert r.code == 0 and [h["id"] for h in r.json()["results"]] == [note.stem]


def test_a_watcher_that_cannot_start_is_not_waited_for_and_tried_again_later(watched: Path, cli: Cli) -> None:
    """A watcher that cannot run here (its folder is a file: as if the kernel refused the
    watches) costs no wait: the refresh falls back to the throttled full check at once, and the
    index records when to try again."""
    import time

    vault = watched
    note = _add(cli, "Peak calling with MACS2 on ATAC", "Shift reads by Tn5 offsets first.")
    assert cli("recall", "macs2 peaks").code == 0
    _pretend_slow(vault)
    tmp = vault / ".biocortex" / "tmp"
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    tmp.write_text("not a folder\n")  # the watcher cannot make its lock or log here
    try:
        asked_at = time.time()
        assert cli("recall", "macs2 peaks").code == 0
        meta = _meta(vault)
        # the next try is WATCH_RETRY after this attempt, however long the test took to get here
        assert "watch" in meta and meta["watch"] is None
        assert float(meta["watch_retry"]) >= asked_at + build.WATCH_RETRY
        _throttled_check_finds(vault, cli, note, "Tn5 offsets", "Tn5 offsets (okapi batch)", "okapi batch")
    finally:
        tmp.unlink()


@pytest.mark.parametrize("stat_all", [0, build.STAT_ALL])
def test_a_small_index_stats_its_notes_and_finds_what_git_finds(vault: Path, cli: Cli,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 stat_all: int) -> None:
    """Up to STAT_ALL indexed notes, the check compares every note's stamp itself (no git, no
    ``subprocess`` on the hot commands' path); above, it asks git. Both find the edit, and
    nothing when nothing changed."""
    from biocortex_cli.store.vault import Vault

    monkeypatch.setattr(build, "STAT_ALL", stat_all)
    note = _add(cli, "Spatial deconvolution with cell2location", "Use the matched single-cell reference.")
    _add(cli, "Peak calling with MACS2", "Set the genome size.")
    assert cli("recall", "cell2location").code == 0  # the index is fresh
    v = Vault(vault)
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    try:
        assert build.edited_in_place(v, conn) == set()
        _save_in_place(note, "matched single-cell", "matched single-nucleus")
        assert build.edited_in_place(v, conn) == {note.relative_to(vault).as_posix()}
    finally:
        conn.close()
    _check_due(vault)
    r = cli("recall", "matched single-nucleus reference cell2location", "--json")
    assert r.code == 0 and "single-nucleus" in r.json()["context"]
