"""What a search carries through its kernels: its statistics and limits, in one int64 array
(nodes counted, the node limit, the abort flag set by a passed limit or a ``Stop`` from another
thread, when to look at the clock next), and the exact solver's whole state as one record, so
that its kernels take a position, a window and that record instead of a dozen arrays.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numba
import numpy as np

from othellolab.core.jit import hot_kernel

TIME_CHECK = 1 << 14
"""Nodes between two looks at the clock when a time limit is set."""

# Statistics and limits shared by the kernels, in one int64 array.
NODES, NODE_LIMIT, ABORTED = 0, 1, 2

SHALLOW_NODES = 3

NEXT_CHECK = 4

SELECT = 5  # the pre-search margin in discs; 0 in an exact search

CHECK_EVERY = 6  # nodes between two looks at the limits; 0 for ``TIME_CHECK``

PLY = 7  # the midgame search's node's ply from the root, set by its caller

STATS_SIZE = 8


@numba.njit(cache=True)
def now() -> float:
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


_CLOCK_READY = False


def ready_clock() -> None:
    """Compile ``now``'s object-mode block before a timed search starts its clock: Numba
    compiles it at its first call, not from the cache, and at 0.2 s or more on a busy machine
    that first call used up a short time limit before the first iteration finished."""
    global _CLOCK_READY
    if not _CLOCK_READY:
        now()
        _CLOCK_READY = True


@numba.njit(cache=True)
def check_limits(stats: np.ndarray, deadline: float) -> bool:
    """Look at the node and time limits (every ``stats[CHECK_EVERY]`` nodes, else every
    ``TIME_CHECK``, the shallow ordering searches' counted too); True once one is passed."""
    nodes = stats[NODES]
    work = nodes + stats[SHALLOW_NODES]
    nxt = work + (stats[CHECK_EVERY] if stats[CHECK_EVERY] > 0 else TIME_CHECK)
    if stats[NODE_LIMIT] > 0:
        if nodes > stats[NODE_LIMIT]:
            stats[ABORTED] = 1
        # by then ``nodes`` is at most one past the limit, however many shallow nodes come first
        nxt = min(nxt, stats[NODE_LIMIT] + 1 + stats[SHALLOW_NODES])
    if deadline > 0.0 and now() > deadline:
        stats[ABORTED] = 1
    stats[NEXT_CHECK] = nxt
    return stats[ABORTED] != 0


@hot_kernel(inline="always")
def count_node(stats: np.ndarray, deadline: float) -> bool:
    """Count a node; return True once the node or time limit is passed (the search unwinds).

    Only the nodes with a table look at the limits; the small subtrees below them just count.
    The clock is read by work done, the shallow ordering searches' nodes included: far from the
    end each deep node orders its moves by shallow searches of thousands of nodes, so counting
    deep nodes alone let a 45-empties solve run a second past its deadline."""
    stats[NODES] += 1
    if stats[NODES] + stats[SHALLOW_NODES] >= stats[NEXT_CHECK]:
        return check_limits(stats, deadline)
    return stats[ABORTED] != 0


class ShallowState(NamedTuple):
    """What the shallow searches that order the exact search's moves need (``ordering.estimate``,
    called about as often as the search's own nodes, so it is passed no more than this): the
    board size, one move list and one ordering-key list per empty square (rows by empties; the
    last rows serve the shallow searches), the statistics and the ordering evaluation (its
    ``kind`` and ``weights``, ``evaluation.Evaluation``)."""

    n: int
    buf_sq: np.ndarray
    buf_key: np.ndarray
    stats: np.ndarray
    ev_kind: int
    ev_w: np.ndarray


class SolverState(NamedTuple):
    """The exact solver's state, passed whole to every kernel of the search: the shallow
    searches' part, the transposition table's ``keys`` and ``payload``
    (``table.TranspositionTable``; ``table.tt_probe`` reads them) and the deadline (a
    ``perf_counter`` time; 0 for none). Numba passes a record as its fields, so it costs nothing
    over loose arguments."""

    shallow: ShallowState
    keys: np.ndarray
    payload: np.ndarray
    deadline: float
