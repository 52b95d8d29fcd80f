"""A progress bar over steps (optimiser steps, evaluation batches, tournament games), shared by
every long job; it imports only rich, and only when shown."""

from __future__ import annotations

__all__ = ["StepProgress"]


class StepProgress:
    """A rich progress bar over steps with a changing description (silent when disabled);
    ``unit`` names what is counted and adds the elapsed time."""

    def __init__(self, enabled: bool, *, total: int, done: int, name: str, unit: str = "") -> None:
        self._bar = None
        if enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            columns = [TextColumn(f"[bold]{name}[/]"), BarColumn(), MofNCompleteColumn()]
            if unit:
                columns += [TextColumn(unit), TimeElapsedColumn()]
            self._bar = Progress(
                *columns,
                TextColumn("{task.description}"),
                TimeRemainingColumn(),
            )
            self._bar.start()
            self._task = self._bar.add_task("", total=total, completed=done)

    def advance(self, description: str, steps: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=steps, description=description)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
