"""Grade reference players on the graded 6x6 set, by stage: the figures in docs/selfplay.md.

python examples/grade_reference_players.py   # about a minute

The solver's own moves must score 100%; alpha-beta at depth 4 with the hand-written evaluation
and flat Monte Carlo with 150 playouts per move land near the issue's 72% and 57%; alpha-beta
with the exact endgame of self-play's `solve_empties = 14` is the reference for the grades "with
the exact endgame".
"""

from __future__ import annotations

import time

import numpy as np

from othellolab.core import Board
from othellolab.players import AlphaBetaPlayer, MonteCarloPlayer, RandomPlayer
from othellolab.players.search.solved6 import load_graded_set
from othellolab.training.selfplay.grading import grade_chooser, player_chooser


def main() -> None:
    entries = load_graded_set()
    best = {(e.board.player, e.board.opponent): e.best_move for e in entries}

    def solver(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        return np.array([best[(int(p), int(o))] for p, o in zip(player, opponent, strict=True)])

    players = {
        "solver (the set's best moves)": solver,
        "alphabeta depth 4, hand-written evaluation": player_chooser(
            lambda: AlphaBetaPlayer(depth=4, endgame=0, evaluation="heuristic", seed=0), 6
        ),
        "alphabeta depth 4, hand-written evaluation, exact at 14 empties or fewer": player_chooser(
            lambda: AlphaBetaPlayer(depth=4, endgame=14, evaluation="heuristic", seed=0), 6
        ),
        "montecarlo, 150 playouts per move": player_chooser(
            lambda: MonteCarloPlayer(playouts=150, seed=0), 6
        ),
        "random": player_chooser(lambda: RandomPlayer(seed=0), 6),
    }
    print(f"{len(entries)} positions; the first legal move of each: ", end="")
    first = grade_chooser(
        lambda p, o: np.array(
            [
                Board.from_bitboards(int(a), int(b), size=6).legal_actions()[0]
                for a, b in zip(p, o, strict=True)
            ]
        ),
        6,
        entries=entries,
    )
    print(f"{first.optimal_share:.1%} optimal")
    for name, choose in players.items():
        t0 = time.perf_counter()
        grade = grade_chooser(choose, 6, entries=entries)
        print(f"\n{name} ({time.perf_counter() - t0:.0f} s)\n")
        print(grade.stage_table())


if __name__ == "__main__":
    main()
