"""The vector environment's generic path: many games of any game stepped in a Python loop over
the game's ``step``, ``legal_actions`` and ``result``, against a uniformly random opponent.

It keeps the same state and arrays as a game's own fast path (``Game.vector_kernels``, such as
``core.othello_vector.OthelloVectorKernels``), so that ``envs.vector.GameVectorEnv`` reads
either the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from othellolab.core.games import Game
from othellolab.envs.common import reward_of

NO_ACTION = -1
"""``opp_action`` when the opponent did not move."""


class PositionBatch:
    """``num_envs`` games of ``game``, each the agent against a uniformly random opponent;
    every stored position has the agent to move or the game over. ``player_color``: 0, 1 or
    2 (random); ``illegal_mode``: 0 raise, 1 lose, 2 mask; ``reward``: 0 outcome, 1 score."""

    OPPONENTS = ("random",)

    def __init__(
        self,
        game: Game,
        num_envs: int,
        *,
        opponent: str,
        player_color: int,
        illegal_mode: int,
        reward: int,
        allow_resign: bool,
        planes: tuple[str, ...],
        same_step: bool,
    ) -> None:
        n = num_envs
        self.game = game
        self.planes = planes
        self.player_color = player_color
        self.illegal_mode = illegal_mode
        self.reward_mode = ("outcome", "score")[reward]
        self.allow_resign = allow_resign
        self.same_step = same_step
        self.n_actions = game.n_actions + int(allow_resign)
        self.p = [0] * n
        self.o = [0] * n
        self.turn = [0] * n
        self.color = np.zeros(n, dtype=np.int8)
        self.done = np.ones(n, dtype=np.bool_)
        shape = (n, len(planes), game.rows, game.cols)
        self.obs = np.zeros(shape, dtype=game.observation_dtype)
        self.final_obs = np.zeros(shape, dtype=game.observation_dtype)
        self.mask = np.zeros((n, self.n_actions), dtype=np.int8)
        self.final_mask = np.zeros((n, self.n_actions), dtype=np.int8)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.opp_action = np.full(n, NO_ACTION, dtype=np.int64)
        self.illegal = np.zeros(n, dtype=np.bool_)
        self.score = np.zeros(n, dtype=np.float64)
        self.rng = np.random.default_rng()

    def seed(self, seed: int) -> None:
        """Reseed the batch's generator (opponents, colours, ``"mask"``)."""
        self.rng = np.random.default_rng(seed)

    def reset(self, which: np.ndarray) -> None:
        """Start the games where ``which`` is true."""
        self.opp_action[:] = NO_ACTION
        for i in np.flatnonzero(which):
            self._start(i)
            self.score[i] = 0
        self.illegal[:] = False

    def step(self, actions: np.ndarray) -> int:
        """One agent action per game: the index of the first illegal one in mode raise
        (nothing changed), else -1."""
        if self.illegal_mode == 0:
            for i, a in enumerate(actions):
                if not self.done[i] and not self._allowed(i, int(a)):
                    return i
        for i, a in enumerate(actions):
            self.reward[i] = 0.0
            self.terminated[i] = False
            self.illegal[i] = False
            self.opp_action[i] = NO_ACTION
            if self.done[i]:
                self._start(i)
                self.score[i] = 0
                continue
            self._step_one(i, int(a))
        return -1

    def observation(self) -> np.ndarray:
        return self.obs

    def final_observation(self) -> np.ndarray:
        return self.final_obs

    def states(self) -> list[tuple[int, int, int]]:
        """Each game's ``(p, o, turn)``."""
        return list(zip(self.p, self.o, self.turn, strict=True))

    # ------------------------------------------------------------------------------------------

    def _legal(self, i: int) -> list[int]:
        return self.game.legal_actions(self.p[i], self.o[i])

    def _allowed(self, i: int, a: int) -> bool:
        return a in self._legal(i) or (self.allow_resign and a == self.game.n_actions)

    def _play(self, i: int, a: int) -> None:
        self.p[i], self.o[i] = self.game.step(self.p[i], self.o[i], a)
        self.turn[i] = 1 - self.turn[i]

    def _start(self, i: int) -> None:
        """A new game; the opponent opens when the agent plays second."""
        c = self.player_color if self.player_color < 2 else int(self.rng.integers(2))
        self.color[i] = c
        self.p[i], self.o[i] = self.game.start()
        self.turn[i] = 0
        self.done[i] = False
        self._opponent(i)
        self._write(i, True, self.obs, self.mask)

    def _opponent(self, i: int) -> None:
        """The opponent's moves (a forced pass played for it) until the agent is to move."""
        pass_only = [self.game.pass_action]
        while self.turn[i] != self.color[i] and self.game.result(self.p[i], self.o[i]) is None:
            legal = self._legal(i)
            a = legal[0] if legal == pass_only else legal[int(self.rng.integers(len(legal)))]
            self._play(i, a)
            self.opp_action[i] = a

    def _step_one(self, i: int, a: int) -> None:
        legal = self._legal(i)
        over, final = False, 0.0
        if a not in legal:
            if self.allow_resign and a == self.game.n_actions:
                over, final = True, -1.0
            elif self.illegal_mode == 2:
                self.illegal[i] = True
                a = legal[int(self.rng.integers(len(legal)))]
            else:
                self.illegal[i] = True
                over, final = True, -1.0
        if not over:
            self._play(i, a)
            self._opponent(i)
            score = self.game.result(self.p[i], self.o[i])
            if score is not None:
                mine = score if self.turn[i] == self.color[i] else -score
                over, final = True, reward_of(self.reward_mode, self.game, mine)
                self.score[i] = mine
        if not over:
            self._write(i, True, self.obs, self.mask)
            return
        self.reward[i] = final
        self.terminated[i] = True
        if self.same_step:
            self._write(i, False, self.final_obs, self.final_mask)
            self._start(i)
            return
        self.done[i] = True
        self._write(i, False, self.obs, self.mask)

    def _write(self, i: int, live: bool, obs: np.ndarray, mask: np.ndarray) -> None:
        """Game ``i``'s planes from the agent's side and its action mask."""
        p, o = self.p[i], self.o[i]
        mine = self.turn[i] == self.color[i]
        if not mine:
            p, o = self.game.turned(p, o)
        obs[i] = self.game.observe(p, o, self.planes, legal=live and mine)
        mask[i] = 0
        if live and mine:
            mask[i, self._legal(i)] = 1
            if self.allow_resign:
                mask[i, self.game.n_actions] = 1


def batch_for(game: Game) -> Any:
    """The class that steps ``game``'s vector env: its own kernels, or ``PositionBatch``."""
    return game.vector_kernels() or PositionBatch
