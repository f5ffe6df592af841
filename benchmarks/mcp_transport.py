"""The MCP server by hand against the official SDK's (docs/architecture.md, "The MCP server").

Both serve the same library API on the same vault (the sample episodes): the hand-written one is
``biocortex mcp``; the SDK one is this script's ``--serve-sdk`` (mcp 2's ``MCPServer`` over
stdio with the ``recall`` tool, as ``biocortex mcp`` was before). For each: whether each line of a
set of malformed requests gets an answer within ``--patience`` seconds (a fresh server per line,
after a good ``initialize``), the time from start to the ``initialize`` answer, and a ``tools/list``
plus a ``recall`` (medians and minimums of ``--runs`` processes), and the CPU time of importing
the server's modules. Needs the dev extra (the SDK).

    .venv/bin/python benchmarks/mcp_transport.py --runs 7
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BIOCORTEX, machine

REPO = Path(__file__).resolve().parents[1]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}}
RECALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "recall", "arguments": {"query": "doublets in 10x multiome scRNA-seq"}}}
DEEP = b"[" * 3000 + b"]" * 3000
MALFORMED = {
    'a lone surrogate ("\\ud800") in an argument':
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"a\\ud800"}}}',
    "malformed JSON": b'{"jsonrpc":"2.0","id":1,',
    "3,000-deep nesting": b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":'
                          b'{"query":' + DEEP + b"}}}",
    "a JSON array (a batch)": b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    "a number": b"42",
    "bytes that are not UTF-8": b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff"}',
    "an unknown argument (budgett)":
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"x","budgett":5}}}',
}


def serve_sdk(vault: str) -> None:
    """The SDK's server with biocortex's recall tool (its transport is what is measured)."""
    from mcp.server.mcpserver import MCPServer

    from biocortex_cli.api.recall import recall as api_recall
    from biocortex_cli.store.vault import find_vault

    server = MCPServer("biocortex", log_level="WARNING")

    def recall(query: str, top_k: int | None = None, budget: int | None = None) -> dict[str, Any]:
        """Recall past analyses."""
        return api_recall(find_vault(vault), query=query, top_k=top_k, budget=budget).as_json()

    server.tool()(recall)
    server.run("stdio")


def _start(cmd: list[str]) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)


def _line(proc: subprocess.Popen[bytes], patience: float) -> bytes | None:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], patience)
    if not ready:
        return None
    line = proc.stdout.readline()
    assert line, "the server exited"
    return line


def _send(proc: subprocess.Popen[bytes], message: dict[str, object] | bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write((message if isinstance(message, bytes) else json.dumps(message).encode()) + b"\n")
    proc.stdin.flush()


def answered(cmd: list[str], raw: bytes, patience: float) -> bool:
    proc = _start(cmd)
    try:
        _send(proc, INIT)
        assert _line(proc, 60) is not None, "no answer to initialize"
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, raw)
        return _line(proc, patience) is not None
    finally:
        proc.kill()
        proc.wait()


def timings(cmd: list[str], runs: int) -> tuple[list[float], list[float]]:
    start, calls = [], []
    for _ in range(runs + 1):  # the first warms the caches
        began = time.perf_counter()
        proc = _start(cmd)
        _send(proc, INIT)
        assert _line(proc, 60) is not None
        ready = time.perf_counter()
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        _send(proc, RECALL)
        assert _line(proc, 60) is not None and _line(proc, 60) is not None
        done = time.perf_counter()
        proc.kill()
        proc.wait()
        start.append(ready - began)
        calls.append(done - ready)
    return start[1:], calls[1:]


def import_cpu(module: str, runs: int) -> float:
    code = f"import time; t = time.process_time(); import {module}; print(time.process_time() - t)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                    check=True, cwd=REPO).stdout) for _ in range(runs))


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:6.0f} ms, min {min(values) * 1000:6.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--patience", type=float, default=10.0, help="seconds to wait for one answer")
    parser.add_argument("--serve-sdk", metavar="VAULT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_sdk:
        serve_sdk(args.serve_sdk)
        return
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        vault = str(Path(tmp) / "vault")
        env = {**os.environ, "HOME": tmp}
        subprocess.run([*BIOCORTEX, "init", vault], check=True, capture_output=True, env=env)
        sample = str(REPO / "examples/sample_episodes.jsonl")
        subprocess.run([*BIOCORTEX, "--vault", vault, "episode", "import", sample], check=True, capture_output=True,
                       env=env)
        servers = {"by hand (biocortex mcp)": [*BIOCORTEX, "--vault", vault, "mcp"],
                   "official SDK (mcp 2)": [sys.executable, __file__, "--serve-sdk", vault]}
        for name, cmd in servers.items():
            print(f"\n== {name}")
            hits = 0
            for case, raw in MALFORMED.items():
                ok = answered(cmd, raw, args.patience)
                hits += ok
                print(f"  {case:<48} {'answered' if ok else f'NO ANSWER in {args.patience:g} s'}")
            print(f"  answered {hits} of {len(MALFORMED)}")
            start, calls = timings(cmd, args.runs)
            print(f"  start to the initialize answer: {_ms(start)}")
            print(f"  tools/list + recall:            {_ms(calls)}")
        ours, sdk = import_cpu("biocortex_cli.mcp_server", args.runs), import_cpu("mcp.server.mcpserver", args.runs)
        print(f"\nimport CPU, min of {args.runs}: biocortex_cli.mcp_server {ours * 1000:.0f} ms; "
              f"mcp.server.mcpserver {sdk * 1000:.0f} ms")
        protocol = REPO / "biocortex_cli/mcp_server/protocol.py"
        print(f"lines: {protocol.relative_to(REPO)} {len(protocol.read_text().splitlines())}")


if __name__ == "__main__":
    main()
