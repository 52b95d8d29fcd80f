"""The Python agents learn 4x4 Othello through the Gymnasium env, as they learn the maze: the
same calls, states keyed by the position from the side to move."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import othellolab.envs  # noqa: F401 - registers the ids
from othellolab.rl import EpsilonSchedule, QLearningAgent, make_agent, run_episode
from othellolab.rl.tabular import default_key


def mean_score(env, agent, games: int) -> float:
    return float(
        np.mean(
            [run_episode(env, agent, learn=False, seed=10_000 + g).reward for g in range(games)]
        )
    )


def test_q_learning_beats_the_random_walk_against_random() -> None:
    env = gym.make(
        "othellolab/Othello4x4-v0", opponent="random", player_color="random", reward="disc_diff"
    )
    agent = QLearningAgent(
        17, seed=0, q_init=0.0, gamma=1.0, epsilon=EpsilonSchedule(0.5, 1.0, 0.2)
    )
    for e in range(3000):
        run_episode(env, agent, seed=e if e == 0 else None)
    baseline = mean_score(env, make_agent("random", 17, seed=0), 300)
    learnt = mean_score(env, agent, 300)
    assert learnt > baseline + 0.1, (learnt, baseline)  # 0.1 = 1.6 discs of 16


def test_board_observations_are_keyed_from_the_side_to_move() -> None:
    env = gym.make("othellolab/Othello4x4-v0", opponent="random", player_color="white")
    obs, _ = env.reset(seed=0)
    board = env.unwrapped.board
    assert default_key(obs) == (board.player, board.opponent)
