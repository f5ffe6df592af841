"""``biocortex compress`` as an agent framework lives with it: long scRNA-seq sessions with
base64 blobs, glob paths, credentials, misbehaving summarizer commands (the user trial of
working memory, 2026-11-24). Each test failed before its fix."""

from __future__ import annotations

import base64
import json
import os
import random
import re
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


# --- compressing again and again: the trial's agent compressed its session six times -------------

TRANSCRIPTS = Path(__file__).resolve().parent / "data" / "transcripts"
SCRNA = "01_scrnaseq_qc_pbmc.json"
_ENTRY = re.compile(r"^- m(\d+)(?:–m(\d+))?(?: ×\d+)?(?: [^:\s]+)?: (.*)$")


def long_session(name: str, rounds: int) -> list[dict[str, Any]]:
    """A transcript's turns done ``rounds`` times, as one long session (the trial's agent redid QC
    batch after batch): the system message, then the rest again and again, tool-call ids unique."""
    messages = json.loads((TRANSCRIPTS / name).read_text(encoding="utf-8"))
    out = messages[:1]
    for n in range(1, rounds + 1):
        for message in json.loads(json.dumps(messages[1:])):
            if n > 1 and message["role"] == "user":
                message["content"] = f"[batch {n}] {message['content']}"
            for c in message.get("tool_calls") or []:
                c["id"] += f"_{n}"
            if "tool_call_id" in message:
                message["tool_call_id"] += f"_{n}"
            out.append(message)
    return out


def replay(cli: Cli, session: list[dict[str, Any]], budget: int) -> list[str]:
    """The trial: the agent appends the session's messages turn by turn and compresses whenever the
    conversation no longer fits ``budget``; the summary of each compression."""
    current: list[dict[str, Any]] = []
    runs: list[str] = []
    for n, message in enumerate(session):
        current.append(message)
        if n + 1 < len(session) and session[n + 1]["role"] == "tool":
            continue
        text = json.dumps(current)
        if conversation_tokens(parse(text), COUNTER) <= budget:
            continue
        r = cli("compress", "--budget", str(budget), "--json", stdin=text)
        assert r.code == 0, r.err
        report = r.json()
        assert report["tokens"] <= budget
        runs.append(summary_of(report["output"]))
        current = [m.data for m in parse(report["output"]).messages]
    return runs


def _said_in(message: dict[str, Any]) -> str:
    """Everything ``message`` says, on one line: prose, tool output, its tool calls as summaries show them."""
    from biocortex_cli.compress.formats import Message, parts
    from biocortex_cli.compress.summarize import render_call

    p = parts(Message(0, 0, "", message))
    return " ".join(" ".join([*p.prose, *p.outputs, *(render_call(c) for c in p.calls)]).split())


def test_entries_read_back_from_an_earlier_summary_keep_their_message_numbers(cli: Cli) -> None:
    """Trial: from the second compression on, every entry carried over from the earlier summary
    said `m2 earlier` (the earlier summary's own position), so an agent could not tell when an
    error happened. Now the numbers are those of the conversation before any compression, in
    every summary of the chain: each entry's text is in the message its number names."""
    session = long_session(SCRNA, 2)
    runs = replay(cli, session, 12000)
    assert len(runs) >= 5
    for summary in runs[1:]:  # from the second compression on: summaries of summaries
        header = summary.split("\n", 1)[0]
        first, last = map(int, re.findall(r"messages (\d+)–(\d+)", header)[0])
        assert first == 2, header
        assert f"· {last - 1} messages," in header  # the messages it stands for, not the input's
        checked = 0
        for line in summary.split("\n"):
            found = _ENTRY.match(line)
            if not found:
                continue
            number = int(found.group(2) or found.group(1))
            text, _, fix = found.group(3).partition(" → fix (m")
            assert number <= last and " ".join(text.rstrip("…").split())[:40] in _said_in(session[number - 1]), line
            if fix:
                at, _, fixed = fix.partition("): ")
                assert fixed.rstrip("…")[:40] in _said_in(session[int(at) - 1]), line
            checked += 1
        assert checked >= 5, summary
        request = re.search(r"^Request \(m(\d+) user\): (.{40})", summary, re.MULTILINE)
        assert request and request.group(2) in _said_in(session[int(request.group(1)) - 1]), summary


