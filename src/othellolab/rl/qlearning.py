"""Q-learning: move ``Q[s, a]`` towards ``r + gamma * max_a' Q[s', a']``, whatever the agent
does next (off-policy), so the greedy policy can become optimal while the agent still explores.

>>> agent = QLearningAgent(2, seed=0, q_init=0.0)
>>> a = agent.act("s", np.array([1, 1]))
>>> agent.observe(1.0, "goal", np.array([0, 0]), terminated=True)
>>> round(float(agent.q.get("s")[a]), 3)   # eta 0.1 of the way from 0 to the reward 1
0.1
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from othellolab.rl.tabular import StateKey, TemporalDifferenceAgent


class QLearningAgent(TemporalDifferenceAgent):
    """Tabular Q-learning with the tutorial's defaults: eta 0.1, gamma 0.9, epsilon 0.5
    halved every episode, Q starting uniform in [0, 1)."""

    name: ClassVar[str] = "q-learning"

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        return self._played(state, super().act(state, mask))

    def _next_value(self, state: StateKey, mask: np.ndarray) -> float:
        return self.best_value(state, mask)
