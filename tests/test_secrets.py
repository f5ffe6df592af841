"""Credentials and personal data (issue 14): what the scanner finds (tests/secret_corpus.py), what
it leaves alone, and what every door that commits does with a finding: refused by default,
removed whole with --redact (JSON and YAML stay valid), written loudly with --allow-secret."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli, git
from secret_corpus import LOOKALIKES, SHAPES, Shape

from biocortex_cli.store import secrets
from biocortex_cli.store.episodes import ID_RE
from biocortex_cli.store.git import Author
from biocortex_cli.store.vault import Vault

LESSON = "Call doublets on both modalities and combine the calls for Multiome."


def test_corpus_sizes() -> None:
    assert len(SHAPES) >= 60 and len(LOOKALIKES) >= 40


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_every_shape_is_found_and_redacted_whole(shape: Shape) -> None:
    assert secrets.scan(shape.text), shape.text
    assert shape.needle not in secrets.redact(shape.text)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_biology_is_not_a_secret(text: str) -> None:
    assert secrets.scan(text) == []


def test_a_pem_block_is_removed_with_its_body() -> None:
    pem = next(s for s in SHAPES if s.name == "RSA private key")
    cleaned = secrets.redact(f"before\n{pem.text}\nafter")
    assert re.fullmatch(r"before\n\[REDACTED:private-key[a-z-]*\]\nafter", cleaned), cleaned


@pytest.mark.parametrize("text", [
    "---\nid: x\nplan: >-\n  " + "word " * 14 + "-----BEGIN RSA PRIVATE\n  KEY-----\n---\n",  # YAML folding
    '---\nid: x\nplan: "token:\\nghp_' + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5" + '"\n---\n',  # an escaped newline
    '---\nid: x\nplan: "AWS_ACCESS_KEY_ID\\tAKIA' + "QX3MZ7KD2LW5PN4R" + '"\n---\n',  # an escaped tab
    "---\nid: x\npassword: Qu0tedPassw0rd!\n---\n",  # the key names what the value is
])
def test_decoded_values_are_scanned_not_the_serialized_text(text: str) -> None:
    assert secrets.inspect("episodes/x.md", text), text


def test_json_lines_are_scanned_decoded_and_redacted_valid() -> None:
    line = json.dumps({"note": 'token:\nghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5', "query": 'pwd=abcd"efgXk9'})
    assert len(secrets.inspect("feedback/a.jsonl", line + "\n")) == 2
    cleaned = secrets.redact_file("feedback/a.jsonl", line + "\n")
    record = json.loads(cleaned.splitlines()[0])
    assert record == {"note": "token:\n[REDACTED:github-pat]", "query": "pwd=[REDACTED:password]"}


# --- every door that commits ----------------------------------------------------------------------

Door = Callable[[str], tuple[list[str], str | None]]  # shape text -> (arguments, stdin)


def _json_episode(field: str) -> Door:
    return lambda text: (["episode", "add", "--no-suggest", "--from-json", "-"],
                         json.dumps({"task": "Routine QC run", field: text}))


DOORS: dict[str, Door] = {
    "task": lambda t: (["episode", "add", "--no-suggest", "--task", f"Deploy LIMS {t}"], None),
    "plan": lambda t: (["episode", "add", "--no-suggest", "--task", "QC", "--plan", t], None),
    "result": lambda t: (["episode", "add", "--no-suggest", "--task", "QC", "--result", t], None),
    "lessons": lambda t: (["episode", "add", "--no-suggest", "--task", "QC", "--lesson", t], None),
    "entities": lambda t: (["episode", "add", "--no-suggest", "--task", "QC", "--entity", t], None),
    "json extra field": _json_episode("notes"),
    "json provenance": lambda t: (["episode", "add", "--no-suggest", "--from-json", "-"],
                                  json.dumps({"task": "QC", "provenance": {"parameters": {"env": t}}})),
    "import": lambda t: (["episode", "import", "-"], json.dumps({"task": "QC", "result": t}) + "\n"),
    "author": lambda t: (["--author", f"{t} <ci@lab.example>", "entity", "alias", "TP53", "p53"], None),
    "fact subject": lambda t: (["fact", "add", t, "regulates", "MDM2"], None),
    "fact object": lambda t: (["fact", "add", "TP53", "regulates", t], None),
    "fact source": lambda t: (["fact", "add", "TP53", "regulates", "MDM2", "--source", t], None),
    "entity alias": lambda t: (["entity", "alias", "TP53", f"p53 {t}"], None),
    "feedback note": lambda t: (["feedback", "r0123456789", "--outcome", "success", "--helpful", "ep-a",
                                 "--note", t], None),
    "lesson text": lambda t: (["lessons", "promote", LESSON, "--text", f"Use {t}"], None),
    "fact retract reason": lambda t: (["fact", "retract", "FACT", "--reason", t], None),
}
#: doors whose value must be a valid id or author name
_FITS = {"author": lambda t: "<" not in t and ">" not in t and "\n" not in t}


_BUILT: dict[str, str] = {}


@pytest.fixture
def fact_id(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> str:
    """The vault with episodes a feedback and a lesson can name, and a fact to retract (built once
    per test process, then copied); returns the fact's id."""

    def build() -> None:
        for ident in ("ep-a", "ep-b"):
            assert cli("episode", "add", "--no-suggest", "--id", ident, "--task", "Doublet calling",
                       "--lesson", LESSON).code == 0
        r = cli("fact", "add", "KEAP1", "inhibits", "NFE2L2", "--json")
        assert r.code == 0, r.err
        _BUILT["fact"] = str(r.json()["fact"]["id"]) if "fact" in r.json() else str(r.json()["id"])

    built_vaults.get("secrets-doors", vault, build)
    return _BUILT["fact"]


