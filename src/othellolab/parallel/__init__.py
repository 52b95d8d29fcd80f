"""One executor for every job that maps a function over tasks: self-play shards, labelled
positions, tournament games. It runs them in this process, in worker processes on this
machine, or as tasks on a Ray cluster, and yields ``(task, result)`` as each one finishes, so
the caller writes every output (one rename each) and a user with a cluster spreads any job
over it with the same ``--ray`` option.

>>> from othellolab.parallel import make_executor
>>> executor = make_executor(1)
>>> [result for _, result in executor.map(abs, [-1, 2, -3])]
[1, 2, 3]
"""

from othellolab.parallel.executor import (
    Executor,
    ProcessExecutor,
    RayExecutor,
    WorkerError,
    make_executor,
)

__all__ = ["Executor", "ProcessExecutor", "RayExecutor", "WorkerError", "make_executor"]
