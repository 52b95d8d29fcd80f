"""The ``shogi-alphabeta`` player: the generic alpha-beta (``players.negamax``) for animal
shogi alone, on the game's material (``core.animal_shogi.heuristic``), with its depth capped at
12 plies as before.

>>> from othellolab.core.animal_shogi import AnimalShogi
>>> result = ShogiAlphaBetaPlayer(depth=2, seed=0).choose(AnimalShogi())
>>> result.info["depth"], AnimalShogi().is_legal(result.move)
(2, True)
"""

from __future__ import annotations

from typing import ClassVar

from othellolab.config.options import SEED, Option
from othellolab.players.negamax import NegamaxPlayer

__all__ = ["ShogiAlphaBetaPlayer"]


class ShogiAlphaBetaPlayer(NegamaxPlayer):
    """``NegamaxPlayer`` named ``shogi-alphabeta``, playing animal shogi only: material (chick
    1, elephant 3, giraffe 4, hen 5) at the horizon, captures first, fastest wins first."""

    name = "shogi-alphabeta"
    games = ("animal-shogi",)
    OPTIONS: ClassVar[dict[str, Option]] = {
        "depth": Option(int, 1, 12, help="plies of iterative deepening"),
        "time": Option(float, 0.001, 3600, optional=True, unit="seconds", help="time per move"),
        "seed": SEED,
    }
