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

from othellolab.rl.tabular import StateKey, TemporalDifferenceAgent


class SarsaAgent(TemporalDifferenceAgent):
    """Tabular SARSA with the tutorial's defaults (eta 0.1, gamma 0.9, epsilon 0.5 halved every
    episode). The next action is chosen when the transition is observed, and then played."""

    name: ClassVar[str] = "sarsa"
    _next: tuple[StateKey, int] | None = None

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        if self._next is not None and self._next[0] == state:
            action = self._next[1]
        else:
            action = super().act(state, mask)
        self._next = None
        return self._played(state, action)

    def _next_value(self, state: StateKey, mask: np.ndarray) -> float:
        next_action = super().act(state, mask)
        self._next = (state, next_action)
        return float(self.q.data[self.q.index[state], next_action])

    def end_episode(self) -> None:
        self._next = None
        super().end_episode()
