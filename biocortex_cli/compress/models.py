"""Context windows of current models, and the token budget of ``compress`` derived from them.

The auto budget is ``auto_fraction`` (60 %) of the model's input context, clamped to
``[auto_min_tokens, auto_max_tokens]`` (16K-600K) and never above the context itself (an
8K-token model gets 8K, not the 16K floor). The remaining 40 % is room for the model's reply and
for the difference between our token counts (tiktoken, cl100k_base by default) and the model's
own tokenizer.

The numbers are input context in tokens as the providers document them for their APIs; where the
context is shared with the output and the provider states a separate input limit, that limit is
used (GPT-5: 400K context, 272K input). Users extend or override the table with
``working_memory.models`` in ``.biocortex/config.yaml``. docs/compress.md shows the table
rendered by :func:`models_markdown` (a test fails when the document is stale).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.store.config import CONFIG_REL

#: family -> ((model, input context tokens), ...); the family is only used to lay out the docs.
MODEL_FAMILIES: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = (
    ("OpenAI", (
        ("gpt-3.5-turbo", 16_385),
        ("gpt-4", 8_192),
        ("gpt-4-turbo", 128_000),
        ("gpt-4o", 128_000),
        ("gpt-4o-mini", 128_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4.1-mini", 1_047_576),
        ("gpt-4.1-nano", 1_047_576),
        ("o1", 200_000),
        ("o1-mini", 128_000),
        ("o3", 200_000),
        ("o3-mini", 200_000),
        ("o3-pro", 200_000),
        ("o4-mini", 200_000),
        ("gpt-5", 272_000),
        ("gpt-5-mini", 272_000),
        ("gpt-5-nano", 272_000),
        ("gpt-5-codex", 272_000),
        ("gpt-5.1", 272_000),
        ("gpt-oss-20b", 131_072),
        ("gpt-oss-120b", 131_072),
    )),
    ("Anthropic", (
        ("claude-3-haiku", 200_000),
        ("claude-3-sonnet", 200_000),
        ("claude-3-opus", 200_000),
        ("claude-3-5-haiku", 200_000),
        ("claude-3-5-sonnet", 200_000),
        ("claude-3-7-sonnet", 200_000),
        ("claude-sonnet-4", 200_000),
        ("claude-opus-4", 200_000),
        ("claude-opus-4-1", 200_000),
        ("claude-sonnet-4-5", 200_000),
        ("claude-haiku-4-5", 200_000),
        ("claude-opus-4-5", 200_000),
    )),
    ("Google", (
        ("gemini-1.5-flash", 1_048_576),
        ("gemini-1.5-flash-8b", 1_048_576),
        ("gemini-1.5-pro", 2_097_152),
        ("gemini-2.0-flash", 1_048_576),
        ("gemini-2.0-flash-lite", 1_048_576),
        ("gemini-2.5-flash", 1_048_576),
        ("gemini-2.5-flash-lite", 1_048_576),
        ("gemini-2.5-pro", 1_048_576),
        ("gemma-2", 8_192),
        ("gemma-3", 131_072),
        ("gemma-3-1b", 32_768),
        ("gemma-3n", 32_768),
    )),
    ("Meta Llama", (
        ("llama-3", 8_192),
        ("llama-3.1", 131_072),
        ("llama-3.2", 131_072),
        ("llama-3.3", 131_072),
        ("llama-4-scout", 10_485_760),
        ("llama-4-maverick", 1_048_576),
    )),
    ("Qwen", (
        ("qwen2.5", 131_072),
        ("qwen2.5-coder", 131_072),
        ("qwen3", 32_768),
        ("qwen3-coder", 262_144),
    )),
    ("Mistral", (
        ("mistral", 32_768),
        ("mistral-7b", 32_768),
        ("mistral-nemo", 131_072),
        ("mistral-small", 131_072),
        ("mistral-medium", 131_072),
        ("mistral-large", 131_072),
        ("ministral-8b", 131_072),
        ("codestral", 262_144),
        ("mixtral-8x7b", 32_768),
        ("mixtral-8x22b", 65_536),
    )),
    ("DeepSeek", (
        ("deepseek-v3", 131_072),
        ("deepseek-v3.1", 131_072),
        ("deepseek-r1", 131_072),
        ("deepseek-chat", 131_072),
        ("deepseek-reasoner", 131_072),
    )),
)

MODEL_CONTEXT: dict[str, int] = {name: size for _, models in MODEL_FAMILIES for name, size in models}

# openai/gpt-4o, meta-llama/Llama-3.1-8B, models/gemini…, Bedrock's us.anthropic.claude-…
_PROVIDER = re.compile(r"^(?:[\w.-]+/)+|^(?:(?:us|eu|apac|global|anthropic|meta|mistral|amazon)\.)+")
_DATE = re.compile(r"(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2})|-latest|:[\w.-]+)$")  # …-20250929, @2025…, :8b
_PARTS = re.compile(r"\d+(?:\.\d+)*|[a-z]+")


@dataclass(frozen=True)
class Budget:
    """The token budget of one ``compress`` call and where it came from."""

    tokens: int
    source: str  # where it came from, for people: "--budget", "--model gpt-4o: 60% of 128,000", …
    model: str | None = None  # the table entry used for an auto budget
    context: int | None = None  # that model's input context


def _tokens(name: str) -> tuple[str, ...]:
    """A model name as comparable parts: no provider prefix, date or tag suffix; words and version
    numbers (``4.1`` stays one part, so ``gpt-4.5`` is not ``gpt-4``). Claude's names use hyphens
    for versions (``claude-3-5-sonnet``), so there ``3.5`` counts as ``3-5``."""
    name = _PROVIDER.sub("", name.strip().lower())
    while True:
        stripped = _DATE.sub("", name)
        if stripped == name:
            break
        name = stripped
    if name.startswith("claude"):
        name = name.replace(".", "-")
    return tuple(_PARTS.findall(name))


def lookup_model(name: str, extra: Mapping[str, int] | None = None) -> tuple[str, int] | None:
    """(table name, input context) for a model name as users write it, or None.

    Matches case-insensitively, ignoring separators, a provider prefix (``openai/``), a date or
    tag suffix (``-20250929``, ``@20250929``, ``-latest``, ``:8b``); otherwise the longest table
    name whose parts begin the given name's parts (``gpt-4o-mini-2024-07-18`` → ``gpt-4o-mini``,
    ``Qwen2.5-72B-Instruct`` → ``qwen2.5``). ``extra`` (the config's models) wins over the table.
    """
    table = {**MODEL_CONTEXT, **(extra or {})}
    keyed = {_tokens(k): k for k in MODEL_CONTEXT}
    keyed.update({_tokens(k): k for k in extra or {}})
    wanted = _tokens(name)
    if not wanted:
        return None
    prefixes = [k for k in keyed if k and wanted[: len(k)] == k]
    if not prefixes:
        return None
    found = keyed[max(prefixes, key=len)]
    return found, table[found]


def close_models(name: str, extra: Mapping[str, int] | None = None, n: int = 5) -> list[str]:
    names = sorted({*MODEL_CONTEXT, *(extra or {})})
    close = difflib.get_close_matches(name.strip().lower(), names, n=n, cutoff=0.5)
    if len(close) < n:
        by_key = {"-".join(_tokens(k)): k for k in names}
        for k in difflib.get_close_matches("-".join(_tokens(name)), list(by_key), n=n, cutoff=0.5):
            if by_key[k] not in close:
                close.append(by_key[k])
    return close[:n]


def unknown_model_hint(name: str, extra: Mapping[str, int] | None = None) -> str:
    close = close_models(name, extra)
    families = ", ".join(family for family, _ in MODEL_FAMILIES)
    known = f"close names: {', '.join(close)}" if close else f"known families: {families}"
    return (f"{known}; add the model under working_memory.models in {CONFIG_REL} "
            "(name: context tokens), or pass --budget N")


#: ``--budget -1`` (and ``working_memory.max_tokens: -1``): the auto budget of the configured model.
AUTO = -1


def auto_budget(context: int, *, fraction: float, minimum: int, maximum: int) -> int:
    """``fraction`` of ``context``, clamped to [minimum, maximum], never above ``context``."""
    return min(context, max(minimum, min(maximum, int(context * fraction))))


def resolve_budget(*, budget: int | None, model: str | None, max_tokens: int, config_model: str,
                   fraction: float, minimum: int, maximum: int,
                   extra: Mapping[str, int] | None = None) -> Budget:
    """The budget: ``--budget``, else ``--model``'s auto budget, else the configuration's; ``--budget -1``
    (``AUTO``) is the auto budget of ``working_memory.model``, whatever ``max_tokens`` says."""
    if budget is not None and model is not None:
        raise UsageError("give --budget or --model, not both",
                         hint="--budget N sets the tokens; --model NAME derives them from its context")
    if budget is not None and budget != AUTO:
        if budget < 1:
            raise UsageError(f"--budget must be a positive number of tokens or -1 (auto), got {budget}",
                             hint="--budget 4000, or --budget -1 for 60% of working_memory.model's context")
        return Budget(budget, "--budget")
    _check_config(max_tokens, fraction, minimum, maximum, extra)
    if model is not None:
        found = lookup_model(model, extra)
        if found is None:
            raise UsageError(f"unknown model {model!r}", hint=unknown_model_hint(model, extra))
        return _auto(f"--model {found[0]}", found, fraction, minimum, maximum)
    if max_tokens > 0 and budget is None:  # --budget -1 asks for the auto budget whatever max_tokens says
        return Budget(max_tokens, "working_memory.max_tokens")
    found = lookup_model(config_model, extra)
    if found is None:
        raise DataError(f"unknown model {config_model!r} in working_memory.model", path=CONFIG_REL,
                        hint=unknown_model_hint(config_model, extra))
    origin = f"working_memory.model {found[0]}"
    return _auto(origin if budget is None else f"--budget -1, {origin}", found, fraction, minimum, maximum)


def _auto(origin: str, found: tuple[str, int], fraction: float, minimum: int, maximum: int) -> Budget:
    tokens = auto_budget(found[1], fraction=fraction, minimum=minimum, maximum=maximum)
    how = f"{fraction:.0%} of {found[1]:,}"
    if tokens != int(found[1] * fraction):
        how += f", clamped to {tokens:,}"
    return Budget(tokens, f"{origin}: {how}", found[0], found[1])


def _check_config(max_tokens: int, fraction: float, minimum: int, maximum: int,
                  extra: Mapping[str, int] | None) -> None:
    problem = None
    if max_tokens == 0 or max_tokens < -1:
        problem = f"working_memory.max_tokens must be -1 (auto) or a positive number, got {max_tokens}"
    elif not 0 < fraction <= 1:
        problem = f"working_memory.auto_fraction must be in (0, 1], got {fraction}"
    elif not 0 < minimum <= maximum:
        problem = (f"working_memory.auto_min_tokens ({minimum}) must be positive and at most "
                   f"auto_max_tokens ({maximum})")
    else:
        for name, size in (extra or {}).items():
            if not isinstance(size, int) or isinstance(size, bool) or size < 1:
                problem = f"working_memory.models.{name} must be a positive number of tokens, got {size!r}"
                break
    if problem:
        raise DataError(problem, path=CONFIG_REL)


def models_markdown(fraction: float = 0.6, minimum: int = 16_000, maximum: int = 600_000) -> str:
    """The model table of docs/compress.md (between its ``models:`` markers)."""
    lines = ["| family | model | input context | auto budget |", "|---|---|---:|---:|"]
    for family, models in MODEL_FAMILIES:
        for name, size in models:
            auto = auto_budget(size, fraction=fraction, minimum=minimum, maximum=maximum)
            lines.append(f"| {family} | `{name}` | {size:,} | {auto:,} |")
    return "\n".join(lines) + "\n"
