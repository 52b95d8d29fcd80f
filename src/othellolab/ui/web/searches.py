"""The web board's searches as a bounded service: a fixed pool of search workers, each running
one search at a time at full strength, and a fair FIFO queue in front of it.

The request handlers never search: they hand a ``SearchJob`` (plain data: the spec, the
position, the limit) to ``SearchPool.search`` and await its outcome. A search waits in
``SearchQueue`` until a worker is free; a request that would wait past the queue's bounds is
refused at once with ``ServerBusy`` (503 and ``Retry-After``). A client that leaves while it
waits gives its place up; one that leaves while its search runs stops that search at its next
node (a stop flag per worker, shared with its process) and frees the worker.

Workers own the players and their tables (``PlayerCache``: a few players by spec, reused
across games and reset when they move to another game), so a game holds only its record.
Process workers give each search a whole core: the alpha-beta search holds the GIL for about
half of its time (measured: a Python loop ran at 0.46x its speed beside a search in a thread
of the same process, 1.0x beside one in another process), so threads would slow each other and
the server's request handling. Thread workers serve tests and notebooks, whose players and games
registered at run time only exist in the calling process.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from othellolab.core import Limit, OthelloError, Stop
from othellolab.core.games import get_game
from othellolab.nn.pretrained import ModelCatalog
from othellolab.players import Player, make_player
from othellolab.players.registry import unset_option
from othellolab.ui.web import analysis as _analysis
from othellolab.ui.web.errors import Gone, PlayerFailed, ServerBusy, Unprocessable
from othellolab.ui.web.limits import PLAYERS_PER_WORKER, WORKER_NICE

ThinkKind = Literal["ai", "hint", "analysis"]
"""What a search is for: the AI's move, a hint for the human, or the analysis of the moves
played (each kind checks its own preconditions before it starts)."""

__all__ = [
    "PlayerCache",
    "SearchJob",
    "SearchPool",
    "SearchQueue",
    "ThinkKind",
    "default_workers",
]


def default_workers() -> int:
    """One search worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@dataclasses.dataclass(frozen=True)
class SearchJob:
    """One search, as plain data that crosses to a worker process: who plays (``spec`` for
    ``game``), for which game record (``owner``: the game's id and its line, so a player moving
    to another game or line is reset first), what (``position``; for an analysis every
    position of the game and its actions) and how long (``limit``, without a stop signal)."""

    kind: ThinkKind
    spec: str
    game: str
    owner: tuple[str, int]
    position: Any
    limit: Limit
    all_moves: bool = False
    positions: tuple[Any, ...] = ()
    actions: tuple[int, ...] = ()
    time_per_move: float = 0.5
    max_analysis_time: float = 120.0
    number: int = 0


class PlayerCache:
    """The players of one worker, by (spec, game), the least recently used dropped (and
    closed) beyond ``size``. A player that served another game record is reset before it
    plays, so a search never sees another game's history; its tables are reused."""

    def __init__(
        self, models: ModelCatalog | None, size: int = PLAYERS_PER_WORKER, threads: int = 1
    ) -> None:
        self.models = models
        self.size = size
        self.threads = threads
        self._players: collections.OrderedDict[tuple[str, str], list[Any]] = (
            collections.OrderedDict()
        )

    def __len__(self) -> int:
        return len(self._players)

    def get(self, spec: str, game: str, owner: tuple[str, int] | None) -> Player:
        """The player of ``spec`` for ``game``, ready to play for ``owner``."""
        key = (spec, game)
        entry = self._players.get(key)
        if entry is None:
            player = make_player(spec, get_game(game), models=self.models, **self._threads(spec))
            entry = [player, owner]
            self._players[key] = entry
            while len(self._players) > self.size:
                _, (old, _owner) = self._players.popitem(last=False)
                with contextlib.suppress(Exception):
                    old.close()
            player.reset()
        else:
            self._players.move_to_end(key)
            if entry[1] != owner:
                entry[0].reset()
                entry[1] = owner
        return entry[0]

    def _threads(self, spec: str) -> dict[str, int]:
        """The server's threads a search (``threads``) for a player that takes a ``threads``
        option and whose spec sets none."""
        return {} if self.threads == 1 else unset_option(spec, "threads", self.threads)

    def close(self) -> None:
        """Close every player."""
        for player, _ in self._players.values():
            with contextlib.suppress(Exception):
                player.close()
        self._players.clear()


