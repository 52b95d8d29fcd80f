"""d708d82's alpha-beta player behind today's ``Player`` API, for one match between the two
trees (``make_both.sh`` copies this into a scratch tree as ``othellolab.players.basewrap``;
it is not part of the package).

The old tree is imported as the package ``othellolab_d708``; each move converts the board and
the limit (the game clock included) to its types, so that the old player plans its own clock
exactly as it did at d708d82.
"""

from __future__ import annotations

from othellolab.core import Board, Limit, PlayResult, Score
from othellolab.players.base import Player


class BasePlayer(Player):
    """``base:time=...,endgame=...,probcut=...,weights=...``: d708d82's ``alphabeta`` player."""

    name = "base"
    plans_time = True

    def __init__(
        self,
        time: float = 1.0,
        endgame: int = 20,
        probcut: float = 1.5,
        weights: str = "patterns-r1",
    ) -> None:
        from othellolab_d708.players.registry import make_player

        options = {"time": time, "endgame": endgame, "probcut": probcut, "weights": weights}
        self.spec = "alphabeta:" + ",".join(f"{k}={v}" for k, v in options.items())
        self.inner = make_player(self.spec)

    def reset(self) -> None:
        self.inner.reset()

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        from othellolab_d708.core import Board as OldBoard
        from othellolab_d708.core import Limit as OldLimit

        old = OldBoard.from_bitboards(board.player, board.opponent, board.turn)
        lim = None
        if limit is not None:
            lim = OldLimit(
                time=limit.time,
                depth=limit.depth,
                nodes=limit.nodes,
                max_time=limit.max_time,
                max_nodes=limit.max_nodes,
                clock=limit.clock,
            )
        r = self.inner.choose(old, lim)
        score = None if r.score is None else Score(float(r.score.value))
        return PlayResult(r.move, score=score, info=dict(r.info))
