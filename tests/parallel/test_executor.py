"""Worker processes of the executor end with the process that started them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

SCRIPT = """
import os, sys, time
from othellolab.parallel import ProcessExecutor
executor = ProcessExecutor(2)
pids = {executor.pool.submit(os.getpid).result() for _ in range(8)}
for _ in range(2):
    executor.pool.submit(time.sleep, 120)  # both workers busy, as in a long shard
print(" ".join(map(str, sorted(pids))), flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"  # a zombie has ended
    except OSError:
        return False


def test_workers_end_when_their_parent_is_killed() -> None:
    """``kill -9`` of a run leaves no worker behind holding a core (each worker watches its
    parent and exits within a second of it)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        workers = [int(x) for x in line.split()]
        assert workers and all(_alive(p) for p in workers), line
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 15
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(p) for p in workers), workers


def test_map_moves_the_bar_by_fn_here_and_by_units_in_workers() -> None:
    """In this process ``fn`` reports its own progress (each call the units finished so far);
    in worker processes the bar moves by ``units(task, result)`` as each task comes back."""
    from othellolab.parallel import Executor, ProcessExecutor

    def work(task: int, progress: Callable[[int], None]) -> int:
        for done in range(1, task + 1):
            progress(done)
        return -task

    heard: list[int] = []
    results = dict(Executor().map(work, [3, 1, 2], progress=heard.append, units=lambda t, r: 99))
    assert results == {3: -3, 1: -1, 2: -2}
    assert heard == [1, 1, 1, 1, 1, 1]  # 3 + 1 + 2 units, one at a time; units never asked
    heard.clear()
    with ProcessExecutor(2) as executor:
        results = dict(
            executor.map(abs, [-3, -1, -2], progress=heard.append, units=lambda t, r: 10 * r)
        )
    assert results == {-3: 3, -1: 1, -2: 2}
    assert sorted(heard) == [10, 20, 30]
