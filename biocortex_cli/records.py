"""``NamedTuple`` without importing :mod:`typing`, for the records on the start-up paths.

``class Hit(NamedTuple): ...`` here makes a class that behaves as the one ``typing.NamedTuple``
makes — a tuple subclass with the class's fields (C accessors, as :func:`collections.namedtuple`
gives), defaults, docstring and methods, ``_make``, ``_replace``, ``_asdict``, ``_fields``,
``_field_defaults``, ``__match_args__`` and a repr — and mypy sees ``typing.NamedTuple`` itself.
What it saves (docs/performance.md, "Fifth round" and "Sixth round"):

* the import of ``typing`` (~16 M instructions, 40 % of a bare ``python -c pass``);
* the generated source :func:`collections.namedtuple` compiles for each class's ``__new__``
  (~0.4 M instructions a class; ``recall`` and ``fact verify`` define ~25 each on every start):
  ``__new__`` here is one function for every record, binding arguments as Python does.

Differences, none of which our code relies on: the fields' annotations are kept as written,
never checked (``typing`` turns a string into a ``ForwardRef``, which compiles it); ``__new__``'s
signature is ``(*args, **kwargs)``; argument errors are the same ``TypeError``\\ s with their own
wording. ``tests/test_records.py`` holds it to ``collections.namedtuple``'s behaviour.
"""

TYPE_CHECKING = False  # mypy takes it as True
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    from _collections import _tuplegetter

    _KEPT = frozenset({"__module__", "__annotations__", "__qualname__", "__orig_bases__"})

    def _new(cls, *args, **kwargs):
        """Every record's ``__new__``: positional arguments, then keywords, then defaults."""
        fields = cls._fields
        if not kwargs and len(args) == len(fields):
            return tuple.__new__(cls, args)
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} positional arguments but {len(args)} were given")
        values = list(args)
        defaults = cls._field_defaults
        for field in fields[len(args):]:
            if field in kwargs:
                values.append(kwargs.pop(field))
            elif field in defaults:
                values.append(defaults[field])
            else:
                raise TypeError(f"{cls.__name__}() missing required argument: {field!r}")
        if kwargs:
            name = next(iter(kwargs))
            if name in fields:
                raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
        return tuple.__new__(cls, values)

    @classmethod
    def _make(cls, iterable):
        result = tuple.__new__(cls, iterable)
        if len(result) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
        return result

    def _replace(self, /, **kwargs):
        result = self._make([kwargs.pop(f, v) for f, v in zip(self._fields, self, strict=True)])
        if kwargs:
            raise ValueError(f"Got unexpected field names: {list(kwargs)!r}")
        return result

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{f}={v!r}' for f, v in zip(self._fields, self, strict=True))})"

    def _asdict(self):
        return dict(zip(self._fields, self, strict=True))

    def __getnewargs__(self):
        return tuple(self)

    class _Maker(type):
        def __new__(cls, name, bases, namespace):
            if "__annotations__" not in namespace and "__annotate__" in namespace:
                # Python 3.14 defers a class's annotations unless the module asks for strings
                raise TypeError(f"{name}: a module defining records.NamedTuple classes needs "
                                "`from __future__ import annotations`")
            annotations = namespace.get("__annotations__", {})
            fields = tuple(annotations)
            for field in fields:
                if field.startswith("_"):
                    raise ValueError(f"field names cannot start with an underscore: {field!r}")
            defaults = {f: namespace[f] for f in fields if f in namespace}
            if defaults and list(defaults) != list(fields[len(fields) - len(defaults):]):
                raise TypeError(f"non-default field follows a default field in {name}")
            body = {"__doc__": f"{name}({', '.join(fields)})", "__slots__": (), "_fields": fields,
                    "_field_defaults": defaults, "__match_args__": fields, "__new__": _new, "_make": _make,
                    "_replace": _replace, "__repr__": __repr__, "_asdict": _asdict,
                    "__getnewargs__": __getnewargs__, "__annotations__": dict(annotations)}
            for index, field in enumerate(fields):
                body[field] = _tuplegetter(index, f"Alias for field number {index}")
            for key, value in namespace.items():
                if key not in _KEPT and key not in fields:
                    body[key] = value
            body["__module__"] = namespace["__module__"]
            body["__qualname__"] = namespace.get("__qualname__", name)
            return type.__new__(type, name, (tuple,), body)

    NamedTuple = type.__new__(_Maker, "NamedTuple", (), {})
