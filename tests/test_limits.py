"""Size limits (issue 8 §3): a 50 MB note is reported, not read; a 1 GB stdin stream is refused
after MAX_INPUT_BYTES with a clear error, and the process's peak memory stays bounded."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli

from biocortex_cli.errors import DataError
from biocortex_cli.store.files import MAX_INPUT_BYTES, MAX_NOTE_BYTES, read_capped


def _sparse_note(path: Path, size: int) -> None:
    """A note of ``size`` bytes written in microseconds: a valid head, then a hole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(b"---\nid: huge\ntask: a pasted log\n---\n")
        fh.truncate(size)


def test_a_50_mb_note_is_a_problem_and_everything_else_still_works(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "DESeq2 on KRAS organoids", "--id", "small").code == 0
    _sparse_note(vault / "episodes/2026/01/huge.md", 50 * 2**20)
    r = cli("check")
    assert r.code == 1
    assert f"episodes/2026/01/huge.md:1: note is 50.0 MB, over the {MAX_NOTE_BYTES // 2**20} MB limit" in r.out
    r = cli("index")
    assert r.code == 0 and "huge.md:1: note is 50.0 MB" in r.err
    r = cli("recall", "DESeq2 organoids", "--json")
    assert r.code == 0 and [h["id"] for h in r.json()["results"]] == ["small"]
    r = cli("episode", "list", "--json")
    assert r.code == 0 and [e["id"] for e in r.json()] == ["small"]
    assert cli("episode", "show", "huge").code == 1


def test_a_note_at_the_limit_is_read_one_byte_more_is_not(vault: Path, cli: Cli) -> None:
    at = vault / "episodes/2026/01/at-limit.md"
    _sparse_note(at, MAX_NOTE_BYTES)
    r = cli("check")
    assert "at-limit.md:1: note is" not in r.out  # read (and reported for its NUL bytes instead)
    _sparse_note(at, MAX_NOTE_BYTES + 1)
    assert "at-limit.md:1: note is 8.0 MB, over the 8 MB limit" in cli("check").out


@pytest.mark.parametrize("size", [0, 1, MAX_INPUT_BYTES // 2**20])
def test_read_capped_returns_everything_up_to_the_limit(size: int) -> None:
    data = b"x" * size
    assert read_capped(io.BytesIO(data), "<stdin>", limit=max(size, 1)) == data
    with pytest.raises(DataError, match="over the 0 MB limit"):
        read_capped(io.BytesIO(data + b"yz"), "<stdin>", limit=size + 1)


GIB = 2**30


@pytest.mark.parametrize("args", [["episode", "import", "-"], ["episode", "add", "--from-json", "-"],
                                  ["compress", "-"], ["context", "q", "--conversation", "-"]])
def test_a_1_gb_stdin_stream_is_refused_with_bounded_memory(vault: Path, args: list[str]) -> None:
    """1 GiB from a pipe: the reader stops after the limit; peak RSS is the limit plus start-up."""
    feeder = subprocess.Popen(["head", "-c", str(GIB), "/dev/zero"], stdout=subprocess.PIPE)
    child = subprocess.Popen([sys.executable, "-m", "biocortex_cli", *args], stdin=feeder.stdout,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert feeder.stdout is not None
    feeder.stdout.close()  # the child's end only: it stops reading, head gets SIGPIPE
    out, err = child.communicate(timeout=60)
    feeder.wait(timeout=60)
    assert child.returncode == 1, err
    assert out == b"" and b"Traceback" not in err
    assert f"<stdin>: input is over the {MAX_INPUT_BYTES // 2**20} MB limit".encode() in err
    assert feeder.returncode != 0  # head was cut off: the 1 GiB was never read to its end


def test_peak_memory_of_the_refused_1_gb_stream_is_bounded(vault: Path) -> None:
    # A child's peak RSS includes what it shared with its parent before exec: started from the
    # test process (a big pytest worker) it would report the worker's size. So a small Python
    # starts it and reports its RUSAGE_CHILDREN peak.
    launcher = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
                "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    feeder = subprocess.Popen(["head", "-c", str(GIB), "/dev/zero"], stdout=subprocess.PIPE)
    child = subprocess.Popen([sys.executable, "-c", launcher, sys.executable, "-m", "biocortex_cli", "episode",
                              "import", "-"], stdin=feeder.stdout, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert feeder.stdout is not None
    feeder.stdout.close()
    out, _ = child.communicate(timeout=60)
    feeder.wait(timeout=60)
    code, max_kib = map(int, out.split())
    assert code == 1
    peak_mib = max_kib / 1024  # Linux: KiB
    assert peak_mib < MAX_INPUT_BYTES / 2**20 + 100, peak_mib  # the limit + interpreter, not 1 GiB
