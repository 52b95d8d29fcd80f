"""A single-agent Gymnasium environment for any game: the agent plays one side against an
opponent the environment moves itself.

>>> import gymnasium as gym
>>> import othellolab.envs
>>> env = gym.make("othellolab/Othello6x6-v0", opponent="greedy")
>>> obs, info = env.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape
((3, 6, 6), (37,))
>>> env = GameEnv("animal-shogi", opponent="shogi-alphabeta:depth=1")
>>> obs, info = env.reset(seed=1)
>>> obs["observation"].shape, obs["observation"].dtype, int(obs["action_mask"].sum())
((17, 4, 3), dtype('float32'), 4)
"""

from __future__ import annotations

from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from othellolab.core import Limit
from othellolab.core.games import Game, get_game
from othellolab.envs.common import (
    ILLEGAL_ACTION_MODES,
    RENDER_MODES,
    REWARD_MODES,
    action_mask,
    agent_action,
    check_choice,
    check_player_color,
    render,
    render_modes,
    reward_of,
    start_episode,
    view,
)
from othellolab.envs.opponents import Opponent, OpponentLike

Obs = dict[str, np.ndarray]


class GameEnv(gym.Env[Any, np.int64]):
    """Any game for one agent against an opponent the environment moves itself.

    Actions are the game's (``Game.n_actions``; for Othello ``size*size`` passes, legal only
    when the agent has no placing move), and with ``allow_resign`` one more, the last, resigns
    (a loss, reward -1). The opponent's moves, and the forced passes of a game that has them,
    happen inside ``reset`` and ``step``, so every observation is a position where the agent
    is to move or the game is over.

    Options:
        game: a ``Game`` or a registry name (``"othello"``, ``"animal-shogi"``...); ``size``
            picks the board of a game that has several (Othello: 8, 6 or 4).
        opponent: a player spec of that game (``"greedy"``), a ``Player``, or a function
            ``(position, rng) -> action``.
        player_color: the agent's side, by the game's names (``"black"``/``"white"``;
            ``"first"``/``"second"``) or ``"random"`` (drawn per episode).
        illegal_action_mode: ``"raise"`` an ``IllegalMoveError`` naming the move and the legal
            ones; ``"lose"``: the episode ends with reward -1; ``"mask"``: a uniformly random
            legal action (from the env's seeded generator) is played instead, and
            ``info["illegal_action"]`` is True with the replacement in ``info["played_action"]``.
        reward: ``"outcome"`` (+1 win, 0 draw, -1 loss) or ``"score"`` (the final score over
            the game's ``score_scale``; ``"disc_diff"`` names it too); 0 before the end.
        legal_plane: add an observation plane of the agent's legal moves (None: the game's
            default; Othello has one, on by default).
        dict_observation: observations are dicts of the planes (``"observation"``) and the
            ``"action_mask"``; False: the planes alone (the mask in ``info`` and
            ``action_masks()``).
        opponent_limit: the ``Limit`` passed to a ``Player`` opponent.
        render_mode: ``"human"`` (prints the text board after every reset and step),
            ``"ansi"`` (returns the text) or ``"rgb_array"`` (an image, where the game draws).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        game: str | Game = "othello",
        *,
        size: int | None = None,
        opponent: OpponentLike = "random",
        player_color: str = "first",
        illegal_action_mode: str = "raise",
        allow_resign: bool = False,
        reward: str = "outcome",
        legal_plane: bool | None = None,
        dict_observation: bool = True,
        opponent_limit: Limit | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.game = get_game(game, size)
        modes = render_modes(self.game)
        self.metadata = {**self.metadata, "render_modes": list(modes)}
        check_choice("illegal_action_mode", illegal_action_mode, ILLEGAL_ACTION_MODES)
        check_choice("reward", reward, REWARD_MODES)
        check_choice("render_mode", render_mode, (None, *modes))
        check_player_color(self.game, player_color)
        self.planes = self.game.env_planes(legal_plane)
        self.player_color = player_color
        self.illegal_action_mode = illegal_action_mode
        self.allow_resign = allow_resign
        self.reward_mode = reward
        self.legal_plane = "legal" in self.planes
        self.dict_observation = dict_observation
        self.render_mode = render_mode
        self.opponent = Opponent(opponent, limit=opponent_limit, game=self.game.name)
        self._opponent_seeded = False

        n = self.game.n_actions
        self.pass_action = self.game.pass_action
        self.resign_action = n if allow_resign else None
        self.action_space = spaces.Discrete(n + int(allow_resign))
        planes = spaces.Box(
            0, 1, (len(self.planes), self.game.rows, self.game.cols),
            dtype=self.game.observation_dtype,
        )  # fmt: skip
        mask = spaces.Box(0, 1, (self.action_space.n,), dtype=np.int8)
        self.observation_space = (
            spaces.Dict({"observation": planes, "action_mask": mask})
            if dict_observation
            else planes
        )
        self.position = self.game.new_position()
        self.agent_color = 0
        self.last_action: int | None = None
        self.last_move: str | None = None
        self._done = True
        self._resigned = False

    @property
    def board(self) -> Any:
        """The position now (``position``; the name board games use)."""
        return self.position

    # ------------------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a game; ``options={"player_color": ...}`` overrides the side for this one.

        A ``seed`` reseeds the env's generator and the opponent, so the episodes that follow
        replay exactly given the same actions.
        """
        super().reset(seed=seed)
        self.agent_color = start_episode(self, seed, options)
        self.position = self.game.new_position()
        self.last_action = None
        self.last_move = None
        self._done = False
        self._resigned = False
        opponent_actions = self._advance()
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info(opponent_actions=opponent_actions)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
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
        side = self.game.side_names[self.agent_color]
        played = agent_action(
            self.position, a, self.illegal_action_mode, side, self.np_random, extra
        )
        if played is None:
            self._done = True
            return self._obs(), -1.0, True, False, self._info(**extra)
        self._play(played)
        extra["opponent_actions"] = self._advance()
        reward = 0.0
        if self.position.is_game_over():
            self._done = True
            reward = reward_of(self.reward_mode, self.game, self.agent_score())
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._done, False, self._info(**extra)

    def action_masks(self) -> np.ndarray:
        """Boolean vector of the agent's legal actions now (all false once the game is over):
        the observations' ``"action_mask"`` under the name that sb3-contrib's maskable
        algorithms look for."""
        return self._mask().astype(bool)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The current position as text (``"ansi"``: the game's ``render_position``, the last
        move marked) or as an image (``"rgb_array"``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode: pass render_mode= to the env")
            return None
        return render(
            self.render_mode, self.game, self.position, last=self.last_action,
            last_name=self.last_move,
        )  # fmt: skip

    def close(self) -> None:
        """Release the opponent's outside resources."""
        self.opponent.close()

    def agent_score(self) -> float:
        """The agent's final score once the game is over (Othello: its disc difference now,
        before the end)."""
        info = self.game.env_info(self.position, self.agent_color)
        return info.get("score", info.get("result", 0))  # type: ignore[no-any-return]

    # ------------------------------------------------------------------------------------------

    def _play(self, action: int) -> None:
        self.last_action = action
        self.last_move = self.game.move_name(self.position, action)
        self.position = self.position.play(action)

    def _advance(self) -> list[int]:
        """Play the opponent (and the forced passes) until the agent is to move or the end."""
        played = []
        pass_only = [self.pass_action]
        while self.position.turn != self.agent_color and not self.position.is_game_over():
            if self.pass_action is not None and self.position.legal_actions() == pass_only:
                a = self.pass_action
            else:
                a = self.opponent.choose(self.position)
            self._play(a)
            played.append(a)
        return played

    def _obs(self) -> Any:
        live = not self._done
        p, o = view(self.game, self.position, self.agent_color)
        legal = live and self.position.turn == self.agent_color
        planes = self.game.observe(p, o, self.planes, legal=legal)
        if not self.dict_observation:
            return planes
        return {"observation": planes, "action_mask": self._mask()}

    def _mask(self) -> np.ndarray:
        if self._done:
            return np.zeros(self.action_space.n, dtype=np.int8)
        return action_mask(self.position, self.agent_color, resign=self.allow_resign)

    def _info(self, **extra: Any) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self._mask(),
            "legal_actions": [] if self._done else self.position.legal_actions(),
            "agent_color": self.game.side_names[self.agent_color],
            **self.game.env_info(self.position, self.agent_color),
        }
        info.update(extra)
        return info


