"""Progress of long work: reported by the core, drawn (or not) by whoever runs it.

Core code that may take seconds — building the index, importing episodes, clustering lessons,
syncing, cloning, indexing a dataset — reports :class:`Progress` events through :func:`report`
(or a :class:`Stage`). It never draws anything itself and never decides whether anyone watches:

* the command line installs a renderer with :func:`reporting` when stderr is a terminal
  (``cli/progress.py``: a rich progress bar on stderr; rich is imported only when the first
  event arrives, so commands that report nothing, such as ``recall`` on a fresh index, never
  load it);
* with no renderer (stderr is a pipe or a file, the MCP server, the library), an event marked
  ``notice`` is written as one line on stderr — "building the index of 8,214 notes…" — and the
  rest are dropped: people see long work, agents do not pay for a bar.

One line per stage: a notice whose stage is already announced and not finished (``clone`` says
it builds the index, then the index build says so again) is not repeated.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

from biocortex_cli.lazy import contextmanager
from biocortex_cli.records import NamedTuple


class Progress(NamedTuple):  # not a dataclass: index/build.py imports this on recall's path
    """One step of long work: ``stage`` (a word: index, import, write, commit, clone, checkout,
    lessons, cluster, fetch, rebase, push, …), ``done`` of ``total`` (``total`` 0 when unknown)
    and a sentence for people. ``notice``: also worth one line on stderr where no bar is drawn."""

    stage: str
    done: int
    total: int
    text: str
    notice: bool = False

    @property
    def finished(self) -> bool:
        return self.total > 0 and self.done >= self.total


Sink = Callable[[Progress], None]

_sink: Sink | None = None
_announced: set[str] = set()  # stages whose notice was written and that have not finished


def report(step: Progress) -> None:
    """Hand ``step`` to the renderer, if one is installed; else write its notice on stderr."""
    if _sink is not None:
        _sink(step)
        return
    if step.notice and step.stage not in _announced:
        sys.stderr.write(f"biocortex: {step.text}\n")
        _announced.add(step.stage)
    if step.finished:
        _announced.discard(step.stage)


@contextmanager
def reporting(sink: Sink) -> Iterator[None]:
    """Send every event reported inside the block to ``sink``."""
    global _sink
    previous, _sink = _sink, sink
    try:
        yield
    finally:
        _sink = previous


class Stage:
    """A stage of ``total`` steps: announced when made, :meth:`advance` reports about a hundred
    times in all (not once per step: a step may take microseconds), :meth:`finish` closes it."""

    def __init__(self, stage: str, total: int, text: str, *, notice: bool = False) -> None:
        self.stage, self.total, self.text = stage, total, text
        self.every = max(1, total // 100)
        self.shown = 0
        report(Progress(stage, 0, total, text, notice))

    def advance(self, done: int) -> None:
        """``done`` steps of ``total`` are done (reported when it moved by a hundredth or more)."""
        if done - self.shown >= self.every and done < self.total:
            self.shown = done
            report(Progress(self.stage, done, self.total, self.text))

    def finish(self) -> None:
        report(Progress(self.stage, max(self.total, 1), max(self.total, 1), self.text))


def plural(n: int, word: str) -> str:
    """``8,214 notes``, ``1 note``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"
