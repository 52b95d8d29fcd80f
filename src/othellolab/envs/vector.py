"""A Gymnasium vector environment for any game: ``num_envs`` games against a batched opponent,
with automatic reset; Othello's are stepped together in one Numba kernel call (pgx-style).

>>> import numpy as np
>>> from othellolab.envs.vector import GameVectorEnv, OthelloVectorEnv
>>> envs = OthelloVectorEnv(4, size=6, opponent="greedy")
>>> obs, info = envs.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].shape
((4, 3, 6, 6), (4, 37))
>>> first_legal = obs["action_mask"].argmax(axis=1)
>>> obs, reward, terminated, truncated, info = envs.step(first_legal)
>>> reward.shape, bool(terminated.any())
((4,), False)
>>> shogi = GameVectorEnv(3, game="animal-shogi")
>>> obs, info = shogi.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].shape
((3, 17, 4, 3), (3, 132))
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from othellolab.core import IllegalMoveError
from othellolab.core.games import Game, get_game
from othellolab.envs.batch import batch_for
from othellolab.envs.common import (
    ILLEGAL_ACTION_MODES,
    RENDER_MODES,
    REWARD_MODES,
    check_choice,
    check_player_color,
    parse_side,
    render,
    render_modes,
)

AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


class GameVectorEnv(VectorEnv):
    """``num_envs`` games of any game, each the agent against a batched opponent.

    Every game behaves as ``GameEnv`` with the same options (see ``docs/envs.md``), but the
    opponent is batched: a game's own Numba kernels where it has them
    (``Game.vector_kernels``: Othello's ``"random"`` and ``"greedy"``, most discs flipped with a
    random tie-break, all games in one kernel call), else a uniformly ``"random"`` opponent
    stepped in Python over the game's rules; either is seeded by ``reset(seed=...)``.
    ``infos`` holds per-game arrays: ``score`` (the agent's final score at the end; Othello's
    kernels give its disc difference before), ``opponent_action`` (the opponent's move in this
    step, a forced pass included, -1 for none), ``agent_color`` (0 the first player, 1 the
    second) and ``illegal_action``; each with its ``_key`` mask.

    Auto-reset: ``"next_step"`` (Gymnasium's default) restarts a finished game on the next
    ``step`` call, ignoring that call's action for it; ``"same_step"`` restarts it at once and
    puts the final observation in ``infos["final_obs"]`` (batched arrays, valid where
    ``infos["_final_obs"]``).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 256,
        *,
        game: str | Game = "othello",
        size: int | None = None,
        opponent: str = "random",
        player_color: str = "first",
        illegal_action_mode: str = "raise",
        allow_resign: bool = False,
        reward: str = "outcome",
        legal_plane: bool | None = None,
        autoreset_mode: str = "next_step",
        copy: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be an int of at least 1, got {num_envs!r}")
        self.game = get_game(game, size)
        batch = batch_for(self.game)
        modes = render_modes(self.game)
        check_choice("opponent", opponent, batch.OPPONENTS)
        check_player_color(self.game, player_color)
        check_choice("illegal_action_mode", illegal_action_mode, ILLEGAL_ACTION_MODES)
        check_choice("reward", reward, REWARD_MODES)
        check_choice("autoreset_mode", autoreset_mode, AUTORESET_MODES)
        check_choice("render_mode", render_mode, (None, *modes))
        planes = self.game.env_planes(legal_plane)
        self.num_envs = num_envs
        self.opponent = opponent
        self.player_color = player_color
        self.illegal_action_mode = illegal_action_mode
        self.allow_resign = allow_resign
        self.reward_mode = reward
        self.legal_plane = "legal" in planes
        self.copy = copy
        self.render_mode = render_mode
        self.metadata = {
            **self.metadata,
            "render_modes": list(modes),
            "autoreset_mode": AUTORESET_MODES[autoreset_mode],
        }
        self._same_step = autoreset_mode == "same_step"

        n_actions = self.game.n_actions + int(allow_resign)
        shape = (len(planes), self.game.rows, self.game.cols)
        self.single_action_space = spaces.Discrete(n_actions)
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, shape, dtype=self.game.observation_dtype),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._batch = batch(
            self.game,
            num_envs,
            opponent=opponent,
            player_color=2 if player_color == "random" else parse_side(self.game, player_color),
            illegal_mode=ILLEGAL_ACTION_MODES.index(illegal_action_mode),
            reward=0 if reward == "outcome" else 1,
            allow_resign=allow_resign,
            planes=planes,
            same_step=self._same_step,
        )
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._all.flags.writeable = False
        self._needs_reset = True

    # ------------------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start all games, or those where ``options["reset_mask"]`` is true; a ``seed`` (one
        int for the whole batch) reseeds the opponents' and colours' generator."""
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            self._batch.seed(int(seed))
        which = self._all
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"], dtype=np.bool_)
            if which.shape != (self.num_envs,):
                raise ValueError(
                    f"reset_mask must have shape ({self.num_envs},), got {which.shape}"
                )
            if self._needs_reset and not which.all():
                raise ValueError("the first reset must reset every game (no reset_mask)")
        self._batch.reset(which)
        self._needs_reset = False
        return self._observation(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One agent action per game (an int array); returns batched obs, rewards, flags, infos."""
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), "
                f"got {acts.dtype} {acts.shape}"
            )
        acts = acts.astype(np.int64, copy=False)
        batch = self._batch
        bad = batch.step(acts)
        if bad >= 0:
            raise self._illegal_error(bad, int(acts[bad]))
        infos = self._infos()
        if self._same_step:
            infos["final_obs"] = {
                "observation": batch.final_observation().copy(),
                "action_mask": batch.final_mask.copy(),
            }
            infos["_final_obs"] = batch.terminated.copy()
        if self.copy:
            return (
                self._observation(),
                batch.reward.copy(),
                batch.terminated.copy(),
                self._truncated.copy(),
                infos,
            )
        return self._observation(), batch.reward, batch.terminated, self._truncated, infos

    def action_masks(self) -> np.ndarray:
        """Boolean ``(num_envs, n_actions)`` array of each game's legal actions now: the batched
        form of ``GameEnv.action_masks`` (the observations' ``"action_mask"``)."""
        return self._batch.mask.astype(bool)  # type: ignore[no-any-return]

    def render(self) -> tuple[Any, ...] | None:
        """Each game's position printed (``"human"``), as text (``"ansi"``) or as an image."""
        if self.render_mode is None:
            return None
        return tuple(render(self.render_mode, self.game, b) for b in self.positions())

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------------------------------

    def positions(self) -> list[Any]:
        """The current position of every game, as the game's people's positions (``Board``
        values for Othello), for inspection and tests."""
        return [self.game.position(p, o, turn) for p, o, turn in self._batch.states()]

    def boards(self) -> list[Any]:
        """``positions()``, under the name board games use."""
        return self.positions()

    def agent_colors(self) -> list[str]:
        """The side the agent plays in each game (``Game.side_names``)."""
        return [self.game.side_names[c] for c in self._batch.color]

    def _observation(self) -> dict[str, np.ndarray]:
        obs = self._batch.observation()
        if self.copy:
            return {"observation": obs.copy(), "action_mask": self._batch.mask.copy()}
        return {"observation": obs, "action_mask": self._batch.mask}

    def _infos(self) -> dict[str, Any]:
        batch = self._batch
        return {
            "score": batch.score.copy(),
            "_score": self._all,
            "opponent_action": batch.opp_action.copy(),
            "_opponent_action": self._all,
            "agent_color": batch.color.copy(),
            "_agent_color": self._all,
            "illegal_action": batch.illegal.copy(),
            "_illegal_action": self._all,
        }

    def _illegal_error(self, index: int, action: int) -> IllegalMoveError:
        position = self.positions()[index]
        game = self.game
        legal = ", ".join(game.move_name(position, a) for a in position.legal_actions())
        what = game.move_name(position, action) if 0 <= action < game.n_actions else "out of range"
        side = game.side_names[self._batch.color[index]]
        return IllegalMoveError(
            f"game {index}: illegal action {action} ({what}) for the agent ({side}) in "
            f"{position!r}; legal moves: {legal}"
        )


class OthelloVectorEnv(GameVectorEnv):
    """``GameVectorEnv`` of Othello on a ``size`` x ``size`` board (its Numba kernels)."""

    def __init__(
        self,
        num_envs: int = 256,
        *,
        size: int = 8,
        opponent: str = "random",
        player_color: str = "black",
        illegal_action_mode: str = "raise",
        allow_resign: bool = False,
        reward: str = "outcome",
        legal_plane: bool = True,
        autoreset_mode: str = "next_step",
        copy: bool = True,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            num_envs, game="othello", size=size, opponent=opponent, player_color=player_color,
            illegal_action_mode=illegal_action_mode, allow_resign=allow_resign, reward=reward,
            legal_plane=legal_plane, autoreset_mode=autoreset_mode, copy=copy,
            render_mode=render_mode,
        )  # fmt: skip
        self.size = size
