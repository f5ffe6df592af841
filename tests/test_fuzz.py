"""Property-based fuzzing of every parser of outside input (issue 8 §3): note text and bytes,
frontmatter edits, JSON Lines import, conversations for ``compress``, and command arguments.

The property is always the same: a result, or a :class:`DataError`/usage error naming the input,
never another exception (exit 3). Inputs that once broke a parser are kept as ``@example``s.
``benchmarks/fuzz.py`` runs the same properties with thousands of examples.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from conftest import Cli
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from biocortex_cli.compress.formats import parse as parse_conversation
from biocortex_cli.errors import BiocortexError, DataError
from biocortex_cli.store.episodes import episode_from_note, parse_jsonl, render_episode
from biocortex_cli.store.files import read_note_text
from biocortex_cli.store.git import Author
from biocortex_cli.store.notes import edit_frontmatter, parse_note

AUTHOR = Author("fuzz", "fuzz@localhost")
# derandomized, no example database: the suite is the same on every run (benchmarks/fuzz.py explores)
FAST = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# -- building blocks --------------------------------------------------------------------------

# YAML fragments chosen to hit the loader's corners: tags that construct objects, anchors and
# aliases, merge keys, flow collections left open, bad dates, floats out of range, tabs.
YAML_VALUES = [
    "1", "-0", "0x1F", "1e999", ".nan", "-.inf", "yes", "~", "null", "''", '"unclosed', "'x''y'",
    "[a, b", "{a: 1", "[]", "{}", "&a [x, x]", "*a", "*nope", "&b {k: v}", "<<: *b",
    "!!python/object/apply:os.system ['touch /tmp/biocortex-pwned']", "!!python/name:os.system",
    "!!python/object:builtins.dict {}", "!!binary aGVsbG8=", "!!set {a, b}", "!!omap [a: 1]",
    "!!timestamp 2026-01-01", "!custom x", "2026-13-45", "2026-02-30", "2026-01-01T25:00:00Z",
    "2026-06-01T10:00:00+02:00", "|\n  block\n  text", ">-\n  folded", "\t tab", "- item",
    "é ✓ 🧬", "a: b: c", "# comment", "%YAML 1.1", "---", "...", "? complex\n: key",
    "[" * 80 + "]" * 80, "x" * 10_000,
]
KEYS = ["id", "type", "task", "created", "tools", "quality", "success", "entities", "aliases",
        "a", "<<", "? k", "-", "", "'quoted'", "\t", "ünï"]

fm_line = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(KEYS), st.sampled_from(YAML_VALUES)),
    st.sampled_from(YAML_VALUES),
    st.text(max_size=40),
)
frontmatter_note = st.builds(
    lambda bom, lines, body, eol, close: (bom + "---\n" + "\n".join(lines) + ("\n---\n" if close else "\n")
                                          + body).replace("\n", eol),
    st.sampled_from(["", "\ufeff"]), st.lists(fm_line, max_size=8), st.text(max_size=200),
    st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(),
)

# Billion laughs: each level repeats the one before ten times (10**levels values once expanded).
ALIAS_BOMB = "---\n" + "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10)) + "---\nbody\n"


def _json_safe(meta: dict[str, Any]) -> None:
    """What a parsed note holds must print as JSON (``--json`` output)."""
    json.dumps(meta, allow_nan=True)


# -- notes ------------------------------------------------------------------------------------


@FAST
@given(frontmatter_note)
@example(ALIAS_BOMB)  # expanded 10**9 values in _plain before the bound
@example("---\na: " + "[" * 5000 + "]" * 5000 + "\n---\n")  # RecursionError in the loader
@example("---\na: 2026-13-45\n---\n")  # ValueError from the timestamp constructor
@example("---\na: !!binary aGVsbG8=\n---\n")  # bytes: not JSON, not plain data
@example("---\na: !!set {x}\n---\n")
@example("---\na: !!python/object/apply:os.system ['true']\n---\n")
@example("---\n!!timestamp 2026-01-01\n!!timestamp 2026-01-01\n---\n")  # AttributeError in PyYAML (benchmarks/fuzz.py)
def test_parse_note_returns_a_note_or_a_data_error(text: str) -> None:
    try:
        note = parse_note(text, "episodes/x.md")
    except DataError as exc:
        assert exc.path == "episodes/x.md" and (exc.line is None or exc.line >= 1) and exc.message
        return
    _json_safe(note.meta)
    assert all(isinstance(k, str) for k in note.meta)


def _encoded(text: str, encoding: str) -> bytes:
    return text.encode(encoding, "surrogatepass" if encoding.startswith("utf") else "replace")


raw_note = st.binary(max_size=2000) | st.builds(_encoded, frontmatter_note,
                                               st.sampled_from(["utf-8", "utf-16", "latin-1"]))


@FAST
@given(raw=raw_note)
@example(raw=b"\xef\xbb\xbf---\r\nid: x\r\n---\r\nbody")  # BOM + CRLF: accepted
@example(raw=b"---\nid: \xff\n---\n")  # not UTF-8
@example(raw=b"---\nid: x\n---\n\x00\x00")  # binary
def test_note_bytes_read_as_text_or_a_data_error(raw: bytes, tmp_path: Path) -> None:
    path = tmp_path / "episodes" / "n.md"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(raw)
    try:
        text = read_note_text(path, "episodes/n.md")
        note = parse_note(text, "episodes/n.md")
    except DataError as exc:
        assert exc.path == "episodes/n.md"
        return
    assert "\r" not in text and not text.startswith("\ufeff")
    _json_safe(note.meta)


frontmatter_updates = st.dictionaries(st.sampled_from(["status", "aliases", "reason", "x-y"]),
                                      st.text(max_size=30) | st.lists(st.text(max_size=10), max_size=3)
                                      | st.sampled_from(YAML_VALUES), max_size=3)


@FAST
@given(frontmatter_note, frontmatter_updates)
@example("---\nid: x\n---\n", {"status": "2026-13-45"})  # _quoted let the loader's ValueError out
@example("---\nid: x\n---\n", {"status": "[" * 3000})  # and its RecursionError
@example("---\nsuccess: 1\nsuccess: 1\n---\n", {})  # ruamel: DuplicateKeyError (benchmarks/fuzz.py)
@example("---\nTRUE\n---\n", {"reason": "x"})  # not a mapping: TypeError on assignment
@example("---\n|\n  block\n  text\n---\n", {"status": []})
def test_edit_frontmatter_keeps_notes_parseable(text: str, updates: dict[str, Any]) -> None:
    try:
        edited = edit_frontmatter(text, updates, "facts/f.md")
    except DataError:
        return
    note = parse_note(edited, "facts/f.md")
    for key, value in updates.items():
        assert note.meta[key] == value


# -- episode import (JSON Lines) --------------------------------------------------------------

json_scalar = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
               | st.sampled_from(["\ud800", "x\udcff", "\x00", "2026-13-45", "../../etc/passwd", "a/b", "é" * 200]))
json_value = st.recursive(json_scalar, lambda c: st.lists(c, max_size=4)
                          | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12)
FIELDS = ["task", "plan", "tools", "domains", "result", "success", "quality", "lessons", "entities",
          "id", "created", "related", "author", "type"]
episode_obj = st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=8) | json_value
jsonl_line = st.one_of(
    st.builds(lambda o: json.dumps(o, allow_nan=True), episode_obj),
    st.builds(lambda t: json.dumps({"task": "DESeq2", **t}, allow_nan=True),
              st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=4)),
    st.text(max_size=60),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999999", '{"task": "x", "quality": NaN}',
                     '{"task": "x", "quality": 1e400}', '{"task": "\\ud800"}', '{"task": "x", "id": "\\u0000"}',
                     "[" * 100_000, '{"task": ' * 5000, "\ufeff{}", '{"task": 1' + "0" * 5000 + "}"]),
)


jsonl_batch = st.lists(jsonl_line, min_size=1, max_size=5)


@FAST
@given(jsonl_batch)
@example(['{"task": "\\ud800 lone surrogate"}'])  # could not be encoded to the note file (exit 3)
@example(["[" * 100_000])  # RecursionError in json.loads
@example(['{"task": "x", "quality": NaN}'])
@example(['{"task": "x", "created": "2026-13-45T00:00:00Z"}'])
@example(['{"task": 1' + "0" * 5000 + "}"])  # ValueError: over 4300 digits (exit 3)
@example(['{"task": "DESeq2", "related": 1.5}'])  # TypeError: float is not iterable (benchmarks/fuzz.py)
def test_import_lines_give_episodes_or_a_data_error(lines: list[str]) -> None:
    try:
        episodes = parse_jsonl("\n".join(lines), "<stdin>", AUTHOR)
    except DataError as exc:
        assert exc.path == "<stdin>" and exc.message
        return
    for ep in episodes:
        text = render_episode(ep)
        text.encode("utf-8")  # what the transaction writes
        back = episode_from_note(parse_note(text, ep.path))
        assert back.id == ep.id and back.task == ep.task
        assert ".." not in ep.path.split("/") and ep.path.startswith("episodes/")
        if ep.quality is not None:
            assert math.isfinite(ep.quality) and 0 <= ep.quality <= 1


# -- conversations (compress) -----------------------------------------------------------------

message = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant", "tool", "", "x"]) | json_value},
                          optional={"content": json_value, "tool_calls": json_value, "name": json_value}),
    json_value,
)
conversation = st.one_of(
    st.builds(lambda m: json.dumps(m, allow_nan=True), st.lists(message, max_size=5)),
    st.builds(lambda m: json.dumps({"messages": m}, allow_nan=True), st.lists(message, max_size=5)),
    st.builds(lambda m: "\n".join(json.dumps(x, allow_nan=True) for x in m), st.lists(message, max_size=5)),
    st.text(max_size=200),
    st.sampled_from(["[" * 100_000, '{"messages": ' * 3000, "[]", "{}", '{"messages": {}}',
                     '[{"role": "user", "content": "\\ud800"}]', "\ufeff[]", "null", "NaN"]),
)


@FAST
@given(conversation)
@example("[" * 100_000)
@example('[{"role": "user", "content": "\\ud800"}]')
@example('[{"role": "user", "content": 1' + "0" * 5000 + "}]")
def test_conversations_parse_or_give_a_data_error(text: str) -> None:
    try:
        conv = parse_conversation(text, "chat.json")
    except BiocortexError as exc:
        assert exc.exit_code in (1, 2) and exc.message
        return
    assert conv is not None


# -- command arguments, through the real CLI in-process ---------------------------------------

HOSTILE = ["..", "../../etc/passwd", "/etc/passwd", "a\\..\\..\\x", "C:\\x", "x" * 300, "é" * 200,
           "", " ", "-", "a/b", ".hidden", "~", "$(touch /tmp/biocortex-pwned)", "\n", "nul.md",
           "TP53", "e1", "0", "-1", "1e999", "nan", "--json", "\x00", "\udcff", "2026-13-45"]
COMMANDS: list[list[str]] = [
    ["episode", "show", "A"], ["episode", "show", "A", "--json"], ["episode", "add", "--task", "A", "--id", "B"],
    ["episode", "add", "--task", "A", "--created", "B"], ["episode", "add", "--task", "t", "--quality", "A"],
    ["episode", "list", "--domain", "A", "--limit", "B"], ["episode", "list", "--since", "A"],
    ["episode", "import", "A"], ["episode", "add", "--from-json", "A"],
    ["fact", "add", "A", "regulates", "B", "--source", "PMID:1"], ["fact", "add", "TP53", "A", "MDM2", "--source", "B"],
    ["fact", "add", "TP53", "binds", "MDM2", "--source", "x", "--confidence", "A"],
    ["fact", "retract", "A", "--reason", "B"], ["fact", "supersede", "A", "--by", "B"],
    ["fact", "query", "A", "--hops", "B"],
    ["fact", "list", "--subject", "A"], ["fact", "verify", "A", "regulates", "B"],
    ["entity", "show", "A"], ["entity", "alias", "A", "B"], ["entity", "alias", "TP53", "A"],
    ["recall", "A", "--budget", "B"], ["recall", "A", "--json"], ["context", "A", "--budget", "B"],
    ["compress", "A"], ["compress", "--budget", "A", "B"], ["guide", "A"], ["check", "A"], ["index", "A"],
    ["--vault", "A", "check"], ["episode", "add", "--task", "x", "--author", "A"],
]
argv = st.builds(lambda cmd, a, b: [a if x == "A" else b if x == "B" else x for x in cmd],
                 st.sampled_from(COMMANDS), st.sampled_from(HOSTILE) | st.text(max_size=20),
                 st.sampled_from(HOSTILE) | st.text(max_size=20))


@settings(FAST, max_examples=25)
@given(args=argv)
@example(args=["fact", "add", "é" * 200, "regulates", "MDM2", "--source", "PMID:1"])  # file name too long (exit 3)
@example(args=["entity", "alias", "TP53", "a\x00b"])  # embedded NUL byte (exit 3)
@example(args=["recall", "\udcff"])  # invalid UTF-8 from the shell (exit 3)
@example(args=["--vault", "x" * 5000, "check"])  # file name too long (exit 3)
@example(args=["compress", "a\x00b"])
def test_hostile_arguments_exit_cleanly(args: list[str], vault: Path, cli: Cli, tmp_path: Path) -> None:
    r = cli(*args)
    allowed = {0, 1, 2, 4, 5, 6} if args[:2] == ["fact", "verify"] else {0, 1, 2}
    assert r.code in allowed, (args, r.code, r.err[-500:])
    assert "Traceback" not in r.out + r.err and "internal error" not in r.err
    assert not Path("/tmp/biocortex-pwned").exists()
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and not p.is_relative_to(vault)]
    assert not outside, outside  # nothing written outside the vault
