"""A search's statistics and limits, in one int64 array its kernels share: nodes counted, the
node limit, the abort flag (a passed limit, or a ``Stop`` from another thread), and when to
look at the clock next.
"""

from __future__ import annotations

import time

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

STATS_SIZE = 6


@numba.njit(cache=True)
def now() -> float:
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@numba.njit(cache=True)
def check_limits(stats: np.ndarray, deadline: float) -> bool:
    """Look at the node and time limits (every ``TIME_CHECK`` nodes); True once one is passed."""
    nodes = stats[NODES]
    nxt = nodes + TIME_CHECK
    if stats[NODE_LIMIT] > 0:
        if nodes > stats[NODE_LIMIT]:
            stats[ABORTED] = 1
        nxt = min(nxt, stats[NODE_LIMIT] + 1)
    if deadline > 0.0 and now() > deadline:
        stats[ABORTED] = 1
    stats[NEXT_CHECK] = nxt
    return stats[ABORTED] != 0


@hot_kernel(inline="always")
def count_node(stats: np.ndarray, deadline: float) -> bool:
    """Count a node; return True once the node or time limit is passed (the search unwinds).

    Only the nodes with a table look at the limits; the small subtrees below them just count."""
    stats[NODES] += 1
    if stats[NODES] >= stats[NEXT_CHECK]:
        return check_limits(stats, deadline)
    return stats[ABORTED] != 0
