"""SARSA: move ``Q[s, a]`` towards ``r + gamma * Q[s', a']`` where ``a'`` is the action the agent
will really take next (on-policy: exploration is part of what it learns).

>>> agent = SarsaAgent(2, seed=0, q_init=0.0)
>>> a = agent.act("s", np.array([1, 1]))
>>> agent.observe(1.0, "goal", np.array([0, 0]), terminated=True)
>>> round(float(agent.q.get("s")[a]), 3)
0.1
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from othellolab.rl.tabular import EpsilonGreedyAgent, StateKey


class SarsaAgent(EpsilonGreedyAgent):
    """Tabular SARSA with the tutorial's defaults (eta 0.1, gamma 0.9, epsilon 0.5 halved every
    episode). The next action is chosen when the transition is observed, and then played."""

    name: ClassVar[str] = "sarsa"
    _last: tuple[StateKey, int] | None = None
    _next: tuple[StateKey, int] | None = None

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        if self._next is not None and self._next[0] == state:
            action = self._next[1]
        else:
            action = super().act(state, mask)
        self._next = None
        self._last = (state, action)
        return action

    def observe(
        self, reward: float, next_state: StateKey, next_mask: np.ndarray, terminated: bool
    ) -> None:
        assert self._last is not None, "observe() before act()"
        state, action = self._last
        target = reward
        if not terminated:
            next_action = super().act(next_state, next_mask)
            self._next = (next_state, next_action)
            target += self.gamma * self.q.data[self.q.index[next_state], next_action]
        row = self.q.data[self.q.index[state]]
        row[action] += self.eta * (target - row[action])
        self._last = None

    def end_episode(self) -> None:
        self._next = None
        super().end_episode()
