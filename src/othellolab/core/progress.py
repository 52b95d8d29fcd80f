"""A progress bar over steps (optimiser steps, evaluation batches, tournament games), shared by
every long job; it imports only rich, and only when shown on a terminal. Where the output is
not a terminal (a log file, a pipe, a CI job), it prints plain lines instead, now and then."""

from __future__ import annotations

import sys
import time
from typing import IO

__all__ = ["StepProgress"]

PLAIN_EVERY_FRACTION = 0.1
"""Where output is not a terminal, a line each time another tenth of the steps is done..."""
PLAIN_EVERY_SECONDS = 30.0
"""...or when this many seconds have passed since the last line, whichever comes first."""


def _duration(seconds: float) -> str:
    h, rest = divmod(round(seconds), 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


class StepProgress:
    """A rich progress bar over steps with a changing description (silent when disabled);
    ``unit`` names what is counted and adds the elapsed time.

    On a stream that is not a terminal (``stream``, standard error by default), a rich bar
    would be cut off or drawn once at the end: there it prints plain lines instead, each time
    another tenth of the steps is done or half a minute has passed, and once at the end:
    ``name: 120/1000 steps (12%), 35.2/s, ETA 0:00:25, description``."""

    def __init__(
        self,
        enabled: bool,
        *,
        total: int,
        done: int,
        name: str,
        unit: str = "",
        stream: IO[str] | None = None,
    ) -> None:
        self._bar = None
        self._plain = False
        if not enabled:
            return
        out = stream if stream is not None else sys.stderr
        is_tty = getattr(out, "isatty", None)
        if not (is_tty is not None and is_tty()):
            self._plain = True
            self._out = out
            self._name, self._unit = name, unit
            self._total, self._done, self._start_done = total, done, done
            self._t0 = self._last_time = time.monotonic()
            self._last_done = done
            self._description = ""
            return
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
        elif self._plain:
            self._done += steps
            self._description = description
            now = time.monotonic()
            step = max(1, round(self._total * PLAIN_EVERY_FRACTION))
            if (
                self._done // step > self._last_done // step
                or self._done >= self._total > self._last_done
                or now - self._last_time >= PLAIN_EVERY_SECONDS
            ):
                self._line(now)

    def _line(self, now: float) -> None:
        elapsed = now - self._t0
        counted = self._done - self._start_done
        rate = counted / elapsed if elapsed > 0 else 0.0
        parts = [f"{self._done}/{self._total}" + (f" {self._unit}" if self._unit else "")]
        if self._total > 0:
            parts[0] += f" ({100 * self._done / self._total:.0f}%)"
        if counted > 0:
            parts.append(f"{rate:.3g}/s")
            left = self._total - self._done
            if left > 0 and rate > 0:
                parts.append(f"ETA {_duration(left / rate)}")
            else:
                parts.append(f"in {_duration(elapsed)}")
        if self._description:
            parts.append(self._description)
        print(f"{self._name}: {', '.join(parts)}", file=self._out, flush=True)
        self._last_time, self._last_done = now, self._done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
        elif self._plain and self._done != self._last_done:
            self._line(time.monotonic())
