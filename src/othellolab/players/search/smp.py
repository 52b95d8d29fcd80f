"""Lazy SMP for the midgame search: its table entries written and read lockless, so that
threads may share one table, and the driver that runs helper threads beside the main one.

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
from typing import TypeVar

import numpy as np

from othellolab.core import ConfigError
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
