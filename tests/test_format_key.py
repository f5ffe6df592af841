"""Text the index caches rendered carries its renderer's format key: a change to a renderer
re-renders everything on the next recall or index, never old and new lines side by side (issue 16)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli

from biocortex_cli.facts import render as fact_render
from biocortex_cli.lessons import render as lesson_render
from biocortex_cli.render import blocks
from biocortex_cli.render.blocks import format_key

QUERY = "KEAP1 knockout and TP53 in lung cancer doublets"


@pytest.fixture
def memory(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    def build() -> None:
        for ident, task in (("e1", "KEAP1 knockout RNA-seq in lung cancer cells"),
                            ("e2", "Doublet removal before clustering lung cancer cells")):
            r = cli("episode", "add", "--id", ident, "--task", task, "--lesson", "Call doublets per sample first.",
                    "--domain", "RNA-seq", "--success", "--no-suggest")
            assert r.code == 0, r.err
        for triple in (("KEAP1", "inhibits", "NFE2L2"), ("TP53", "regulates", "MDM2")):
            assert cli("fact", "add", *triple, "--source", "PMID:1").code == 0
        assert cli("lessons", "promote", "Call doublets per sample first.").code == 0

    return built_vaults.get("format-key-memory", vault, build)


def _recall(cli: Cli) -> str:
    r = cli("recall", QUERY, "--budget", "3000")
    assert r.code == 0, r.err
    return r.out


def test_the_key_follows_the_renderer_source(tmp_path: Path) -> None:
    source = tmp_path / "renderer.py"
    source.write_text("LINE = '- {x}'\n")
    before = format_key(str(source))
    assert format_key(str(source)) == before
    source.write_text("LINE = '* {x}'\n")
    assert format_key(str(source)) != before
    assert re.fullmatch(r"[0-9a-f]{8}", blocks.FORMAT) and fact_render.FORMAT != lesson_render.FORMAT


def test_a_new_fact_line_replaces_every_cached_one(memory: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _recall(cli)
    assert "- KEAP1 inhibits NFE2L2 (PMID:1; confidence 0.8)" in before and "FACT:" not in before
    monkeypatch.setattr(fact_render, "recall_line", lambda fact: f"- FACT: {fact.sentence()}\n")
    assert _recall(cli) == before  # the same key: the cached lines stand
    monkeypatch.setattr(fact_render, "FORMAT", "changed")
    assert cli("fact", "add", "KEAP1", "binds", "CUL3", "--source", "PMID:2").code == 0
    after = _recall(cli)
    lines = [ln for ln in after.split("## Known facts about the entities in the question\n\n")[1].splitlines() if ln]
    assert lines and all(ln.startswith("- FACT: ") for ln in lines), lines  # no old line left
    assert "- FACT: KEAP1 binds CUL3" in after and "- FACT: KEAP1 inhibits NFE2L2" in after


def test_a_new_lesson_line_replaces_every_cached_one(memory: Path, cli: Cli,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert "- Call doublets per sample first. (2 episodes" in _recall(cli)
    monkeypatch.setattr(lesson_render, "recall_line", lambda lesson, support, rate, ident: f"- LESSON: {lesson}\n")
    monkeypatch.setattr(lesson_render, "FORMAT", "changed")
    after = _recall(cli)
    assert "- LESSON: Call doublets per sample first.\n" in after and "(2 episodes" not in after


def test_a_new_episode_block_rebuilds_the_index(memory: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _recall(cli).count("\n### ")
    assert shown >= 1
    real = blocks.episode_sections

    def marked(record, path):  # type: ignore[no-untyped-def]
        return [blocks.Section(s.name, s.text.replace("### ", "### NEW ")) for s in real(record, path)]

    monkeypatch.setattr(blocks, "episode_sections", marked)
    monkeypatch.setattr(blocks, "FORMAT", "changed")
    r = cli("index", "--check")
    assert r.code == 1 and "recall text format changed" in r.err
    after = _recall(cli)
    assert after.count("\n### NEW ") == shown and "\n### 1." not in after  # every block rendered anew
    assert cli("index", "--check").code == 0
