"""Reinforcement learning without networks: tabular agents, one algorithm a module, and 4x4
Othello graded against its exact solution.

The agents (``random_walk``, ``policy_gradient``, ``sarsa``, ``qlearning``, ``montecarlo``)
work on any Gymnasium-style environment with a small set of states and a legal-action mask in
``info["action_mask"]`` (the maze of ``othellolab.envs.maze``, or 4x4 Othello), through the
episode loop of ``tabular``. ``smallboard`` runs the same updates in one Numba kernel per batch
of 4x4 games (self-play or against a fixed opponent), and ``exact4`` holds the full 4x4
solution that grades them. This package imports nothing from ``envs`` (which ranks above
``training``): agents see states and masks, never an environment class.
"""

from othellolab.rl.agents import AGENTS, make_agent
from othellolab.rl.montecarlo import MonteCarloAgent
from othellolab.rl.policy_gradient import PolicyGradientAgent
from othellolab.rl.qlearning import QLearningAgent
from othellolab.rl.random_walk import RandomWalkAgent
from othellolab.rl.sarsa import SarsaAgent
from othellolab.rl.tabular import (
    EpisodeResult,
    EpsilonSchedule,
    TabularAgent,
    TrainingLog,
    run_episode,
    train_agent,
)

__all__ = [
    "AGENTS",
    "EpisodeResult",
    "EpsilonSchedule",
    "MonteCarloAgent",
    "PolicyGradientAgent",
    "QLearningAgent",
    "RandomWalkAgent",
    "SarsaAgent",
    "TabularAgent",
    "TrainingLog",
    "make_agent",
    "run_episode",
    "train_agent",
]
