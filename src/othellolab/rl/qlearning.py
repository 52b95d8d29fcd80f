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

from othellolab.rl.tabular import EpsilonGreedyAgent, StateKey


class QLearningAgent(EpsilonGreedyAgent):
    """Tabular Q-learning with the tutorial's defaults: eta 0.1, gamma 0.9, epsilon 0.5
    halved every episode, Q starting uniform in [0, 1)."""

    name: ClassVar[str] = "q-learning"
    _last: tuple[StateKey, int] | None = None

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        action = super().act(state, mask)
        self._last = (state, action)
        return action

    def observe(
        self, reward: float, next_state: StateKey, next_mask: np.ndarray, terminated: bool
    ) -> None:
        assert self._last is not None, "observe() before act()"
        state, action = self._last
        target = reward
        if not terminated:
            target += self.gamma * self.best_value(next_state, next_mask)
        row = self.q.data[self.q.index[state]]
        row[action] += self.eta * (target - row[action])
        self._last = None
