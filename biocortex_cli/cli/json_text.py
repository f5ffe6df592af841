"""``--json`` output as text: exactly ``json.dumps(data, ensure_ascii=False, indent=2)``, faster.

With ``indent``, the standard library encodes in Python (its C encoder writes no indentation),
through nested generators: two thirds of the CPU ``fact list --json`` took to print 46,797 facts
(2.3 s of 3.4 s beside reading them; docs/performance.md). :func:`dumps` writes the same text
with one recursive function that appends to a list: strings through the standard library's own
escaping (``json.encoder.encode_basestring``, its C function), numbers as ``json`` writes them
(``int.__repr__``, ``float.__repr__``, ``NaN``, ``Infinity``), keys' text made once. Anything but
JSON's own types exactly — dict with string keys, list, str, int, float, bool, None: a tuple, a
subclass, a key of another type, a cycle — hands the whole value to ``json.dumps``, so the text
is the standard library's in every case (tests/test_json_text.py compares them on generated
data).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from typing import Any

_INF = float("inf")
_DEEP = 64  # a value nested deeper is left to json.dumps (none of ours is: a cycle, or someone else's data)


class _NotPlain(Exception):
    """The value holds something :func:`dumps` leaves to ``json.dumps``."""


def dumps(data: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, indent=2)``."""
    try:
        return _dumps(data)
    except (_NotPlain, RecursionError):
        return json.dumps(data, ensure_ascii=False, indent=2)


def _dumps(data: Any) -> str:
    out: list[str] = []
    write = out.append
    keys: dict[str, str] = {}  # key -> '"key": '
    pads = [(pad, "," + pad) for pad in ("\n" + "  " * depth for depth in range(_DEEP))]  # depth -> its separators

    def mapping(value: dict[Any, Any], depth: int) -> None:
        if not value:
            write("{}")
            return
        if depth + 2 >= len(pads):
            raise _NotPlain  # deeper than any output of ours
        first, then = pads[depth + 1]
        lead = "{" + first
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            shown = keys.get(key)
            if shown is None:
                shown = keys[key] = encode_basestring(key) + ": "
            kind = type(item)
            if kind is str:
                write(lead + shown + encode_basestring(item))
            elif kind is list:
                write(lead + shown)
                sequence(item, depth + 1)
            elif kind is dict:
                write(lead + shown)
                mapping(item, depth + 1)
            else:
                write(lead + shown + _scalar(item, kind))
            lead = then
        write(pads[depth][0] + "}")

    def sequence(value: list[Any], depth: int) -> None:
        if not value:
            write("[]")
            return
        if depth + 2 >= len(pads):
            raise _NotPlain
        first, then = pads[depth + 1]
        lead = "[" + first
        for item in value:
            kind = type(item)
            if kind is str:
                write(lead + encode_basestring(item))
            elif kind is dict:
                write(lead)
                mapping(item, depth + 1)
            elif kind is list:
                write(lead)
                sequence(item, depth + 1)
            else:
                write(lead + _scalar(item, kind))
            lead = then
        write(pads[depth][0] + "]")

    kind = type(data)
    if kind is dict:
        mapping(data, 0)
    elif kind is list:
        sequence(data, 0)
    elif kind is str:
        return encode_basestring(data)
    else:
        return _scalar(data, kind)
    return "".join(out)


def _scalar(value: Any, kind: type) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        if value != value:
            return "NaN"
        if value == _INF:
            return "Infinity"
        if value == -_INF:
            return "-Infinity"
        return float.__repr__(value)
    raise _NotPlain
