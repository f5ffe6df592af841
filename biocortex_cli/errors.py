"""The one exception family of biocortex.

Core code raises these; ``biocortex_cli.cli.errors`` is the single place that maps them to
exit codes and messages (SPEC §7). A message says what is wrong; ``path``/``line`` say where;
``hint`` says how to fix it.
"""

from __future__ import annotations

from typing import Any


def error_json(message: str, *, path: str | None = None, line: int | None = None,
               hint: str | None = None) -> dict[str, Any]:
    """The JSON form of an error (SPEC §7), which ``--json`` writes to stderr and MCP tools return."""
    return {"error": {"message": message, "path": path, "line": line, "hint": hint}}


class BiocortexError(Exception):
    """An expected failure: bad data, not found, failed check. Exit code 1."""

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.hint = hint

    def as_json(self) -> dict[str, Any]:
        return error_json(self.message, path=self.path, line=self.line, hint=self.hint)

    def location(self) -> str:
        if self.path and self.line:
            return f"{self.path}:{self.line}: "
        if self.path:
            return f"{self.path}: "
        return ""


class UsageError(BiocortexError):
    """The command line itself is wrong (bad option value). Exit code 2."""

    exit_code = 2


class NotFoundError(BiocortexError):
    """A record, file or vault that does not exist."""


class DataError(BiocortexError):
    """A record or input that cannot be parsed or fails validation."""
