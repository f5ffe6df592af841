"""``biocortex mcp``: serve the vault to MCP clients over stdio (docs/agents.md)."""

from __future__ import annotations

from biocortex_cli.cli import state


def mcp() -> int:
    """Serve the vault over stdio as an MCP server: tools recall, context, episode_add, fact_add, fact_query, feedback.

    Needs the MCP Python SDK, the mcp extra: pip install 'biocortex[mcp]'."""
    from biocortex_cli.mcp_server import serve

    serve(state.vault, lambda vault: vault.author(state.OPTIONS.author))
    return 0
