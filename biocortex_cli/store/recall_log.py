"""The recall log, ``.biocortex/logs/recalls-YYYY-MM.jsonl`` (docs/learning.md): local and
git-ignored, one JSON line per recall (``recall_id``, ``query``, ``vault_commit``, ``injected``,
``created``), appended with one ``O_APPEND`` write; one file a month, so a lookup never reads an
agent's whole history. It lets ``feedback`` (store/feedback.py) copy what a recall injected into
the record.

A module of its own because every ``recall`` writes it: the feedback records' module costs
recall ~12 M instructions to import (docs/performance.md). Keep its imports light.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence

from biocortex_cli.errors import DataError
from biocortex_cli.store.files import NOFOLLOW, local_file, read_regular

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # pathlib (~18 M) too: a recall logs through os.path
    from pathlib import Path
    from typing import Any

RECALL_LOG = "logs/recalls-{month}.jsonl"  # under .biocortex/ (git-ignored), month = YYYY-MM
OLD_RECALL_LOG = "logs/recalls.jsonl"  # one file for every month, before monthly files
FIND_MONTHS = 3  # feedback looks for a recall in this many newest monthly logs


def log_recall(state_dir: str | os.PathLike[str], recall_id: str, query: str, vault_commit: str | None,
               injected: Sequence[str]) -> None:
    """Append one line to the recall log; never fails a recall (a read-only vault logs nothing)."""
    line = json.dumps({"recall_id": recall_id, "query": query, "vault_commit": vault_commit,
                       "injected": list(injected),
                       "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
                      ensure_ascii=False) + "\n"
    try:  # .biocortex/logs/, or a per-user folder when that cannot be written (files.local_file)
        path = local_file(state_dir, RECALL_LOG.format(month=time.strftime("%Y-%m", time.gmtime())))
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o600)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))  # one write: lines of concurrent recalls never mix
        finally:
            os.close(fd)
    except (OSError, DataError):
        pass


def find_recall(state_dir: Path, recall_id: str) -> dict[str, Any] | None:
    """The last logged recall with ``recall_id`` (identical recalls share an id), or None; looks
    in the ``FIND_MONTHS`` newest monthly logs, newest first, then in the single ``recalls.jsonl``
    that older versions wrote, if there is one."""
    from pathlib import Path

    try:
        folder = Path(local_file(state_dir, "logs"))
        logs = sorted(folder.glob("recalls-*.jsonl"), reverse=True)[:FIND_MONTHS]
    except (OSError, DataError):
        return None
    logs.append(folder.parent / OLD_RECALL_LOG)
    needle = f'"recall_id": "{recall_id}"'.encode()
    for log in logs:
        try:
            data = read_regular(log) or b""
        except (OSError, DataError):
            continue
        at = data.rfind(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            try:
                entry = json.loads(data[start : end if end >= 0 else len(data)])
            except ValueError:
                entry = None
            if isinstance(entry, dict) and entry.get("recall_id") == recall_id:
                return entry
            at = data.rfind(needle, 0, start)
    return None