class OthelloEnv(GameEnv):
    """``GameEnv`` of Othello on a ``size`` x ``size`` board (the registered
    ``othellolab/Othello*-v0`` ids)."""

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
        super().__init__(
            "othello", size=size, opponent=opponent, player_color=player_color,
            illegal_action_mode=illegal_action_mode, allow_resign=allow_resign, reward=reward,
            legal_plane=legal_plane, opponent_limit=opponent_limit, render_mode=render_mode,
        )  # fmt: skip
        self.size = size


class AnimalShogiEnv(GameEnv):
    """``GameEnv`` of animal shogi whose observation is the 17 planes alone, the mask in
    ``info`` (the registered ``othellolab/AnimalShogi-v0``)."""

    def __init__(
        self,
        *,
        opponent: OpponentLike = "random",
        player_color: str = "first",
        illegal_action_mode: str = "raise",
        opponent_limit: Limit | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            "animal-shogi", opponent=opponent, player_color=player_color,
            illegal_action_mode=illegal_action_mode, dict_observation=False,
            opponent_limit=opponent_limit, render_mode=render_mode,
        )  # fmt: skip


ENV_IDS = {
    "othellolab/Othello-v0": 8,
    "othellolab/Othello6x6-v0": 6,
    "othellolab/Othello4x4-v0": 4,
}
"""The registered Gymnasium ids of Othello and their board sizes."""

ANIMAL_SHOGI_ENV_ID = "othellolab/AnimalShogi-v0"
"""The registered Gymnasium id of animal shogi (``AnimalShogiEnv``)."""

GAME_ENV_ID = "othellolab/Game-v0"
"""The registered id of ``GameEnv`` for any game: ``gym.make(GAME_ENV_ID, game=...)``."""


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
    entries = {
        ANIMAL_SHOGI_ENV_ID: "othellolab.envs.gymnasium:AnimalShogiEnv",
        GAME_ENV_ID: "othellolab.envs.gymnasium:GameEnv",
    }
    for env_id, entry_point in entries.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, disable_env_checker=False)
