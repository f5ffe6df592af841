"""``biocortex mcp`` end to end, with the official MCP SDK's client over stdio (docs/agents.md).

The server is hand-written (biocortex_cli/mcp_server); these tests hold it to what the SDK's own
client expects. tests/test_mcp_stdio.py writes raw bytes to it; tests/test_mcp_parity.py compares
every tool's JSON with the matching command's ``--json``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from biocortex_cli.mcp_server.tools import TOOLS
from tests.conftest import REPO, Cli, git

T = TypeVar("T")
NAMES = {"recall", "context", "episode_add", "episode_show", "episode_list", "fact_add", "fact_query",
         "fact_verify", "entity_show", "dataset_list", "dataset_show", "feedback", "feedback_retract", "log"}


def _session(vault: Path, log: Path, script: Callable[[Any, Any], Awaitable[T]]) -> T:
    """Run ``script(session, initialize_result)`` against a server started on ``vault``."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "biocortex_cli", "--vault", str(vault), "mcp"],
                                   env=env, cwd=str(REPO))

    async def run() -> T:
        with log.open("w", encoding="utf-8") as errlog:  # the server's stderr (pytest's has no fileno)
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                return await script(session, init)

    return asyncio.run(asyncio.wait_for(run(), timeout=120))


def _result(res: Any) -> tuple[bool, str, Any]:
    """(is_error, text, structured content) of a tool call."""
    return bool(res.is_error), res.content[0].text, res.structured_content


def _calls(vault: Path, tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str, Any]]:
    async def script(session: Any, _init: Any) -> list[tuple[bool, str, Any]]:
        return [_result(await session.call_tool(name, arguments)) for name, arguments in calls]

    return _session(vault, tmp_path / "server.log", script)


def _error(result: tuple[bool, str, Any]) -> dict[str, Any]:
    assert result[0], result
    return json.loads(result[1])["error"]  # type: ignore[no-any-return]


def test_mcp_server_over_stdio(vault: Path, cli: Cli, tmp_path: Path) -> None:
    assert cli("episode", "import", REPO / "examples/sample_episodes.jsonl").code == 0
    query_text = "doublets in scRNA-seq with scDblFinder"
    expected = cli("recall", query_text, "--top-k", "2", "--budget", "800", "--json").json()
    given = {"recall_id": expected["recall_id"], "outcome": "success", "helpful": [expected["results"][0]["id"]],
             "note": "right call"}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("recall", {"query": query_text, "top_k": 2, "budget": 800}),
        ("feedback", given),  # on the recall just made: its id is known in advance
        ("feedback", {"recall_id": "r000000000000", "outcome": "success"}),  # never recalled
        ("episode_add", {"task": "Call peaks in zebrafish fin ATAC-seq with MACS2", "tools": ["MACS2"],
                         "domains": ["ATAC-seq"], "result": "41,203 peaks at q < 0.01", "success": True,
                         "lessons": ["Use --nomodel with Tn5 shift for ATAC-seq"]}),
        ("fact_add", {"subject": "TP53", "predicate": "regulates", "object": "MDM2", "source": ["PMID:8319905"]}),
        ("fact_query", {"entity": "TP53"}),
        ("recall", {"query": "zebrafish fin ATAC-seq peaks MACS2"}),
        ("context", {"query": "TP53 and doublets in scRNA-seq", "budget": 1200}),
        ("recall", {"top_k": 3}),  # missing argument
        ("recall", {"query": "doublets", "top_k": "many"}),  # wrong type
        ("recall", {"query": "doublets", "top_k": 0}),  # out of range (the API's check)
        ("fact_query", {"entity": "MDM2"}),  # still serving after the errors
    ]
    (recall, feedback, unknown, added, fact, query, recalled, context, missing, wrong, invalid,
     after) = _calls(vault, tmp_path, calls)

    error, text, data = recall
    assert not error and data == json.loads(text)  # same JSON, structured and as text
    assert data["budget"] == 800 and data["tokens"] <= 800 and 1 <= len(data["results"]) <= 2
    assert data == expected  # what `recall --json` printed before the session changed the vault

    assert not feedback[0] and feedback[2]["recorded"] is True and feedback[2]["helpful"] == given["helpful"]
    assert feedback[2]["injected"] == [r["id"] for r in expected["results"]] and feedback[2]["note"] == "right call"
    assert (vault / feedback[2]["path"]).is_file()
    assert "no recall r000000000000" in _error(unknown)["message"]

    assert not added[0] and added[2]["tools"] == ["MACS2"] and added[2]["lessons"]
    assert (vault / added[2]["path"]).is_file()
    assert not fact[0] and fact[2]["id"].startswith("tp53--regulates--mdm2") and fact[2]["merged"] is False
    assert not query[0] and [f["object"] for f in query[2]["facts"]] == ["MDM2"]
    assert recalled[2]["results"][0]["id"] == added[2]["id"]
    assert not context[0] and context[2]["tokens"] <= 1200 and context[2]["parts"]

    assert _error(missing)["message"] == "missing required argument query for recall"
    assert _error(wrong)["message"] == "top_k must be an integer, not str 'many'"
    assert _error(missing)["code"] == _error(wrong)["code"] == "usage"  # the codes of the --json error form
    assert _error(unknown)["code"] == "not_found"
    assert _error(invalid) == {"code": "usage", "message": "top_k must be at least 1, not 0", "path": None,
                               "line": None, "hint": "e.g. top_k 5"}  # the argument's name, not the CLI's --top-k
    assert not after[0] and after[2]["matched"] == ["MDM2"]


