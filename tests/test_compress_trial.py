"""``biocortex compress`` as an agent framework lives with it: long scRNA-seq sessions with
base64 blobs, glob paths, credentials, misbehaving summarizer commands (the user trial of
working memory, 2026-11-24). Each test failed before its fix."""

from __future__ import annotations

import base64
import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli

from biocortex_cli.compress.engine import conversation_tokens
from biocortex_cli.compress.formats import parse
from biocortex_cli.tokens import get_counter

COUNTER = get_counter("cl100k_base")
REQUEST = ("I have 10x Chromium 3' v3 PBMC data for 4 samples (GEO GSE164378) in "
           "/data/pbmc/S*/filtered_feature_bc_matrix.h5. Please do QC, doublet removal and Leiden clustering.")


@pytest.fixture(autouse=True)
def no_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def call(n: int, name: str, args: dict[str, Any], output: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]},
            {"role": "tool", "tool_call_id": f"call_{n}", "content": output}]


def session(*middle: dict[str, Any]) -> list[dict[str, Any]]:
    """System, the request, ``middle``, then a few short recent turns."""
    return [{"role": "system", "content": "You are a bioinformatics agent."},
            {"role": "user", "content": REQUEST}, *middle,
            {"role": "assistant", "content": "Leiden at resolution 0.8 gives 9 clusters; results in /results/l.h5ad."},
            {"role": "user", "content": "Good, now annotate them."}]


def summary_of(output: str) -> str:
    conv = parse(output)
    return next(str(m.data["content"]) for m in conv.messages if str(m.data.get("content")).startswith("[biocortex"))


def test_a_base64_blob_in_tool_output_is_not_listed_as_files(cli: Cli) -> None:
    """Trial: a tool printed a PNG as base64; the summary's Files listed 400-character 'paths'
    such as /QKeOggah2I0ANfQAiLLGjOs…+lQZ6d/pUP81Jri… cut out of the blob."""
    blob = base64.b64encode(random.Random(7).randbytes(30000)).decode()
    messages = session(*call(1, "python", {"code": "print(b64(open('/results/umap.png','rb').read()))"}, blob))
    r = cli("compress", "--budget", "2000", "--keep-recent", "2", stdin=json.dumps(messages))
    assert r.code == 0, r.err
    files = next(line for line in summary_of(r.out).splitlines() if line.startswith("Files: "))
    assert "/results/umap.png" in files
    assert all(len(entry) < 80 for entry in files.removeprefix("Files: ").split(", ")), files


def test_a_glob_path_is_one_file_entry(cli: Cli) -> None:
    """Trial: /data/pbmc/S*/filtered_feature_bc_matrix.h5 (the user's own words) became two
    entries, '/data/pbmc/S' and '/filtered_feature_bc_matrix.h5'."""
    messages = session(*call(1, "shell", {"command": "ls /data/pbmc"}, "S1\nS2\nS3\nS4\n" * 300),
                       {"role": "assistant", "content": "Found **/data/pbmc/S1/qc.tsv** and `/data/pbmc/*.h5`."})
    r = cli("compress", "--budget", "400", "--keep-recent", "2", stdin=json.dumps(messages))
    assert r.code == 0, r.err
    files = next(line for line in summary_of(r.out).splitlines() if line.startswith("Files: "))
    entries = files.removeprefix("Files: ").split(", ")
    assert "/data/pbmc/S*/filtered_feature_bc_matrix.h5" in entries, files
    assert "/data/pbmc/S1/qc.tsv" in entries and "/data/pbmc/*.h5" in entries, files  # markdown ** is not a glob
    assert "/filtered_feature_bc_matrix.h5" not in entries and "/data/pbmc/S" not in entries, files


def test_credentials_are_redacted_in_the_summary_and_kept_messages_stay_verbatim(cli: Cli) -> None:
    """Trial: a token the user pasted and an API key in a tool call's command were copied into
    the summary in clear; the summary is derived text, and it now goes through the same secret
    scan as the vault's writes."""
    pat = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    key = "sk-proj-Abc123XyZ987qwertyUIOPasdfGHJKLzxcvBNM0123456789"
    messages = session(
        {"role": "user", "content": f"No, use the per-sample thresholds. Use my token {pat} to clone the repo."},
        *call(1, "shell", {"command": f"export OPENAI_API_KEY={key} && celltypist --model Immune_All_Low.pkl"},
              "barcode\tn_genes\n" * 2000),
        {"role": "user", "content": f"And the token again: {pat}"},
    )
    r = cli("compress", "--budget", "600", "--keep-recent", "3", stdin=json.dumps(messages))
    assert r.code == 0, r.err
    summary = summary_of(r.out)
    assert pat not in summary and key not in summary, summary
    assert "[REDACTED:github-pat]" in summary and "per-sample thresholds" in summary
    assert f"And the token again: {pat}" in r.out  # the messages kept verbatim are not touched
    assert conversation_tokens(parse(r.out), COUNTER) <= 600


