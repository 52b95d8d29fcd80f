"""``StepProgress`` off a terminal: plain lines now and then (count, percentage, rate, ETA, the
description), not a rich bar that a log file would get cut off or only at the end."""

from __future__ import annotations

import io
import re

import pytest

from othellolab.core import progress as progress_module
from othellolab.core.progress import StepProgress


def test_plain_lines_every_tenth_with_count_rate_and_eta() -> None:
    out = io.StringIO()
    bar = StepProgress(True, total=100, done=0, name="fit", unit="steps", stream=out)
    for i in range(100):
        bar.advance(f"loss {i}")
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 10, lines  # one a tenth, the last one at the end, none more on close
    assert re.fullmatch(
        r"fit: 10/100 steps \(10%\), [0-9.e+]+/s, ETA \d+:\d\d:\d\d, loss 9", lines[0]
    )
    assert re.fullmatch(
        r"fit: 100/100 steps \(100%\), [0-9.e+]+/s, in \d+:\d\d:\d\d, loss 99", lines[-1]
    )
    assert "\x1b" not in out.getvalue()  # no terminal control codes


def test_plain_lines_every_few_seconds_and_on_close(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    out = io.StringIO()
    bar = StepProgress(True, total=1000, done=500, name="games", stream=out)  # resumed at 500
    clock[0] = 10.0
    bar.advance("a")  # 501: no tenth crossed, 10 s: quiet
    clock[0] = 31.0
    bar.advance("b")  # 31 s since the start: a line
    clock[0] = 32.0
    bar.advance("c", steps=2)
    bar.close()  # the steps since the last line
    lines = out.getvalue().splitlines()
    assert lines == [
        "games: 502/1000 (50%), 0.0645/s, ETA 2:08:39, b",
        "games: 504/1000 (50%), 0.125/s, ETA 1:06:08, c",
    ]


def test_disabled_prints_nothing_and_a_terminal_gets_the_rich_bar() -> None:
    out = io.StringIO()
    bar = StepProgress(False, total=10, done=0, name="x", stream=out)
    bar.advance("d")
    bar.close()
    assert out.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    bar = StepProgress(True, total=10, done=0, name="x", stream=Tty())
    assert bar._bar is not None and not bar._plain
    bar.close()
