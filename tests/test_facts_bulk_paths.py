"""The shortcuts `fact import` takes to write thousands of notes a second (issue 15) give the
answers of the paths they replace: the bounds check of a rendered record, the key lines of a
rendered note, the secret check of a note's strings, and an entity note found in a listing of
``entities/`` instead of a stat per name. Timings: benchmarks/facts.py, docs/performance.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from biocortex_cli.errors import DataError
from biocortex_cli.store import entity_notes, notes, secrets
from biocortex_cli.store.limits import MAX_YAML_DEPTH, MAX_YAML_VALUES

GITHUB_PAT = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                      max_leaves=40)


def _refused(data: Any) -> bool:
    try:
        notes._check_bounded(data, "x.md", 2)
    except DataError:
        return True
    return False


@given(st.dictionaries(st.text(max_size=8), values, max_size=6))
def test_plain_size_never_passes_what_the_bounds_check_refuses(data: dict[str, Any]) -> None:
    if notes._plain_size(data) <= MAX_YAML_VALUES:
        assert not _refused(data)


@pytest.mark.parametrize("data", [
    {"a": [{"b": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]},
    {"a": list(range(MAX_YAML_VALUES + 1))},
    {"a": {1, 2}},
    {"a": b"raw"},
])
def test_what_the_bounds_check_refuses_the_shortcut_does_not_pass(data: dict[str, Any]) -> None:
    deep = data
    for _ in range(MAX_YAML_DEPTH + 2):
        deep = {"k": deep}
    for case in (data, deep):
        if _refused(case):
            assert notes._plain_size(case) > MAX_YAML_VALUES
            with pytest.raises(DataError):
                notes.check_writable("x.md", "---\na: 1\n---\n", notes.Note("x.md", case, "", 4))


@pytest.mark.parametrize("meta", [
    {"id": "tp53--activates--cdkn1a-1", "type": "fact", "created": "2026-11-23T10:00:00Z", "subject": "TP53",
     "qualifiers": {"taxon": "NCBITaxon:9606"}, "confidence": 0.8, "source": ["dataset:TRRUST@2.0", "PMID:1"],
     "evidence": [{"source": "dataset:TRRUST@2.0", "confidence": 0.8, "refs": ["PMID:1"]}], "status": "current"},
    {"id": "x", "empty": [], "map": {}, "text": "a: b", "n": None},
    {"id": "x", "long": "word " * 40},  # past the fast renderer: PyYAML's lines
])
def test_rendered_note_gives_the_key_lines_a_read_finds(meta: dict[str, Any]) -> None:
    text, note = notes.rendered_note("facts/x.md", meta, "# body\n")
    read = notes.parse_note(text, "facts/x.md")
    assert (note.key_lines, note.body_line, note.body) == (read.key_lines, read.body_line, read.body)


@pytest.mark.parametrize("texts", [
    ["author: bench <bench@example.org>", "subject: TP53", "# TP53 activates CDKN1A\n\nbody\n"],
    ["author: bench <bench@example.org>", f"token: {GITHUB_PAT}"],
    [f"note: the key is {GITHUB_PAT}", "short"],
    ["plain words only, nothing to see", "more plain words here"],
])
def test_none_in_agrees_with_a_scan_of_each_string(texts: list[str]) -> None:
    expected = not any(secrets._spans(t) for t in texts)
    assert secrets._none_in(texts) is expected
    assert secrets._none_in(texts) is expected  # and again, from what it remembered


@pytest.mark.parametrize("existing, name", [
    ([], "TOX"), (["TOX.md"], "TOX"), (["Tox.md"], "TOX"), (["tox.md"], "Tox"), (["TOX.md"], "tox"),
    (["Tox.md/"], "TOX"), (["TOX.md/"], "TOX"),  # a folder of that name is no note
])
def test_note_rel_from_a_listing_is_note_rel_from_stats(tmp_path: Path, existing: list[str], name: str) -> None:
    (tmp_path / "entities").mkdir()
    for item in existing:
        if item.endswith("/"):
            (tmp_path / "entities" / item).mkdir()
        else:
            (tmp_path / "entities" / item).write_text("x", encoding="utf-8")
    listed = {p.name for p in (tmp_path / "entities").iterdir()}
    assert entity_notes.note_rel(tmp_path, name, listed) == entity_notes.note_rel(tmp_path, name)


keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
record_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30),
              st.sampled_from(["yes", "no", "null", "1e3", "2026-11-23", "a: b", "x #y", "TP53", "PMID:1", "'q'"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)), max_leaves=20)


@given(st.dictionaries(keys, record_values, min_size=1, max_size=8))
def test_the_fast_renderer_writes_what_pyyaml_writes(data: dict[str, Any]) -> None:
    import yaml

    expected = yaml.dump(data, Dumper=notes._yaml()[2], sort_keys=False, allow_unicode=True,
                         default_flow_style=False, width=100)
    assert notes.dump_yaml(data) == expected
    text, note = notes.rendered_note("x.md", data, "body\n")
    assert note.key_lines == notes.parse_note(text, "x.md").key_lines