def run_job(job: SearchJob, cache: PlayerCache, stop: Stop) -> Any:
    """What a search returns: ``(PlayResult, scores or None)`` for a move or a hint, an
    ``Analysis`` for an analysis."""
    player = cache.get(job.spec, job.game, job.owner)
    limit = dataclasses.replace(job.limit, stop=stop)
    rules = get_game(job.game)
    if job.kind == "analysis":
        return _analysis.analyse(
            rules,
            list(job.positions),
            list(job.actions),
            player,
            name=job.spec,
            time_per_move=job.time_per_move,
            max_time=job.max_analysis_time,
            limit=limit,
        )
    result = player.choose(job.position, limit)
    scores = _analysis.move_scores(rules, job.position, player, limit) if job.all_moves else None
    return result, scores


def _outcome(job: SearchJob, cache: PlayerCache, stop: Stop) -> tuple[str, Any]:
    """``run_job`` as a message: ``("ok", outcome)``, ``("bad", message)`` for bad input (an
    ``OthelloError``), ``("fail", message)`` for a player that crashed."""
    try:
        return "ok", run_job(job, cache, stop)
    except OthelloError as e:
        return "bad", str(e)
    except Exception as e:
        return "fail", f"{type(e).__name__}: {e}"


def _worker_main(
    conn: Any, stop_cell: Any, models: ModelCatalog | None, preload: Any, threads: int = 1
) -> None:
    """A worker process: answer jobs from ``conn`` until it closes; a job stops when
    ``stop_cell`` holds its number (a watcher thread polls it every 10 ms)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops its workers itself
    with contextlib.suppress(OSError, AttributeError):  # no os.nice on Windows
        os.nice(WORKER_NICE)
    cache = PlayerCache(models, threads=threads)
    current: list[Any] = [0, None]
    lock = threading.Lock()

    def watch() -> None:
        while True:
            time.sleep(0.01)
            with lock:
                number, stop = current
            if stop is not None and stop_cell.value == number:
                stop.set()

    threading.Thread(target=watch, name="stop-watcher", daemon=True).start()
    for spec, game in preload:  # loads the kernels now rather than in the first game's move
        with contextlib.suppress(Exception):  # a bad preload shows on its first real search
            player = cache.get(spec, game, None)
            player.choose(get_game(game).start_position(), Limit(time=0.05, max_time=0.1))
            player.reset()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            break  # the server went away
        if job is None:
            break
        stop = Stop()
        with lock:
            current[:] = [job.number, stop]
        answer = _outcome(job, cache, stop)
        with lock:
            current[:] = [0, None]
        try:
            conn.send(answer)
        except (BrokenPipeError, OSError):
            break
    cache.close()


class _ProcessWorker:
    """A search worker in its own process (spawned lazily; started again if it dies)."""

    def __init__(
        self, ctx: Any, models: ModelCatalog | None, preload: Any, index: int, threads: int = 1
    ) -> None:
        self._ctx = ctx
        self._models = models
        self._preload = preload
        self._index = index
        self._threads = threads
        self._stop = ctx.Value("q", 0, lock=False)
        self._proc: Any = None
        self._conn: Any = None
        self._number = 0

    @property
    def pid(self) -> int | None:
        """The worker process's id, once started."""
        return None if self._proc is None else self._proc.pid

    def start(self) -> None:
        """Start the process (if it is not running)."""
        if self._proc is not None and self._proc.is_alive():
            return
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(
            target=_worker_main,
            args=(child, self._stop, self._models, self._preload, self._threads),
            name=f"othellolab-search-{self._index}",
            daemon=True,
        )
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent

    def run(self, job: SearchJob) -> tuple[str, Any]:
        """Run ``job`` in the process and wait for its answer (blocking: call it from a
        thread)."""
        self.start()
        self._number += 1
        job = dataclasses.replace(job, number=self._number)
        try:
            self._conn.send(job)
            return self._conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            code = self._proc.exitcode if self._proc is not None else None
            self._kill()
            return "fail", f"the search worker died (exit code {code})"

    def stop(self) -> None:
        """Stop the search in flight at its next node."""
        self._stop.value = self._number

    def _kill(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(Exception):
                self._proc.kill()
                self._proc.join(5)
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
        self._proc = self._conn = None

    def close(self) -> None:
        """Ask the process to end; kill it if it does not within 5 s."""
        if self._proc is None:
            return
        self.stop()
        with contextlib.suppress(Exception):
            self._conn.send(None)
        self._proc.join(5)
        self._kill()


class _ThreadWorker:
    """A search worker in this process: sees the players and games registered here."""

    def __init__(self, models: ModelCatalog | None, threads: int = 1) -> None:
        self._cache = PlayerCache(models, threads=threads)
        self._lock = threading.Lock()
        self._stop: Stop | None = None

    pid = None

    def start(self) -> None:
        """Nothing to start."""

    def run(self, job: SearchJob) -> tuple[str, Any]:
        """Run ``job`` here (blocking)."""
        stop = Stop()
        with self._lock:
            self._stop = stop
        try:
            return _outcome(job, self._cache, stop)
        finally:
            with self._lock:
                self._stop = None

    def stop(self) -> None:
        """Stop the search in flight at its next node."""
        with self._lock:
            if self._stop is not None:
                self._stop.set()

    def close(self) -> None:
        """Stop and close every player."""
        self.stop()
        self._cache.close()


class SearchQueue:
    """``slots`` workers and a fair FIFO queue of the searches waiting for one (asyncio; one
    event loop).

    A search is refused at once (``ServerBusy``) when ``max_queue`` searches already wait or
    when its expected wait (its place over the slots, times the mean of recent searches'
    seconds) passes ``max_wait``; one still waiting after ``max_wait`` seconds is refused then.
    Until a search has been measured the mean is ``expected``, or unknown (``None``: the
    players' own time settings decide) and then no search is refused for its expectation: the
    first measured search replaces the guess, so a burst at start-up is not refused on a
    guess of the longest search. Cancelling a waiter (its client left) frees its
    place at once. ``position(key)`` is a waiter's place, 1 first, readable from any thread.
    """

    def __init__(
        self,
        slots: int,
        *,
        max_queue: int,
        max_wait: float,
        expected: float | None,
    ) -> None:
        self.slots = slots
        self.max_queue = max_queue
        self.max_wait = max_wait
        self.mean_seconds = expected
        self._measured = False
        self._free = list(range(slots - 1, -1, -1))
        self._waiting: collections.OrderedDict[str, asyncio.Future[int]] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._closed = False

    def position(self, key: str) -> int | None:
        """``key``'s place in the queue (1: next), or ``None`` when it does not wait."""
        with self._lock:
            for i, k in enumerate(self._waiting, 1):
                if k == key:
                    return i
        return None

    def waiting(self) -> int:
        """Searches waiting."""
        return len(self._waiting)

    def busy(self) -> int:
        """Workers searching."""
        return self.slots - len(self._free)

    def expected_wait(self, place: int) -> float | None:
        """Seconds the search at ``place`` in the queue may expect to wait (None: unknown, no
        search measured and no guess given)."""
        if self.mean_seconds is None:
            return None
        return math.ceil(place / self.slots) * self.mean_seconds

    def record(self, seconds: float) -> None:
        """A search took ``seconds``: the mean used for expected waits follows it (the first
        one replaces the starting guess)."""
        seconds = max(0.0, seconds)
        if not self._measured or self.mean_seconds is None:
            self.mean_seconds, self._measured = seconds, True
        else:
            self.mean_seconds += 0.2 * (seconds - self.mean_seconds)

    def _busy_error(self, why: str) -> ServerBusy:
        mean = self.max_wait if self.mean_seconds is None else self.mean_seconds
        fits = min(self.max_queue, int(self.max_wait / max(mean, 1e-3)) * self.slots)
        excess = max(1, len(self._waiting) + 1 - fits)
        retry = max(1, math.ceil(math.ceil(excess / self.slots) * mean))
        return ServerBusy(
            f"the server is busy: {why}; {self.busy()} searches running and "
            f"{len(self._waiting)} waiting for {self.slots} workers; try again in {retry} s",
            retry_after=retry,
        )

    async def acquire(self, key: str) -> int:
        """A free worker's slot for ``key``, at once or after the searches queued before it."""
        if self._closed:
            raise Gone("the server is shutting down")
        if self._free and not self._waiting:
            return self._free.pop()
        place = len(self._waiting) + 1
        if place > self.max_queue:
            raise self._busy_error(f"the queue is full ({self.max_queue} searches)")
        expected = self.expected_wait(place)
        if expected is not None and expected > self.max_wait:
            raise self._busy_error(
                f"a search queued now would wait about {expected:.0f} s, "
                f"over the {self.max_wait:g} s allowed"
            )
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiting[key] = future
        try:
            await asyncio.wait({future}, timeout=self.max_wait)
        except BaseException:
            self._drop(key, future)
            raise
        if future.done() and not future.cancelled():
            with self._lock:
                self._waiting.pop(key, None)
            return future.result()  # raises Gone when the queue closed
        self._drop(key, future)
        raise self._busy_error(f"this search waited {self.max_wait:g} s for a worker")

    def _drop(self, key: str, future: asyncio.Future[int]) -> None:
        with self._lock:
            if self._waiting.get(key) is future:
                del self._waiting[key]
        if future.done():
            if not future.cancelled() and future.exception() is None:
                self.release(future.result())  # handed a slot just as it left: pass it on
        else:
            future.cancel()

    def release(self, slot: int) -> None:
        """A worker is free: hand it to the first waiter, or keep it."""
        with self._lock:
            while self._waiting:
                _, future = self._waiting.popitem(last=False)
                if not future.done():
                    future.set_result(slot)
                    return
            self._free.append(slot)

    def close(self) -> None:
        """Refuse every waiter and every later search (the server is shutting down)."""
        self._closed = True
        with self._lock:
            waiters = list(self._waiting.values())
        for future in waiters:
            if not future.done():
                future.set_exception(Gone("the server is shutting down"))


class SearchPool:
    """``workers`` search workers (processes, or threads of this process) behind one
    ``SearchQueue``; ``search`` runs a job on the next free worker, its player on ``threads``
    threads where it takes a ``threads`` option and its spec sets none."""

    def __init__(
        self,
        workers: int,
        *,
        processes: bool,
        max_queue: int,
        max_wait: float,
        expected: float | None,
        models: ModelCatalog | None = None,
        preload: tuple[tuple[str, str], ...] = (),
        threads: int = 1,
    ) -> None:
        self.processes = processes
        self.queue = SearchQueue(workers, max_queue=max_queue, max_wait=max_wait, expected=expected)
        if processes:
            ctx = multiprocessing.get_context("spawn")  # safe beside threads and torch
            self._workers: list[Any] = [
                _ProcessWorker(ctx, models, preload, i, threads) for i in range(workers)
            ]
        else:
            self._workers = [_ThreadWorker(models, threads) for _ in range(workers)]
        self._io = ThreadPoolExecutor(workers, thread_name_prefix="othellolab-search")
        self.closing = False

    @property
    def workers(self) -> int:
        """How many searches run at once."""
        return len(self._workers)

    def pids(self) -> list[int]:
        """The worker processes' ids (those started)."""
        return [w.pid for w in self._workers if w.pid is not None]

    def start(self) -> None:
        """Start every worker now rather than on its first search."""
        for w in self._workers:
            w.start()

    async def search(self, key: str, job: SearchJob, gone: Callable[[], Awaitable[bool]]) -> Any:
        """Queue ``job`` (one per ``key`` at a time), run it on a worker, and return its
        outcome. ``gone()`` is polled while it waits and runs: a client that has left gives its
        place up, or stops its search, and gets ``Gone``. A bad request is ``Unprocessable``, a
        crashed player ``PlayerFailed``, a full queue ``ServerBusy``."""
        waiting = asyncio.ensure_future(self.queue.acquire(key))
        try:
            if await _left(waiting, gone):
                waiting.cancel()
                with contextlib.suppress(BaseException):
                    await waiting
                raise Gone(f"the {job.kind} search was abandoned: its client left the queue")
        except asyncio.CancelledError:
            waiting.cancel()
            raise
        slot = waiting.result()
        worker = self._workers[slot]
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        running = loop.run_in_executor(self._io, worker.run, job)

        def done(_: Any) -> None:
            self.queue.record(time.monotonic() - started)
            self.queue.release(slot)

        running.add_done_callback(done)  # the worker is free only when its search has ended
        try:
            left = await _left(running, gone)
        except asyncio.CancelledError:
            worker.stop()
            raise
        if left:
            worker.stop()
            with contextlib.suppress(BaseException):
                await running
            raise Gone(f"the {job.kind} search was abandoned: its client left")
        status, payload = running.result()
        if status == "bad":
            raise Unprocessable(payload)
        if status == "fail":
            raise PlayerFailed(f"player failed while thinking: {payload}")
        return payload

    def stop_all(self) -> None:
        """Stop every search in flight (the server is shutting down); safe from any thread."""
        self.closing = True
        for w in self._workers:
            w.stop()

    def close(self) -> None:
        """Refuse waiters, stop the searches and end the workers."""
        self.stop_all()
        self.queue.close()
        self._io.shutdown(wait=False, cancel_futures=True)
        for w in self._workers:
            w.close()


async def _left(task: asyncio.Future[Any], gone: Callable[[], Awaitable[bool]]) -> bool:
    """Wait for ``task``; ``True`` as soon as ``gone()`` says the client left first."""
    while True:
        done, _ = await asyncio.wait({task}, timeout=0.2)
        if done:
            return False
        if await gone():
            return True