@pytest.fixture
def env_author(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commits' author from $BIOCORTEX_AUTHOR: the door tests are about what each door writes,
    and reading the author from git config took two git processes for each of their 2,000
    commands (the author door still passes --author, which wins)."""
    monkeypatch.setenv("BIOCORTEX_AUTHOR", "CI <ci@lab.example>")


def _run(cli: Cli, door: Door, text: str, fact_id: str, *flags: str) -> tuple[int, str]:
    args, stdin = door(text)
    args = [fact_id if a == "FACT" else a for a in args]
    r = cli(*flags, *args, stdin=stdin)
    return r.code, r.out + r.err


def _history(vault: Path) -> str:
    """Everything git holds: every commit's message, author, file names and contents."""
    return git(vault, "log", "-p", "--all", "--format=%an <%ae>%n%B")


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.usefixtures("env_author")
def test_no_shape_is_committed_through_any_door(vault: Path, cli: Cli, door: str, fact_id: str) -> None:
    head = git(vault, "rev-parse", "HEAD")
    fits = _FITS.get(door, lambda t: True)
    wrong = []
    for shape in SHAPES:
        if not fits(shape.text):
            continue
        code, said = _run(cli, DOORS[door], shape.text, fact_id)
        refused = (code == 1 and "nothing was written" in said) or code == 2  # 2: not a valid name at all
        if not refused or shape.needle in said:
            wrong.append(f"{shape.name}: exit {code}: {said[-300:]}")
    assert wrong == []
    assert git(vault, "rev-parse", "HEAD") == head and git(vault, "status", "--porcelain") == ""
    history = _history(vault)
    assert not [s.name for s in SHAPES if s.needle in history]


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.usefixtures("env_author")
def test_redact_removes_every_shape_through_any_door(vault: Path, cli: Cli, door: str, fact_id: str) -> None:
    fits = _FITS.get(door, lambda t: True)
    wrong = []
    for shape in SHAPES:
        if not fits(shape.text):
            continue
        code, said = _run(cli, DOORS[door], shape.text, fact_id, "--redact")
        if code not in (0, 1) or shape.needle in said:
            wrong.append(f"{shape.name}: exit {code}: {said[-300:]}")
    assert wrong == []
    history = _history(vault)
    assert not [s.name for s in SHAPES if s.needle in history]
    assert "[REDACTED:" in history
    r = cli("check")
    assert r.code == 0, r.out + r.err


ID_SHAPES = [s for s in SHAPES if ID_RE.fullmatch(s.text)]


def test_enough_shapes_fit_an_id() -> None:
    assert len(ID_SHAPES) >= 12


@pytest.mark.parametrize("shape", ID_SHAPES, ids=lambda s: s.name)
def test_an_id_or_file_name_with_a_secret_is_refused(vault: Path, cli: Cli, shape: Shape) -> None:
    r = cli("--redact", "episode", "add", "--task", "QC", "--id", shape.text)
    assert r.code in (1, 2) and shape.needle not in r.out + r.err
    r = cli("episode", "add", "--task", "QC", "--id", shape.text)
    assert r.code == 1 and "file name" in r.err
    r = cli("lessons", "promote", LESSON, "--id", shape.text)
    assert r.code in (1, 2)
    assert shape.needle not in _history(vault)


@pytest.mark.usefixtures("fact_id")
def test_feedback_copies_a_logged_query_only_after_scanning_it(vault: Path, cli: Cli) -> None:
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    r = cli("recall", f"doublet calling with token:\n{token}", "--json")
    assert r.code == 0, r.err  # reading is never refused
    rid = r.json()["recall_id"]
    r = cli("feedback", rid, "--outcome", "success")
    assert r.code == 1 and ".jsonl:1: github-pat in field 'query'" in r.err
    r = cli("--redact", "feedback", rid, "--outcome", "success", "--note", 'pwd=abcd"efgXk9')
    assert r.code == 0, r.err
    assert token not in _history(vault) and "abcd" not in _history(vault)
    (path,) = vault.glob("feedback/*/*/*.jsonl")
    record = json.loads(path.read_text().splitlines()[0])  # still one valid JSON object
    assert record["query"].endswith("[REDACTED:github-pat]") and record["note"] == "pwd=[REDACTED:password]"
    assert cli("check").code == 0


def test_redact_removes_the_key_body_and_keeps_yaml_valid(vault: Path, cli: Cli) -> None:
    pem = next(s for s in SHAPES if s.name == "OpenSSH private key")
    r = cli("--redact", "episode", "add", "--task", "Deploy", "--id", "pem", "--plan", f"use this key {pem.text} now",
            "--json")
    assert r.code == 0, r.err
    shown = cli("episode", "show", "pem", "--json").json()
    assert re.fullmatch(r"use this key \[REDACTED:private-key[a-z-]*\] now", shown["plan"]), shown["plan"]
    assert pem.needle not in _history(vault)


@pytest.mark.usefixtures("fact_id")
def test_commit_subjects_file_names_and_stdout_lose_the_secret(vault: Path, cli: Cli) -> None:
    r = cli("--redact", "entity", "alias", "TP53", "p53 pwd=Xq7#kLm2Pz9w")
    assert r.code == 0, r.err
    assert "Xq7#" not in r.out + git(vault, "log", "-1", "--format=%B")
    r = cli("--redact", "lessons", "promote", LESSON, "--text", "Use postgres://user:Pa55w0rdZ@db.lab/x", "--json")
    assert r.code == 0, r.err
    assert "Pa55w0rdZ" not in r.out and "Pa55w0rdZ" not in _history(vault)


@pytest.mark.parametrize("command", [["entity", "alias", "TP53", "p53"], ["forget", "--older-than", "2099-01-01"],
                                     ["restore", "ep-a"], ["lessons", "refresh"]])
@pytest.mark.usefixtures("fact_id")
def test_the_author_is_scanned_on_every_write(vault: Path, cli: Cli, command: list[str]) -> None:
    if command[0] == "restore":
        assert cli("forget", "--older-than", "2099-01-01").code == 0
    if command[0] == "lessons":  # a promoted lesson with a new supporting episode to add
        assert cli("lessons", "promote", LESSON).code == 0
        assert cli("episode", "add", "--no-suggest", "--task", "Doublets again", "--lesson", LESSON).code == 0
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    head = git(vault, "rev-parse", "HEAD")
    r = cli("--author", f"{token} <ci@lab.example>", *command)
    assert r.code == 1 and "author" in r.err, r.err
    assert git(vault, "rev-parse", "HEAD") == head and token not in _history(vault)
    assert git(vault, "status", "--porcelain") == ""


@pytest.mark.parametrize("author", ["analysis-agent <agent@lab.example>", "planner-agent <planner@lab.example>"])
def test_an_agent_author_is_no_secret(vault: Path, cli: Cli, author: str) -> None:
    """`author: analysis-agent …` in a note's frontmatter once read as "auth…: <a 14-character
    value>" and every write by that author was refused; the key word is ``auth``, not ``author``."""
    r = cli("--author", author, "episode", "add", "--no-suggest", "--task", "Doublet removal by an agent")
    assert r.code == 0, r.err
    assert git(vault, "log", "-1", "--format=%an <%ae>").strip() == author
    r = cli("--author", author, "episode", "import", "-", stdin=json.dumps({"task": "Imported by an agent"}) + "\n")
    assert r.code == 0, r.err
    assert secrets.scan("authorization: Zx81kQp2LmN9vR4tYu", "x")  # still a credential's name


def test_a_secret_only_in_the_commit_message_is_refused(vault: Path) -> None:
    v = Vault(vault)
    token = "xoxb-1234567890123-1234567890123-" + "aB3dE5gH7jK9mN1pQ3sT5vW7"
    with pytest.raises(secrets.DataError, match="commit message"), \
            v.transaction(f"episode: add x — {token}", Author("a", "a@b")) as txn:
        txn.write("episodes/x.md", "---\nid: x\n---\n")
    assert not (vault / "episodes/x.md").exists() and token not in _history(vault)


def test_a_secret_refuses_the_write_and_names_the_field(vault: Path, cli: Cli) -> None:
    before = git(vault, "rev-parse", "HEAD")
    r = cli("episode", "add", "--task", "Fetch the run", "--plan", "used AKIAQX3MZ7KD2LW5PN4R", "--id", "leak")
    assert r.code == 1
    assert "episodes/" in r.err and "aws-access-token in field 'plan'" in r.err and "--redact" in r.err
    assert git(vault, "rev-parse", "HEAD") == before
    assert not list(vault.rglob("leak.md")) and git(vault, "status", "--porcelain") == ""


def test_allow_secret_is_loud(vault: Path, cli: Cli) -> None:
    r = cli("--allow-secret", "fact", "add", "LIMS", "has_password", "password: hunter22x")
    assert r.code == 0
    assert "WRITTEN ANYWAY" in r.err
    assert "Secret-Allowed: " in git(vault, "log", "-1", "--format=%B")


def test_redact_and_allow_secret_exclude_each_other(vault: Path, cli: Cli) -> None:
    r = cli("--redact", "--allow-secret", "episode", "add", "--task", "x")
    assert r.code == 2 and "exclude each other" in r.err


def test_biology_look_alikes_are_written(vault: Path, cli: Cli) -> None:
    lines = "".join(json.dumps({"task": f"Look-alike {i}", "plan": text, "lessons": [text]}) + "\n"
                    for i, text in enumerate(LOOKALIKES))
    r = cli("episode", "import", "-", stdin=lines)
    assert r.code == 0, r.err
    assert cli("fact", "add", "TP53", "has_accession", "accession: SAMN12345678", "--source",
               "sha256:" + "ab" * 32).code == 0
