"""Progress bars on a terminal: the renderer of :mod:`biocortex_cli.progress` (rich, on stderr).

Installed by ``cli/errors.py`` only when stderr is a terminal. rich is imported at the first
event, so a command that reports nothing (``recall`` on a fresh index, every hot command)
never loads it. One row per stage; a finished stage is hidden; the bars are cleared when the
command ends (what it prints stays). Lines written to stderr meanwhile (warnings) appear above
the bars; stdout is left alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from biocortex_cli.progress import Progress, reporting


class Bars:
    def __init__(self) -> None:
        self.display: Any = None  # rich.progress.Progress, made at the first event
        self.tasks: dict[str, Any] = {}

    def __call__(self, step: Progress) -> None:
        if self.display is None:
            self.display = _display()
            self.display.start()
        total = step.total or None  # unknown: an animated bar
        task = self.tasks.get(step.stage)
        if task is None:
            self.tasks[step.stage] = self.display.add_task(step.text, total=total, completed=step.done)
        else:
            self.display.update(task, description=step.text, total=total, completed=step.done,
                                visible=not step.finished)

    def close(self) -> None:
        if self.display is not None:
            self.display.stop()


def _display() -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("biocortex"), BarColumn(bar_width=24), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("{task.description}"), console=Console(stderr=True), transient=True,
                    redirect_stdout=False, redirect_stderr=True)


@contextlib.contextmanager
def bars() -> Iterator[None]:
    """Draw the progress reported inside the block."""
    shown = Bars()
    try:
        with reporting(shown):
            yield
    finally:
        shown.close()
