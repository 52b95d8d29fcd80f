"""Compile every search player's kernels ahead of their first move, or load them from Numba's
disk cache, so that no first move or first solve stalls.

``make setup`` runs it once through ``othellolab warm-up`` (again only after a source change
empties the cache); ``othellolab serve`` runs it in the background at start-up.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from othellolab.core import Board, Limit

__all__ = ["warm_up"]


def _solver() -> None:
    from othellolab.players.search.endgame import warm_up as solver_warm_up

    solver_warm_up()


def _alphabeta() -> None:
    from othellolab.players.alphabeta import AlphaBetaPlayer

    for size in (8, 6):  # the learned patterns on 8x8, the hand-written evaluation on 6x6
        AlphaBetaPlayer(depth=3, endgame=0).choose(Board(size=size))


def _tree_search() -> None:
    from othellolab.players.mcts import MCTSPlayer
    from othellolab.players.montecarlo import MonteCarloPlayer
    from othellolab.players.simple import GreedyPlayer

    board = Board()
    MCTSPlayer(sims=16, seed=0).choose(board, Limit(simulations=16))
    MonteCarloPlayer(playouts=2, seed=0).choose(board)
    GreedyPlayer(seed=0).choose(board)


STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("exact solver", _solver),
    ("alpha-beta", _alphabeta),
    ("MCTS, Monte Carlo, greedy", _tree_search),
)
"""What ``warm_up`` compiles, in order: the solver first, since its first compile is the
longest (about 40 s) and the default opponent needs it."""


def warm_up(report: Callable[[str, float], None] | None = None) -> dict[str, float]:
    """Run each of ``STEPS``; returns (and passes to ``report``) the seconds each took."""
    seconds = {}
    for name, step in STEPS:
        t0 = time.perf_counter()
        step()
        seconds[name] = time.perf_counter() - t0
        if report is not None:
            report(name, seconds[name])
    return seconds
