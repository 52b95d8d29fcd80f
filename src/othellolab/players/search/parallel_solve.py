"""The exact solver on several threads: a race of window series on one shared table.

Each thread runs a whole series of narrow windows (the exact search's, or one pre-search's) in
the compiled solver, which releases the GIL, from its own first window (``race_guess``), with
its own ``SolverState`` (move lists, statistics) over the one transposition table. The first
to finish gives the result and stops the others: every series is exact on its own, since the
table's entries are exact bounds read whole (``table.tt_probe``), so the threads only share
work, never trust each other. A series that starts on the other side of the score proves the
bound the others need next, and a thread that enters a subtree another has solved finds its
entry; but two threads also prove many of the same subtrees (1.2-1.8 times one thread's nodes
on FFO #40-#50), so the speed-up on 2 cores is small (docs/benchmarks.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from othellolab.core import Stop
from othellolab.players.search.smp import (
    MAX_THREADS,
    check_threads,
    default_threads,
    run_threads,
)
from othellolab.players.search.state import ABORTED, SolverState

__all__ = [
    "MAX_THREADS",
    "check_threads",
    "default_threads",
    "race",
    "race_guess",
]


def race_guess(guess: int, k: int, cells: int) -> int:
    """Where thread ``k`` starts its windows: the guess itself for the first, then 2 discs
    above, 2 below, 4 above, ... (final scores are even)."""
    step = 2 * ((k + 1) // 2) * (1 if k % 2 else -1)
    return max(-cells, min(cells, guess + step))


def race(
    states: list[SolverState],
    series: Callable[[int, SolverState], tuple[int, int]],
    stop: Stop | None = None,
) -> tuple[int, int, SolverState] | None:
    """``series(k, states[k])`` for every ``k`` at once, each in a thread (this thread runs
    ``k`` = 0): the first to return unstopped wins and stops the rest. Returns its result and
    state, or ``None`` when every thread was stopped (time, nodes or ``stop``); the states are
    then left stopped. After a win the losers' stop flags are cleared for the next race,
    unless ``stop`` is set. Every helper thread has ended on return (``smp.run_threads``, which
    also raises a helper's error here)."""
    lock = threading.Lock()
    won: list[tuple[int, int, SolverState]] = []

    def run(k: int) -> None:
        st = states[k]
        score, move = series(k, st)
        with lock:
            if not won and not st.shallow.stats[ABORTED]:
                won.append((int(score), int(move), st))
                for other in states:
                    if other is not st:
                        other.shallow.stats[ABORTED] = 1

    run_threads(
        partial(run, 0),
        [partial(run, k) for k in range(1, len(states))],
        [st.shallow.stats for st in states[1:]],
    )
    if not won:
        for st in states:
            st.shallow.stats[ABORTED] = 1
        return None
    for st in states:
        st.shallow.stats[ABORTED] = 0
    if stop is not None and stop.is_set():  # after the clearing: a stop meanwhile is kept
        for st in states:
            st.shallow.stats[ABORTED] = 1
    return won[0]
