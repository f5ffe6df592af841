"""``biocortex mcp``: the vault served to MCP clients over stdio (docs/agents.md).

The tools (:mod:`.tools`) call the library API (:mod:`biocortex_cli.api`) and return the JSON
the matching command prints with ``--json``; the transport (:mod:`.protocol`) is a small
hand-written JSON-RPC loop that answers every line. The agent guide (the vault's ``AGENTS.md``)
is the server's instructions and its ``guide`` prompt. A :class:`BiocortexError` becomes a tool
error (``isError``) whose text is the ``{"error": {"code", "message", "path", "line", "hint"}}`` object
``--json`` writes to stderr, with command-line options named as the tool's arguments.

stdout is the protocol channel: while the server runs, file descriptor 1 and ``sys.stdout``
point at stderr, so nothing else (a print, a child process) can write into the protocol.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import BiocortexError, error_json
from biocortex_cli.mcp_server.protocol import INVALID_PARAMS, RpcError, Server
from biocortex_cli.mcp_server.tools import BY_NAME, TOOLS, Tool, agent_terms

if TYPE_CHECKING:
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

PREFACE = ("Over MCP, each `biocortex` command this guide names is the tool of the same name with `_` for "
           "the space (`episode add` is episode_add, `fact verify` is fact_verify) and its options are the "
           "tool's arguments; every result is the command's --json.\n\n")
GUIDE_PROMPT = {"name": "guide", "title": "How to use this lab's memory",
                "description": "The agent guide (the vault's AGENTS.md): when to recall, record and verify.",
                "arguments": []}


def build_server(open_vault: Callable[[], Vault], author: Callable[[Vault], Author]) -> Server:
    """The server; ``open_vault`` is called for every request, so a vault edited meanwhile
    (config, notes, AGENTS.md) is always read fresh."""
    from biocortex_cli import __version__

    def guide() -> str:
        from biocortex_cli.api.vault import guide as agent_guide

        try:
            vault: Vault | None = open_vault()
        except BiocortexError as exc:  # the vault went away: the guide biocortex ships, and why on stderr
            sys.stderr.write(f"biocortex: warning: {exc.location()}{exc.message}\n")
            vault = None
        return PREFACE + agent_guide(vault).text

    def list_tools(_params: dict[str, Any]) -> dict[str, Any]:
        return {"tools": [tool.schema() for tool in TOOLS]}

    def call_tool(params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments", {})
        tool = BY_NAME.get(name) if isinstance(name, str) else None
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"unknown tool {name!r}", {"tools": list(BY_NAME)})
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "arguments must be an object")
        return run_tool(tool, arguments, open_vault, author)

    def list_prompts(_params: dict[str, Any]) -> dict[str, Any]:
        return {"prompts": [GUIDE_PROMPT]}

    def get_prompt(params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") != "guide":
            raise RpcError(INVALID_PARAMS, f"unknown prompt {params.get('name')!r}", {"prompts": ["guide"]})
        return {"description": GUIDE_PROMPT["description"],
                "messages": [{"role": "user", "content": {"type": "text", "text": guide()}}]}

    return Server("biocortex", __version__, guide,
                  {"tools/list": list_tools, "tools/call": call_tool, "prompts/list": list_prompts,
                   "prompts/get": get_prompt},
                  capabilities={"tools": {"listChanged": False}, "prompts": {"listChanged": False}})


def run_tool(tool: Tool, arguments: dict[str, Any], open_vault: Callable[[], Vault],
             author: Callable[[Vault], Author]) -> dict[str, Any]:
    """The ``tools/call`` result: the API's JSON, or a tool error in the ``--json`` error shape."""
    from biocortex_cli.store.files import check_unicode

    try:
        # "\ud800" decodes to a lone surrogate, which no note can hold; nor can a note hold a NUL
        check_unicode(arguments, "<arguments>", record=not tool.read_only)
        keywords = tool.keywords(arguments)
        plain = tool.text is not None and keywords.pop("json", True) is False
        function = tool.api()
        vault = open_vault()
        if "author" in inspect.signature(function).parameters:
            keywords["author"] = author(vault)
        data = function(vault, **keywords).as_json()
    except BiocortexError as exc:
        payload = error_json(agent_terms(tool, exc.message) or exc.message, code=exc.code, path=exc.path,
                             line=exc.line, hint=agent_terms(tool, exc.hint))
        return _text(payload, error=True)
    except Exception as exc:  # a bug: said to the agent, the traceback to stderr; the server goes on
        traceback.print_exc(file=sys.stderr)
        return _text(error_json(f"internal error ({type(exc).__name__}: {exc}); this is a bug", code="internal",
                                hint="the traceback is in the server's stderr"), error=True)
    result = _text(data, error=False)
    if isinstance(data, dict):
        result["structuredContent"] = data
        if plain and tool.text:
            result["content"] = [{"type": "text", "text": data[tool.text]}]
    return result


def _text(data: Any, *, error: bool) -> dict[str, Any]:
    """The result as one text block: the JSON without indentation, which a client puts in the model's
    context as it is (indented, it cost 18% more tokens)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return {"content": [{"type": "text", "text": text}], "isError": error}


def serve(open_vault: Callable[[], Vault], author: Callable[[Vault], Author]) -> None:
    """Serve over stdio until the client closes stdin."""
    open_vault()  # no vault: fail now, with the usual message, not at the first tool call
    server = build_server(open_vault, author)
    sys.stdout.flush()
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a child process writing to fd 1 reaches stderr
    with channel, contextlib.redirect_stdout(sys.stderr):
        server.serve(sys.stdin.buffer, channel)
