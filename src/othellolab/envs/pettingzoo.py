"""A PettingZoo AEC environment for any game: two agents, named by the game's sides
(``"black"`` and ``"white"`` for Othello), take turns.

It follows PettingZoo's classic board games: each agent observes a dict with
``"observation"`` and ``"action_mask"`` from its own point of view, an agent whose only legal
action is a pass must play it (the only one its mask allows), and an illegal action ends the
game with -1 for the offender and +1 for the other agent.

>>> from othellolab.envs.pettingzoo import env
>>> game = env(size=4)
>>> game.reset(seed=0)
>>> game.agent_selection, int(game.observe("black")["action_mask"].sum())
('black', 4)
>>> shogi = env(game="animal-shogi")
>>> shogi.reset(seed=0)
>>> shogi.agent_selection, int(shogi.observe("sente")["action_mask"].sum())
('sente', 4)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from othellolab.core import IllegalMoveError
from othellolab.core.games import Game, get_game
from othellolab.envs.common import (
    RENDER_MODES,
    REWARD_MODES,
    action_mask,
    check_choice,
    render,
    render_modes,
    reward_of,
    view,
)


class raw_env(AECEnv[str, dict[str, np.ndarray], int]):
    """Any game for two agents, named by the game's sides (``Game.side_names``: ``"black"``
    and ``"white"`` for Othello); ``env()`` is this wrapped in PettingZoo's standard checks.

    Options:
        game: a ``Game`` or a registry name; ``size`` picks the board of a game that has
            several (Othello: 8, 6 or 4).
        illegal_action_mode: ``"lose"`` (the offender gets -1, the other +1, the game ends,
            ``infos[offender]["illegal_action"]`` is True) or ``"raise"`` an ``IllegalMoveError``.
        reward: ``"outcome"`` (+1/0/-1) or ``"score"`` (the final score over the game's
            ``score_scale``; ``"disc_diff"`` names it too: Othello's disc difference, empties to
            the winner, over ``size*size``), given at the end; 0 before.
        legal_plane: add an observation plane of the observing agent's legal moves (None: the
            game's default; Othello has one, on by default).
        render_mode: ``"human"`` (prints), ``"ansi"`` (text) or ``"rgb_array"`` (an image,
            where the game draws).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "othellolab_othello_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        game: str | Game = "othello",
        *,
        size: int | None = None,
        illegal_action_mode: str = "lose",
        reward: str = "outcome",
        legal_plane: bool | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.game = get_game(game, size)
        modes = render_modes(self.game)
        name = "othellolab_" + self.game.name.replace("-", "_") + "_v0"
        self.metadata = {**self.metadata, "render_modes": list(modes), "name": name}
        check_choice("illegal_action_mode", illegal_action_mode, ("lose", "raise"))
        check_choice("reward", reward, REWARD_MODES)
        check_choice("render_mode", render_mode, (None, *modes))
        self.planes = self.game.env_planes(legal_plane)
        self.illegal_action_mode = illegal_action_mode
        self.reward_mode = reward
        self.legal_plane = "legal" in self.planes
        self.render_mode = render_mode
        agents = list(self.game.side_names)
        self.possible_agents = agents
        self.agents = list(agents)
        self._side = {a: i for i, a in enumerate(agents)}
        n_actions = self.game.n_actions
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in agents}
        shape = (len(self.planes), self.game.rows, self.game.cols)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, shape, dtype=self.game.observation_dtype),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in agents}
        self.position = self.game.new_position()
        self.last_action: int | None = None
        self.last_move: str | None = None
        self.agent_selection = agents[0]

    @property
    def board(self) -> Any:
        """The position now (``position``; the name board games use)."""
        return self.position

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The position from ``agent``'s side; its mask is all zero when it is not to move."""
        side = self._side[agent]
        live = not self.terminations.get(agent, False)
        p, o = view(self.game, self.position, side)
        legal = live and self.position.turn == side
        planes = self.game.observe(p, o, self.planes, legal=legal)
        mask = action_mask(self.position, side)
        if not live:
            mask[:] = 0
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game from the start position, the first player to move (the game has no
        randomness)."""
        self.agents = list(self.possible_agents)
        self.position = self.game.new_position()
        self.last_action = None
        self.last_move = None
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.position.turn]

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to move; the other agent is selected next."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        other = self.possible_agents[1 - self._side[agent]]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        a = int(action)
        if a not in self.position.legal_actions():
            if self.illegal_action_mode == "raise":
                try:
                    self.position.play(a)
                except (IllegalMoveError, ValueError) as e:
                    raise IllegalMoveError(f"agent {agent!r} action {a}: {e}") from None
            self.rewards[agent], self.rewards[other] = -1.0, 1.0
            self.infos[agent]["illegal_action"] = True
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.last_move = self.game.move_name(self.position, a)
            self.position = self.position.play(a)
            self.last_action = a
            p, o = self.position.state
            score = self.game.result(p, o)
            if score is not None:
                for name in self.agents:
                    mine = score if self.position.turn == self._side[name] else -score
                    self.rewards[name] = reward_of(self.reward_mode, self.game, mine)
                self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = (
            other if any(self.terminations.values()) else self.possible_agents[self.position.turn]
        )
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The position printed (``"human"``), as text (``"ansi"``) or as an image."""
        return render(
            self.render_mode, self.game, self.position, last=self.last_action,
            last_name=self.last_move,
        )  # fmt: skip

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], int]:
    """The AEC environment wrapped as PettingZoo's classic games are (bounds and order checks)."""
    game: AECEnv[str, dict[str, np.ndarray], int] = raw_env(**kwargs)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)
