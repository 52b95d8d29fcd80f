"""The measurements of docs/rl.md: every tabular agent on the maze (ten seeded runs each), and
the 4x4 learners graded against exact play, as markdown tables and figures.

    python examples/rl_tables.py --img docs/img    # about three minutes
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from othellolab.envs.maze import MazeEnv
from othellolab.players.search.exact4 import Solution4
from othellolab.rl import EpsilonSchedule, make_agent, train_agent
from othellolab.rl.report import maze_curve_figure, othello_curve_figure, save_figure
from othellolab.rl.smallboard import SmallBoardLearner

MAZE_AGENTS = {
    "random": 100,
    "policy-gradient": 300,
    "sarsa": 100,
    "q-learning": 100,
    "monte-carlo": 100,
}
CHECKPOINTS = (10_000, 100_000, 1_000_000, 10_000_000)


def maze_table(seeds: int, img: Path | None) -> str:
    """Episodes and CPU seconds until the greedy path is the shortest, per agent and seed."""
    shortest = MazeEnv().layout.shortest_path_length()
    lines = [
        f"| agent | episodes | runs that found the {shortest}-move path | first episode, per seed | "
        "median CPU ms to it | mean steps per episode |",
        "|---|---:|---:|---|---:|---:|",
    ]
    logs = {}
    for name, episodes in MAZE_AGENTS.items():
        runs = [
            train_agent(
                MazeEnv(),
                make_agent(name, 4, seed=s),
                episodes,
                seed=s,
                greedy_env=MazeEnv(max_steps=36),
            )
            for s in range(seeds)
        ]
        logs[name] = runs
        mean_steps = np.mean([np.mean(r.steps) for r in runs])
        if name == "random":
            lines.append(f"| {name} | {episodes} | - | - | - | {mean_steps:.1f} |")
            continue
        firsts = [r.first_episode_at(shortest) for r in runs]
        cpu = [r.cpu_seconds[f - 1] * 1000 for r, f in zip(runs, firsts, strict=True) if f]
        lines.append(
            f"| {name} | {episodes} | {sum(f is not None for f in firsts)}/{seeds} | "
            f"{', '.join(str(f) if f else '-' for f in firsts)} | {np.median(cpu):.1f} | {mean_steps:.1f} |"
        )
    if img is not None:
        save_figure(
            maze_curve_figure(logs, shortest),
            img / "rl_maze_curve.png",
        )
    return "\n".join(lines)


def othello_table(img: Path | None) -> str:
    """Optimal-move share and worst-case score against perfect play, against games."""
    solution = Solution4.build()
    decaying = EpsilonSchedule(1.0, 0.9999991, 0.0)  # 1.0 down to about 1e-4 at 10M games
    setups = [
        (f"{a}", o, 0.1, decaying)
        for o in ("self", "random", "greedy", "perfect")
        for a in ("q-learning", "sarsa", "monte-carlo")
    ]
    always = EpsilonSchedule(1.0, 1.0, 1.0)  # uniformly random moves: Q-learning is off-policy
    setups[1:1] = [
        ("q-learning, eta 1, epsilon 1", "self", 1.0, always),
        ("q-learning, epsilon 1", "self", 0.1, always),
    ]
    head = " | ".join(f"{c:,} games" for c in CHECKPOINTS)
    lines = [
        f"| agent | opponent | {head} | games/s |",
        "|---|---|" + "---:|" * (len(CHECKPOINTS) + 1),
    ]
    curves = {}
    for label, opponent, eta, eps in setups:
        algorithm = label.split(",")[0]
        learner = SmallBoardLearner(
            algorithm, opponent=opponent, eta=eta, epsilon=eps, solution=solution
        )
        done, cpu, cells, points = 0, 0.0, [], []
        for mark in CHECKPOINTS:
            stats = learner.train(mark - done)
            done, cpu = mark, cpu + stats.cpu_seconds
            g = learner.grade()
            points.append((done, g.optimal_share))
            cells.append(f"{g.optimal_share:.1%} ({g.score_as_black:+d}/{g.score_as_white:+d})")
        lines.append(f"| {label} | {opponent} | {' | '.join(cells)} | {done / cpu:,.0f} |")
        if opponent == "self":
            curves[label] = points
        print(lines[-1], flush=True)
    if img is not None:
        fig = othello_curve_figure(curves, title="4x4 Othello, self-play: greedy move optimal")
        save_figure(fig, img / "rl_othello4.png")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--img", type=Path, help="write the figures into this folder")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--skip-othello", action="store_true")
    args = parser.parse_args()
    print(maze_table(args.seeds, args.img))
    if not args.skip_othello:
        print(othello_table(args.img))


if __name__ == "__main__":
    main()
