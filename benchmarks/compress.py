"""Whole-process time of ``biocortex compress`` on a 100k-token and a 1M-token conversation (issue #5).

Targets: 1M tokens in <= 2 s and 100k tokens in <= 0.5 s, as whole processes.

The conversations are made of the agent transcripts of tests/data/transcripts (their generator,
rendered as OpenAI chat messages with tool calls), repeated with numbered rounds until the token
count is reached, so they hold the same mix of prose, tool calls, tables and tracebacks.

Run: .venv/bin/python benchmarks/compress.py [--runs 7] [--budget-use]

``--budget-use`` (no timing): how much of the budget the output uses, for every shipped
transcript at budgets of 2,000, 3,400, 5,000 and 8,000 tokens (the default mode: as many recent
messages as fit, the rest summarised).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests" / "data" / "transcripts"))
sys.path.insert(0, str(ROOT))
from common import BIOCORTEX, machine, summary, time_process  # noqa: E402
from generate import SCENARIOS  # noqa: E402

from biocortex_cli.compress.engine import conversation_tokens  # noqa: E402
from biocortex_cli.compress.formats import parse  # noqa: E402
from biocortex_cli.tokens import get_counter  # noqa: E402


def conversation(tokens: int) -> tuple[str, int]:
    """A JSON array of OpenAI messages of at least ``tokens`` tokens, and its exact count."""
    counter = get_counter("cl100k_base")
    scripts = [make() for make in SCENARIOS]
    for script in scripts:
        script.style = "openai"
    messages: list[dict[str, Any]] = [{"role": "system", "content": scripts[0].system}]
    total, round_ = 3, 0
    while total < tokens:
        round_ += 1
        for script in scripts:
            for message in script.messages()[1:]:
                message = dict(message)
                if message["role"] == "user":
                    message["content"] = f"[round {round_}] {message['content']}"
                if "tool_calls" in message:
                    message["tool_calls"] = [{**c, "id": f"{c['id']}_{round_}"} for c in message["tool_calls"]]
                if "tool_call_id" in message:
                    message["tool_call_id"] = f"{message['tool_call_id']}_{round_}"
                messages.append(message)
                total += 3 + sum(
                    counter.count_many(
                        [v if isinstance(v, str) else json.dumps(v) for v in message.values() if v is not None]
                    )
                )
                if total >= tokens and message["role"] != "assistant":
                    break
            if total >= tokens:
                break
    text = json.dumps(messages, ensure_ascii=False, indent=1) + "\n"
    return text, conversation_tokens(parse(text), counter)


def budget_use() -> None:
    """Output tokens / budget over the shipped transcripts (deterministic: no timing)."""
    from biocortex_cli.compress.engine import compress
    from biocortex_cli.compress.models import Budget
    from biocortex_cli.errors import BiocortexError

    counter = get_counter("cl100k_base")
    shares = []
    for path in sorted((ROOT / "tests" / "data" / "transcripts").glob("*.json*")):
        if path.name == "expected.json":
            continue
        conv = parse(path.read_text(encoding="utf-8"))
        for budget in (2000, 3400, 5000, 8000):
            try:
                result = compress(conv, budget=Budget(budget, "--budget"), counter=counter)
            except BiocortexError:
                continue
            if result.changed:
                shares.append(result.tokens_after / budget)
                print(f"{path.name:<34} {budget:>6,} {result.tokens_after:>6,} {result.tokens_after / budget:6.1%}")
    under = sum(share < 0.9 for share in shares)
    print(f"{len(shares)} compressions: budget used {statistics.mean(shares):.1%} on average, "
          f"median {statistics.median(shares):.1%}, least {min(shares):.1%}, under 90 %: {under}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--budget-use", action="store_true", help="how much of the budget outputs use (no timing)")
    args = parser.parse_args()
    if args.budget_use:
        budget_use()
        return
    print(f"machine: {machine()}")
    cases = [
        ("100k tokens, budget 50,000 (compresses)", 100_000, ["--budget", "50000"]),
        ("100k tokens, default budget (fits: printed unchanged)", 100_000, []),
        ("1M tokens, default budget 120,000 (claude-sonnet-4-5)", 1_000_000, []),
        ("1M tokens, --model gpt-4.1 (budget 600,000)", 1_000_000, ["--model", "gpt-4.1"]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[int, tuple[Path, int]] = {}
        for size in sorted({size for _, size, _ in cases}):
            text, count = conversation(size)
            path = Path(tmp) / f"conversation-{size}.json"
            path.write_text(text, encoding="utf-8")
            files[size] = (path, count)
            print(
                f"conversation of {count:,} tokens ({len(text.encode()):,} bytes, "
                f"{text.count(chr(10) + ' {'):,} messages): {path.name}"
            )
        env = {"HOME": tmp, "BIOCORTEX_VAULT": ""}  # no vault: the built-in defaults
        for label, size, options in cases:
            path, _ = files[size]
            samples = time_process([*BIOCORTEX, "compress", str(path), *options], args.runs, env=env, cwd=tmp, warmup=1)
            target = 2.0 if size >= 1_000_000 else 0.5
            verdict = "ok" if statistics.median(samples) <= target else f"OVER the {target:g} s target"
            print(f"{label:<58} {summary(samples)}  {verdict}")


if __name__ == "__main__":
    main()
