"""Every MCP tool returns exactly what the matching command prints with ``--json`` (issue 16:
MCP's fact_add had drifted from ``fact add --json``). Both run on the same vault (writes: on two
copies of one vault, so each starts from the same state); the server is driven in-process, one
JSON-RPC line at a time (tests/test_mcp.py and test_mcp_stdio.py drive the real process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from biocortex_cli.mcp_server import build_server
from biocortex_cli.mcp_server.tools import TOOLS
from biocortex_cli.store.vault import find_vault
from tests.conftest import REPO, Cli

MESSAGES = [{"role": "user", "content": "Remove doublets from our 10x Multiome PBMC data"},
            {"role": "assistant", "content": "I will run scDblFinder per sample, then AMULET on the ATAC side."}]


def _tool(root: Path, name: str, arguments: dict[str, Any]) -> Any:
    server = build_server(lambda: find_vault(str(root)), lambda vault: vault.author(None))
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}})
    result = server.answer(line.encode())["result"]  # type: ignore[index]
    assert result["isError"] is False, result
    data = json.loads(result["content"][0]["text"])
    assert result.get("structuredContent", data) == data
    return data


def _timeless(data: Any) -> Any:
    """``data`` without the times a write stamps (two writes a second apart differ only there)."""
    if isinstance(data, dict):
        return {k: _timeless(v) for k, v in data.items() if k not in ("created", "updated", "added", "at")}
    if isinstance(data, list):
        return [_timeless(v) for v in data]
    return data


def test_every_tool_returns_the_command_s_json(vault: Path, cli: Cli, tmp_path: Path) -> None:
    assert cli("episode", "import", REPO / "examples/sample_episodes.jsonl").code == 0
    for triple in (["TP53", "regulates", "MDM2", "--source", "PMID:8319905"],
                   ["KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101", "--confidence", "0.9"]):
        assert cli("fact", "add", *triple).code == 0
    assert cli("entity", "alias", "TP53", "p53").code == 0
    assert cli("dataset", "add", REPO / "examples/datasets/regulation_sample.tsv", "--name", "sample", "--version", "1",
               "--licence", "CC0-1.0", "--map", "subject=TF", "--map", "object=Target", "--map", "predicate=Regulation",
               "--predicate-map", "Activation=activates", "--predicate-map", "Repression=inhibits").code == 0
    (tmp_path / "chat.json").write_text(json.dumps(MESSAGES), encoding="utf-8")
    query = "doublets in 10x multiome with scDblFinder"
    episode = cli("episode", "list", "--limit", "1", "--json").json()[0]["id"]

    reads: list[tuple[str, dict[str, Any], list[str]]] = [
        ("recall", {"query": query, "top_k": 3, "budget": 900, "explain": True},
         ["recall", query, "--top-k", "3", "--budget", "900", "--explain"]),
        ("context", {"query": query, "budget": 1500, "conversation": MESSAGES},
         ["context", query, "--budget", "1500", "--conversation", str(tmp_path / "chat.json")]),
        ("episode_show", {"id": episode}, ["episode", "show", episode]),
        ("episode_list", {"domain": "scRNA-seq", "success": False, "limit": 5},
         ["episode", "list", "--domain", "scRNA-seq", "--failure", "--limit", "5"]),
        ("fact_query", {"entity": "p53", "hops": 2}, ["fact", "query", "p53", "--hops", "2"]),
        ("fact_verify", {"subject": "KEAP1", "predicate": "inhibits", "object": "NFE2L2"},
         ["fact", "verify", "KEAP1", "inhibits", "NFE2L2"]),
        ("fact_query", {"entity": "TP5", "fuzzy": True, "taxon": "human"},
         ["fact", "query", "TP5", "--fuzzy", "--taxon", "human"]),
        ("fact_verify", {"subject": "TP53", "predicate": "activates", "object": "CDKN1A", "taxon": "9606"},
         ["fact", "verify", "TP53", "activates", "CDKN1A", "--taxon", "9606"]),
        ("entity_show", {"name": "p53"}, ["entity", "show", "p53"]),
        ("dataset_list", {}, ["dataset", "list"]),
        ("dataset_show", {"name": "sample"}, ["dataset", "show", "sample"]),
        ("log", {"since": "1d"}, ["log", "--since", "1d"]),
    ]
    for name, arguments, argv in reads:
        assert _tool(vault, name, arguments) == cli(*argv, "--json").json(), name

    recall_id = cli("recall", query, "--json").json()["recall_id"]
    copy = tmp_path / "copy"
    shutil.copytree(vault, copy, symlinks=True)  # the recall log too: both know the recall
    writes: list[tuple[str, dict[str, Any], list[str]]] = [
        ("episode_add", {"task": "Call peaks in zebrafish fin ATAC-seq with MACS2", "tools": ["MACS2"],
                         "domains": ["ATAC-seq"], "result": "41,203 peaks at q < 0.01", "success": True,
                         "quality": 0.8, "lessons": ["Use --nomodel with the Tn5 shift"], "entities": ["fn1a"],
                         "id": "zf-atac-peaks", "created": "2026-11-20T10:00:00Z"},
         ["episode", "add", "--task", "Call peaks in zebrafish fin ATAC-seq with MACS2", "--tool", "MACS2",
          "--domain", "ATAC-seq", "--result", "41,203 peaks at q < 0.01", "--success", "--quality", "0.8",
          "--lesson", "Use --nomodel with the Tn5 shift", "--entity", "fn1a", "--id", "zf-atac-peaks",
          "--created", "2026-11-20T10:00:00Z", "--no-suggest"]),
        ("fact_add", {"subject": "p53", "predicate": "activates", "object": "CDKN1A", "source": ["PMID:8242752"],
                      "confidence": 0.9},
         ["fact", "add", "p53", "activates", "CDKN1A", "--source", "PMID:8242752", "--confidence", "0.9"]),
        ("fact_add", {"subject": "KEAP1", "predicate": "activates", "object": "NFE2L2"},  # contradicts memory
         ["fact", "add", "KEAP1", "activates", "NFE2L2"]),
        ("feedback", {"recall_id": recall_id, "outcome": "success", "helpful": [episode], "note": "useful"},
         ["feedback", recall_id, "--outcome", "success", "--helpful", episode, "--note", "useful"]),
        ("feedback_retract", {"recall_id": recall_id, "note": "wrong call"},
         ["feedback", recall_id, "--retract", "--note", "wrong call"]),
    ]
    for name, arguments, argv in writes:
        mcp, command = _tool(copy, name, arguments), cli(*argv, "--json").json()
        assert _timeless(mcp) == _timeless(command), name
    assert {name for name, _a, _c in reads + writes} == {tool.name for tool in TOOLS}


def test_episode_add_takes_every_field_of_an_episode_as_the_command_does(vault: Path, cli: Cli,
                                                                        tmp_path: Path) -> None:
    """Found by an agent trial: SPEC §4's `provenance` and `related` were refused by the MCP tool
    (`unknown argument provenance`), so an MCP agent could not record its code commit, notebook,
    accessions and parameters, which `--from-json` records."""
    earlier = cli("episode", "add", "--task", "Align the zebrafish fin ATAC-seq reads", "--id", "zf-align",
                  "--no-suggest").code
    assert earlier == 0
    copy = tmp_path / "copy"
    shutil.copytree(vault, copy, symlinks=True)
    record = {"task": "Call peaks in zebrafish fin ATAC-seq with MACS2", "tools": ["MACS2"], "success": True,
              "provenance": {"commit": "3f2a9c1", "notebook": "notebooks/peaks.ipynb", "data": ["GSE123456"],
                             "parameters": {"q": 0.01, "shift": -100}},
              "related": ["zf-align"], "id": "zf-atac-peaks", "created": "2026-11-20T10:00:00Z"}
    mcp = _tool(copy, "episode_add", record)
    (tmp_path / "episode.json").write_text(json.dumps(record), encoding="utf-8")
    command = cli("episode", "add", "--from-json", tmp_path / "episode.json", "--no-suggest", "--json").json()
    assert _timeless(mcp) == _timeless(command)
    assert mcp["provenance"] == record["provenance"] and mcp["related"] == ["zf-align"]


def test_recall_takes_compact_as_the_command_does(vault: Path, cli: Cli) -> None:
    """Found by an agent trial: `recall --compact` (each past analysis without its note's path, fewer
    tokens) had no MCP argument."""
    assert cli("episode", "import", REPO / "examples/sample_episodes.jsonl").code == 0
    query = "doublets in 10x multiome with scDblFinder"
    compact = _tool(vault, "recall", {"query": query, "compact": True, "budget": 900})
    assert compact == cli("recall", query, "--compact", "--budget", "900", "--json").json()
    assert compact["results"] and "episodes/" not in compact["context"]


def test_tool_results_are_compact_json(vault: Path, cli: Cli) -> None:
    """Found by an agent trial: a tool's text was the JSON indented by 2, which an MCP client puts in
    the model's context as it is: 18% more tokens than the same JSON without the indentation (a
    recall with --budget 1500: 2,623 tokens of result for 805 of context)."""
    assert cli("episode", "import", REPO / "examples/sample_episodes.jsonl").code == 0
    server = build_server(lambda: find_vault(str(vault)), lambda v: v.author(None))
    for arguments in ({"query": "doublets in 10x multiome", "budget": 900}, {"query": "x", "top_k": 0}):
        line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "recall", "arguments": arguments}})
        text = server.answer(line.encode())["result"]["content"][0]["text"]  # type: ignore[index]
        assert text == json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))


def test_json_false_gives_the_model_only_the_context_within_the_budget(vault: Path, cli: Cli) -> None:
    """Found by an agent trial: with every key of the JSON in the text block, a recall with budget
    1500 (805 tokens of context) put 2,160 tokens into the model's window. ``json: false`` puts
    only the context there, as the command prints it, and keeps the JSON in structuredContent."""
    from biocortex_cli.tokens import get_counter

    assert cli("episode", "import", REPO / "examples/sample_episodes.jsonl").code == 0
    server = build_server(lambda: find_vault(str(vault)), lambda v: v.author(None))
    count = get_counter("cl100k_base").count
    cases: tuple[tuple[str, dict[str, Any]], ...] = (
        ("recall", {"query": "doublets in 10x multiome", "budget": 600}),
        ("context", {"query": "doublets in 10x multiome", "budget": 900,
                     "conversation": [{"role": "user", "content": "remove doublets"}]}))
    for name, arguments in cases:
        answers = []
        for plain in (None, False, True):
            given = arguments if plain is None else {**arguments, "json": plain}
            line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                               "params": {"name": name, "arguments": given}})
            answers.append(server.answer(line.encode())["result"])  # type: ignore[index]
        default, text_only, explicit = answers
        assert default == explicit and json.loads(default["content"][0]["text"]) == default["structuredContent"]
        assert text_only["structuredContent"] == default["structuredContent"]
        [block] = text_only["content"]
        plain_text = cli(name, arguments["query"], "--budget", str(arguments["budget"]),
                         *(["--conversation", "-"] if name == "context" else []),
                         stdin=json.dumps(arguments.get("conversation", []))).out
        assert block["text"] == default["structuredContent"]["context"] == plain_text
        assert count(block["text"]) <= arguments["budget"] < count(default["content"][0]["text"])
    bad = server.answer(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "recall", "arguments": {"query": "doublets", "json": "no"}}}).encode())["result"]  # type: ignore[index]
    assert bad["isError"] and "json must be a boolean" in bad["content"][0]["text"]
