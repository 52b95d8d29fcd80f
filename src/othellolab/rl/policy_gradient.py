"""Policy gradient on a softmax table: ``pi(a | s) = softmax(beta * theta[s])`` over the legal
actions, ``theta`` moved after each episode along the REINFORCE gradient.

The update is ``theta[s, a] += eta * sum_t G_t * (1[a = a_t] - pi(a | s_t)) / T`` over the
``T`` steps ``t`` spent in ``s``. On the tutorial's maze (reward 1 at the goal only, gamma 1)
every ``G_t`` is 1 and this is exactly the tutorial's rule ``(N(s, a) - pi(a | s) N(s)) / T``:
short episodes push harder towards the moves they used.

>>> agent = PolicyGradientAgent(2, seed=0)
>>> agent.probabilities("s", np.array([1, 1])).tolist()   # theta starts at 1 everywhere
[0.5, 0.5]
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from othellolab.config import check_number
from othellolab.rl.tabular import StateKey, StateTable, TabularAgent


class PolicyGradientAgent(TabularAgent):
    """The tutorial's policy-gradient agent: theta starts at 1 on every legal action, eta 0.1,
    beta 1 (the softmax's inverse temperature), gamma 1."""

    name: ClassVar[str] = "policy-gradient"

    def __init__(
        self,
        n_actions: int,
        *,
        eta: float = 0.1,
        beta: float = 1.0,
        gamma: float = 1.0,
        seed: int | None = None,
    ) -> None:
        super().__init__(n_actions, seed=seed)
        self.eta = check_number(eta, "eta", where=self.name, low=0.0, high=100.0, low_open=True)
        self.beta = check_number(beta, "beta", where=self.name, low=0.0, high=100.0, low_open=True)
        self.gamma = check_number(gamma, "gamma", where=self.name, low=0.0, high=1.0)
        self.theta = StateTable(n_actions, init=0.0, rng=self.rng)
        self._trajectory: list[tuple[StateKey, int, float]] = []

    def probabilities(self, state: StateKey, mask: np.ndarray) -> np.ndarray:
        """``pi(. | state)``: the softmax of ``beta * theta`` over the legal actions, 0 elsewhere."""
        i = self.theta.index.get(state)
        if i is None:
            i = self.theta.row(state, mask)
            self.theta.data[i, np.asarray(mask) != 0] = 1.0
        theta = self.theta.data[i]
        legal = np.asarray(mask) != 0
        z = np.where(legal, self.beta * np.nan_to_num(theta, nan=0.0), -np.inf)
        e = np.exp(z - z[legal].max())
        return e / e.sum()

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        pi = self.probabilities(state, mask)
        return self._played(state, int(self.rng.choice(self.n_actions, p=pi)))

    def observe(
        self, reward: float, next_state: StateKey, next_mask: np.ndarray, terminated: bool
    ) -> None:
        self._trajectory.append((*self._take_last(), reward))

    def end_episode(self) -> None:
        steps = len(self._trajectory)
        if steps:
            returns = np.zeros(steps)
            g = 0.0
            for t in range(steps - 1, -1, -1):
                g = self._trajectory[t][2] + self.gamma * g
                returns[t] = g
            grad: dict[int, np.ndarray] = {}
            for (state, action, _), g in zip(self._trajectory, returns, strict=True):
                i = self.theta.index[state]
                legal = ~np.isnan(self.theta.data[i])
                pi = self.probabilities(state, legal)
                step = grad.setdefault(i, np.zeros(self.n_actions))
                step -= g * pi
                step[action] += g
            for i, step in grad.items():
                self.theta.data[i] += self.eta * step / steps
        self._trajectory.clear()
        super().end_episode()

    def greedy_action(self, state: StateKey, mask: np.ndarray) -> int:
        """The most probable action (the lowest index among ties)."""
        return int(np.argmax(self.probabilities(state, mask)))

    def state_value(self, state: StateKey) -> float:
        """The probability of the most probable action in ``state`` (how sure the policy is;
        NaN for a state never seen)."""
        i = self.theta.index.get(state)
        if i is None:
            return float("nan")
        return float(self.probabilities(state, ~np.isnan(self.theta.data[i])).max())