def test_a_segment_with_nothing_to_keep_prints_no_empty_heading(cli: Cli) -> None:
    """Trial: a 3,000-row QC table alone in its segment gave '### messages 5–5' with nothing
    under it, twice in one summary."""
    table = "\n".join(f"{i}\t{i * 7 % 5000}\t{(i * 13 % 3000) / 100:.2f}" for i in range(9000))
    messages = session(*call(1, "python", {"code": "print(adata.obs.to_csv(sep='\\t'))"}, table),
                       {"role": "assistant", "content": "I decided to use per-sample thresholds: pct_mt < 25 for S3."})
    r = cli("compress", "--budget", "3000", "--keep-recent", "2", stdin=json.dumps(messages))
    assert r.code == 0, r.err
    lines = summary_of(r.out).splitlines()
    assert len([line for line in lines if line.startswith("### ")]) >= 2, lines  # several segments
    for n, line in enumerate(lines):
        if line.startswith("### "):
            assert n + 1 < len(lines) and not lines[n + 1].startswith("### "), lines
    assert "### messages 4–4" not in lines and "### message 4" not in lines


def test_an_error_repeated_on_every_line_is_shown_once(cli: Cli) -> None:
    """Trial: samtools printed the same [E::hts_open_format] line 200 times; the summary showed
    it twice, joined by ' | '."""
    log = "[E::hts_open_format] Failed to open file /data/a.bam\n" * 200
    messages = session(*call(1, "shell", {"command": "samtools view -q 30 /data/a.bam | wc -l"}, log))
    r = cli("compress", "--budget", "500", "--keep-recent", "2", stdin=json.dumps(messages))
    assert r.code == 0, r.err
    error = next(line for line in summary_of(r.out).splitlines() if "hts_open_format" in line)
    assert error.count("Failed to open file") == 1, error


def test_summarizer_output_loses_terminal_escapes_and_control_characters(cli: Cli, tmp_path: Path) -> None:
    """Trial: a summarizer that coloured its output put ESC[31m … ESC[0m into the conversation."""
    script = tmp_path / "colour.py"
    script.write_text("import sys; sys.stdin.read(); print('\\x1b[31mSummary:\\x1b[0m user wants QC\\x07\\tdone')")
    r = cli("compress", "--budget", "1500", "--summarizer", f"{sys.executable} {script}",
            stdin=json.dumps(session(*call(1, "shell", {"command": "ls"}, "x\n" * 5000))))
    assert r.code == 0, r.err
    summary = summary_of(r.out)
    assert "Summary: user wants QC\tdone" in summary, summary
    assert not any(ord(c) < 32 and c not in "\n\t" for c in summary), summary


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its parent counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_summarizer_that_times_out_leaves_no_process_behind(cli: Cli, tmp_path: Path) -> None:
    """Trial: `sh -c '(sleep 20; …) & …'` timed out and its background child went on running
    after compress had returned: one leaked process per compress an agent framework runs."""
    pid_file = tmp_path / "child.pid"
    script = tmp_path / "hang.py"
    script.write_text(
        "import subprocess, sys, time\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n")
    r = cli("compress", "--budget", "1500", "--summarizer", f"{sys.executable} {script}", "--summarizer-timeout", "3",
            stdin=json.dumps(session(*call(1, "shell", {"command": "ls"}, "x\n" * 5000))))
    assert r.code == 0 and "timed out" in r.err, r.err
    pid = int(pid_file.read_text())
    try:
        for _ in range(100):  # the kill is asynchronous: give the kernel a moment
            if not _alive(pid):
                break
            time.sleep(0.05)
        assert not _alive(pid), "the summarizer's child process outlived compress"
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_named_value_on_every_row_of_a_tool_output_is_one_entry(cli: Cli) -> None:
    """Trial: 300 VCF lines put DP=92; DP=140; DP=157; … (one per row) into Numbers, crowding out
    the thresholds people set. From tool output, values that differ only in their number are one
    entry, as per-sample paths are; what people wrote stays value by value."""
    rows = (f"chr17\t{7670000 + i * 13}\t.\tC\tG\t{30 + i}\tPASS\tDP={10 + i * 7 % 190};AF=0.5" for i in range(300))
    vcf = "\n".join(rows)
    messages = session(
        {"role": "user", "content": "No, use the per-sample thresholds: pct_mt < 25 for S3, pct_mt < 15 for others."},
        *call(1, "shell", {"command": "bcftools view -r chr17:7661779-7687538 /data/S1.vcf.gz"}, vcf),
    )
    r = cli("compress", "--budget", "1200", "--keep-recent", "2", stdin=json.dumps(messages))
    assert r.code == 0, r.err
    numbers = next(line for line in summary_of(r.out).splitlines() if line.startswith("Numbers: "))
    assert numbers.count("DP=") == 1 and "like it)" in numbers, numbers
    assert "pct_mt < 25" in numbers and "pct_mt < 15" in numbers, numbers
