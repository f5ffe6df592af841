"""Derived data kept between runs (caches, index metadata), read back without importing ``json``.

:func:`pack` takes JSON's data — dicts with string keys, lists, strings, numbers, booleans,
None — and writes it in ``marshal``'s encoding, which the interpreter has loaded already:
``json`` costs ~6 M instructions of start-up, and its decoder imports ``re`` and ``enum`` (~15 M
more), which ``fact verify`` of a plain claim needs nowhere else (docs/performance.md, "Seventh
round"). What :func:`unpack` gives back is what a JSON round trip gives: tuples come back as
lists, keys as strings. (marshal has written these types the same way since Python 3.4.) Only for
data biocortex derives and can rebuild (a file under ``.biocortex/``, a row of an index), never
for anything people read.
"""

from __future__ import annotations

import marshal

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from typing import Any


def pack(value: Any, *, sort_keys: bool = False) -> bytes:
    """``value`` as bytes (TypeError for what JSON cannot hold either)."""
    return marshal.dumps(_plain(value, sort_keys))


def unpack(blob: object) -> Any:
    """What :func:`pack` made; ValueError for anything else (a file or row of an older format)."""
    if not isinstance(blob, bytes):
        raise ValueError(f"not packed data but {type(blob).__name__}")
    try:
        return marshal.loads(blob)
    except (EOFError, TypeError) as exc:
        raise ValueError(f"not packed data ({exc})") from None


def _plain(value: Any, sort_keys: bool) -> Any:
    if type(value) in (str, int, float, bool) or value is None:
        return value
    if isinstance(value, dict):
        items = ((_key(k), _plain(v, sort_keys)) for k, v in value.items())
        return dict(sorted(items)) if sort_keys else dict(items)
    if isinstance(value, list | tuple):
        return [_plain(v, sort_keys) for v in value]
    if isinstance(value, str):  # a subclass (an enum's member): its plain value, as JSON writes it
        return str.__str__(value)
    if isinstance(value, int | float):
        return int(value) if isinstance(value, int) else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON's data")


def _key(key: object) -> str:
    """A key as JSON writes it."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, int | float):
        return float.__repr__(key) if isinstance(key, float) else int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def canonical(value: Any) -> str:
    """One text for one value (dict keys sorted): what a digest of derived data is taken over."""
    return repr(_plain(value, True))
