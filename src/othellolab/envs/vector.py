"""A Gymnasium vector environment: ``num_envs`` games against a batched opponent, stepped
together in one Numba kernel call (pgx-style), with automatic reset.

>>> import numpy as np
>>> from othellolab.envs.vector import OthelloVectorEnv
>>> envs = OthelloVectorEnv(4, size=6, opponent="greedy")
>>> obs, info = envs.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].shape
((4, 3, 6, 6), (4, 37))
>>> first_legal = obs["action_mask"].argmax(axis=1)
>>> obs, reward, terminated, truncated, info = envs.step(first_legal)
>>> reward.shape, bool(terminated.any())
((4,), False)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from othellolab.core import COLOR_NAMES, Board, IllegalMoveError, square_name
from othellolab.core.kernels import _FULL, _INNER, rng_seed
from othellolab.core.squares import check_size
from othellolab.envs import kernels as vk
from othellolab.envs.common import (
    RENDER_MODES,
    check_choice,
    num_planes,
    render,
)

AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


class OthelloVectorEnv(VectorEnv):
    """``num_envs`` Othello games, each the agent against a batched opponent.

    Every game behaves as ``OthelloEnv`` with the same options (see ``docs/envs.md``), but the
    opponent is a Numba kernel: ``"random"`` or ``"greedy"`` (most discs flipped, random
    tie-break), drawn from one kernel RNG seeded by ``reset(seed=...)``. ``infos`` holds
    per-game arrays: ``score`` (the agent's disc difference; at the end its final score, empties to the
    winner), ``opponent_action`` (the
    opponent's move in this step: a square, ``size*size`` for a forced pass, -1 for none),
    ``agent_color`` (0 black, 1 white) and ``illegal_action``; each with its ``_key`` mask.

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
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.size = check_size(size)
        check_choice("opponent", opponent, vk.OPPONENT_KINDS)
        check_choice("player_color", player_color, vk.COLOR_MODES)
        check_choice("illegal_action_mode", illegal_action_mode, vk.ILLEGAL_MODES)
        check_choice("reward", reward, vk.REWARD_KINDS)
        check_choice("autoreset_mode", autoreset_mode, AUTORESET_MODES)
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        self.num_envs = num_envs
        self.opponent = opponent
        self.player_color = player_color
        self.illegal_action_mode = illegal_action_mode
        self.allow_resign = allow_resign
        self.reward_mode = reward
        self.legal_plane = legal_plane
        self.copy = copy
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "autoreset_mode": AUTORESET_MODES[autoreset_mode]}
        self._same_step = autoreset_mode == "same_step"

        cells = size * size
        n_actions = cells + 1 + int(allow_resign)
        planes = num_planes(legal_plane)
        self.single_action_space = spaces.Discrete(n_actions)
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (planes, size, size), dtype=np.uint8),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)

        n = num_envs
        self._me = np.zeros(n, dtype=np.uint64)
        self._op = np.zeros(n, dtype=np.uint64)
        self._color = np.zeros(n, dtype=np.int8)
        self._legal = np.zeros(n, dtype=np.uint64)
        self._done = np.ones(n, dtype=np.bool_)
        self._obs = np.zeros((n, planes, 8), dtype=np.uint64)
        self._mask = np.zeros((n, n_actions), dtype=np.int8)
        self._final_obs = np.zeros((n, planes, 8), dtype=np.uint64)
        self._final_mask = np.zeros((n, n_actions), dtype=np.int8)
        self._reward = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._opp_action = np.full(n, vk.NO_ACTION, dtype=np.int64)
        self._illegal = np.zeros(n, dtype=np.bool_)
        self._score = np.zeros(n, dtype=np.int64)
        self._all = np.ones(n, dtype=np.bool_)
        self._all.flags.writeable = False
        self._rng = rng_seed(int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) >> 1)
        self._consts = (
            vk.COLOR_MODES[player_color],
            vk.OPPONENT_KINDS[opponent],
            vk.ILLEGAL_MODES[illegal_action_mode],
            vk.REWARD_KINDS[reward],
        )
        self._geometry = (size, np.uint64(_INNER[size]), np.uint64(_FULL[size]))
        self._needs_reset = True

    # ------------------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start all games, or those where ``options["reset_mask"]`` is true; a ``seed`` (one
        int for the whole batch) reseeds the opponents' and colours' kernel RNG."""
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            self._rng = rng_seed(int(seed) % 2**63)
        which = self._all
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"], dtype=np.bool_)
            if which.shape != (self.num_envs,):
                raise ValueError(
                    f"reset_mask must have shape ({self.num_envs},), got {which.shape}"
                )
            if self._needs_reset and not which.all():
                raise ValueError("the first reset must reset every game (no reset_mask)")
        color_mode, opp_kind, _, _ = self._consts
        n, inner, full = self._geometry
        self._opp_action[:] = vk.NO_ACTION
        vk.reset_batch(
            which, self._me, self._op, self._color, self._legal, self._done, color_mode,
            opp_kind, n, inner, full, self.allow_resign, self._rng, self._obs, self._mask,
            self._opp_action,
        )  # fmt: skip
        self._needs_reset = False
        self._score[which] = 0
        self._illegal[:] = False
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
        color_mode, opp_kind, illegal_mode, reward_kind = self._consts
        n, inner, full = self._geometry
        bad = vk.step_batch(
            acts, self._me, self._op, self._color, self._legal, self._done, color_mode,
            opp_kind, illegal_mode, reward_kind, self._same_step, n, inner, full,
            self.allow_resign, self._rng, self._obs, self._mask, self._reward, self._terminated,
            self._opp_action, self._illegal, self._score, self._final_obs, self._final_mask,
        )  # fmt: skip
        if bad >= 0:
            raise self._illegal_error(bad, int(acts[bad]))
        infos = self._infos()
        if self._same_step:
            infos["final_obs"] = {
                "observation": self._planes(self._final_obs).copy(),
                "action_mask": self._final_mask.copy(),
            }
            infos["_final_obs"] = self._terminated.copy()
        if self.copy:
            return (
                self._observation(),
                self._reward.copy(),
                self._terminated.copy(),
                self._truncated.copy(),
                infos,
            )
        return self._observation(), self._reward, self._terminated, self._truncated, infos

    def action_masks(self) -> np.ndarray:
        """Boolean ``(num_envs, n_actions)`` array of each game's legal actions now: the batched
        form of ``OthelloEnv.action_masks`` (the observations' ``"action_mask"``)."""
        return self._mask.astype(bool)

    def render(self) -> tuple[Any, ...] | None:
        """Each game's position printed (``"human"``), as text (``"ansi"``) or as an image."""
        if self.render_mode is None:
            return None
        return tuple(render(self.render_mode, b) for b in self.boards())

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------------------------------

    def boards(self) -> list[Board]:
        """The current position of every game, as ``Board`` values (for inspection and tests)."""
        out = []
        for me, op, color, done in zip(self._me, self._op, self._color, self._done, strict=True):
            turn = int(color)
            board = Board.from_bitboards(int(me), int(op), turn, size=self.size)
            if done and not board.is_game_over():  # pragma: no cover - never happens
                raise AssertionError("a finished game whose position is not over")
            out.append(board)
        return out

    def agent_colors(self) -> list[str]:
        """The colour the agent plays in each game."""
        return [COLOR_NAMES[c] for c in self._color]

    def _planes(self, words: np.ndarray) -> np.ndarray:
        """The uint8 planes ``(N, C, size, size)`` of a ``(N, C, 8)`` uint64 word buffer."""
        shape = (self.num_envs, *self.single_observation_space["observation"].shape)
        return words.view(np.uint8)[:, :, : self.size * self.size].reshape(shape)

    def _observation(self) -> dict[str, np.ndarray]:
        obs = self._planes(self._obs)
        if self.copy:
            return {"observation": obs.copy(), "action_mask": self._mask.copy()}
        return {"observation": obs, "action_mask": self._mask}

    def _infos(self) -> dict[str, Any]:
        return {
            "score": self._score.copy(),
            "_score": self._all,
            "opponent_action": self._opp_action.copy(),
            "_opponent_action": self._all,
            "agent_color": self._color.copy(),
            "_agent_color": self._all,
            "illegal_action": self._illegal.copy(),
            "_illegal_action": self._all,
        }

    def _illegal_error(self, index: int, action: int) -> IllegalMoveError:
        board = self.boards()[index]
        legal = ", ".join(square_name(a, self.size) for a in board.legal_actions())
        what = square_name(action, self.size) if 0 <= action <= self.size**2 else "out of range"
        return IllegalMoveError(
            f"game {index}: illegal action {action} ({what}) for the agent "
            f"({COLOR_NAMES[self._color[index]]}) in {board.obf()}; legal moves: {legal}"
        )
