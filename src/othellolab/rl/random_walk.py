"""The random walk: a uniformly random legal action every step, learning nothing (the
tutorial's first agent, and the baseline every learner is compared with)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from othellolab.rl.tabular import StateKey, TabularAgent


class RandomWalkAgent(TabularAgent):
    """Chooses uniformly among the legal actions; its greedy action is the same draw."""

    name: ClassVar[str] = "random"

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        return self._random_legal(mask)

    def greedy_action(self, state: StateKey, mask: np.ndarray) -> int:
        return self._random_legal(mask)
