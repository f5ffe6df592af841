"""The records of semantic memory's hot paths (``fact verify``, ``fact query``): plain classes.

A ``NamedTuple`` costs ~0.6 M instructions to define (and needs ``typing``, ~16 M to import), a
frozen dataclass ``dataclasses`` (~60 M of imports, docs/performance.md "Fourth round"); a class
with ``__slots__`` ~0.1 M. :class:`Record` gives them what the NamedTuples they were gave.
"""

from __future__ import annotations

from collections.abc import Iterator

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    R = TypeVar("R", bound="Record")


class Record:
    """A record of named fields (:attr:`_fields`, also its ``__slots__``), immutable by convention:
    equal when its fields are, unpacked in their order, ``_replace`` and ``_asdict`` as a
    NamedTuple's."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())  # a TypeError when a field is a dict, as for a tuple holding one

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._fields)})"

    def __iter__(self) -> Iterator[Any]:  # unpacked like the NamedTuple it was
        return iter(self._values())

    def _asdict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._fields}

    def _replace(self: R, **changes: Any) -> R:
        copy = object.__new__(type(self))
        for name in self._fields:
            object.__setattr__(copy, name, changes.pop(name, getattr(self, name)))
        if changes:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(changes))!r}")
        return copy
