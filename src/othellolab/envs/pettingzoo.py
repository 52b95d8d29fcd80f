"""A PettingZoo AEC environment: two agents, ``"black"`` and ``"white"``, take turns.

It follows PettingZoo's classic board games: each agent observes a dict with
``"observation"`` and ``"action_mask"`` from its own point of view, an agent with no placing
move must play the pass action (the only one its mask allows), and an illegal action ends the
game with -1 for the offender and +1 for the other agent.

>>> from othellolab.envs.pettingzoo import env
>>> game = env(size=4)
>>> game.reset(seed=0)
>>> game.agent_selection, int(game.observe("black")["action_mask"].sum())
('black', 4)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from othellolab.core import COLOR_NAMES, Board, IllegalMoveError
from othellolab.core.squares import check_size
from othellolab.envs.common import (
    RENDER_MODES,
    REWARD_MODES,
    action_mask,
    check_choice,
    num_planes,
    observation_planes,
    parse_color,
    render,
)

AGENTS = ("black", "white")


class raw_env(AECEnv[str, dict[str, np.ndarray], int]):
    """Othello for two agents; ``env()`` is this wrapped in PettingZoo's standard checks.

    Options:
        size: 8, 6 or 4.
        illegal_action_mode: ``"lose"`` (the offender gets -1, the other +1, the game ends,
            ``infos[offender]["illegal_action"]`` is True) or ``"raise"`` an ``IllegalMoveError``.
        reward: ``"outcome"`` (+1/0/-1) or ``"disc_diff"`` (final disc difference, empties to
            the winner, divided by ``size*size``), given at the end; 0 before.
        legal_plane: add a third observation plane with the observing agent's legal moves.
        render_mode: ``"human"`` (prints), ``"ansi"`` (text) or ``"rgb_array"`` (an image).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "othellolab_othello_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        *,
        size: int = 8,
        illegal_action_mode: str = "lose",
        reward: str = "outcome",
        legal_plane: bool = True,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.size = check_size(size)
        check_choice("illegal_action_mode", illegal_action_mode, ("lose", "raise"))
        check_choice("reward", reward, REWARD_MODES)
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        self.illegal_action_mode = illegal_action_mode
        self.reward_mode = reward
        self.legal_plane = legal_plane
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        n_actions = size * size + 1
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in AGENTS}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    0, 1, (num_planes(legal_plane), size, size), dtype=np.uint8
                ),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.board = Board(size=size)
        self.last_action: int | None = None
        self.agent_selection = AGENTS[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The position from ``agent``'s side; its mask is all zero when it is not to move."""
        color = parse_color(agent)
        live = not self.terminations.get(agent, False)
        planes = observation_planes(self.board, color, legal_plane=self.legal_plane, legal=live)
        mask = action_mask(self.board, color)
        if not live:
            mask[:] = 0
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game from the usual position, black to move (the game has no randomness)."""
        self.agents = list(AGENTS)
        self.board = Board(size=self.size)
        self.last_action = None
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.board.turn]

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to move; the other agent is selected next."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        other = AGENTS[1 - parse_color(agent)]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        a = int(action)
        if not self.board.is_legal(a):
            if self.illegal_action_mode == "raise":
                try:
                    self.board.play(a)
                except (IllegalMoveError, ValueError) as e:
                    raise IllegalMoveError(f"agent {agent!r} action {a}: {e}") from None
            self.rewards[agent], self.rewards[other] = -1.0, 1.0
            self.infos[agent]["illegal_action"] = True
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.board = self.board.play(a)
            self.last_action = a
            if self.board.is_game_over():
                outcome = self.board.outcome()
                assert outcome is not None
                for name in self.agents:
                    color = parse_color(name)
                    if self.reward_mode == "disc_diff":
                        self.rewards[name] = outcome.score(color) / (self.size * self.size)
                    else:
                        self.rewards[name] = float(outcome.result(color))
                self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = (
            other if any(self.terminations.values()) else COLOR_NAMES[self.board.turn]
        )
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The position printed (``"human"``), as text (``"ansi"``) or as an image."""
        return render(self.render_mode, self.board, last=self.last_action)

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], int]:
    """The AEC environment wrapped as PettingZoo's classic games are (bounds and order checks)."""
    game: AECEnv[str, dict[str, np.ndarray], int] = raw_env(**kwargs)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)
