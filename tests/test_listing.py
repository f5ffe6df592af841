"""Listings and digests from the index (issue 17 item 2): ``episode list``, ``episode show`` and
``log`` read the sidecar index, with the output the note-parsing path gives on the same vault."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli, git

from biocortex_cli.index import listing
from biocortex_cli.ops.history import digest
from biocortex_cli.store import episodes as parsing
from biocortex_cli.store.episodes import EpisodeFilter
from biocortex_cli.store.vault import Vault

RECORDS = [
    {"task": "Call doublets per sample in 10x Multiome PBMC", "domains": ["scRNA-seq", "scATAC-seq"],
     "tools": ["scDblFinder", "AMULET"], "success": True, "quality": 0.8, "created": "2026-03-14T10:00:00Z",
     "lessons": ["Call doublets per sample before merging."], "entities": ["CD8A"]},
    {"task": "Doublets removed after merging: too late", "domains": ["scrna-SEQ"], "tools": ["Scrublet"],
     "success": False, "quality": 0.3, "created": "2026-03-14T10:00:00Z", "id": "zz-same-time"},
    {"task": "Doublets again, same second", "domains": ["scRNA-seq"], "success": False,
     "created": "2026-03-14T10:00:00Z", "id": "aa-same-time"},
    {"task": "CRISPR screen of KRAS G12C resistance with MAGeCK", "domains": ["CRISPR screens"],
     "tools": ["MAGeCK"], "success": True, "created": "2026-05-01T08:30:00+02:00", "entities": ["KEAP1", "KRAS"]},
    {"task": "A note whose time has a fraction", "created": "2026-05-01T06:30:00.250000Z", "tools": ["mageck"]},
    {"task": "An outcome never recorded", "created": "2025-12-31", "domains": ["proteomics"], "quality": 1},
    {"task": "Bulk RNA-seq of KEAP1 knockout with DESeq2", "tools": ["DESeq2"], "success": True,
     "created": "2026-11-20T23:59:59Z", "entities": ["Keap1"], "provenance": {"notebook": "nb/deseq.ipynb"},
     "extra_field": {"nested": [1, 2.5, None, True]}},
]


@pytest.fixture
def listed_vault(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    """Imported and hand-written episodes (built once per process, then copied)."""

    def build() -> None:
        batch = "".join(json.dumps(r) + "\n" for r in RECORDS)
        assert cli("episode", "import", "-", stdin=batch).code == 0, "import"
        folder = vault / "episodes" / "2026" / "04"
        folder.mkdir(parents=True, exist_ok=True)
        # written by hand: wrong types (listed by the note-parsing path, refused by the index), a YAML
        # error (skipped with a warning by both), a note deeper than YYYY/MM, created as a YAML date
        (folder / "hand-quality.md").write_text("---\nid: hand-quality\ntype: episode\ncreated: 2026-04-02T09:00:00Z\n"
                                                "task: Quality written as a word\nquality: high\ndomains: [scRNA-seq]\n"
                                                "---\nbody\n")
        (folder / "hand-broken.md").write_text("---\nid: hand-broken\ntask: [unclosed\n---\n")
        (folder / "deep").mkdir()
        (folder / "deep" / "hand-deep.md").write_text(
            "---\nid: hand-deep\ntype: episode\ncreated: 2026-04-03 10:00:00\n"
            "task: Placed one folder deeper by hand\ntools: [MAGeCK]\nsuccess: true\n---\n")
        # the same note copied by hand into a second folder: equal (created, id), listed by path
        twin = "---\nid: hand-twin\ntype: episode\ncreated: 2026-04-04T10:00:00Z\ntask: Copied into two folders\n---\n"
        for sub in ("extra", "deep"):
            (folder / sub).mkdir(exist_ok=True)
            (folder / sub / "hand-twin.md").write_text(twin)
        archived = vault / "archive" / "episodes" / "2026" / "01"
        archived.mkdir(parents=True)
        (archived / "gone.md").write_text("---\nid: gone\ntype: episode\ncreated: 2026-01-05T00:00:00Z\n"
                                          "task: Archived, never listed\n---\n")
        git(vault, "add", "-A")
        git(vault, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "hand-written notes")

    return built_vaults.get("listing", vault, build)


def _both(vault: Path, filt: EpisodeFilter) -> tuple[object, object]:
    v = Vault(vault)
    by_notes, bad_notes = parsing.list_episodes(v, filt)
    by_index, bad_index = listing.list_episodes(v, filt)
    return ([e.as_json() for e in by_notes], [p.location() + p.message for p in bad_notes]), \
           ([e.as_json() for e in by_index], [p.location() + p.message for p in bad_index])


def test_the_index_lists_what_parsing_the_notes_lists(listed_vault: Path) -> None:
    since_values = [None, dt.datetime(2026, 3, 14, 10, 0, tzinfo=dt.timezone.utc),
                    dt.datetime(2026, 5, 1, 6, 30, 0, 100000, tzinfo=dt.timezone.utc),  # the boundary second
                    dt.datetime(2026, 5, 1, 6, 30, 0, 300000, tzinfo=dt.timezone.utc),
                    dt.datetime(2027, 1, 1, tzinfo=dt.timezone.utc)]
    checked = 0
    for domain, tool, entity, success, since, limit in itertools.product(
            [None, "SCRNA-SEQ", "proteomics", "nothing"], [None, "MAGeCK"], [None, "keap1"],
            [None, True, False], since_values, [None, 2]):
        filt = EpisodeFilter(domain=domain, tool=tool, entity=entity, success=success, since=since, limit=limit)
        by_notes, by_index = _both(listed_vault, filt)
        assert by_index == by_notes, filt
        checked += bool(by_notes[0])  # type: ignore[index]
    assert checked > 60  # many combinations list something
    everything, problems = _both(listed_vault, EpisodeFilter())[1]  # type: ignore[misc]
    ids = [e["id"] for e in everything]
    assert "hand-quality" in ids and "hand-deep" in ids and "gone" not in ids
    assert ids.index("zz-same-time") < ids.index("aa-same-time")  # same time: by id, descending
    twins = [e["path"] for e in everything if e["id"] == "hand-twin"]
    assert twins == ["episodes/2026/04/deep/hand-twin.md", "episodes/2026/04/extra/hand-twin.md"]
    assert len(problems) == 1 and "hand-broken.md" in problems[0]


def test_episode_list_commands_print_the_same_bytes(listed_vault: Path, cli: Cli) -> None:
    from biocortex_cli.render.text import episode_lines

    v = Vault(listed_vault)
    for args, filt in (([], EpisodeFilter()), (["--limit", "2"], EpisodeFilter(limit=2)),
                       (["--domain", "scrna-seq", "--failure"], EpisodeFilter(domain="scrna-seq", success=False)),
                       (["--tool", "mageck", "--since", "2026-04-01"],
                        EpisodeFilter(tool="mageck", since=dt.datetime(2026, 4, 1, tzinfo=dt.timezone.utc)))):
        expected, _ = parsing.list_episodes(v, filt)
        r = cli("episode", "list", *args)
        assert r.code == 0 and r.out == episode_lines(expected) + "\n"
        assert "hand-broken.md" in r.err and "(skipped)" in r.err
        r = cli("episode", "list", *args, "--json")
        assert r.out == json.dumps([e.as_json() for e in expected], ensure_ascii=False, indent=2) + "\n"


def test_show_finds_any_note_through_the_index(listed_vault: Path, cli: Cli) -> None:
    r = cli("episode", "show", "hand-deep", "--json")
    assert r.code == 0 and r.json()["path"] == "episodes/2026/04/deep/hand-deep.md"
    assert r.json() == parsing.find_episode(Vault(listed_vault), "hand-deep").as_json()
    assert cli("episode", "show", "hand-deep").out == (listed_vault / "episodes/2026/04/deep/hand-deep.md").read_text()
    assert cli("episode", "show", "gone", "--json").json()["path"] == "archive/episodes/2026/01/gone.md"
    r = cli("episode", "show", "hand-broken")
    assert r.code == 1 and "hand-broken.md" in r.err  # found, cannot be read: the parser's error
    r = cli("episode", "show", "no-such-episode", "--json")
    assert r.code == 1 and r.err_json()["error"]["code"] == "not_found"


def test_log_reads_new_episodes_from_the_index(listed_vault: Path, cli: Cli) -> None:
    from biocortex_cli.render.history import digest_text

    v = Vault(listed_vault)
    (listed_vault / "episodes" / "2026" / "04" / "deep" / "hand-deep.md").rename(
        listed_vault / "episodes" / "2026" / "04" / "deep" / "moved.md")  # uncommitted: read from git
    by_notes = digest(v, None, limit=None, from_index=False)
    r = cli("log", "--since", "1y", "--json")
    assert r.code == 0 and r.json() == json.loads(json.dumps(by_notes.as_json()))
    assert len(by_notes.episodes) == len(RECORDS) + 5  # + hand-quality, hand-broken, hand-deep, two hand-twins
    assert cli("log", "--since", "1y").out == digest_text(digest(v, None, limit=20, from_index=False))
    edited = listed_vault / parsing.find_episode(v, "zz-same-time").path
    edited.write_text(edited.read_text().replace("too late", "edited, not committed"))
    r = cli("log", "--since", "1y", "--json")
    assert "too late" in r.out and "edited, not committed" not in r.out  # what was committed
    from biocortex_cli.ops.history import _indexed_records

    rels = [e.path for e in by_notes.episodes]
    from_index = _indexed_records(v, str(v.head()), rels)  # all but the edited, the moved, the unindexed
    assert sorted(from_index) == sorted(set(rels) - {edited.relative_to(listed_vault).as_posix(),
                                                    "episodes/2026/04/deep/hand-deep.md",
                                                    "episodes/2026/04/hand-broken.md",
                                                    "episodes/2026/04/hand-quality.md"})
