"""The ``negamax`` player: alpha-beta for any game of the protocol, a thin adapter over
``search.negamax`` (the game's heuristic at the horizon, 0 for a game without one).

>>> from othellolab.core.animal_shogi import AnimalShogi
>>> result = NegamaxPlayer(depth=2, seed=0).choose(AnimalShogi())
>>> result.info["depth"], AnimalShogi().is_legal(result.move)
(2, True)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from othellolab.config.options import SEED, Option, checked_options
from othellolab.core import Limit, PlayResult, Score
from othellolab.core.games import position_game
from othellolab.players.base import Player
from othellolab.players.search.negamax import MAX_DEPTH, is_win_score, search

__all__ = ["NegamaxPlayer"]


class NegamaxPlayer(Player):
    """Iterative-deepening alpha-beta (``search.negamax``) for a position of any game.

    ``depth`` plies and ``time`` seconds per move bound the search unless the ``Limit`` of a
    call says otherwise (``max_time``, ``max_nodes`` and ``stop`` always apply); ``seed`` breaks
    ties between equally good moves. The policy is uniform over the equally good moves; the
    ``Score`` is an expected result (``unit="result"``): +1 or -1 and exact for a proven win
    or loss, else ``tanh(h / heuristic_scale)`` of the game's heuristic ``h``; ``info`` has the
    raw search score (``score``), ``mate_in`` (plies to a proven end), ``depth``, ``nodes``,
    ``seconds`` and the names of the best moves.
    """

    name = "negamax"
    games = None  # every game of the protocol
    OPTIONS: ClassVar[dict[str, Option]] = {
        "depth": Option(int, 1, MAX_DEPTH, help="plies of iterative deepening"),
        "time": Option(float, 0.001, 3600, optional=True, unit="seconds", help="time per move"),
        "seed": SEED,
    }

    @checked_options
    def __init__(
        self, *, depth: int = 4, time: float | None = None, seed: int | None = None
    ) -> None:
        self.depth = depth
        self.time = time
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Keep the tie-break stream going: a new game must not replay the previous one."""

    def choose(self, board: Any, limit: Limit | None = None) -> PlayResult:
        if board.is_game_over():
            raise ValueError(f"no legal move: the game is over\n{board}")
        game = position_game(board)
        limit = limit or Limit()
        use_own = limit.time is None and limit.depth is None and limit.nodes is None
        depth = self.depth if use_own else limit.depth
        time_limit = limit.capped_time(self.time if use_own else limit.time)
        nodes = limit.capped_nodes(None if use_own else limit.nodes)
        result = search(
            board,
            depth=None if depth is None else min(int(depth), MAX_DEPTH),
            time_limit=time_limit,
            max_nodes=nodes,
            stop=limit.stop,
        )
        tied = list(result.best_moves)
        move = tied[int(self.rng.integers(len(tied)))]
        policy = np.zeros(game.n_actions, dtype=np.float32)
        policy[tied] = 1.0 / len(tied)
        proven = is_win_score(result.score)
        value = math.tanh(result.score / game.heuristic_scale)
        if proven:
            value = math.copysign(1.0, result.score)
        return PlayResult(
            move,
            policy=policy,
            score=Score(value, exact=proven, win_prob=(value + 1) / 2, unit="result"),
            info={
                "score": result.score,
                "mate_in": result.mate_in,
                "depth": result.depth,
                "nodes": result.nodes,
                "seconds": result.seconds,
                "best_moves": [game.move_name(board, a) for a in tied],
            },
        )
