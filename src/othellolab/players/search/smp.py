"""Threads for both searches: the midgame table's entries written and read lockless, so that
threads may share one table (lazy SMP), the driver that runs helper threads beside the main one
(``run_threads``), and a node's moves shared among threads (``share_moves``, the solver's).

A midgame entry is a key (``keys``: the hash's high 48 bits, the move and the depth,
``table.midgame_pack``) and a payload (``payload``: the two float32 bounds). Two threads writing
one slot can leave one position's key with another's bounds, which a search reaching the end of
the game would take as exact. So the slot holds the key XOR a mix of the payload
(``lockless_key``), and a reader recovers the key from the key and payload it read
(``entry_key``): a torn entry gives a key that matches no position (but with chance 2**-48).
An empty slot's key stays 0 whatever its payload, as ``TranspositionTable.clear`` leaves it. One
thread reads exactly what it wrote, so a single-threaded search is unchanged.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar

import numpy as np

from othellolab.core import ConfigError, Stop
from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import U64, ZERO
from othellolab.players.search.state import ABORTED
from othellolab.players.search.table import midgame_match

T = TypeVar("T")
R = TypeVar("R")

MAX_THREADS = 256
"""The most threads one search or solve may run (``threads``)."""


def check_threads(threads: object) -> int:
    """``threads`` as a thread count, or a ``ConfigError`` naming ``threads``: a whole number in
    1..``MAX_THREADS``."""
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer):
        raise ConfigError(f"must be a whole number, got {threads!r}", option="threads")
    if not 1 <= threads <= MAX_THREADS:
        raise ConfigError(f"must be in 1..{MAX_THREADS}, got {threads}", option="threads")
    return int(threads)


def default_threads() -> int:
    """The cores this process may run on (its CPU affinity where the system has one), at most
    ``MAX_THREADS``: the default thread count of ``othellolab solve``."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores))


_MIX = U64(0x9E3779B97F4A7C15)
"""An odd multiplier that spreads every bit of a payload over the key's high 48 bits (bounds
that differ only in their low bits would otherwise tear unseen)."""

_LOW32 = U64(0xFFFFFFFF)


@hot_kernel(nogil=True, inline="always")
def lockless_key(key: int, pay: int) -> int:
    """What a slot keeps for entry ``key`` with payload ``pay`` (``entry_key`` undoes it)."""
    return U64(key) ^ (U64(pay) * _MIX)


@hot_kernel(nogil=True, inline="always")
def entry_key(stored: int, pay: int) -> int:
    """The key of a slot that keeps ``stored`` and ``pay``, read once each: 0 for an empty slot,
    a key no position matches for an entry torn by two writers."""
    if stored == ZERO:
        return ZERO
    return U64(stored) ^ (U64(pay) * _MIX)


@hot_kernel(nogil=True, inline="always")
def pack_bounds(lower: float, upper: float) -> int:
    """The payload of bounds ``lower`` and ``upper`` (two float32, the lower in the low bytes,
    as ``TranspositionTable.bounds`` sees them)."""
    lo = U64(np.float32(lower).view(np.uint32))
    hi = U64(np.float32(upper).view(np.uint32))
    return lo | (hi << U64(32))


@hot_kernel(nogil=True, inline="always")
def lower_bound(pay: int) -> float:
    """The lower bound (float32) kept in payload ``pay``."""
    return np.uint32(U64(pay) & _LOW32).view(np.float32)


@hot_kernel(nogil=True, inline="always")
def upper_bound(pay: int) -> float:
    """The upper bound (float32) kept in payload ``pay``."""
    return np.uint32(U64(pay) >> U64(32)).view(np.float32)


