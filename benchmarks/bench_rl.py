"""Speed of tabular learning on 4x4 Othello: the Numba kernels of ``rl/smallboard.py``
against the baseline of the same algorithm in Python (the ``training/rl`` agents on the
Gymnasium env ``othellolab/Othello4x4-v0``), measured in the same run.

Run ``python benchmarks/bench_rl.py --write docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import time
from pathlib import Path

import gymnasium as gym
from bench_core import machine, write_section

import othellolab.envs  # noqa: F401 - registers the ids
from othellolab.players.search.exact4 import Solution4
from othellolab.rl import EpsilonSchedule, QLearningAgent, SarsaAgent, run_episode
from othellolab.rl.smallboard import SmallBoardLearner


def python_rate(agent_cls, opponent: str, seconds: float) -> float:  # type: ignore[no-untyped-def]
    """Games per CPU second of a Python agent learning in the Gymnasium env."""
    env = gym.make(
        "othellolab/Othello4x4-v0", opponent=opponent, player_color="random", reward="disc_diff"
    )
    agent = agent_cls(17, seed=0, q_init=0.0, gamma=1.0, epsilon=EpsilonSchedule(0.5, 1.0, 0.5))
    run_episode(env, agent, seed=0)
    games, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        run_episode(env, agent)
        games += 1
    return games / (time.process_time() - t0)


def kernel_rate(algorithm: str, opponent: str, games: int, solution: Solution4) -> float:
    """Games per CPU second of the Numba learner (best of three batches)."""
    learner = SmallBoardLearner(algorithm, opponent=opponent, solution=solution)
    learner.train(100)  # compile or load from the cache first
    return max(learner.train(games).episodes_per_second for _ in range(3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", type=Path, help="write the 'rl' section of this file")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--games", type=int, default=300_000)
    args = parser.parse_args()
    solution = Solution4.build()
    rows = []
    for name, cls, algorithm in (
        ("Q-learning", QLearningAgent, "q-learning"),
        ("SARSA", SarsaAgent, "sarsa"),
    ):
        for opponent in ("random", "greedy"):
            base = python_rate(cls, opponent, args.seconds)
            fast = kernel_rate(algorithm, opponent, args.games, solution)
            rows.append((f"{name} vs {opponent}", base, fast))
    self_play = kernel_rate("q-learning", "self", args.games, solution)
    perfect = kernel_rate("q-learning", "perfect", args.games, solution)
    date = _dt.date.today().isoformat()
    lines = [
        "## Tabular learning on 4x4 (`benchmarks/bench_rl.py`)\n",
        f"{date}, {machine()}; games per CPU second while learning (epsilon 0.5). Baseline: the "
        "same algorithm as a `training/rl` agent in the Gymnasium env `othellolab/Othello4x4-v0` "
        "(Python, `Board`, the registry's opponent); fast: `SmallBoardLearner` (one Numba call "
        f"per batch of {args.games:,} games, best of 3).\n",
        "| learner | baseline games/s | Numba games/s | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name, base, fast in rows:
        lines.append(f"| {name} | {base:,.0f} | {fast:,.0f} | {fast / base:,.0f}x |")
    lines.append(f"| Q-learning, self-play | - | {self_play:,.0f} | - |")
    lines.append(f"| Q-learning vs perfect (solution lookups) | - | {perfect:,.0f} | - |")
    body = "\n".join(lines) + "\n"
    print(body)
    if args.write:
        write_section(args.write, "rl", body)


if __name__ == "__main__":
    main()
