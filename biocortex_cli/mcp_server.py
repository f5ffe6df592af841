"""``biocortex mcp``: the vault served over stdio with the official MCP Python SDK (docs/agents.md).

Tools follow the commands (``recall``, ``context``, ``episode_add``, ``fact_add``, ``fact_query``,
``feedback``);
their arguments are the commands' options in snake_case, and each result is the JSON the command
prints with ``--json``. A :class:`BiocortexError` becomes an MCP tool error (``is_error``) whose
text is the same ``{"error": {"code", "message", "path", "line", "hint"}}`` object ``--json`` writes to
stderr; the server keeps running. Arguments missing or of the wrong type are refused by the SDK
against each tool's input schema, also as a tool error.

stdout is the protocol channel: while a tool runs, anything printed goes to stderr instead.
The SDK (the ``mcp`` extra: ``pip install 'biocortex[mcp]'``) is imported only here, and this module
only by ``biocortex mcp``; without it the command exits 1 naming what to install.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import BiocortexError, NotFoundError, UsageError
from biocortex_cli.store.files import check_unicode

if TYPE_CHECKING:
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

Tool = Callable[..., dict[str, Any]]

INSTRUCTIONS = (
    "biocortex: the shared memory of a biology lab. Call `context` (or `recall`) before planning an "
    "analysis; record what you did with `episode_add` when it is done; record checked facts with "
    "`fact_add` and look them up with `fact_query`. When the task is done, say how the recall went with "
    "`feedback` (its recall_id, the outcome, the helpful and unhelpful ids): it improves later rankings."
)


def _sdk() -> tuple[Any, type[Exception]]:
    """The SDK's server class and its ToolError (``mcp>=2``, the ``mcp`` extra). Missing, too old
    or broken, it is a clear error naming what to install, never a traceback."""
    try:
        module = importlib.import_module("mcp.server.mcpserver")
        errors = importlib.import_module("mcp.server.mcpserver.exceptions")
    except ImportError as exc:
        install = f"{sys.executable} -m pip install 'biocortex[mcp]'"
        if exc.name == "mcp":
            raise NotFoundError("`biocortex mcp` needs the MCP Python SDK (mcp 2), which is not installed",
                                hint=f"install the mcp extra: {install}") from None
        from importlib.metadata import PackageNotFoundError, version

        try:
            installed = version("mcp")
        except PackageNotFoundError:
            installed = "?"
        if installed.split(".")[0] in ("0", "1"):
            raise NotFoundError(f"`biocortex mcp` needs mcp 2; mcp {installed} is installed",
                                hint=f"upgrade it with the mcp extra: {install}") from None
        raise NotFoundError(f"the MCP Python SDK (mcp {installed}) is installed but does not import: {exc}",
                            hint=f"reinstall it: {install} --force-reinstall") from None
    return module.MCPServer, errors.ToolError


def _guarded(tool_error: type[Exception]) -> Callable[[Tool], Tool]:
    """Wrap a tool: stdout (the protocol channel) goes to stderr while it runs, and our errors
    become tool errors. The wrapper keeps the tool's signature, which the SDK reads."""

    def wrap(fn: Tool) -> Tool:
        @functools.wraps(fn)
        def tool(*args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                check_unicode([list(args), kwargs], "<mcp arguments>")  # "\ud800" from JSON: a lone surrogate
                with contextlib.redirect_stdout(sys.stderr):
                    return fn(*args, **kwargs)
            except BiocortexError as exc:
                raise tool_error(json.dumps({"error": exc.as_json()}, ensure_ascii=False)) from None

        return tool

    return wrap


def build_server(open_vault: Callable[[], Vault], author: Callable[[Vault], Author]) -> Any:
    """The MCP server with biocortex's tools; ``open_vault`` is called for every tool call, so a
    vault edited meanwhile (config, notes) is always read fresh."""
    server_class, tool_error = _sdk()
    server = server_class("biocortex", instructions=INSTRUCTIONS, log_level="WARNING")

    def recall(query: str, top_k: int | None = None, budget: int | None = None, min_relevance: float | None = None,
               domain: str | None = None, success_only: bool = False, include_archived: bool = False,
               explain: bool = False) -> dict[str, Any]:
        """Recall the past analyses relevant to a question, within a token budget, for a planner prompt.
        Returns the JSON of `biocortex recall --json`; its "context" is the text to put in the prompt."""
        from biocortex_cli.recall.service import options_from_config, recall_vault

        vault = open_vault()
        opts = options_from_config(vault, query, top_k=top_k, budget=budget, min_relevance=min_relevance,
                                   domain=domain, success_only=success_only or None,
                                   include_archived=include_archived, explain=explain)
        return recall_vault(vault, opts).as_json(explain)

    def context(query: str, conversation: str | None = None, budget: int | None = None) -> dict[str, Any]:
        """Fill one token budget for a planner prompt: the conversation so far (a file path, compressed
        into its share), past analyses and facts about the question's entities. Returns the JSON of
        `biocortex context --json`: "context" is the text, "parts" each section and its tokens."""
        from biocortex_cli.compress.service import decode, read_input
        from biocortex_cli.context import build_context

        text, path = None, "<conversation>"
        if conversation is not None:
            if conversation == "-":
                raise UsageError("conversation must be a file path here (there is no stdin over MCP)")
            raw, path = read_input(conversation, sys.stdin.buffer, False)
            text = decode(raw, path)
        return build_context(open_vault(), query, budget=budget, conversation=text,
                             conversation_path=path).as_json()

    def episode_add(task: str, plan: str | None = None, tool: list[str] | None = None,
                    domain: list[str] | None = None, result: str | None = None, success: bool | None = None,
                    quality: float | None = None, lesson: list[str] | None = None,
                    entity: list[str] | None = None, id: str | None = None,
                    created: str | None = None) -> dict[str, Any]:
        """Record one finished analysis (an episode): what was asked, the approach, the tools, the
        result with numbers, whether it worked and the lessons. Returns the stored record."""
        from biocortex_cli.store.episodes import add_episode

        if quality is not None and not 0 <= quality <= 1:
            raise UsageError(f"quality must be between 0 and 1, not {quality:g}")
        fields = {"task": task, "plan": plan, "tools": tool, "domains": domain, "result": result,
                  "success": success, "quality": quality, "lessons": lesson, "entities": entity,
                  "id": id, "created": created}
        vault = open_vault()
        data = {k: v for k, v in fields.items() if v is not None}
        return add_episode(vault, data, author(vault)).as_json()

    def fact_add(subject: str, predicate: str, object: str, source: list[str] | None = None,
                 confidence: float | None = None) -> dict[str, Any]:
        """Record a fact (subject, predicate, object) with its sources (PMID:…, DOI, episode id, URL);
        the same triple again merges its sources. Returns the stored fact, as `fact add --json`."""
        from biocortex_cli.facts.notes import add_fact

        vault = open_vault()
        added = add_fact(vault, subject, predicate, object, sources=source or [], confidence=confidence,
                         author=author(vault))
        return {**added.fact.as_json(), "created": added.fact.record.get("created"),
                "merged": not added.created, "contradicts": [c.id for c in added.conflicts],
                "notes": list(added.notes)}

    def fact_query(entity: str, predicate: str | None = None, hops: int = 1, min_confidence: float = 0.0,
                   all: bool = False, limit: int = 100) -> dict[str, Any]:
        """Facts about an entity (exact name, alias or part of a name), nearest and most confident
        first; hops > 1 also walks to its neighbours. Returns the JSON of `fact query --json`."""
        from biocortex_cli.facts.index import open_facts
        from biocortex_cli.facts.query import query_facts

        if not 1 <= hops <= 5:
            raise UsageError(f"hops must be 1 to 5, not {hops}")
        if not 0 <= min_confidence <= 1 or limit < 0:
            raise UsageError("min_confidence must be 0-1 and limit 0 or more")
        conn, source, problems = open_facts(open_vault())
        with contextlib.closing(conn):
            for problem in problems[:5]:
                sys.stderr.write(f"biocortex: warning: {problem.location()}{problem.message} (skipped)\n")
            found = query_facts(source, entity, predicate=predicate, hops=hops, min_confidence=min_confidence,
                                include_all=all, limit=limit or None)
        return found.as_json()

    def feedback(recall_id: str, outcome: str, helpful: list[str] | None = None,
                 unhelpful: list[str] | None = None, note: str = "") -> dict[str, Any]:
        """Record how a recall (or context) went: its recall_id, outcome "success" or "failure", the
        episode or lesson ids that helped or misled. Later recalls rank helpful memories higher.
        Returns the JSON of `biocortex feedback --json` ("recorded": false when already recorded)."""
        from biocortex_cli.store.feedback import record_feedback

        vault = open_vault()
        return record_feedback(vault, recall_id=recall_id, outcome=outcome, helpful=helpful or [],
                               unhelpful=unhelpful or [], note=note, author=author(vault)).as_json()

    guarded = _guarded(tool_error)
    for tool in (recall, context, episode_add, fact_add, fact_query, feedback):
        server.tool()(guarded(tool))
    return server


def serve(open_vault: Callable[[], Vault], author: Callable[[Vault], Author]) -> None:
    """Serve over stdio until the client closes the connection."""
    _sdk()  # no SDK: say what to install before anything else
    open_vault()  # no vault: fail now, with the usual message, not at the first tool call
    build_server(open_vault, author).run("stdio")
