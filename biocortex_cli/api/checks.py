"""The ranges and choices of the API's arguments, declared once: each API function names its
checked arguments with :func:`checked`, which validates them on every call (the CLI, MCP and
library callers alike) and lets the MCP tools publish the same bounds in their input schemas.

Messages name an argument as its command-line option (``--hops``); the MCP server names it as
the tool's argument (``hops``).
"""

from __future__ import annotations

import functools
import math

from biocortex_cli.errors import UsageError

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ParamSpec, TypeVar

    from biocortex_cli.store.vault import Vault

    P = ParamSpec("P")
    R = TypeVar("R")


def option(name: str) -> str:
    """The command-line spelling of an argument: ``top_k`` → ``--top-k``."""
    return "--" + name.replace("_", "-")


class Bounds:  # a plain class, not a frozen dataclass: on recall's path
    """A number from ``low`` to ``high`` (either may be open); None (not given) passes."""

    __slots__ = ("example", "high", "low")

    def __init__(self, low: float | None = None, high: float | None = None,
                 example: float | None = None) -> None:  # example: a good value, for the hint
        self.low, self.high, self.example = low, high, example

    def check(self, name: str, value: Any) -> None:
        if value is None:
            return
        hint = None if self.example is None else f"e.g. {option(name)} {self.example:g}"
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise UsageError(f"{option(name)} must be a number, not {value!r}", hint=hint)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise UsageError(f"{option(name)} must be {self.text()}, not {value:g}", hint=hint)

    def text(self) -> str:
        if self.low is not None and self.high is not None:
            return f"a number from {self.low:g} to {self.high:g}"
        return f"at least {self.low:g}" if self.low is not None else f"at most {self.high:g}"

    def schema(self) -> dict[str, float]:
        out: dict[str, float] = {}
        if self.low is not None:
            out["minimum"] = self.low
        if self.high is not None:
            out["maximum"] = self.high
        return out


class Choice:
    """One of a few words."""

    __slots__ = ("values",)

    def __init__(self, values: tuple[str, ...]) -> None:
        self.values = values

    def check(self, name: str, value: Any) -> None:
        if value is not None and value not in self.values:
            raise UsageError(f"{option(name)} must be one of {', '.join(self.values)}, not {value!r}")

    def schema(self) -> dict[str, list[str]]:
        return {"enum": list(self.values)}


UNIT = Bounds(0, 1)  # a confidence, quality, relevance or share
POSITIVE = Bounds(1)
Check = Bounds | Choice


def checked(**checks: Check) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Check the named keyword arguments before the function runs; ``fn.checks`` keeps them for
    the MCP schemas."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            for name, check in checks.items():
                check.check(name, kwargs.get(name))
            return fn(*args, **kwargs)

        run.checks = checks  # type: ignore[attr-defined]
        return run

    return decorate


def repairs_index(*, writes: bool = False) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Run the function (its first argument a vault) again once the index it read is rebuilt, when
    it found the index damaged where opening it does not look (a page in the middle of the file;
    index/build.py ``damaged``), or again at once when the file was replaced or deleted while it
    ran (another process's rebuild; ``moved``); a second damage is an error naming the index file,
    never an internal error. A function that ``writes`` runs again only if it committed nothing (its
    transaction was rolled back): otherwise the index is rebuilt and an error says the write is in."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            vault: Vault = args[0]  # type: ignore[assignment]
            head = vault.head() if writes else None
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                from biocortex_cli.facts.index import repair_derived
                from biocortex_cli.index.build import damaged, moved

                if not (damaged(exc) or moved(exc)):
                    raise
                if damaged(exc):
                    repair_derived(vault, exc)
                if writes and vault.head() != head:
                    from biocortex_cli.errors import DataError

                    raise DataError(f"the write was committed ({vault.head()}), then the index it reads "
                                    f"was found damaged ({exc}) and rebuilt",
                                    hint="nothing to do: do not write it again") from None
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                from biocortex_cli.index.build import damaged, moved, still_damaged

                if damaged(exc) or moved(exc):
                    raise still_damaged(vault, exc) from None
                raise

        return run

    return decorate
