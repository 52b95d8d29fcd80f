"""The tabular agents learn the tutorial's maze, replay under a seed, and check their options."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import ConfigError
from othellolab.envs.maze import TUTORIAL_MAZE, MazeEnv
from othellolab.rl import (
    AGENTS,
    EpsilonSchedule,
    QLearningAgent,
    make_agent,
    run_episode,
    train_agent,
)

SHORTEST = 4  # S0, S3, S4, S7, S8 (the tutorial's solved walk)


@pytest.mark.parametrize(
    ("name", "episodes"),
    [("sarsa", 60), ("q-learning", 60), ("monte-carlo", 60), ("policy-gradient", 100)],
)
@pytest.mark.parametrize("seed", range(5))
def test_each_learner_finds_the_shortest_path(name: str, episodes: int, seed: int) -> None:
    log = train_agent(MazeEnv(), make_agent(name, 4, seed=seed), episodes, greedy_env=MazeEnv())
    assert log.greedy_steps[-1] == SHORTEST, log.greedy_steps
    found = log.first_episode_at(SHORTEST)
    assert found is not None and found <= episodes


def test_random_walk_takes_the_expected_number_of_steps() -> None:
    # Independent source: the expected hitting time of the goal for a uniform walk over the
    # open moves solves (I - P) h = 1 over the eight other cells (an absorbing Markov chain).
    p = np.zeros((8, 8))
    for s in range(8):
        mask = TUTORIAL_MAZE.open_mask(s)
        for a in np.flatnonzero(mask):
            t = TUTORIAL_MAZE.target(s, a)
            if t != 8:
                p[s, t] += 1 / mask.sum()
    expected = np.linalg.solve(np.eye(8) - p, np.ones(8))[0]
    assert expected == pytest.approx(46.0)  # the solve gives 46 moves
    env, agent = MazeEnv(), make_agent("random", 4, seed=1)
    steps = [run_episode(env, agent, seed=1 if i == 0 else None).steps for i in range(2000)]
    se = np.std(steps) / np.sqrt(len(steps))
    assert abs(np.mean(steps) - expected) < 4 * se, (np.mean(steps), expected)


def test_q_values_spread_back_from_the_goal() -> None:
    # Reward 1 on reaching the goal, gamma 0.9: the cell k moves away is worth 0.9**(k-1).
    agent = QLearningAgent(4, seed=0, epsilon=EpsilonSchedule(0.5, 0.9, 0.05))
    train_agent(MazeEnv(), agent, 300)
    for cell, k in ((7, 1), (4, 2), (3, 3), (0, 4)):
        assert agent.state_value(cell) == pytest.approx(0.9 ** (k - 1), abs=0.01), cell


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_seeded_runs_replay_exactly(name: str) -> None:
    runs = [
        train_agent(MazeEnv(), make_agent(name, 4, seed=7), 20, greedy_env=MazeEnv()).steps
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_epsilon_schedule_halves_from_a_half() -> None:
    schedule = EpsilonSchedule()
    assert [schedule(e) for e in range(3)] == [0.5, 0.25, 0.125]
    assert EpsilonSchedule(1.0, 0.5, 0.1)(10) == 0.1


@pytest.mark.parametrize(
    ("name", "options", "option"),
    [
        ("q-learning", {"eta": 0.0}, "eta"),
        ("sarsa", {"gamma": 1.5}, "gamma"),
        ("monte-carlo", {"eta": float("nan")}, "eta"),
        ("policy-gradient", {"beta": -1.0}, "beta"),
        ("q-learning", {"q_init": float("inf")}, "q_init"),
    ],
)
def test_bad_options_raise_config_errors(name: str, options: dict, option: str) -> None:
    with pytest.raises(ConfigError, match=f"option {option}: must be a finite number"):
        make_agent(name, 4, **options)


def test_bad_schedule_and_unknown_agent() -> None:
    with pytest.raises(ConfigError, match="option epsilon: must be a finite number in"):
        EpsilonSchedule(start=2.0)
    with pytest.raises(ConfigError, match="unknown agent 'dqn'"):
        make_agent("dqn", 4)


def test_tables_grow_past_their_first_allocation() -> None:
    # Regression: a new row may reallocate the table; the row must be read after that.
    agent = QLearningAgent(3, seed=0, q_init=0.0)
    mask = np.array([1, 1, 0])
    for s in range(100):
        agent.act(s, mask)
        agent.observe(1.0, s + 1, mask, terminated=False)
    assert len(agent.q) == 101
    assert np.isnan(agent.q.get(50)[2]) and agent.state_value(50) >= 0
