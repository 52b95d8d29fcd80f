"""A single-agent Gymnasium environment: the agent plays one colour against an opponent.

>>> import gymnasium as gym
>>> import othellolab.envs
>>> env = gym.make("othellolab/Othello6x6-v0", opponent="greedy")
>>> obs, info = env.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape
((3, 6, 6), (37,))
"""

from __future__ import annotations

from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from othellolab.core import COLOR_NAMES, Board, Color, Limit
from othellolab.core.squares import check_size
from othellolab.envs.common import (
    ILLEGAL_ACTION_MODES,
    RENDER_MODES,
    REWARD_MODES,
    action_mask,
    agent_action,
    check_choice,
    num_planes,
    observation_planes,
    parse_color,
    render,
    start_episode,
)
from othellolab.envs.opponents import Opponent, OpponentLike

Obs = dict[str, np.ndarray]


class OthelloEnv(gym.Env[Obs, np.int64]):
    """Othello for one agent against an opponent the environment moves itself.

    Actions ``0..size*size-1`` place a disc, ``size*size`` passes (legal only when the agent has
    no placing move), and with ``allow_resign`` ``size*size+1`` resigns (a loss, reward -1).
    The opponent's moves, and its forced passes, happen inside ``reset`` and ``step``, so every
    observation is a position where the agent is to move or the game is over.

    Options:
        size: 8, 6 or 4.
        opponent: a player spec (``"greedy"``), a ``Player``, or a function ``(board, rng)``.
        player_color: ``"black"``, ``"white"`` or ``"random"`` (drawn per episode).
        illegal_action_mode: ``"raise"`` an ``IllegalMoveError`` naming the move and the legal
            ones; ``"lose"``: the episode ends with reward -1; ``"mask"``: a uniformly random
            legal action (from the env's seeded generator) is played instead, and
            ``info["illegal_action"]`` is True with the replacement in ``info["played_action"]``.
        reward: ``"outcome"`` (+1 win, 0 draw, -1 loss) or ``"disc_diff"`` (final disc
            difference, empties to the winner, divided by ``size*size``); 0 before the end.
        legal_plane: add a third observation plane with the agent's legal moves.
        opponent_limit: the ``Limit`` passed to a ``Player`` opponent.
        render_mode: ``"human"`` (prints the text board after every reset and step),
            ``"ansi"`` (returns the text) or ``"rgb_array"`` (an image).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        *,
        size: int = 8,
        opponent: OpponentLike = "random",
        player_color: str = "black",
        illegal_action_mode: str = "raise",
        allow_resign: bool = False,
        reward: str = "outcome",
        legal_plane: bool = True,
        opponent_limit: Limit | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.size = check_size(size)
        check_choice("illegal_action_mode", illegal_action_mode, ILLEGAL_ACTION_MODES)
        check_choice("reward", reward, REWARD_MODES)
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        if player_color != "random":
            parse_color(player_color)
        self.player_color = player_color
        self.illegal_action_mode = illegal_action_mode
        self.allow_resign = allow_resign
        self.reward_mode = reward
        self.legal_plane = legal_plane
        self.render_mode = render_mode
        self.opponent = Opponent(opponent, limit=opponent_limit)
        self._opponent_seeded = False

        cells = size * size
        self.pass_action = cells
        self.resign_action = cells + 1 if allow_resign else None
        n_actions = cells + 1 + int(allow_resign)
        self.action_space = spaces.Discrete(n_actions)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    0, 1, (num_planes(legal_plane), size, size), dtype=np.uint8
                ),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.board = Board(size=size)
        self.agent_color: Color = 0
        self.last_action: int | None = None
        self._done = True
        self._resigned = False

    # ------------------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Start a game; ``options={"player_color": ...}`` overrides the colour for this one.

        A ``seed`` reseeds the env's generator and the opponent, so the episodes that follow
        replay exactly given the same actions.
        """
        super().reset(seed=seed)
        self.agent_color = start_episode(self, seed, options, parse_color)
        self.board = Board(size=self.size)
        self.last_action = None
        self._done = False
        self._resigned = False
        opponent_actions = self._advance()
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info(opponent_actions=opponent_actions)

    def step(self, action: Any) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the opponent's replies until the agent is to move."""
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        a = int(action)
        if not 0 <= a < self.action_space.n:
            raise ValueError(
                f"action {action!r} is outside the action space 0..{self.action_space.n - 1}"
            )
        extra: dict[str, Any] = {"illegal_action": False}
        if a == self.resign_action:
            self._done = self._resigned = True
            extra["resigned"] = True
            return self._obs(), -1.0, True, False, self._info(**extra)
        played = agent_action(
            self.board,
            a,
            self.illegal_action_mode,
            COLOR_NAMES[self.agent_color],
            self.np_random,
            extra,
        )
        if played is None:
            self._done = True
            return self._obs(), -1.0, True, False, self._info(**extra)
        a = played
        self.board = self.board.play(a)
        self.last_action = a
        extra["opponent_actions"] = self._advance()
        reward = 0.0
        if self.board.is_game_over():
            self._done = True
            reward = self._final_reward()
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._done, False, self._info(**extra)

    def action_masks(self) -> np.ndarray:
        """Boolean vector of the agent's legal actions now (all false once the game is over):
        ``obs["action_mask"]`` under the name that sb3-contrib's maskable algorithms look for."""
        return self._mask().astype(bool)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The current position as text (``"ansi"``) or as an image (``"rgb_array"``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode: pass render_mode= to the env")
        return render(self.render_mode, self.board, last=self.last_action)

    def close(self) -> None:
        """Release the opponent's outside resources."""
        self.opponent.close()

    # ------------------------------------------------------------------------------------------

    def _advance(self) -> list[int]:
        """Play the opponent (and its forced passes) until the agent is to move or the end."""
        played = []
        board = self.board
        while board.turn != self.agent_color and not board.is_game_over():
            a = board.pass_action if board.must_pass() else self.opponent.choose(board)
            board = board.play(a)
            played.append(a)
            self.last_action = a
        self.board = board
        return played

    def agent_score(self) -> int:
        """The agent's disc difference now; once the game is over, its final score (empties to
        the winner, as WTHOR counts)."""
        board = self.board
        if board.is_game_over():
            s = board.score()
            return s if board.turn == self.agent_color else -s
        return board.disc_count(self.agent_color) - board.disc_count(1 - self.agent_color)

    def _final_reward(self) -> float:
        s = self.agent_score()
        if self.reward_mode == "disc_diff":
            return s / (self.size * self.size)
        return float((s > 0) - (s < 0))

    def _obs(self) -> Obs:
        live = not self._done
        return {
            "observation": observation_planes(
                self.board, self.agent_color, legal_plane=self.legal_plane, legal=live
            ),
            "action_mask": self._mask(),
        }

    def _mask(self) -> np.ndarray:
        if self._done:
            return np.zeros(self.action_space.n, dtype=np.int8)
        return action_mask(self.board, self.agent_color, resign=self.allow_resign)

    def _info(self, **extra: Any) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self._mask(),
            "legal_actions": [] if self._done else self.board.legal_actions(),
            "score": self.agent_score(),
            "agent_color": COLOR_NAMES[self.agent_color],
        }
        if self._done and not self._resigned and self.board.is_game_over():
            info["outcome"] = self.board.outcome()
        info.update(extra)
        return info


ENV_IDS = {
    "othellolab/Othello-v0": 8,
    "othellolab/Othello6x6-v0": 6,
    "othellolab/Othello4x4-v0": 4,
}
"""The registered Gymnasium ids of Othello and their board sizes."""

ANIMAL_SHOGI_ENV_ID = "othellolab/AnimalShogi-v0"
"""The registered Gymnasium id of animal shogi (``envs.animal_shogi.AnimalShogiEnv``)."""


def register_envs() -> None:
    """Register the environments with Gymnasium (idempotent; done on ``import othellolab.envs``)."""
    for env_id, size in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="othellolab.envs.gymnasium:OthelloEnv",
                kwargs={"size": size},
                disable_env_checker=False,
            )
    if ANIMAL_SHOGI_ENV_ID not in gym.registry:
        gym.register(
            id=ANIMAL_SHOGI_ENV_ID,
            entry_point="othellolab.envs.animal_shogi:AnimalShogiEnv",
            disable_env_checker=False,
        )
