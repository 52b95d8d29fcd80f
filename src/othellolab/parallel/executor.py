"""Where a job's tasks run: this process, worker processes, or a Ray cluster.

``Executor.map(fn, tasks)`` calls ``fn(task)`` for every task and yields ``(task, result)`` as
each finishes. In this process ``fn`` also receives ``progress`` (the units it has finished so
far) when the caller asks for it, so a bar moves inside a long task; elsewhere the bar moves
by ``units(task, result)`` when a task comes back. ``fn`` and the tasks must be picklable for
worker processes and Ray (a module-level function over plain data).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from multiprocessing import get_context
from typing import Any, TypeVar

from othellolab.core import ConfigError, OthelloError

__all__ = ["Executor", "ProcessExecutor", "RayExecutor", "WorkerError", "make_executor"]

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[int], None]
Units = Callable[[Any, Any], int]


class WorkerError(OthelloError):
    """A worker process died while it ran ``task`` (out of memory, or killed)."""

    def __init__(self, what: str, *, task: Any, **kwargs: Any) -> None:
        super().__init__(what, **kwargs)
        self.task = task


def _exit_with(parent: int, every: float = 0.5) -> None:
    """End this worker as soon as ``parent`` is gone (killed with ``kill -9``, say), so that
    no orphaned worker keeps a core busy with a task nobody will read."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="othellolab-parent-watch", daemon=True).start()


def _start_worker(parent: int, initializer: Callable[[], None] | None) -> None:
    _exit_with(parent)
    if initializer is not None:
        initializer()


class Executor:
    """Runs tasks one after another in this process."""

    in_process = True

    def map(
        self,
        fn: Callable[..., R],
        tasks: Iterable[T],
        *,
        progress: Progress | None = None,
        units: Units | None = None,
    ) -> Iterator[tuple[T, R]]:
        """``(task, fn(task))`` for each task as it finishes; ``progress`` hears the units done
        (``fn``'s own ``progress`` calls in this process, ``units(task, result)`` elsewhere)."""
        with closing(self._finished(fn, tasks, progress)) as finished:  # cancels what is left
            for task, result in finished:
                if progress is not None and units is not None and not self.in_process:
                    progress(units(task, result))
                yield task, result

    def _finished(
        self, fn: Callable[..., R], tasks: Iterable[T], progress: Progress | None
    ) -> Iterator[tuple[T, R]]:
        """``(task, fn(task))`` as each task finishes; only in this process does ``fn`` get
        ``progress``."""
        for task in tasks:
            if progress is None:
                yield task, fn(task)
                continue
            done = [0]

            def each(finished: int, done: list[int] = done) -> None:
                progress(finished - done[0])
                done[0] = finished

            yield task, fn(task, each)

    def close(self) -> None:
        return None

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ProcessExecutor(Executor):
    """Worker processes on this machine (spawned: each its own torch and Numba), at most twice
    as many tasks in flight as workers, so a long list of small tasks is not pickled at once.
    ``initializer`` runs once in each worker."""

    in_process = False

    def __init__(self, workers: int, initializer: Callable[[], None] | None = None) -> None:
        self.workers = workers
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(), initializer),
        )

    def _finished(
        self, fn: Callable[..., R], tasks: Iterable[T], progress: Progress | None
    ) -> Iterator[tuple[T, R]]:
        pending: dict[Future[R], T] = {}
        it = iter(tasks)

        def submit() -> None:
            task = next(it, None)
            if task is not None:
                pending[self.pool.submit(fn, task)] = task

        try:
            for _ in range(2 * self.workers):
                submit()
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = pending.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        raise WorkerError(
                            "a worker process died (out of memory, or killed); what finished "
                            "is kept: run the same command again to resume",
                            where=str(task)[:200],
                            task=task,
                        ) from None
                    submit()
                    yield task, result
        finally:
            for future in pending:
                future.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class RayExecutor(Executor):
    """Tasks on a Ray cluster (``address``: ``auto``, ``local`` to start one here, or a cluster
    address); results come back through Ray's object store. Ray has no per-worker start hook:
    a function that needs one sets itself up on its first call."""

    in_process = False

    def __init__(self, address: str, workers: int) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError(
                "the Ray path needs ray: pip install 'othellolab[distributed]'", option="ray"
            ) from None
        self.ray = ray
        self._remote: dict[Callable[..., Any], Any] = {}
        if not ray.is_initialized():
            try:
                if address == "local":
                    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
                else:
                    ray.init(address=address, log_to_driver=False)
            except Exception as e:  # ray raises its own types for a bad or unreachable address
                raise ConfigError(
                    f"cannot join the Ray cluster at {address[:200]!r}: {e}", option="ray"
                ) from None

    def _finished(
        self, fn: Callable[..., R], tasks: Iterable[T], progress: Progress | None
    ) -> Iterator[tuple[T, R]]:
        remote = self._remote.setdefault(fn, self.ray.remote(num_cpus=1)(fn))
        pending = {remote.remote(t): t for t in tasks}
        try:
            while pending:
                ready, _ = self.ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    task = pending.pop(ref)
                    yield task, self.ray.get(ref)
        finally:
            for ref in pending:
                self.ray.cancel(ref)


def make_executor(
    workers: int, ray: str | None = None, *, initializer: Callable[[], None] | None = None
) -> Executor:
    """This process (``workers == 1``), worker processes, or Ray when ``ray`` is given."""
    if ray is not None:
        if not ray.strip():
            raise ConfigError(
                "give auto, local or a cluster address, not an empty value", option="ray"
            )
        return RayExecutor(ray.strip(), workers)
    return ProcessExecutor(workers, initializer) if workers > 1 else Executor()
