"""A single-agent Gymnasium environment for animal shogi: the agent plays one side against an
opponent, as ``OthelloEnv`` does for Othello.

>>> import gymnasium as gym
>>> import othellolab.envs
>>> env = gym.make("othellolab/AnimalShogi-v0", opponent="shogi-alphabeta:depth=1")
>>> obs, info = env.reset(seed=1)
>>> obs.shape, obs.dtype, int(info["action_mask"].sum())
((17, 4, 3), dtype('float32'), 4)
"""

from __future__ import annotations

from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from othellolab.core import Limit
from othellolab.core.animal_shogi import COLOR_NAMES, N_ACTIONS, PLANES, AnimalShogi
from othellolab.envs.common import (
    ILLEGAL_ACTION_MODES,
    agent_action,
    animal_shogi_action_mask,
    animal_shogi_planes,
    check_choice,
    parse_side,
    start_episode,
)
from othellolab.envs.opponents import Opponent, OpponentLike

RENDER_MODES = ("human", "ansi")
"""``human`` prints the text board (on every reset and step), ``ansi`` returns it."""


class AnimalShogiEnv(gym.Env[np.ndarray, np.int64]):
    """Animal shogi for one agent against an opponent the environment moves itself.

    The observation is the 17 planes ``(17, 4, 3)`` float32 of ``core.animal_shogi``
    (``PLANE_NAMES``) from the agent's side, which is the side to move whenever the game goes
    on; actions are the rules' 132 (``dest * 11 + k``), the legal ones in
    ``info["action_mask"]`` and ``action_masks()``. The opponent's moves happen inside
    ``reset`` and ``step``, so every observation is a position where the agent is to move or
    the game is over. The reward is 0 until the end, then +1, 0 or -1 for the agent.

    Options:
        opponent: a player spec (``"shogi-alphabeta:depth=2"``), a ``Player`` whose ``games``
            include ``animal-shogi``, or a function ``(position, rng) -> action``.
        player_color: ``"first"`` (moves first), ``"second"`` or ``"random"`` (drawn per
            episode); ``"sente"`` and ``"gote"`` name the first and second too.
        illegal_action_mode: ``"raise"`` an ``IllegalMoveError`` naming the move and the legal
            ones; ``"lose"``: the episode ends with reward -1; ``"mask"``: a uniformly random
            legal action (from the env's seeded generator) is played instead, and
            ``info["illegal_action"]`` is True with the replacement in ``info["played_action"]``.
        opponent_limit: the ``Limit`` passed to a ``Player`` opponent.
        render_mode: ``"human"`` (prints the text board after every reset and step) or
            ``"ansi"`` (returns the text).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        *,
        opponent: OpponentLike = "random",
        player_color: str = "first",
        illegal_action_mode: str = "raise",
        opponent_limit: Limit | None = None,
        render_mode: str | None = None,
    ) -> None:
        check_choice("illegal_action_mode", illegal_action_mode, ILLEGAL_ACTION_MODES)
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        if player_color != "random":
            parse_side(player_color)
        self.player_color = player_color
        self.illegal_action_mode = illegal_action_mode
        self.render_mode = render_mode
        self.opponent = Opponent(opponent, limit=opponent_limit, game="animal-shogi")
        self._opponent_seeded = False
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = spaces.Box(0, 1, (PLANES, 4, 3), dtype=np.float32)
        self.position = AnimalShogi()
        self.agent_color = 0
        self.last_action: int | None = None
        self.last_move: str | None = None
        self._done = True

    # ------------------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game; ``options={"player_color": ...}`` overrides the side for this one.

        A ``seed`` reseeds the env's generator and the opponent, so the episodes that follow
        replay exactly given the same actions.
        """
        super().reset(seed=seed)
        self.agent_color = start_episode(self, seed, options, parse_side)
        self.position = AnimalShogi()
        self.last_action = None
        self.last_move = None
        self._done = False
        opponent_actions = self._advance()
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info(opponent_actions=opponent_actions)

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the opponent's reply unless the game is over."""
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        a = int(action)
        if not 0 <= a < N_ACTIONS:
            raise ValueError(f"action {action!r} is outside the action space 0..{N_ACTIONS - 1}")
        extra: dict[str, Any] = {}
        played = agent_action(
            self.position,
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
        self.last_action, self.last_move = a, self.position.move_name(a)
        self.position = self.position.play(a)
        extra["opponent_actions"] = self._advance()
        reward = 0.0
        if self.position.is_game_over():
            self._done = True
            reward = float(self.agent_result())
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._done, False, self._info(**extra)

    def action_masks(self) -> np.ndarray:
        """Boolean vector of the agent's legal actions now (all false once the game is over):
        ``info["action_mask"]`` under the name that sb3-contrib's maskable algorithms look for."""
        return self._mask().astype(bool)

    def render(self) -> str | None:  # type: ignore[override]
        """The current position as text (``str(AnimalShogi)``: the board from the first
        player's side, both hands, whose turn or how the game ended), the last move below."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode: pass render_mode= to the env")
            return None
        text = str(self.position) + "\n"
        if self.last_move is not None:
            text += f"last move: {self.last_move}\n"
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        """Release the opponent's outside resources."""
        self.opponent.close()

    # ------------------------------------------------------------------------------------------

    def _advance(self) -> list[int]:
        """Play the opponent until the agent is to move or the game is over."""
        played = []
        position = self.position
        while position.turn != self.agent_color and not position.is_game_over():
            a = self.opponent.choose(position)
            self.last_action, self.last_move = a, position.move_name(a)
            position = position.play(a)
            played.append(a)
        self.position = position
        return played

    def agent_result(self) -> int | None:
        """+1, 0 or -1 for the agent once the game is over (won, drawn, lost), else ``None``."""
        r = self.position.result()
        if r is None:
            return None
        return r if self.position.turn == self.agent_color else -r

    def _obs(self) -> np.ndarray:
        return animal_shogi_planes(self.position, self.agent_color)

    def _mask(self) -> np.ndarray:
        if self._done:
            return np.zeros(N_ACTIONS, dtype=np.int8)
        return animal_shogi_action_mask(self.position, self.agent_color)

    def _info(self, **extra: Any) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self._mask(),
            "legal_actions": [] if self._done else self.position.legal_actions(),
            "agent_color": COLOR_NAMES[self.agent_color],
        }
        if self.position.is_game_over():
            info["result"] = self.agent_result()
            info["termination"] = self.position.termination()
        info.update(extra)
        return info
