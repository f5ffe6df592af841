"""MCP's stdio transport, by hand: JSON-RPC 2.0, one message per line, one request at a time.

Every line that is not a well-formed request still gets an answer with the JSON-RPC error codes
(parse error -32700 for bytes that are not JSON, invalid request -32600 for JSON that is not a
request object, method not found -32601, invalid params -32602, internal error -32603), and the
loop reads on: a client never waits for a reply that will not come. A line is read with a size
limit (``MAX_MESSAGE``), so a huge line costs at most that much memory and is answered and
skipped. Notifications (no ``id``) are never answered. Why not the official SDK:
docs/architecture.md, "The MCP server".
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from biocortex_cli.store.limits import MAX_INPUT_BYTES

#: Protocol revisions this server speaks through the ``initialize`` handshake, oldest first.
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MAX_MESSAGE = MAX_INPUT_BYTES  # bytes in one line, as for any input biocortex reads
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603

Handler = Callable[[dict[str, Any]], dict[str, Any]]


class RpcError(Exception):
    """A JSON-RPC error answer."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


@dataclass
class Server:
    """What the server answers: its name and version, the instructions for the model, and a
    handler per method (``tools/list``, ``tools/call``, …) taking the request's params."""

    name: str
    version: str
    instructions: Callable[[], str]
    handlers: Mapping[str, Handler]
    capabilities: dict[str, Any] = field(default_factory=dict)

    def answer(self, line: bytes) -> dict[str, Any] | None:
        """The response to one line of input, or None (a notification, a response, a blank line)."""
        try:
            message = _parse(line)
        except RpcError as exc:
            return _error(None, exc)
        if message is None:
            return None
        ident = message.get("id")
        try:
            method = _check_request(message)
            if method is None:
                return None  # a notification (initialized, cancelled, …) or a response: nothing to say
            params = message.get("params", {})
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            return {"jsonrpc": "2.0", "id": ident, "result": self._dispatch(method, params)}
        except RpcError as exc:
            return _error(ident if _valid_id(ident) else None, exc)
        except Exception as exc:  # a bug: answered, logged, and the server goes on
            traceback.print_exc(file=sys.stderr)
            return _error(ident if _valid_id(ident) else None,
                          RpcError(INTERNAL_ERROR, f"internal error ({type(exc).__name__}: {exc}); this is a bug"))

    def _dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            asked = params.get("protocolVersion")
            return {"protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
                    "capabilities": self.capabilities, "serverInfo": {"name": self.name, "version": self.version},
                    "instructions": self.instructions()}
        if method == "ping":
            return {}
        handler = self.handlers.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}",
                           {"methods": ["initialize", "ping", *self.handlers]})
        return handler(params)

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        """Answer every line of ``stdin`` on ``stdout`` until the client closes it."""
        while True:
            line = stdin.readline(MAX_MESSAGE + 1)
            if not line:
                return
            if len(line) > MAX_MESSAGE and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the line
                    line = stdin.readline(1 << 20)
                response: dict[str, Any] | None = _error(None, RpcError(
                    PARSE_ERROR, f"message over the {MAX_MESSAGE >> 20} MB limit (not read)"))
            else:
                response = self.answer(line)
            if response is not None:
                stdout.write(encode(response))
                stdout.flush()


def encode(response: dict[str, Any]) -> bytes:
    """One line of UTF-8 JSON; text that is not Unicode (a lone surrogate echoed back in an id)
    is escaped, so the line is always valid."""
    try:
        return json.dumps(response, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(response, separators=(",", ":")).encode("ascii") + b"\n"


def _parse(line: bytes) -> dict[str, Any] | None:
    if not line.strip():
        return None
    try:
        message = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RpcError(PARSE_ERROR, f"parse error: not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise RpcError(PARSE_ERROR, f"parse error: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise RpcError(PARSE_ERROR, "parse error: JSON nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise RpcError(PARSE_ERROR, f"parse error: {exc}") from None
    if not isinstance(message, dict):
        kind = "a batch (an array)" if isinstance(message, list) else type(message).__name__
        raise RpcError(INVALID_REQUEST, f"invalid request: a message is one JSON object, not {kind}")
    return message


def _valid_id(ident: Any) -> bool:
    return isinstance(ident, str | int) and not isinstance(ident, bool)


def _check_request(message: dict[str, Any]) -> str | None:
    """The method of a request; None for a notification or a response."""
    if message.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"')
    method = message.get("method")
    if "id" not in message:
        if method is None and ("result" in message or "error" in message):
            raise RpcError(INVALID_REQUEST, "invalid request: a response needs the id of a request")
        if not isinstance(method, str):
            raise RpcError(INVALID_REQUEST, 'invalid request: "method" must be a string')
        return None
    if not _valid_id(message["id"]):
        raise RpcError(INVALID_REQUEST, 'invalid request: "id" must be a string or an integer')
    if method is None and ("result" in message or "error" in message):
        return None  # a response: this server sends no requests, so there is nothing to match
    if not isinstance(method, str):
        raise RpcError(INVALID_REQUEST, 'invalid request: "method" must be a string')
    return method


def _error(ident: Any, exc: RpcError) -> dict[str, Any]:
    error: dict[str, Any] = {"code": exc.code, "message": exc.message}
    if exc.data is not None:
        error["data"] = exc.data
    return {"jsonrpc": "2.0", "id": ident, "error": error}
