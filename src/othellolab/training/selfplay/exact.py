"""Exact play near the end of a game: the project's endgame solver in place of a search.

With ``SelfPlayConfig.solve_empties = K``, a position with at most ``K`` empty squares is not
searched: the solver (``players.search.endgame``) gives its exact disc difference and the moves
that keep it, self-play plays one of them, and the position's targets are exact (the value,
and a policy uniform over the optimal moves). Every game is then played perfectly from its
first position with ``K`` empties, so the outcome that every earlier position learns from is
the exact value of that position rather than the result of a noisy endgame. One
transposition table serves a whole batch of games: on 6x6 at ``K = 14`` a game's endgame costs
about 5 ms of solving (measured on self-play games), less than its searches would.

The players' batched search (``players.mcts.batch.search_positions``) takes this endgame as
its ``exact=`` and ``leaf_solver``'s ``leaf_values=``, as a ``SelfPlayConfig`` asks
(``solve_empties``, ``solve_leaves``): grading does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from othellolab.core import Board, ConfigError
from othellolab.core import kernels as _k
from othellolab.core.games import Game, get_game
from othellolab.players.search.endgame import solve
from othellolab.players.search.solved6 import optimal_moves
from othellolab.players.search.table import TranspositionTable
from othellolab.training.selfplay.config import SelfPlayConfig

__all__ = ["ExactEndgame", "ExactMove", "leaf_solver"]


@dataclass(frozen=True)
class ExactMove:
    """A solved position, from the side to move: its exact ``score`` (disc difference, empties
    to the winner) and the ``optimal`` actions, the ones that keep it."""

    score: int
    optimal: tuple[int, ...]


class ExactEndgame:
    """Solves the positions of ``game`` with at most ``empties`` empty squares (Othello's
    exact solver), sharing one transposition table of ``2**table_bits`` entries. Games without
    an exact endgame (``Game.has_exact_endgame``) must set ``empties`` to 0."""

    def __init__(self, game: str | Game, empties: int, *, table_bits: int = 20) -> None:
        game = get_game(game)
        if not game.has_exact_endgame and empties:
            raise ConfigError(
                f"the exact endgame solves Othello, not {game.name}: set it to 0",
                option="solve_empties",
            )
        self.game = game
        self.size = int(getattr(game, "size", 0))
        self.empties = int(empties)
        self._table = TranspositionTable(table_bits) if self.empties > 0 else None

    def covers(self, player: int, opponent: int) -> bool:
        """Whether the position is close enough to the end to be solved."""
        filled = _k.popcount(np.uint64(int(player) | int(opponent)))
        return self.empties > 0 and self.size * self.size - int(filled) <= self.empties

    def covered(self, player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        """Which of many positions are close enough to the end to be solved."""
        if self.empties <= 0:
            return np.zeros(len(player), dtype=bool)
        filled = _k.popcount_batch(np.asarray(player, np.uint64) | np.asarray(opponent, np.uint64))
        return self.size * self.size - filled <= self.empties

    def score(self, player: int, opponent: int) -> int:
        """The exact disc difference of a position for its side to move (a finished game, or
        one where it must pass, included)."""
        board = Board.from_bitboards(int(player), int(opponent), size=self.size)
        if board.is_game_over():
            return int(board.score())
        if board.must_pass():
            return -solve(board.play_pass(), table=self._table, pv=False).score
        return solve(board, table=self._table, pv=False).score

    def leaf_values(
        self, player: np.ndarray, opponent: np.ndarray, score_weight: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """For a search's leaves: which are solved, and their exact values (``Game.value`` of
        the exact score with ``score_weight``; 0 where not solved)."""
        covered = self.covered(player, opponent)
        values = np.zeros(len(player), dtype=np.float32)
        for i in np.flatnonzero(covered):
            score = float(self.score(player[i], opponent[i]))
            values[i] = self.game.value(score, score_weight)
        return covered, values

    def solve(self, player: int, opponent: int) -> ExactMove:
        """The exact score of a position whose side to move has a legal move (a pass counts
        only when it is the one action), and its optimal actions."""
        board = Board.from_bitboards(int(player), int(opponent), size=self.size)
        if board.must_pass():
            score = -solve(board.play_pass(), table=self._table, pv=False).score
            return ExactMove(score, (board.pass_action,))
        score = solve(board, table=self._table, pv=False).score
        return ExactMove(score, tuple(optimal_moves(board, score, self._table)))


def leaf_solver(
    game: Game, config: SelfPlayConfig
) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None:
    """The exact values of a search's leaves near the end (``BatchSearch``'s ``leaf_values``)
    when ``config`` asks for them (``solve_empties`` and ``solve_leaves``), else None."""
    if not (config.solve_empties and config.solve_leaves):
        return None
    exact = ExactEndgame(game, config.solve_empties)

    def leaf_values(p: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return exact.leaf_values(p, o, config.score_value)

    return leaf_values
