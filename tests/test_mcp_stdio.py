"""``biocortex mcp`` fed raw bytes: every malformed line gets a JSON-RPC answer and the server
reads on (issue 14: a "\\ud800", 3,000-deep nesting or malformed JSON never got an answer and
hung the client). The read timeout only guards the test against a hang; nothing is timed."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from biocortex_cli.mcp_server.protocol import MAX_MESSAGE
from biocortex_cli.mcp_server.tools import TOOLS
from tests.conftest import REPO

HANG = 60  # seconds: only a hung server takes this long to answer one line


BLOCK_MCP = """
import sys
class NotInstalled:  # finds no module named mcp, as when the package is not installed
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "mcp":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NotInstalled())
from biocortex_cli.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


class Raw:
    """The server process, written to and read from as bytes."""

    def __init__(self, vault: Path, *, without_sdk: bool = False) -> None:
        start = ["-c", BLOCK_MCP] if without_sdk else ["-m", "biocortex_cli"]
        self.proc = subprocess.Popen([sys.executable, *start, "--vault", str(vault), "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
        self.buffer = b""

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw if raw.endswith(b"\n") else raw + b"\n")
        self.proc.stdin.flush()

    def line(self) -> dict[str, Any]:
        """The next line the server writes, parsed (it must be one JSON object)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([fd], [], [], HANG)
            assert ready, "the server did not answer (hung)"
            chunk = os.read(fd, 1 << 20)
            assert chunk, "the server closed stdout"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        answer = json.loads(line.decode("utf-8"))
        assert isinstance(answer, dict) and answer["jsonrpc"] == "2.0"
        return answer

    def ask(self, raw: bytes) -> dict[str, Any]:
        self.send(raw)
        return self.line()

    def request(self, ident: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        return self.ask(json.dumps(message).encode())


@pytest.fixture
def server(vault: Path) -> Iterator[Raw]:
    raw = Raw(vault)
    init = raw.request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "raw", "version": "0"}})
    assert init["result"]["protocolVersion"] == "2025-06-18"
    raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')  # no answer
    try:
        yield raw
    finally:
        raw.proc.kill()
        raw.proc.wait()


def _call(name: str, arguments: Any, ident: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}}).encode()


DEEP = b"[" * 3000 + b"]" * 3000
MALFORMED = [
    ("malformed JSON", b'{"jsonrpc": "2.0", "id": 2,', -32700, None),
    ("not UTF-8", b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "x": "\xff"}', -32700, None),
    ("3,000-deep nesting", b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "recall", '
                           b'"arguments": {"query": ' + DEEP + b"}}}", -32700, None),
    ("3,000-deep bare", DEEP, -32700, None),
    ("a batch", b'[{"jsonrpc": "2.0", "id": 5, "method": "ping"}]', -32600, None),
    ("a number", b"42", -32600, None),
    ("a string", b'"ping"', -32600, None),
    ("null", b"null", -32600, None),
    ("no jsonrpc", b'{"id": 6, "method": "ping"}', -32600, 6),
    ("method not a string", b'{"jsonrpc": "2.0", "id": 7, "method": 7}', -32600, 7),
    ("id an object", b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600, None),
    ("unknown method", b'{"jsonrpc": "2.0", "id": 8, "method": "tools/run"}', -32601, 8),
    ("params not an object", b'{"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": [1]}', -32602, 9),
    ("unknown tool", _call("recal", {"query": "x"}, 10), -32602, 10),
    ("arguments not an object", _call("recall", ["x"], 11), -32602, 11),
]


def test_every_malformed_line_gets_a_json_rpc_error_and_the_server_reads_on(server: Raw) -> None:
    answers = []
    for n, (case, raw, _code, _ident) in enumerate(MALFORMED):
        answer = server.ask(raw)
        answers.append((case, answer["error"]["code"], answer["id"]))
        assert server.request(100 + n, "ping") == {"jsonrpc": "2.0", "id": 100 + n, "result": {}}, case
    assert answers == [(case, code, ident) for case, _raw, code, ident in MALFORMED]


def test_a_lone_surrogate_is_a_tool_error_and_an_id_holding_one_is_answered_in_valid_utf8(server: Raw) -> None:
    answer = server.ask(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "episode_add", '
                        b'"arguments": {"task": "doublets \\ud800"}}}')
    assert answer["result"]["isError"] is True
    error = json.loads(answer["result"]["content"][0]["text"])["error"]
    assert "lone surrogate" in error["message"] and error["path"] == "<arguments>"
    answer = server.ask(b'{"jsonrpc": "2.0", "id": "x\\ud800", "method": "ping"}')
    assert answer == {"jsonrpc": "2.0", "id": "x\ud800", "result": {}}  # escaped as \ud800 on the wire


def test_a_line_over_the_limit_is_answered_unread_and_the_next_one_served(server: Raw) -> None:
    head = b'{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "recall", "arguments": {"query": "'
    big = head + b"a" * (MAX_MESSAGE + 1 - len(head)) + b'"}}}\n'
    assert server.proc.stdin is not None
    server.proc.stdin.write(big)  # the server reads it as it comes: no dead-lock on a full pipe
    server.proc.stdin.flush()
    answer = server.line()
    assert answer["error"]["code"] == -32700 and "limit" in answer["error"]["message"] and answer["id"] is None
    assert server.request(13, "ping")["result"] == {}


def test_notifications_and_responses_are_not_answered(server: Raw) -> None:
    server.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}')
    server.send(b'{"jsonrpc": "2.0", "id": 5, "result": {}}')  # a response to a request we never sent
    server.send(b"   ")
    assert server.request(14, "ping") == {"jsonrpc": "2.0", "id": 14, "result": {}}  # the next line is ping's


def test_unknown_arguments_are_a_tool_error_listing_the_valid_ones(server: Raw) -> None:
    answer = server.ask(_call("recall", {"query": "doublets", "budgett": 500}))
    result = answer["result"]
    assert result["isError"] is True and "structuredContent" not in result
    error = json.loads(result["content"][0]["text"])["error"]
    assert error["message"] == "unknown argument budgett for recall" and "valid: query, top_k, budget" in error["hint"]


def test_nothing_but_protocol_reaches_stdout_while_a_tool_runs(server: Raw, vault: Path) -> None:
    """A write runs git as a child process; fd 1 points at stderr while the server runs."""
    answer = server.ask(_call("fact_add", {"subject": "TP53", "predicate": "regulates", "object": "MDM2",
                                           "source": ["PMID:8319905"]}, 15))
    assert answer["id"] == 15 and answer["result"]["structuredContent"]["object"] == "MDM2"
    assert server.request(16, "tools/list")["result"]["tools"][0]["name"] == "recall"


def test_the_server_needs_no_sdk(vault: Path) -> None:
    """`pip install biocortex` has no MCP SDK (only the dev extra brings it, for the client in
    tests/test_mcp.py): `biocortex mcp` serves without it."""
    raw = Raw(vault, without_sdk=True)
    try:
        init = raw.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                             "clientInfo": {"name": "raw", "version": "0"}})
        assert init["result"]["serverInfo"]["name"] == "biocortex"
        assert len(raw.request(1, "tools/list")["result"]["tools"]) == len(TOOLS)
    finally:
        raw.proc.kill()
        raw.proc.wait()
