"""The ``endgame`` player: perfect play from ``max_empties`` empty squares (``search.endgame``),
a shallow alpha-beta search before that.
"""

from __future__ import annotations

import dataclasses
import time
from typing import ClassVar

from othellolab.config.options import Option, checked_options
from othellolab.core import Board, Limit, PlayResult
from othellolab.players.alphabeta import WEIGHTS, AlphaBetaPlayer, player_weights
from othellolab.players.base import Player, playable_actions
from othellolab.players.search import SolveAborted, TranspositionTable, solve
from othellolab.players.search.smp import MAX_THREADS


class EndgamePlayer(Player):
    """Plays perfectly once at most ``max_empties`` squares are empty; before that, it hands the
    move to a fast shallow alpha-beta search (``fallback_depth`` plies) so that it can play
    whole games. A ``Limit`` with a time or node budget (or a cap) bounds the solve: when it
    runs out, the shallow search answers with what time is left.

    The move is the solver's best move; the reported ``Score`` is exact for solved positions.
    ``weights`` (a shipped pattern set or a weights directory) orders the solver's moves and
    evaluates the shallow search's leaves on 8x8 instead of the default set; ``threads`` solves
    on that many threads (``solve``'s split: the same exact scores), the shallow search on one.
    """

    name = "endgame"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "max_empties": Option(int, 0, 60, help="solve exactly from this many empty squares"),
        "fallback_depth": Option(int, 1, 20, help="plies of the search before that"),
        "table_bits": Option(int, 10, 26, help="solver table of 2**bits entries (16 bytes each)"),
        "weights": WEIGHTS,
        "threads": Option(int, 1, MAX_THREADS, help="solver threads (one table, moves shared)"),
    }

    @checked_options
    def __init__(
        self,
        *,
        max_empties: int = 20,
        fallback_depth: int = 4,
        table_bits: int = 22,
        weights: str | None = None,
        threads: int = 1,
    ) -> None:
        self.max_empties = max_empties
        self.threads = threads
        self.fallback_depth = fallback_depth
        self.weights = weights
        self.table = TranspositionTable(table_bits)
        self._patterns = None if weights is None else player_weights(self.name, weights)
        self._fallback: Player | None = None

    def reset(self) -> None:
        self.table.clear()

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        playable_actions(board)  # raises for a finished game
        limit = limit or Limit()
        if board.num_empties > self.max_empties:
            return self._shallow(board, limit)
        t0 = time.perf_counter()
        seconds = limit.capped_time(limit.time)
        try:
            result = solve(
                board,
                table=self.table,
                pv=True,
                max_nodes=limit.capped_nodes(limit.nodes),
                time_limit=seconds,
                evaluation=self._patterns if board.size == 8 else None,
                stop=limit.stop,
                threads=self.threads,
            )
        except SolveAborted:
            if seconds is not None:
                left = max(0.01, seconds - (time.perf_counter() - t0))
                time_left = None if limit.time is None else left
                limit = dataclasses.replace(limit, time=time_left, max_time=left)
            return self._shallow(board, limit)
        return result.play_result(board)

    def _shallow(self, board: Board, limit: Limit) -> PlayResult:
        if self._fallback is None:
            self._fallback = AlphaBetaPlayer(
                depth=self.fallback_depth, endgame=0, weights=self.weights
            )  # one thread: a shallow search that threads would not speed up
        return self._fallback.choose(board, limit)
