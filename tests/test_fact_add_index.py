"""A single `fact add` keeps the fact tables at HEAD itself (its notes from memory, their tokens
counted by the next reader), and what a person changes in its notes afterwards is still read."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from conftest import Cli, git

ADD_IN_A_PROCESS = """
import sys
from biocortex_cli.cli.main import main
code = main(["fact", "add", *sys.argv[1:]])
print("tiktoken loaded" if "tiktoken" in sys.modules else "no tokenizer", file=sys.stderr)
sys.exit(code)
"""


def add_process(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-c", ADD_IN_A_PROCESS, *args], capture_output=True, text=True,
                          env={**os.environ, "BIOCORTEX_AUTHOR": "Ada <ada@lab.example>"}, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def fact_state(vault: Path) -> tuple[dict[str, str], dict[str, int], dict[str, str]]:
    """fact_state, and each fact's stored line and its token count, by fact id."""
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    try:
        state = dict(conn.execute("SELECT key, value FROM fact_state"))
        tokens = {str(i): int(t) for i, t in conn.execute("SELECT id, line_tokens FROM facts")}
        lines = {str(i): str(line) for i, line in conn.execute("SELECT id, line FROM facts")}
    finally:
        conn.close()
    return state, tokens, lines


def test_fact_add_indexes_its_fact_at_head_without_a_tokenizer_and_readers_count_it(vault: Path, cli: Cli) -> None:
    from biocortex_cli.tokens import get_counter

    assert cli("fact", "add", "TP53", "regulates", "MDM2").code == 0  # the index exists
    for obj in ("CDKN1A", "BAX"):
        assert add_process("TP53", "activates", obj, "--source", "PMID:8242752").strip().endswith("no tokenizer")
        state, tokens, _lines = fact_state(vault)
        assert state["head"] == git(vault, "rev-parse", "HEAD").strip()  # the tables follow the commit
        assert state["uncounted"] == "1" and any(t < 0 for t in tokens.values())
    assert len(tokens) == 3
    # the next reader counts the lines first: every count is the tokenizer's own
    r = cli("fact", "query", "TP53", "--json")
    assert r.code == 0 and sorted(f["object"] for f in r.json()["facts"]) == ["BAX", "CDKN1A", "MDM2"]
    state, tokens, lines = fact_state(vault)
    assert "uncounted" not in state
    counter = get_counter("cl100k_base")
    assert tokens == {ident: counter.count(line) for ident, line in lines.items()}
    # recall reads the counts: its facts fit the budget it says
    add_process("TP53", "inhibits", "BCL2")
    data = cli("recall", "TP53 in apoptosis", "--json").json()
    assert "- TP53 inhibits BCL2" in data["context"] and counter.count(data["context"]) == data["tokens"]


def test_a_hand_edit_of_the_notes_an_add_wrote_is_read_by_the_next_command(vault: Path, cli: Cli) -> None:
    ident = cli("fact", "add", "TP53", "regulates", "MDM2", "--confidence", "0.5").out.strip()
    path = next((vault / "facts").rglob(f"{ident}.md"))
    # same size: only the file's mtime tells the edit
    path.write_text(path.read_text().replace("confidence: 0.5\n", "confidence: 0.9\n", 1))
    assert cli("fact", "query", "TP53", "--json").json()["facts"][0]["confidence"] == 0.9
    # an alias written by hand into the entity note the add created
    cli("fact", "add", "KEAP1", "inhibits", "NFE2L2")
    note = vault / "entities" / "NFE2L2.md"
    note.write_text(note.read_text().replace("aliases:\n- NFE2L2\n", "aliases:\n- NFE2L2\n- NRF2x\n", 1))
    r = cli("fact", "query", "NRF2x", "--json")
    assert r.code == 0 and [f["subject"] for f in r.json()["facts"]] == ["KEAP1"]
    # a note broken by hand right after the add is reported, the rest still answer
    broken = cli("fact", "add", "TP53", "regulates", "CDKN1A").out.strip()
    path = next((vault / "facts").rglob(f"{broken}.md"))
    path.write_text(path.read_text().replace("predicate: regulates", "predicate: [unclosed", 1))
    r = cli("fact", "query", "TP53", "--json")
    assert r.code == 0 and [f["object"] for f in r.json()["facts"]] == ["MDM2"]
    assert f"{path.relative_to(vault)}:" in r.err


def test_an_add_after_another_process_committed_reads_that_commit(vault: Path, cli: Cli) -> None:
    ident = cli("fact", "add", "TP53", "regulates", "MDM2", "--confidence", "0.5").out.strip()
    path = next((vault / "facts").rglob(f"{ident}.md"))
    path.write_text(path.read_text().replace("confidence: 0.5\n", "confidence: 0.7\n", 1))
    git(vault, "-c", "user.name=Hand", "-c", "user.email=hand@lab.example", "commit", "-qam", "hand edit")
    assert cli("fact", "add", "TP53", "regulates", "BAX").code == 0
    facts = {f["object"]: f["confidence"] for f in cli("fact", "query", "TP53", "--json").json()["facts"]}
    assert facts == {"MDM2": 0.7, "BAX": 0.8}
