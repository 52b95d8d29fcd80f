"""The exact solver on several threads: the moves of a node shared among them.

The solver (``split_search``) splits each window of a full-window solve along its principal
variation, as young brothers wait for the eldest: at each node of that line far enough from
the end, the first move's subtree is split the same way, then the other moves go to the
threads, each taking the next one and solving it in the compiled solver (which releases the
GIL) with its own ``SolverState`` (move lists, statistics) over the one transposition table
(``smp.share_moves``). Every move's search is exact on its own, since the table's entries
are exact bounds read whole (``table.tt_probe``): the threads share work through the table and
never trust each other's results beyond it. On FFO #40-#59 two threads solved 1.74 times as
fast as one (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from othellolab.core import Stop
from othellolab.core.kernels import _FULL, ONE, U64, _flips, popcount
from othellolab.players.search.geometry import gen_moves, pick_best
from othellolab.players.search.ordering import order_pv
from othellolab.players.search.smp import MAX_THREADS, check_threads, default_threads, share_moves
from othellolab.players.search.state import ABORTED, SELECT, SolverState
from othellolab.players.search.table import (
    entry_move,
    from_table,
    table_key,
    to_table,
    tt_probe,
    tt_store,
)

__all__ = [
    "MAX_THREADS",
    "SPLIT_MIN",
    "check_threads",
    "default_threads",
    "split_aspiration",
    "split_search",
]

SPLIT_MIN = 16
"""``split_search`` splits the nodes of the principal variation with this many empties or
more (12 and 20 were no faster on FFO #40-#51)."""

Window = Callable[[int, int, int, int, SolverState], tuple[int, int]]
"""The solver's one-thread window, ``endgame._solve_kernel(p, o, alpha, beta, state)``: the
fail-soft score and best move."""


@numba.njit(cache=True, nogil=True)
def node_moves(p: int, o: int, alpha: int, st: SolverState) -> np.ndarray:
    """The moves of ``(p, o)`` in the order the solver searches them at a node of the principal
    variation (``endgame._pvs``: the table's move first), for the threads to share."""
    p = U64(p)
    o = U64(o)
    n = st.shallow.n
    ne = popcount(~(p | o) & _FULL[n])
    h, sym = table_key(p, o, ne, n)
    slot, entry = tt_probe(st.keys, st.payload, h)
    hash_move = from_table(entry_move(entry), sym, n) if slot >= 0 else -1
    count = order_pv(p, o, gen_moves(p, o, n), ne, alpha, hash_move, ne, st)
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = pick_best(st.shallow.buf_sq, st.shallow.buf_key, ne, i, count)
    return out


@numba.njit(cache=True, nogil=True)
def store_node(
    p: int, o: int, alpha: int, beta: int, best: int, move: int, st: SolverState
) -> None:
    """Keep a split node's result in the table, as ``endgame._pvs`` keeps its own."""
    p = U64(p)
    o = U64(o)
    n = st.shallow.n
    ne = popcount(~(p | o) & _FULL[n])
    h, sym = table_key(p, o, ne, n)
    sel = st.shallow.stats[SELECT] > 0
    tt_store(st.keys, st.payload, h, alpha, beta, best, to_table(move, sym, n), ne, sel)


def split_search(
    p: int,
    o: int,
    alpha: int,
    beta: int,
    states: list[SolverState],
    stop: Stop | None,
    kernel: Window,
) -> tuple[int, int]:
    """One window of ``(p, o)`` on all ``states``' threads by splitting along the principal
    variation: its first move's subtree is split the same way (down to ``SPLIT_MIN`` empties,
    below which one thread solves it with ``kernel``), then, unless it fails high, the other
    moves are shared among the threads (``smp.share_moves``) with its score as their bound, as
    the young brothers wait for the eldest. Returns the fail-soft score and best move, as
    ``kernel`` does on one thread; a limit or ``stop`` that interrupts any thread stops them
    all (every state's abort flag set)."""
    st = states[0]
    moves = [int(m) for m in node_moves(p, o, alpha, st)]
    if not moves:  # a pass
        return kernel(p, o, alpha, beta, st)
    n = st.shallow.n

    def play(move: int) -> tuple[int, int]:
        f = U64(_flips(p, o, move, n))
        return o & ~f, p | f | (ONE << U64(move))

    def child(move: int, a: int, b: int, state: SolverState) -> int:
        return -int(kernel(*play(move), -b, -a, state)[0])

    np_, no = play(moves[0])
    if popcount(~(np_ | no) & _FULL[n]) >= SPLIT_MIN:
        best = -int(split_search(np_, no, -beta, -alpha, states, stop, kernel)[0])
    else:
        best = -int(kernel(np_, no, -beta, -alpha, st)[0])
    best_move = moves[0]
    whole = not any(one.shallow.stats[ABORTED] for one in states)
    if whole and best < beta and len(moves) > 1:
        flags = [one.shallow.stats for one in states]
        score, move, whole = share_moves(
            moves[1:],
            max(alpha, best),
            beta,
            lambda m, a, b, k: child(m, a, b, states[k]),
            flags,
            stop,
        )
        if score is not None and score > best:
            best, best_move = int(score), move
    if not whole:
        for one in states:
            one.shallow.stats[ABORTED] = 1
        return 0, -1
    store_node(p, o, alpha, beta, best, best_move, st)
    return best, best_move


def split_aspiration(
    p: int, o: int, guess: int, states: list[SolverState], stop: Stop | None, kernel: Window
) -> tuple[int, int]:
    """``endgame._aspiration`` (narrow windows from ``guess`` until one holds the score) with
    each window split among the threads (``split_search``)."""
    cells = states[0].shallow.n * states[0].shallow.n
    stats = states[0].shallow.stats
    score = guess
    while True:
        a = max(-cells - 1, score - 1)
        b = min(cells + 1, score + 1)
        score, move = split_search(p, o, a, b, states, stop, kernel)
        if stats[ABORTED] or a < score < b or score <= -cells or score >= cells:
            return score, move
