"""``biocortex mcp``: serve the vault to MCP clients over stdio (docs/agents.md)."""

from __future__ import annotations

from biocortex_cli.cli import state


def mcp() -> int:
    """Serve the vault over stdio as an MCP server: recall, context, episodes, facts, entities, feedback and log as tools (docs/agents.md)."""
    from biocortex_cli.mcp_server import serve

    serve(state.vault, lambda vault: vault.author(state.OPTIONS.author))
    return 0
