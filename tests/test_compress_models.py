"""The model table, the auto budget, and the table in docs/compress.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from biocortex_cli.compress.models import (
    MODEL_CONTEXT,
    auto_budget,
    close_models,
    lookup_model,
    models_markdown,
    resolve_budget,
)
from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.store.config import WorkingMemoryConfig

DOC = Path(__file__).resolve().parents[1] / "docs" / "compress.md"
DEFAULTS = WorkingMemoryConfig()


def _resolve(**kwargs: object) -> object:
    options = {
        "budget": None,
        "model": None,
        "max_tokens": DEFAULTS.max_tokens,
        "config_model": DEFAULTS.model,
        "fraction": DEFAULTS.auto_fraction,
        "minimum": DEFAULTS.auto_min_tokens,
        "maximum": DEFAULTS.auto_max_tokens,
        "extra": DEFAULTS.models,
    }
    options.update(kwargs)
    return resolve_budget(**options)  # type: ignore[arg-type]


def test_the_table_in_the_docs_is_generated_from_the_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- models:start -->\n(.*?)<!-- models:end -->", text, re.S)
    assert found, "docs/compress.md lost its <!-- models:start/end --> markers"
    assert found.group(1) == models_markdown(), "docs/compress.md model table is stale: paste models_markdown()"


def test_the_table_covers_the_current_families() -> None:
    for name in (
        "gpt-4o",
        "gpt-4.1",
        "o3",
        "o4-mini",
        "gpt-5",
        "claude-3-5-sonnet",
        "claude-sonnet-4",
        "claude-opus-4-1",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
        "gemini-1.5-pro",
        "gemini-2.0-flash",
        "gemini-2.5-pro",
        "llama-3.1",
        "llama-3.3",
        "qwen2.5",
        "qwen3",
        "mistral-large",
        "mixtral-8x7b",
        "deepseek-v3",
        "deepseek-r1",
        "gemma-3",
    ):
        assert name in MODEL_CONTEXT, name
    assert all(size >= 8192 for size in MODEL_CONTEXT.values())


@pytest.mark.parametrize(
    "given,found",
    [
        ("gpt-4o", "gpt-4o"),
        ("GPT-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("openai/gpt-4.1", "gpt-4.1"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-opus-4-1@20250805", "claude-opus-4-1"),
        ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
        ("claude-3-5-sonnet-latest", "claude-3-5-sonnet"),
        ("models/gemini-1.5-pro-002", "gemini-1.5-pro"),
        ("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash"),
        ("meta-llama/Llama-3.1-70B-Instruct", "llama-3.1"),
        ("llama3.3:70b", "llama-3.3"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5"),
        ("mistral-large-2411", "mistral-large"),
        ("deepseek-r1:14b", "deepseek-r1"),
        ("gemma-3-1b-it", "gemma-3-1b"),
        ("gemma-3-27b-it", "gemma-3"),
        ("o3-mini-2025-01-31", "o3-mini"),
        ("gpt-4-0613", "gpt-4"),
        ("claude-3.7-sonnet", "claude-3-7-sonnet"),
        ("gpt-5.1-codex", "gpt-5.1"),
        ("deepseek-v3.1-terminus", "deepseek-v3.1"),
        ("mixtral-8x22b-instruct", "mixtral-8x22b"),
    ],
)
def test_model_names_are_matched_as_people_write_them(given: str, found: str) -> None:
    match = lookup_model(given)
    assert match is not None and match[0] == found


def test_unknown_models_get_close_names_and_config_extends_the_table() -> None:
    assert lookup_model("claude-sonet-4") is None
    assert lookup_model("gpt-4.5-preview") is None  # a new version is not the old one
    assert lookup_model("qwen2-7b") is None
    assert close_models("claude-sonet-4")[0] == "claude-sonnet-4"
    assert lookup_model("lab-llm-7b") is None
    assert lookup_model("lab-llm-7b-q4", {"lab-llm-7b": 32768}) == ("lab-llm-7b", 32768)
    assert lookup_model("gpt-4o", {"gpt-4o": 64000}) == ("gpt-4o", 64000)  # the config overrides the table
    with pytest.raises(UsageError) as err:
        _resolve(model="gpt-4.5-turbo-ultra")
    assert err.value.hint and "close names" in err.value.hint


def test_auto_budget_is_sixty_percent_clamped_and_never_above_the_context() -> None:
    assert auto_budget(200_000, fraction=0.6, minimum=16_000, maximum=600_000) == 120_000
    assert auto_budget(2_097_152, fraction=0.6, minimum=16_000, maximum=600_000) == 600_000
    assert auto_budget(16_385, fraction=0.6, minimum=16_000, maximum=600_000) == 16_000
    assert auto_budget(8_192, fraction=0.6, minimum=16_000, maximum=600_000) == 8_192


def test_budget_sources_and_config_errors() -> None:
    assert _resolve(budget=500).source == "--budget"  # type: ignore[attr-defined]
    assert _resolve(max_tokens=4000).tokens == 4000  # type: ignore[attr-defined]
    auto = _resolve()
    assert (auto.tokens, auto.model, auto.context) == (120_000, "claude-sonnet-4-5", 200_000)  # type: ignore[attr-defined]
    with pytest.raises(UsageError):
        _resolve(budget=500, model="gpt-4o")
    with pytest.raises(UsageError):
        _resolve(budget=0)
    assert _resolve(budget=-1, max_tokens=4000).tokens == 120_000  # type: ignore[attr-defined]
    for bad in (
        {"max_tokens": 0},
        {"fraction": 1.5},
        {"minimum": 700_000},
        {"extra": {"x": -5}},
        {"config_model": "nope-1"},
    ):
        with pytest.raises(DataError) as err:
            _resolve(**bad)
        assert err.value.path == ".biocortex/config.yaml"
