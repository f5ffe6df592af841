"""What a read refuses is refused at write time, with the limit named (issue 14): a note over
the size limit, frontmatter nested too deep or holding too many values is never committed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Cli, git

from biocortex_cli.store.limits import MAX_NOTE_BYTES, MAX_YAML_DEPTH, MAX_YAML_VALUES


def _nested(depth: int) -> object:
    value: object = "leaf"
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize(("extra", "said"), [
    ({"notes": "x" * (MAX_NOTE_BYTES + 1024 * 1024)}, f"over the {MAX_NOTE_BYTES // 2**20} MB limit"),
    ({"provenance": {"parameters": _nested(MAX_YAML_DEPTH + 5)}}, f"nested more than {MAX_YAML_DEPTH} levels"),
    ({"provenance": {"data": list(range(MAX_YAML_VALUES + 1))}}, f"more than {MAX_YAML_VALUES} values"),
])
def test_a_record_every_read_would_refuse_is_not_committed(vault: Path, cli: Cli, extra: dict[str, object],
                                                           said: str) -> None:
    head = git(vault, "rev-parse", "HEAD")
    record = json.dumps({"id": "big", "task": "An analysis with an oversized record", **extra})
    for args, stdin in ((["episode", "add", "--from-json", "-"], record), (["episode", "import", "-"], record + "\n")):
        r = cli(*args, stdin=stdin)
        assert r.code == 1, r.err
        assert said in r.err and "nothing was written" in r.err
        assert git(vault, "rev-parse", "HEAD") == head and git(vault, "status", "--porcelain") == ""


def test_just_under_the_limits_is_written_and_read_back(vault: Path, cli: Cli) -> None:
    record = {"id": "fits", "task": "An analysis at the limits",
              "provenance": {"parameters": _nested(MAX_YAML_DEPTH - 3)}}
    assert cli("episode", "add", "--from-json", "-", stdin=json.dumps(record)).code == 0
    shown = cli("episode", "show", "fits", "--json")
    assert shown.code == 0 and shown.json()["provenance"] == record["provenance"]
    assert cli("check").code == 0
