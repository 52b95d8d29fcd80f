"""Monte Carlo control: at the end of each episode, move ``Q[s, a]`` of every step towards the
return that followed it (every visit, constant step ``eta``); no bootstrapping, so it needs
whole episodes but no model of what comes next.

>>> agent = MonteCarloAgent(2, seed=0, q_init=0.0, gamma=0.5)
>>> a = agent.act("s", np.array([1, 1]))
>>> agent.observe(0.0, "t", np.array([1, 1]), terminated=False)
>>> b = agent.act("t", np.array([1, 1]))
>>> agent.observe(1.0, "goal", np.array([0, 0]), terminated=True)
>>> agent.end_episode()
>>> round(float(agent.q.get("s")[a]), 3), round(float(agent.q.get("t")[b]), 3)  # returns 0.5, 1
(0.05, 0.1)
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from othellolab.rl.tabular import EpsilonGreedyAgent, StateKey


class MonteCarloAgent(EpsilonGreedyAgent):
    """Every-visit constant-step Monte Carlo control, acting ε-greedily (defaults as the
    tutorial's TD agents: eta 0.1, gamma 0.9, epsilon 0.5 halved every episode)."""

    name: ClassVar[str] = "monte-carlo"

    def __init__(self, n_actions: int, **options: object) -> None:
        super().__init__(n_actions, **options)  # type: ignore[arg-type]
        self._trajectory: list[tuple[StateKey, int, float]] = []

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        return self._played(state, super().act(state, mask))

    def observe(
        self, reward: float, next_state: StateKey, next_mask: np.ndarray, terminated: bool
    ) -> None:
        self._trajectory.append((*self._take_last(), reward))

    def end_episode(self) -> None:
        g = 0.0
        for state, action, reward in reversed(self._trajectory):
            g = reward + self.gamma * g
            self._move_towards(state, action, g)
        self._trajectory.clear()
        super().end_episode()
