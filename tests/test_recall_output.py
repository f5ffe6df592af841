"""Agent-facing recall output (issue 17 item 7): each hit's sections as JSON fields, a compact
rendering that spends fewer tokens on ids and paths, one behaviour for a budget too small."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, Cli

from biocortex_cli.tokens import get_counter

SAMPLES = REPO / "examples" / "sample_episodes.jsonl"
QUESTION = "what went wrong last time we removed doublets from 10x multiome data?"
SECTIONS = ("created", "plan", "result", "tools", "domains", "lessons", "entities", "related")


@pytest.fixture
def demo(vault: Path, cli: Cli, built_vaults) -> Path:  # type: ignore[no-untyped-def]
    def build() -> None:
        assert cli("episode", "import", str(SAMPLES)).code == 0

    return built_vaults.get("recall-output-demo", vault, build)  # type: ignore[no-any-return]


def test_each_hit_carries_its_sections_as_recorded(demo: Path, cli: Cli) -> None:
    data = cli("recall", QUESTION, "--json").json()
    assert len(data["results"]) >= 3
    for hit in data["results"]:
        record = cli("episode", "show", hit["id"], "--json").json()
        assert list(hit)[:9] == ["id", "path", "score", "rank_score", "signals", "tokens", "task", "success", "quality"]
        assert hit["path"] == record["path"] and hit["task"] == record["task"]
        for key in ("plan", "result"):
            assert hit[key] == record.get(key)  # text, or null when not recorded
        for key in ("tools", "domains", "lessons", "entities", "related"):
            assert hit[key] == record.get(key, [])
        assert hit["created"] == record["created"]
    first = data["results"][0]
    assert first["lessons"] and all(lesson.split()[0] in data["context"] for lesson in first["lessons"][:1])
    # additive: the printed context is what it was, and context --json's episodes part carries them too
    assert cli("recall", QUESTION).out == data["context"]
    part = next(p for p in cli("context", QUESTION, "--json").json()["parts"] if p["name"] == "episodes")
    assert set(SECTIONS) <= set(part["results"][0])


def test_compact_spends_fewer_tokens_on_ids_and_paths(demo: Path, cli: Cli) -> None:
    full = cli("recall", QUESTION, "--json").json()
    compact = cli("recall", QUESTION, "--compact", "--json").json()
    count = get_counter("cl100k_base").count
    assert [h["id"] for h in compact["results"]] == [h["id"] for h in full["results"]]
    assert compact["recall_id"] != full["recall_id"]  # another output, another id
    for hit in compact["results"]:
        assert hit["path"] not in compact["context"] and hit["id"] in compact["context"]
        assert hit["path"] in full["context"]
    assert compact["tokens"] == count(compact["context"]) < full["tokens"] == count(full["context"])
    assert cli("recall", QUESTION, "--compact").out == compact["context"]
    # the config key gives the same output, for every recall and context
    config = demo / ".biocortex" / "config.yaml"
    config.write_text(config.read_text().replace("compact: false", "compact: true"))
    assert cli("recall", QUESTION, "--json").json()["context"] == compact["context"]
    assert "episodes/" not in cli("context", QUESTION).out


@pytest.mark.parametrize("budget", [60, 200])
def test_compact_never_exceeds_the_budget(demo: Path, cli: Cli, budget: int) -> None:
    r = cli("recall", QUESTION, "--compact", "--budget", str(budget), "--json")
    if r.code == 0:
        data = r.json()
        assert data["tokens"] == get_counter("cl100k_base").count(data["context"]) <= budget
        assert all(h["path"] not in data["context"] for h in data["results"])
    else:
        assert r.code == 2 and r.err_json()["error"]["code"] == "budget_too_small"


def test_recall_and_context_say_the_same_when_the_budget_is_too_small(demo: Path, cli: Cli) -> None:
    for command in ("recall", "context"):
        r = cli(command, QUESTION, "--budget", "30")
        assert r.code == 2 and r.out == "" and "tokens is too small for any" in r.err, command
        assert "hint: raise --budget" in r.err
        r = cli(command, QUESTION, "--budget", "30", "--json")
        assert r.code == 2 and r.out == "" and r.err_json()["error"]["code"] == "budget_too_small"
    # nothing relevant is not an error: empty, exit 0, the reason on stderr
    for command in ("recall", "context"):
        r = cli(command, "zebrafish fin regeneration", "--budget", "30")
        assert r.code == 0 and r.out == "" and "no" in r.err
