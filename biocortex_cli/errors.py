"""The one exception family of biocortex.

Core code raises these; ``biocortex_cli.cli.errors`` is the single place that maps them to
exit codes and messages (docs/json.md, "Exit codes and errors"). A message says what is wrong;
``path``/``line`` say where; ``hint`` says how to fix it; ``code`` is a stable name an agent can
act on (the ``code`` of the ``--json`` error form), one of :data:`CODES`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from typing import Any

#: Every error ``code`` and its exit status; docs/json.md has the same table (tests/test_errors.py).
CODES: dict[str, int] = {
    "failed": 1,  # the command could not do its work (git failed, the remote is unreachable, …)
    "bad_data": 1,  # a note, a record or an input that cannot be parsed or fails validation
    "not_found": 1,  # no such record, file, entity or recall
    "not_a_vault": 1,  # no vault where one was looked for
    "locked": 1,  # another process holds a lock that did not go away
    "conflict": 1,  # sync could not rebase on the remote's commits; nothing was changed
    "usage": 2,  # the command line is wrong: an option's value, a missing argument
    "budget_too_small": 2,  # --budget cannot hold any of what was found (or what compress must keep)
    "internal": 3,  # a bug: the traceback was written to a log
    "interrupted": 130,  # Ctrl-C (130), SIGTERM (143), SIGHUP (129)
}


def error_json(message: str, *, code: str = "failed", path: str | None = None, line: int | None = None,
               hint: str | None = None, problems: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON form of an error (docs/json.md, "Exit codes and errors"), which ``--json`` writes to
    stderr and MCP tools return; ``code`` is one of :data:`CODES`; ``problems``, when the error
    stands for several (the bad rows of an import), lists each with its own path and line."""
    error: dict[str, Any] = {"code": code, "message": message, "path": path, "line": line, "hint": hint}
    if problems is not None:
        error["problems"] = problems
    return {"error": error}


class BiocortexError(Exception):
    """An expected failure: bad data, not found, failed check. Exit code 1."""

    exit_code = 1
    code = "failed"

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        hint: str | None = None,
        code: str | None = None,
        problems: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.hint = hint
        self.problems = problems  # the errors this one stands for (an import's bad rows), or None
        if code is not None:
            self.code = code

    def location(self) -> str:
        if self.path and self.line:
            return f"{self.path}:{self.line}: "
        if self.path:
            return f"{self.path}: "
        return ""

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` error form (and the MCP tool errors')."""
        return error_json(self.message, code=self.code, path=self.path, line=self.line, hint=self.hint,
                          problems=self.problems)


class UsageError(BiocortexError):
    """The command line itself is wrong (bad option value). Exit code 2."""

    exit_code = 2
    code = "usage"


class BudgetTooSmall(UsageError):
    """The token budget cannot hold any of what was found (``recall`` and ``context``), or what
    ``compress`` must keep (system messages, the latest turn, a minimal summary). Exit code 2."""

    code = "budget_too_small"


class NotFoundError(BiocortexError):
    """A record, file or vault that does not exist."""

    code = "not_found"


class NotAVault(NotFoundError):
    """No biocortex vault where one was looked for."""

    code = "not_a_vault"


class DataError(BiocortexError):
    """A record or input that cannot be parsed or fails validation."""

    code = "bad_data"
