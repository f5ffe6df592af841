"""``biocortex mcp`` end to end, with the MCP SDK's own client over stdio (docs/agents.md)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO, Cli

TOOLS = {"recall", "context", "episode_add", "fact_add", "fact_query", "feedback"}


def _result(res: Any) -> tuple[bool, str, Any]:
    """(is_error, text, structured content) of a tool call."""
    return bool(res.is_error), res.content[0].text, res.structured_content


async def _session(vault: Path, log: Path, feedback: dict[str, Any]) -> list[tuple[bool, str, Any]]:
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "biocortex_cli", "--vault", str(vault), "mcp"],
                                   env=env, cwd=str(REPO))
    with log.open("w", encoding="utf-8") as errlog:  # the server's stderr (pytest's has no fileno)
        return await _calls(params, errlog, feedback)


async def _calls(params: Any, errlog: Any, feedback: dict[str, Any]) -> list[tuple[bool, str, Any]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    out: list[tuple[bool, str, Any]] = []
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        names = {t.name for t in listed.tools}
        schemas = {t.name: t.input_schema for t in listed.tools}
        out.append((False, json.dumps(sorted(names)), schemas))
        calls: list[tuple[str, dict[str, Any]]] = [
            ("recall", {"query": "doublets in scRNA-seq with scDblFinder", "top_k": 2, "budget": 800}),
            ("feedback", feedback),  # on the recall just made: its id is known in advance
            ("feedback", {"recall_id": "r0000000000", "outcome": "success"}),  # never recalled
            ("episode_add", {"task": "Call peaks in zebrafish fin ATAC-seq with MACS2", "tool": ["MACS2"],
                             "domain": ["ATAC-seq"], "result": "41,203 peaks at q < 0.01", "success": True,
                             "lesson": ["Use --nomodel with Tn5 shift for ATAC-seq"]}),
            ("fact_add", {"subject": "TP53", "predicate": "regulates", "object": "MDM2", "source": ["PMID:8319905"]}),
            ("fact_query", {"entity": "TP53"}),
            ("recall", {"query": "zebrafish fin ATAC-seq peaks MACS2"}),
            ("context", {"query": "TP53 and doublets in scRNA-seq", "budget": 1200}),
            ("recall", {"top_k": 3}),  # missing argument
            ("recall", {"query": "doublets", "top_k": "many"}),  # wrong type
            ("recall", {"query": "doublets", "top_k": 0}),  # our own validation
            ("fact_query", {"entity": "MDM2"}),  # still serving after the errors
        ]
        for name, arguments in calls:
            out.append(_result(await session.call_tool(name, arguments)))
    return out


def test_mcp_server_over_stdio(vault: Path, cli: Cli, tmp_path: Path) -> None:
    assert cli("episode", "import", REPO / "examples/sample_episodes.jsonl").code == 0
    query_text = "doublets in scRNA-seq with scDblFinder"
    expected = cli("recall", query_text, "--top-k", "2", "--budget", "800", "--json").json()
    given = {"recall_id": expected["recall_id"], "outcome": "success", "helpful": [expected["results"][0]["id"]],
             "note": "right call"}
    results = asyncio.run(_session(vault, tmp_path / "server.log", given))
    listed, recall, feedback, unknown, added, fact, query, recalled, context, missing, wrong, invalid, after = results

    assert set(json.loads(listed[1])) == TOOLS
    assert {"query", "top_k", "budget", "min_relevance", "domain"} <= set(listed[2]["recall"]["properties"])
    assert listed[2]["recall"]["required"] == ["query"]

    error, text, data = recall
    assert not error and data == json.loads(text)  # same JSON, structured and as text
    assert data["budget"] == 800 and data["tokens"] <= 800 and 1 <= len(data["results"]) <= 2
    assert data == expected  # what `recall --json` printed before the session changed the vault

    assert not feedback[0] and feedback[2]["recorded"] is True and feedback[2]["helpful"] == given["helpful"]
    assert feedback[2]["injected"] == [r["id"] for r in expected["results"]] and feedback[2]["note"] == "right call"
    assert (vault / feedback[2]["path"]).is_file()
    assert unknown[0] and "no recall r0000000000" in unknown[1]
    assert {"recall_id", "outcome", "helpful", "unhelpful", "note"} == set(listed[2]["feedback"]["properties"])

    assert not added[0] and added[2]["tools"] == ["MACS2"]
    assert (vault / added[2]["path"]).is_file()
    assert not fact[0] and fact[2]["id"].startswith("tp53--regulates--mdm2") and fact[2]["merged"] is False
    assert not query[0] and [f["object"] for f in query[2]["facts"]] == ["MDM2"]
    assert recalled[2]["results"][0]["id"] == added[2]["id"]
    assert not context[0] and context[2]["tokens"] <= 1200 and context[2]["parts"]

    for error_result, word in ((missing, "query"), (wrong, "top_k")):
        assert error_result[0] and word in error_result[1]
    assert invalid[0]
    payload = json.loads(invalid[1][invalid[1].index("{"):])
    assert payload["error"]["message"] == "--top-k must be at least 1, not 0" and payload["error"]["hint"]
    assert not after[0] and after[2]["matched"] == ["MDM2"]


def test_other_commands_do_not_import_the_sdk() -> None:
    code = ("import sys; from biocortex_cli.cli.main import main; import biocortex_cli.cli.app; "
            "assert not any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules), 'mcp imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


BLOCK_MCP = """
class NotInstalled:  # finds no module named mcp, as when the package is not installed
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "mcp":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NotInstalled())
"""


def _mcp_without_the_sdk(vault: Path, shadow: Path | None, *,
                         block: bool = False) -> subprocess.CompletedProcess[str]:
    """``biocortex mcp`` as a process whose ``mcp`` is absent (``block``: the import is refused,
    as when the package is not installed) or is the fake package under ``shadow``."""
    code = "import sys\n" + (BLOCK_MCP if block else "") + \
        "from biocortex_cli.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (shadow, REPO) if p)}
    return subprocess.run([sys.executable, "-c", code, "--vault", str(vault), "mcp"], env=env, cwd=REPO,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)


def _fake_mcp(root: Path, version: str, files: dict[str, str]) -> Path:
    """A package named ``mcp`` with its dist-info, shadowing the real one on PYTHONPATH."""
    for rel, text in {"mcp/__init__.py": "", "mcp/server/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    info = root / f"mcp-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: mcp\nVersion: {version}\n")
    return root


def test_without_the_sdk_mcp_says_what_to_install(vault: Path, tmp_path: Path) -> None:
    """`pip install biocortex` has no MCP SDK (it is the `mcp` extra): the command exits 1 and names
    the install command, for a missing, a too old and a broken SDK; never an internal error."""
    install = f"{sys.executable} -m pip install 'biocortex[mcp]'"
    missing = _mcp_without_the_sdk(vault, None, block=True)
    assert missing.returncode == 1, missing.stderr
    assert missing.stdout == ""
    assert missing.stderr == ("biocortex: error: `biocortex mcp` needs the MCP Python SDK (mcp 2), which is not "
                              f"installed\n  hint: install the mcp extra: {install}\n")

    old = _mcp_without_the_sdk(vault, _fake_mcp(tmp_path / "old", "1.26.0", {"mcp/server/fastmcp/__init__.py": ""}))
    assert old.returncode == 1
    assert "needs mcp 2; mcp 1.26.0 is installed" in old.stderr
    assert f"upgrade it with the mcp extra: {install}" in old.stderr

    broken = _fake_mcp(tmp_path / "broken", "2.0.0",
                       {"mcp/server/mcpserver/__init__.py": "import pydantic_core_was_removed\n"})
    failed = _mcp_without_the_sdk(vault, broken)
    assert failed.returncode == 1
    assert "(mcp 2.0.0) is installed but does not import: No module named 'pydantic_core_was_removed'" in failed.stderr
    assert f"reinstall it: {install} --force-reinstall" in failed.stderr
    for run in (missing, old, failed):
        assert "internal error" not in run.stderr and "Traceback" not in run.stderr


def test_a_lone_surrogate_in_tool_arguments_is_a_tool_error_not_a_crash() -> None:
    """JSON-RPC's "\\ud800" escape decodes to a lone surrogate, which no note or commit can hold."""
    from biocortex_cli.mcp_server import _guarded

    class ToolError(Exception):
        pass

    called: list[str] = []
    tool = _guarded(ToolError)(lambda query: called.append(query) or {"ok": True})
    assert tool(query="doublets") == {"ok": True}
    try:
        tool(query="doublets \ud800")
    except ToolError as exc:
        error = json.loads(str(exc))["error"]
        assert "lone surrogate" in error["message"] and error["path"] == "<mcp arguments>"
    else:
        raise AssertionError("the tool ran with a lone surrogate")
    assert called == ["doublets"]
