"""``biocortex context``: one budget for working memory, past analyses and facts (issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biocortex_cli.context import build_context, shares
from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.store.config import ContextConfig
from biocortex_cli.store.vault import find_vault
from biocortex_cli.tokens import get_counter
from tests.conftest import REPO, BuiltVaults, Cli

QUERY = "doublets in scRNA-seq with scDblFinder, TP53"


def _chat(path: Path, turns: int = 30) -> Path:
    messages = [{"role": "system", "content": "You plan bioinformatics analyses."}]
    for i in range(turns):
        messages.append({"role": "user", "content": f"Sample {i}: check doublets in the PBMC scRNA-seq data "
                                                    f"with scDblFinder and look at TP53 expression. " * 3})
        messages.append({"role": "assistant", "content": f"Sample {i}: scDblFinder flagged {i % 7 + 3}% of "
                                                         "barcodes as doublets; next, cluster with Seurat. " * 2})
    path.write_text(json.dumps(messages, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def filled(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    def build() -> None:
        assert cli("episode", "import", REPO / "examples/sample_episodes.jsonl").code == 0
        assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1").code == 0

    return built_vaults.get("context-filled", vault, build)


def test_sections_in_order_and_json_parts_add_up(filled: Path, cli: Cli, tmp_path: Path) -> None:
    chat = _chat(tmp_path / "chat.json")
    r = cli("context", QUERY, "--conversation", chat, "--budget", "1500", "--json")
    assert r.code == 0, r.err
    data = r.json()
    counter = get_counter(data["encoding"])
    assert data["budget"] == 1500 and data["tokens"] == counter.count(data["context"]) <= 1500
    assert [p["name"] for p in data["parts"]] == ["working_memory", "episodes", "facts"]
    assert data["parts"][0]["heading"] == "## Working memory (compressed)"
    assert data["parts"][1]["heading"].startswith("## Relevant past analyses")
    assert data["parts"][2]["heading"] == "## Known facts about the entities in the question"
    for part in data["parts"]:
        assert part["tokens"] > 0
    assert data["parts"][0]["summarised"] > 0 and data["parts"][2]["facts"][0]["object"] == "MDM2"
    plain = cli("context", QUERY, "--conversation", chat, "--budget", "1500")
    assert plain.out == data["context"]  # the same bytes, as for recall


def test_unused_share_flows_to_the_other_part(filled: Path, cli: Cli, tmp_path: Path) -> None:
    small = tmp_path / "small.json"
    small.write_text('[{"role": "user", "content": "Remove doublets first."}]', encoding="utf-8")
    alone = cli("context", QUERY, "--budget", "3000", "--json").json()
    with_chat = cli("context", QUERY, "--conversation", small, "--budget", "3000", "--json").json()
    assert with_chat["parts"][0]["changed"] is False  # a small conversation is kept whole
    # recall got far more than its half: nearly all that the short conversation left
    assert with_chat["parts"][1]["tokens"] > 1500
    assert len(with_chat["parts"][1]["results"]) == len(alone["parts"][0]["results"])


def test_no_conversation_is_recall_only(filled: Path, cli: Cli) -> None:
    data = cli("context", QUERY, "--json").json()
    assert data["budget"] == 4000  # config context.budget
    assert [p["name"] for p in data["parts"]] == ["episodes", "facts"]
    # exactly what recall prints: one blank line between sections, as there
    recall = cli("recall", QUERY, "--budget", "4000", "--json").json()
    assert data["context"] == recall["context"] and data["recall_id"] == recall["recall_id"]
    assert "\n\n\n" not in data["context"]


def test_budget_too_small_for_any_section_is_a_clear_error(filled: Path, cli: Cli, tmp_path: Path) -> None:
    r = cli("context", QUERY, "--budget", "20")
    assert r.code == 2 and "too small for any section" in r.err and "hint: raise --budget" in r.err
    assert cli("context", QUERY, "--budget", "20", "--json").err_json()["error"]["code"] == "budget_too_small"
    r = cli("context", QUERY, "--conversation", _chat(tmp_path / "c.json"), "--budget", "30", "--json")
    assert r.code == 2 and "does not fit its share" in r.err_json()["error"]["message"]
    assert cli("context", QUERY, "--budget", "0").code == 2


def test_nothing_relevant_is_empty_with_the_reason(vault: Path, cli: Cli) -> None:
    r = cli("context", "zebrafish fin regeneration")
    assert r.code == 0 and r.out == "" and "no context" in r.err


def test_tokens_never_exceed_the_budget_over_a_range_of_budgets(filled: Path, tmp_path: Path) -> None:
    found = find_vault(str(filled))
    conversation = _chat(tmp_path / "chat.json", turns=12).read_text(encoding="utf-8")
    counter = get_counter(found.config.tokenizer.encoding)
    fitted = 0
    for budget in [*range(60, 400, 23), *range(400, 5000, 397)]:
        for conv in (None, conversation):
            try:
                result = build_context(found, QUERY, budget=budget, conversation=conv)
            except UsageError:
                assert budget < 400
                continue
            fitted += 1
            assert result.tokens == counter.count(result.context) <= budget, (budget, conv is None)
    assert fitted > 20


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=1, max_value=3000), share=st.floats(min_value=0, max_value=1))
def test_hypothesis_tokens_within_budget(filled: Path, tmp_path: Path, budget: int, share: float) -> None:
    found = find_vault(str(filled))
    config = found.config._replace(context=ContextConfig(conversation_share=share, recall_share=1 - share + 0.01))
    found.__dict__["config"] = config  # Vault.config is a cached_property: set the cached value
    conversation = _chat(tmp_path / "h.json", turns=6).read_text(encoding="utf-8")
    try:
        result = build_context(found, QUERY, budget=budget, conversation=conversation)
    except UsageError:
        return
    assert get_counter(result.encoding).count(result.context) == result.tokens <= budget


def test_shares_are_relative_and_checked() -> None:
    assert shares(ContextConfig(conversation_share=1, recall_share=1)) == 0.5
    assert shares(ContextConfig(conversation_share=0, recall_share=2)) == 0
    with pytest.raises(DataError, match="not both 0"):
        shares(ContextConfig(conversation_share=0, recall_share=0))


def test_nothing_recalled_says_why_in_the_json_too(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """Found by an agent trial: `recall --json` carries `reason`, `context --json` did not, so an MCP
    client (no stderr) got an empty context and no word on why."""
    data = cli("context", "zebrafish fin regeneration", "--json").json()
    assert data["parts"] == [] and data["context"] == ""
    assert data["reason"] == "the vault has no episodes yet"
    # the conversation fits, the past analyses are missing: the reason says why they are
    chat = tmp_path / "chat.json"
    chat.write_text('[{"role": "user", "content": "Regenerate the fin."}]', encoding="utf-8")
    r = cli("context", "zebrafish fin regeneration", "--conversation", chat, "--json")
    assert [p["name"] for p in r.json()["parts"]] == ["working_memory"]
    assert r.json()["reason"] == "the vault has no episodes yet"
    assert "biocortex: no past analyses: the vault has no episodes yet" in r.err


def test_a_context_with_past_analyses_has_no_reason(filled: Path, cli: Cli) -> None:
    assert "reason" not in cli("context", QUERY, "--json").json()


def test_a_missing_conversation_file_gets_a_hint_that_fits_context(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """Found by an agent trial: the hint was compress's, "pass - (or nothing) to read stdin"; for
    context, nothing means no conversation at all."""
    r = cli("context", "doublets", "--conversation", tmp_path / "chat.json", "--json")
    error = r.err_json()["error"]
    assert r.code == 1 and error["code"] == "not_found" and "or nothing" not in error["hint"]
    assert "pass - to read it from stdin" in error["hint"]


@pytest.mark.parametrize("empty", ["[]", '{"messages": []}'])
def test_an_empty_conversation_adds_no_section(filled: Path, cli: Cli, tmp_path: Path, empty: str) -> None:
    """Found by an agent trial: an agent at the first step of a task passes its conversation, still
    empty; context printed a `## Working memory` section holding `[]` (10-14 tokens of nothing)."""
    chat = tmp_path / "chat.json"
    chat.write_text(empty, encoding="utf-8")
    with_empty = cli("context", QUERY, "--conversation", chat, "--budget", "1500", "--json")
    assert with_empty.code == 0, with_empty.err
    assert with_empty.out == cli("context", QUERY, "--budget", "1500", "--json").out