def test_every_tool_declares_its_arguments_types_ranges_and_whether_it_writes(vault: Path, tmp_path: Path) -> None:
    async def script(session: Any, _init: Any) -> Any:
        return (await session.list_tools()).tools

    listed = {t.name: t for t in _session(vault, tmp_path / "server.log", script)}
    assert set(listed) == NAMES == {t.name for t in TOOLS}
    for name, tool in listed.items():
        schema = tool.input_schema
        assert tool.description and schema["additionalProperties"] is False, name
        for arg, prop in schema["properties"].items():
            assert prop["description"] and prop["type"], (name, arg)
        writes = name in ("episode_add", "fact_add", "feedback", "feedback_retract")
        assert tool.annotations.read_only_hint is not writes and tool.annotations.destructive_hint is False, name
    recall = listed["recall"].input_schema
    assert recall["required"] == ["query"] and recall["properties"]["top_k"]["minimum"] == 1
    assert {"minimum": 0, "maximum": 1}.items() <= recall["properties"]["min_relevance"].items()
    assert {"minimum": 1, "maximum": 5, "default": 1}.items() <= listed["fact_query"].input_schema["properties"][
        "hops"].items()
    assert listed["episode_add"].input_schema["properties"]["quality"]["maximum"] == 1
    assert listed["episode_add"].input_schema["properties"]["tools"]["items"] == {"type": "string"}
    assert listed["fact_add"].input_schema["properties"]["confidence"]["maximum"] == 1
    assert listed["feedback"].input_schema["properties"]["outcome"]["enum"] == ["success", "failure"]


def test_unknown_and_misspelt_arguments_are_refused_never_dropped(vault: Path, tmp_path: Path) -> None:
    """Issue 14: `budgett` and the tools/lessons confusion were silently ignored, and episode_add
    committed an episode without the agent's tools and lessons."""
    commits = git(vault, "rev-list", "--count", "HEAD")
    task = "Trim adapters from zebrafish ATAC-seq reads with cutadapt"
    results = _calls(vault, tmp_path, [
        ("recall", {"query": "doublets", "budgett": 500}),
        ("episode_add", {"task": task, "tools": ["cutadapt"], "lesons": ["Trim Nextera adapters"]}),
        ("episode_add", {"task": task, "tool": ["cutadapt"], "tools": ["fastp"]}),
        ("episode_add", {"task": task, "tools": "cutadapt"}),
        ("episode_add", {"task": task, "tools": ["cutadapt"], "lessons": ["Trim Nextera adapters"], "id": "a1"}),
        ("episode_add", {"task": task, "tool": ["cutadapt"], "lesson": ["Trim Nextera adapters"], "id": "a2"}),
    ])
    budgett, misspelt, twice, not_a_list, plural, singular = results
    error = _error(budgett)
    assert error["message"] == "unknown argument budgett for recall"
    assert error["hint"].startswith("did you mean budget? valid: query, top_k, budget, min_relevance, domain")
    error = _error(misspelt)
    assert error["message"] == "unknown argument lesons for episode_add" and "did you mean lessons?" in error["hint"]
    assert _error(twice)["message"] == "tools is given twice (as tool and as tools)"
    assert _error(not_a_list)["message"] == "tools must be an array of strings, not str 'cutadapt'"
    for result in (plural, singular):
        assert not result[0], result
        assert result[2]["tools"] == ["cutadapt"] and result[2]["lessons"] == ["Trim Nextera adapters"]
    assert int(git(vault, "rev-list", "--count", "HEAD")) == int(commits) + 2  # only the two good ones


def test_the_guide_is_the_server_s_instructions_and_a_prompt(vault: Path, tmp_path: Path) -> None:
    (vault / "AGENTS.md").write_text("# Our lab's rules\n\nAlways recall before planning.\n", encoding="utf-8")

    async def script(session: Any, init: Any) -> Any:
        prompts = await session.list_prompts()
        prompt = await session.get_prompt("guide")
        return init, prompts, prompt

    init, prompts, prompt = _session(vault, tmp_path / "server.log", script)
    assert init.server_info.name == "biocortex" and init.capabilities.tools is not None
    assert "Always recall before planning." in init.instructions and "episode_add" in init.instructions
    assert [p.name for p in prompts.prompts] == ["guide"]
    assert prompt.messages[0].content.text == init.instructions