def test_tool_counts_are_totals_over_everything_the_summary_covers(cli: Cli) -> None:
    """Trial: `Tool calls (python ×3)` counted only the calls of the newly compressed messages,
    not those the earlier summary stood for. Now the header counts every call the summary covers
    and the per-tool counts are totals."""
    from collections import Counter

    session = long_session(SCRNA, 2)
    for summary in replay(cli, session, 12000):
        first, last = map(int, re.findall(r"messages (\d+)–(\d+)", summary.split("\n", 1)[0])[0])
        calls = Counter(c["function"]["name"] for m in session[first - 1: last] for c in m.get("tool_calls") or [])
        assert f", {sum(calls.values())} tool calls ·" in summary.split("\n", 1)[0], summary
        line = next(line for line in summary.split("\n") if line.startswith("Tool calls ("))
        shown = dict(re.findall(r"([^\s(,]+) ×(\d+)", line))
        assert {k: int(v) for k, v in shown.items()} == dict(calls), (line, calls)


def test_tool_counts_say_when_an_earlier_summary_did_not_name_them(cli: Cli, tmp_path: Path) -> None:
    """A summary written by a --summarizer command names no tool; the next built-in summary keeps
    the total (from the earlier header) and says which calls it cannot name. A summary of an
    older biocortex, whose header has no count, makes the counts lower bounds, marked so."""
    script = tmp_path / "terse.py"
    script.write_text("import sys; sys.stdin.read(); print('The agent ran QC on 20 PBMC libraries.')")
    session = long_session(SCRNA, 1)
    first = cli("compress", "--budget", "9000", "--summarizer", f"{sys.executable} {script}", "--json",
                stdin=json.dumps(session[:22]))
    assert first.code == 0, first.err
    earlier = summary_of(first.json()["output"])
    assert ", 4 tool calls ·" in earlier.split("\n", 1)[0], earlier
    grown = [m.data for m in parse(first.json()["output"]).messages] + session[22:]
    again = summary_of(cli("compress", "--budget", "4000", stdin=json.dumps(grown)).out)
    line = next(line for line in again.split("\n") if line.startswith("Tool calls ("))
    assert "4 by tools an earlier summary did not name" in line, line
    old_style = re.sub(r", \d+ tool calls", "", earlier, count=1)
    grown[1] = {"role": "user", "content": old_style}
    legacy = summary_of(cli("compress", "--budget", "4000", stdin=json.dumps(grown)).out)
    assert re.search(r"· \d+ messages, [\d,]+ tokens, at least \d+ tool calls ·", legacy.split("\n", 1)[0]), legacy
    assert "Tool calls (at least: " in legacy, legacy


def test_the_budget_the_summary_leaves_holds_the_next_older_message_cut(cli: Cli) -> None:
    """Trial: the second compression of the session printed 2,605 tokens for a budget of 9,000:
    the next older message, a 6,400-token table, did not fit whole, and the summary used 900 of
    the 7,000 tokens it was given. Now that message is kept in the room the summary leaves, its
    head and tail around a mark, its tool call before it; the output stays within the budget,
    valid, and the same bytes on every run. Over the shipped transcripts at 2,000–8,000 tokens
    the output used 71.6 % of the budget on average (16 % at worst); now 98.7 % (88 %)."""
    session = long_session(SCRNA, 1)
    first = cli("compress", "--budget", "9000", stdin=json.dumps(session[:12])).out
    grown = json.dumps([m.data for m in parse(first).messages] + session[12:22])
    r = cli("compress", "--budget", "9000", "--json", stdin=grown)
    assert r.code == 0, r.err
    report = r.json()
    assert 0.95 * 9000 <= report["tokens"] <= 9000, report["tokens"]
    assert report["kept"]["cut"], report["kept"]
    out = parse(report["output"])
    assert conversation_tokens(out, COUNTER) == report["tokens"]
    cut = next(m for m in out.messages if "cut here by biocortex compress …]" in str(m.data.get("content")))
    original = next(m for m in session if m.get("tool_call_id") == cut.data["tool_call_id"])
    head, _, tail = str(cut.data["content"]).partition("\n[… ")
    tail = tail.split(" …]\n", 1)[1]
    assert original["content"].startswith(head) and original["content"].endswith(tail) and head and tail
    n = out.messages.index(cut)
    assert out.messages[n - 1].calls_tools  # its tool call is kept before it
    assert cli("compress", "--budget", "9000", "--json", stdin=grown).out == r.out  # the same bytes again