@hot_kernel(nogil=True, inline="always")
def probe(keys: np.ndarray, payload: np.ndarray, h: int) -> tuple[int, int, int]:
    """Position ``h``'s entry: its slot (one of ``i``, ``i ^ 1``; -1 for none), key and
    payload, each read once, so that the key and bounds a search uses belong together."""
    i = np.int64(h & U64(keys.shape[0] - 1))
    pay = payload[i]
    key = entry_key(keys[i], pay)
    if midgame_match(key, h):
        return i, key, pay
    j = i ^ 1
    pay = payload[j]
    key = entry_key(keys[j], pay)
    if midgame_match(key, h):
        return j, key, pay
    return -1, ZERO, ZERO


def run_threads(
    main: Callable[[], R],
    helpers: Sequence[Callable[[], T]],
    flags: Sequence[np.ndarray],
) -> tuple[R, list[T | None]]:
    """``main()`` in this thread while each of ``helpers`` runs in a thread of its own; once
    ``main`` returns or raises, each helper's statistics array in ``flags`` gets its abort flag
    (``state.ABORTED``) and every helper is joined, so that none runs on after this returns.
    Return ``main``'s result and the helpers' (``None`` for one that raised; the first error
    of a helper is raised once all are joined, if ``main`` raised none)."""
    results: list[T | None] = [None] * len(helpers)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = helpers[i]()
        except BaseException as e:  # raised in the calling thread once joined
            errors.append(e)

    threads = [
        threading.Thread(target=work, args=(i,), name=f"othellolab-smp-{i + 1}", daemon=True)
        for i in range(len(helpers))
    ]
    try:
        for t in threads:
            t.start()
        out = main()
    finally:
        for f in flags:
            f[ABORTED] = 1
        for t in threads:
            if t.ident is not None:  # started
                t.join()
    if errors:
        raise errors[0]
    return out, results


def share_moves(
    moves: Sequence[int],
    alpha: float,
    beta: float,
    child: Callable[[int, float, float, int], float],
    flags: Sequence[np.ndarray],
    stop: Stop | None = None,
) -> tuple[float | None, int, bool]:
    """A node's ``moves`` (in order) shared among ``len(flags)`` threads, this one included:
    each takes the next move and searches it (``child(move, a, beta, k)`` on thread ``k``: the
    fail-soft score of the node through that move, ``a`` the best so far or ``alpha``) until
    the moves run out or one fails high, which stops the others (their statistics ``flags``
    get the abort flag, cleared again once all have ended). All the moves are needed whenever
    none fails high (as on a principal variation), so the threads then never wait on each
    other. Returns the
    best fail-soft score (``None`` if no move ended), its move, and whether every thread ran to
    the end (``False``: a limit or ``stop`` interrupted one; a fail-high's stop does not
    count). Every thread has ended on return."""
    lock = threading.Lock()
    todo = iter(range(len(moves)))
    best: list = [None, -1, alpha, False]  # score, move, the bound so far, a fail-high
    halted: list[np.ndarray] = []  # stopped by another thread's fail-high

    def work(k: int) -> None:
        while True:
            with lock:
                i = next(todo, None)
                if i is None or best[3] or flags[k][ABORTED]:
                    return
                a = best[2]
            s = child(moves[i], a, beta, k)
            with lock:
                if flags[k][ABORTED]:
                    if not any(f is flags[k] for f in halted):  # a limit: stop them all
                        for f in flags:
                            f[ABORTED] = 1
                    return
                if best[0] is None or s > best[0]:
                    best[0], best[1] = s, moves[i]
                best[2] = max(best[2], s)
                if s >= beta and not best[3]:
                    best[3] = True
                    for other in flags:
                        if other is not flags[k] and not other[ABORTED]:
                            other[ABORTED] = 1
                            halted.append(other)

    def main() -> None:
        try:
            work(0)
        except BaseException:  # the others stop at their next node instead of finishing
            for f in flags:
                f[ABORTED] = 1
            raise

    run_threads(main, [partial(work, k) for k in range(1, len(flags))], [])
    for f in halted:
        f[ABORTED] = 0
    if stop is not None and stop.is_set():
        for f in flags:
            f[ABORTED] = 1
    return best[0], best[1], not any(f[ABORTED] for f in flags)
