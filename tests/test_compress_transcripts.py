"""Quality you can see: long, realistic agent transcripts of biology analyses (tests/data/transcripts)
compressed to a quarter of their size keep the identifiers, error messages and decisions of the
part that was compressed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

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
    # the message before the recent part may be kept with its text cut (the summary left room)
    cut = [m for m in out.messages if m.raw not in text and not str(m.data.get("content")).startswith("[biocortex")]
    assert len(cut) == len(report["kept"]["cut"]) <= 1
    assert all("cut here by biocortex compress …]" in json.dumps(m.data, ensure_ascii=False) for m in cut)
    for kind, wanted in EXPECTED[name].items():
        for item in wanted:
            # the check is only meaningful for what was compressed or cut (not kept verbatim)
            assert any(item in json.dumps(m.data, ensure_ascii=False)
                       for m in [*compressed, *(conv.messages[n - 1] for n in report["kept"]["cut"])]), (kind, item)
            kept = [summary, *(json.dumps(m.data, ensure_ascii=False) for m in cut)]
            assert any(item in t for t in kept), f"{kind} {item!r} lost from the summary of {name}"


# -- what the built-in summary keeps at the budgets people give it (issue 17) ----------------------

BUDGETS = (1000, 2000, 3400)
CRISPR = "03_crispr_screen_mageck.jsonl"
#: genes in the CRISPR transcript's tool output that are not hits (FDR > 0.05 rows, the head of the
#: count table, Illumina read names) and that nobody names in prose
NON_HITS = ("PRDX1", "TXN", "SOD1", "GPX1", "GSTP1", "ENO1", "PGK1", "LDHA", "ALDOA", "TPI1", "PKM", "MIF",
            "CD63", "CD81", "ANXA1", "APOE", "NB552343")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _prose(message: Any) -> str:
    from biocortex_cli.compress.formats import parts

    return _flat(" ".join(t for t in parts(message).prose if t))


def _compressed(cli: Cli, name: str, budget: int) -> tuple[Any, Any, str, str]:
    """(input conversation, report, the summary, the whole output as flat text)."""
    r = cli("compress", str(DATA / name), "--budget", str(budget), "--json")
    assert r.code == 0, r.err
    report = r.json()
    out = parse(report["output"])
    summary = next(m.data["content"] for m in out.messages
                   if str(m.data.get("content") or "").startswith(summarize.SUMMARY_MARK))
    return parse((DATA / name).read_text(encoding="utf-8"), name), report, summary, _flat(report["output"])


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_first_request_and_the_latest_conclusion_survive_every_budget(cli: Cli, name: str, budget: int) -> None:
    conv, report, summary, _ = _compressed(cli, name, budget)
    first, last = report["compressed"]["first"], report["compressed"]["last"]
    portion = [m for m in conv.messages if first <= m.index <= last and not m.is_system]
    request = next(m for m in portion if m.role == "user" and _prose(m))
    assert _prose(request) in _flat(summary), f"the first request (m{request.index}) lost at {budget}"
    said = [m for m in portion if m.role == "assistant" and len(_prose(m)) >= summarize.MIN_CONCLUSION_CHARS]
    latest = said[-1]
    if _prose(latest) in _flat(summary):
        return
    # only when the summary cannot hold both lines whole: the conclusion's leading sentences, marked cut
    line = next(ln for ln in summary.splitlines() if ln.startswith(f"Latest conclusions (m{latest.index} "))
    whole = COUNTER.count(f"Request (m{request.index} user): {_prose(request)}\n"
                          f"Latest conclusions (m{latest.index} assistant): {_prose(latest)}")
    assert COUNTER.count(summary) < whole + COUNTER.count(summary.splitlines()[0]), (budget, summary)
    shown = line.split("): ", 1)[1].removesuffix(" …")
    assert line.endswith(" …") and _prose(latest).startswith(shown) and shown.count(". ") >= 1, line


@pytest.mark.parametrize("budget", BUDGETS)
def test_the_crispr_hit_list_survives_and_non_hits_are_not_entities(cli: Cli, budget: int) -> None:
    _, _, summary, output = _compressed(cli, CRISPR, budget)
    assert "Find the knockouts that confer resistance to sotorasib." in _flat(summary)
    assert "16 genes, led by KEAP1, NF1, PTEN, CUL3 and TSC2" in output  # in the summary or kept verbatim
    entities = next((line for line in summary.splitlines() if line.startswith("Identifiers and entities:")), "")
    listed = {e.strip() for e in entities.split(":", 1)[-1].split(",")}
    assert not listed & set(NON_HITS), sorted(listed & set(NON_HITS))


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_gene_symbols_listed_are_ones_the_conversation_names(cli: Cli, name: str, budget: int) -> None:
    """A gene-like symbol is an entity of the summary only when a person or the agent wrote it (prose
    or a tool call), not when it is one more row of a tool's table."""
    from biocortex_cli.bio.entities import entity_spans, extract_entities
    from biocortex_cli.compress.formats import parts

    conv, _, summary, _ = _compressed(cli, name, budget)
    named = set()
    for m in conv.messages:
        p = parts(m)
        said = " ".join([*(t for t in p.prose if t), *(json.dumps(c.arguments) for c in p.calls)])
        named |= {e.name.casefold() for e in extract_entities(said)}
    entities = next((line for line in summary.splitlines() if line.startswith("Identifiers and entities:")), "")
    for entity in entity_spans(entities.split(":", 1)[-1]):  # a variant (APOE c.388T>C) is not its gene
        assert entity.kind != "gene" or entity.name.casefold() in named, entity.name


def test_a_summary_of_a_summary_keeps_the_request_and_the_conclusions(cli: Cli, tmp_path: Path) -> None:
    once = cli("compress", str(DATA / CRISPR), "--budget", "3400")
    assert once.code == 0, once.err
    (tmp_path / "once.jsonl").write_text(once.out, encoding="utf-8")
    twice = cli("compress", str(tmp_path / "once.jsonl"), "--budget", "1000")
    assert twice.code == 0, twice.err
    summary = next(m.data["content"] for m in parse(twice.out).messages
                   if str(m.data.get("content") or "").startswith(summarize.SUMMARY_MARK))
    request = _prose(parse((DATA / CRISPR).read_text(encoding="utf-8")).messages[1])
    assert f"Request (m2 user): {request}" in summary  # read back from the first summary, its number kept
    assert "16 genes, led by KEAP1, NF1, PTEN, CUL3 and TSC2" in summary
    assert "earlier: - m" not in summary  # an earlier entry's own tag (m13 bash) is not kept twice
