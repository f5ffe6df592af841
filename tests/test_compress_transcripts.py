"""Quality you can see: long, realistic agent transcripts of biology analyses (tests/data/transcripts)
compressed to a quarter of their size keep the identifiers, error messages and decisions of the
part that was compressed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from conftest import Cli

from biocortex_cli.compress import summarize
from biocortex_cli.compress.engine import conversation_tokens
from biocortex_cli.compress.formats import parse
from biocortex_cli.tokens import get_counter

DATA = Path(__file__).resolve().parent / "data" / "transcripts"
EXPECTED: dict[str, dict[str, list[str]]] = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
SHARE = 0.25  # the budget: a quarter of each transcript's tokens
COUNTER = get_counter("cl100k_base")


@pytest.fixture(autouse=True)
def no_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_the_committed_transcripts_are_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("generate_transcripts", DATA / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    files = module.build()
    assert set(files) == {p.name for p in DATA.iterdir() if p.suffix in (".json", ".jsonl")}
    for name, content in files.items():
        assert (DATA / name).read_text(encoding="utf-8") == content, f"{name} is stale: run {DATA / 'generate.py'}"


def test_there_are_at_least_ten_long_transcripts_in_every_format() -> None:
    convs = [parse((DATA / name).read_text(encoding="utf-8"), name) for name in EXPECTED]
    assert len(convs) >= 10
    assert {c.format_name for c in convs} >= {
        "openai json-array",
        "openai json-object",
        "openai jsonl",
        "anthropic json-array",
        "anthropic json-object",
        "anthropic jsonl",
    }
    assert all(conversation_tokens(c, COUNTER) >= 10_000 for c in convs)
    assert all(sum(m.calls_tools for m in c.messages) >= 5 for c in convs)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_identifiers_errors_and_decisions_survive_compression(cli: Cli, name: str) -> None:
    path = DATA / name
    text = path.read_text(encoding="utf-8")
    conv = parse(text, name)
    budget = int(conversation_tokens(conv, COUNTER) * SHARE)
    r = cli("compress", str(path), "--budget", str(budget), "--json")
    assert r.code == 0, r.err
    report = r.json()
    out = parse(report["output"])
    assert report["tokens"] == conversation_tokens(out, COUNTER) <= budget
    assert out.container == conv.container and report["format"] == conv.format_name
    first, last = report["compressed"]["first"], report["compressed"]["last"]
    compressed = [m for m in conv.messages if first <= m.index <= last and not m.is_system]
    summary = next(
        m.data["content"]
        for m in out.messages
        if isinstance(m.data.get("content"), str) and m.data["content"].startswith(summarize.SUMMARY_MARK)
    )
    for kind, wanted in EXPECTED[name].items():
        for item in wanted:
            # the check is only meaningful for what was compressed (not kept verbatim)
            assert any(item in json.dumps(m.data, ensure_ascii=False) for m in compressed), (kind, item)
            assert item in summary, f"{kind} {item!r} lost from the summary of {name}"
    kept = [m for m in out.messages if not str(m.data.get("content", "")).startswith(summarize.SUMMARY_MARK)]
    assert all(m.raw in text for m in kept)
