"""``--json`` text (biocortex_cli/cli/json_text.py): exactly what ``json.dumps(data,
ensure_ascii=False, indent=2)`` writes, for any value, at a fraction of its CPU."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from biocortex_cli.cli.json_text import dumps

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()  # NaN and infinities too
KEYS = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
ANY = st.recursive(SCALARS, lambda inner: st.lists(inner) | st.lists(inner).map(tuple)
                   | st.dictionaries(KEYS, inner), max_leaves=30)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=30)


def _nested(depth: int) -> Any:
    value: Any = ["deep"]
    for _ in range(depth):
        value = [{"k": value}]
    return value


def _same(value: Any) -> None:
    assert dumps(value) == json.dumps(value, ensure_ascii=False, indent=2)


@given(JSON)
def test_json_data_is_written_as_json_dumps_writes_it(value: Any) -> None:
    _same(value)


@given(ANY)
def test_tuples_and_keys_of_other_types_too(value: Any) -> None:
    _same(value)


class Colour(enum.IntEnum):
    RED = 1


class Name(str):
    pass


@pytest.mark.parametrize("value", [
    [], {}, "", 0, -0.0, 1e300, 1e-300, 2**70, float("nan"), [float("-inf"), float("inf")], True, None,
    {"a": [], "b": {}, "c": [[]], "d": [{}], "e": "\u009b\x00\u2028\ud800 é 漢字 \"\\"},
    {"k": Colour.RED, Name("n"): Name("v"), "deep": [[[[{"x": [1.5, "y"]}]]]]},
    _nested(80),
])
def test_edge_cases(value: Any) -> None:
    _same(value)


def test_what_json_refuses_it_refuses_the_same_way() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    for value in (cycle, {"a": {1, 2}}, [b"bytes"], {("a",): 1}):
        with pytest.raises((TypeError, ValueError)) as ours:
            dumps(value)
        with pytest.raises((TypeError, ValueError)) as theirs:
            json.dumps(value, ensure_ascii=False, indent=2)
        assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)
