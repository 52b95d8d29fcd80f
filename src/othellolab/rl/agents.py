"""The tabular agents by name, for the command line and for experiments."""

from __future__ import annotations

from typing import Any

from othellolab.core import ConfigError
from othellolab.rl.montecarlo import MonteCarloAgent
from othellolab.rl.policy_gradient import PolicyGradientAgent
from othellolab.rl.qlearning import QLearningAgent
from othellolab.rl.random_walk import RandomWalkAgent
from othellolab.rl.sarsa import SarsaAgent
from othellolab.rl.tabular import TabularAgent

AGENTS: dict[str, type[TabularAgent]] = {
    cls.name: cls
    for cls in (RandomWalkAgent, PolicyGradientAgent, SarsaAgent, QLearningAgent, MonteCarloAgent)
}
"""Agent classes by name: ``random``, ``policy-gradient``, ``sarsa``, ``q-learning``,
``monte-carlo``."""


def make_agent(name: str, n_actions: int, **options: Any) -> TabularAgent:
    """A new agent of the named kind; ``options`` are its keyword options (``eta``, ``gamma``,
    ``epsilon``, ``seed``, ...)."""
    cls = AGENTS.get(name)
    if cls is None:
        raise ConfigError(
            f"unknown agent {name!r}; choose one of {', '.join(AGENTS)}", where="rl", option="agent"
        )
    return cls(n_actions, **options)
