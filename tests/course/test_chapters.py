"""Every course chapter runs top to bottom in quick mode: a chapter that raises, or whose
closing assertion on what it learned or measured fails, fails here.

The chapters run as subprocesses, two at a time (the suite's machine has 2 cores): the first
test of this module to run starts every selected chapter and each test then reads its own
chapter's outcome. ``make test-fast`` (``-m "not slow"``) skips them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import REPO

COURSE = REPO / "course"
CHAPTERS = sorted(p.name for p in COURSE.glob("[0-9][0-9]-*.py"))
TIMEOUT_S = 300
"""A chapter's quick mode takes at most 45 s on 2 idle cores; this leaves room for a loaded
machine (two chapters at once, other jobs beside) before a hung chapter is called a failure."""
PARALLEL = 2

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Outcome:
    """A chapter's run: its exit status (None: killed at the timeout), seconds, and output."""

    returncode: int | None
    seconds: float
    output: str


def run_chapter(name: str, out: Path) -> Outcome:
    """``python course/NAME`` from the checkout's root in quick mode, its files under ``out``."""
    env = {k: v for k, v in os.environ.items() if k != "OTHELLOLAB_COURSE_FULL"}
    env.update(MPLBACKEND="Agg", OTHELLOLAB_COURSE_OUT=str(out), OMP_NUM_THREADS="1")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, str(COURSE / name)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return Outcome(None, time.perf_counter() - t0, text)
    return Outcome(done.returncode, time.perf_counter() - t0, done.stdout + done.stderr)


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The selected chapters started two at a time; each test waits for its own."""
    selected = [
        item.callspec.params["chapter"]
        for item in request.session.items
        if getattr(item, "module", None) is request.module and hasattr(item, "callspec")
    ]
    pool = ThreadPoolExecutor(max_workers=PARALLEL)
    root = tmp_path_factory.mktemp("course")
    futures: dict[str, Future[Outcome]] = {
        name: pool.submit(run_chapter, name, root / name.removesuffix(".py")) for name in selected
    }
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


def test_there_are_eight_chapters() -> None:
    assert len(CHAPTERS) == 8, CHAPTERS


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_runs_in_quick_mode(chapter: str, outcomes: dict[str, Future[Outcome]]) -> None:
    outcome = outcomes[chapter].result()
    print(f"{chapter}: {outcome.seconds:.1f} s")
    tail = outcome.output[-4000:]
    assert outcome.returncode is not None, f"{chapter} ran past {TIMEOUT_S} s:\n{tail}"
    assert outcome.returncode == 0, f"{chapter} failed:\n{tail}"
