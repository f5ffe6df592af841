"""The experience graph: `episode related` and `episode add --link-related`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli


def _add(cli: Cli, ident: str, task: str, *args: str) -> None:
    r = cli("episode", "add", "--id", ident, "--task", task, "--no-suggest", *args)
    assert r.code == 0, r.err


@pytest.fixture
def graph(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    def build() -> None:
        _add(cli, "kras-a", "CRISPR screen for KRAS G12C sotorasib sensitisers in NCI-H358",
             "--tool", "MAGeCK", "--domain", "CRISPR-screen", "--entity", "KRAS", "--success")
        _add(cli, "kras-b", "CRISPR screen for KRAS G12C sotorasib sensitisers in NCI-H358 replicate",
             "--tool", "MAGeCK", "--domain", "CRISPR-screen", "--failure")
        _add(cli, "kras-c", "Docking of covalent KRAS G12C inhibitors", "--tool", "Vina",
             "--domain", "structure", "--entity", "KRAS", "--success")
        _add(cli, "screen-fail", "Ferroptosis modifier screen in TKOV3 cells", "--tool", "MAGeCK",
             "--domain", "CRISPR-screen", "--failure")
        _add(cli, "other", "Bulk RNA-seq of liver organoids", "--tool", "DESeq2", "--domain", "RNA-seq",
             "--success")

    return built_vaults.get("related-graph", vault, build)


def test_related_lists_reasons_ranked(graph: Path, cli: Cli) -> None:
    r = cli("episode", "related", "kras-b", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["id"] == "kras-b"
    ids = [x["id"] for x in data["related"]]
    assert ids[0] == "kras-a" and "other" not in ids and "kras-b" not in ids
    first = data["related"][0]
    assert any(reason.startswith("similar task (") for reason in first["reasons"])
    assert "shared tools: MAGeCK" in first["reasons"]
    fail = next(x for x in data["related"] if x["id"] == "screen-fail")
    assert "both failed (CRISPR-screen, MAGeCK)" in fail["reasons"] and fail["signals"]["failure"] == 1.0
    scores = [x["score"] for x in data["related"]]
    assert scores == sorted(scores, reverse=True)
    assert cli("episode", "related", "kras-b", "--json").out == r.out  # deterministic
    text = cli("episode", "related", "kras-b", "--limit", "1").out
    assert text.startswith("kras-a  ") and "\n  shared tools: MAGeCK" in text and "screen-fail" not in text


def test_related_by_entity(graph: Path, cli: Cli) -> None:
    data = cli("episode", "related", "kras-c", "--json").json()
    by_id = {x["id"]: x for x in data["related"]}
    assert "shared entities: KRAS, KRAS G12C" in by_id["kras-a"]["reasons"]
    assert "other" not in by_id


def test_related_unknown_and_lonely(graph: Path, cli: Cli) -> None:
    r = cli("episode", "related", "nope")
    assert r.code == 1 and "Traceback" not in r.err
    r = cli("episode", "related", "other")
    assert r.code == 0 and r.out == "" and "no episode is related to other" in r.err


def test_add_suggests_and_links_related(graph: Path, cli: Cli) -> None:
    # suggestions read the index as it is (no refresh on the write path): none without an index
    r = cli("episode", "add", "--task", "CRISPR screen for KRAS G12C sotorasib sensitisers, pilot")
    assert r.code == 0 and "related" not in r.err
    assert cli("index").code == 0
    r = cli("episode", "add", "--id", "kras-d", "--task",
            "CRISPR screen for KRAS G12C sotorasib sensitisers, third run",
            "--tool", "MAGeCK", "--domain", "CRISPR-screen", "--success")
    assert r.code == 0 and r.out == "kras-d\n"
    assert "biocortex: related: kras-a (" in r.err
    r = cli("episode", "add", "--id", "kras-e", "--task",
            "CRISPR screen for KRAS G12C sotorasib sensitisers, fourth run",
            "--tool", "MAGeCK", "--domain", "CRISPR-screen", "--link-related", "2", "--no-suggest")
    assert r.code == 0 and r.err == ""
    shown = cli("episode", "show", "kras-e", "--json").json()
    assert len(shown["related"]) == 2 and "kras-e" not in shown["related"]
    assert shown["related"][0] in {"kras-a", "kras-b", "kras-d"}
    text = (graph / shown["path"]).read_text()
    assert all(f"- [[{rid}]]" in text for rid in shown["related"])  # links for Obsidian's graph
    assert cli("check").code == 0
    # given related ids are kept exactly as given
    payload = {"task": "CRISPR screen for KRAS G12C sotorasib sensitisers again", "related": ["other"]}
    r = cli("episode", "add", "--from-json", "-", "--id", "kras-f", "--link-related", "3", "--json",
            stdin=json.dumps(payload))
    assert r.code == 0, r.err
    assert r.json()["related"] == ["other"]
    assert cli("episode", "show", "kras-f", "--json").json()["related"] == ["other"]
