"""``NamedTuple`` without importing :mod:`typing`, for the records on recall's start-up path.

``class Hit(NamedTuple): ...`` here makes the very class ``typing.NamedTuple`` makes — a
:func:`collections.namedtuple` with the class's fields, defaults, docstring and methods — and
mypy sees ``typing.NamedTuple`` itself. What it saves is the import of ``typing`` (~16 M
instructions, 40 % of a bare ``python -c pass``; docs/performance.md, "Fifth round") for a
process that needs nothing else from it. One difference: the fields' annotations are kept as
written, never checked (``typing`` checks them, and turns a string into a ``ForwardRef``, which
compiles it).
"""

TYPE_CHECKING = False  # mypy takes it as True
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections

    _KEPT = frozenset({"__module__", "__annotations__"})  # set by namedtuple itself (as typing does)

    class _Maker(type):
        def __new__(cls, name, bases, namespace):
            fields = namespace.get("__annotations__", {})
            made = collections.namedtuple(name, fields, defaults=[namespace[f] for f in fields if f in namespace],
                                          module=namespace["__module__"])
            made.__annotations__ = made.__new__.__annotations__ = dict(fields)
            for key, value in namespace.items():
                if key not in _KEPT and key not in fields:
                    setattr(made, key, value)
            return made

    NamedTuple = type.__new__(_Maker, "NamedTuple", (), {})
