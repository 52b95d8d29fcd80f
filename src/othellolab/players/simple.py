"""The simplest players: uniformly random, and greedy (most discs flipped, seeded tie-break)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from othellolab.config.options import SEED, Option, checked_options
from othellolab.core import Board, Limit, PlayResult
from othellolab.core import kernels as _k
from othellolab.players.base import Player, playable_actions, uniform_policy


class RandomPlayer(Player):
    """Plays a uniformly random legal move; the policy it reports is uniform over legal moves."""

    name = "random"
    games = None
    OPTIONS: ClassVar[dict[str, Option]] = {"seed": SEED}

    @checked_options
    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Keep the random stream going: a new game must not replay the previous one."""

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = playable_actions(board)
        move = actions[int(self.rng.integers(len(actions)))]
        return PlayResult(move, policy=uniform_policy(board, actions))


class GreedyPlayer(Player):
    """Plays the move that flips the most discs; ties are broken at random (seeded)."""

    name = "greedy"
    OPTIONS: ClassVar[dict[str, Option]] = {"seed": SEED}

    @checked_options
    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = playable_actions(board)
        if actions == [board.pass_action]:
            return PlayResult(actions[0], policy=uniform_policy(board, actions))
        counts = [
            _k.popcount(_k.flip_mask(board.player, board.opponent, a, board.size)) for a in actions
        ]
        best = max(counts)
        tied = [a for a, c in zip(actions, counts, strict=True) if c == best]
        move = tied[int(self.rng.integers(len(tied)))]
        return PlayResult(move, policy=uniform_policy(board, tied), info={"flips": best})