def test_context_reads_a_conversation_inline_or_inside_the_vault_only(vault: Path, tmp_path: Path) -> None:
    """Issue 14: the `context` tool returned any JSON file the server could read."""
    messages = [{"role": "user", "content": "Remove doublets from our 10x Multiome PBMC data"},
                {"role": "assistant", "content": "I will run scDblFinder per sample."}]
    secret = tmp_path / "outside.json"
    secret.write_text(json.dumps([*messages, {"role": "user", "content": "SECRET-OUTSIDE"}]), encoding="utf-8")
    (vault / "notes").mkdir()
    (vault / "notes" / "chat.json").write_text(json.dumps(messages), encoding="utf-8")
    (vault / "notes" / "link.json").symlink_to(secret)
    query = "doublets in 10x multiome"
    results = _calls(vault, tmp_path, [
        ("context", {"query": query, "conversation": messages}),
        ("context", {"query": query, "conversation": json.dumps({"messages": messages})}),
        ("context", {"query": query, "conversation_path": "notes/chat.json"}),
        ("context", {"query": query, "conversation_path": str(secret)}),
        ("context", {"query": query, "conversation_path": "../outside.json"}),
        ("context", {"query": query, "conversation_path": "notes/link.json"}),
        ("context", {"query": query, "conversation_path": ".git/config"}),
        ("context", {"query": query, "conversation": str(secret)}),  # a path is not a conversation
    ])
    inline, text, inside, absolute, dotdot, link, hidden, path_as_text = results
    for ok in (inline, text, inside):
        assert not ok[0], ok
        assert ok[2]["parts"][0]["name"] == "working_memory" and "scDblFinder" in ok[2]["context"]
    for refused in (absolute, dotdot, link):
        assert "is not a file inside the vault" in _error(refused)["message"]
    assert "hidden" in _error(hidden)["message"]
    assert path_as_text[0] and "SECRET-OUTSIDE" not in path_as_text[1]
    assert all("SECRET-OUTSIDE" not in r[1] for r in results)


def test_other_commands_do_not_import_the_sdk() -> None:
    import subprocess

    code = ("import sys; from biocortex_cli.cli.main import main; import biocortex_cli.cli.app; "
            "import biocortex_cli.mcp_server; "
            "assert not any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules), 'mcp imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_the_client_configurations_in_docs_agents_md_start_the_server(vault: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/agents.md's `mcpServers` snippet and its two alternatives, as the SDK's stdio client runs them: its
    own environment (HOME, PATH, …) plus the snippet's `env`, from a folder that is not the repository, with a
    PATH that holds git but not the virtualenv (a desktop client started from the dock). Install trial: the
    `"command": "python"` alternative started a Python without biocortex."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    doc = (REPO / "docs/agents.md").read_text(encoding="utf-8")
    snippet = re.search(r'```json\n(\{\n  "mcpServers".*?)```', doc, re.S)
    assert snippet, "the client configuration snippet"
    server = json.loads(snippet.group(1).replace("/path/to/lab-memory", str(vault)))["mcpServers"]["biocortex"]
    venv = Path(sys.executable).parent.parent
    alternatives = [json.loads("{" + m.replace("\n", " ").replace("/path/to/lab-memory", str(vault))
                               .replace("/path/to/venv", str(venv)) + "}")
                    for m in re.findall(r'`("command": "[^"]+"(?:, "args": \[[^\]]*\])?)`', doc)]
    assert [a["command"] for a in alternatives] == [f"{venv}/bin/biocortex", f"{venv}/bin/python"], alternatives
    configs = [server] + [{**server, **a} for a in alternatives]
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if Path(p).is_dir()))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin").mkdir()  # `biocortex` on PATH, as the snippet itself assumes: a link to the venv's
    (tmp_path / "bin/biocortex").symlink_to(venv / "bin/biocortex")

    async def start(config: dict[str, Any]) -> tuple[str, str]:
        params = StdioServerParameters(command=config["command"], args=config["args"], env=config["env"])
        with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                added = await session.call_tool("episode_add", {"task": "Trim adapters with cutadapt", "success": True})
                return added.structured_content["id"], added.structured_content["author"]

    plain = os.environ["PATH"]
    for config, path in zip(configs, [f"{tmp_path / 'bin'}{os.pathsep}{plain}", plain, plain], strict=True):
        monkeypatch.setenv("PATH", path)
        ident, author = asyncio.run(asyncio.wait_for(start(config), timeout=120))
        assert author == "Planner Agent <agent@lab.example>", (config, author)
        assert git(vault, "log", "-1", "--format=%an <%ae> %s").startswith(f"Planner Agent <agent@lab.example> "
                                                                          f"episode: add {ident}")
