"""Worker processes of the executor end with the process that started them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

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
