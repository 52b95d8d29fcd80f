"""Train the DQN of ``examples/train_dqn.py`` on 4x4 or 6x6 and grade it against exact play.

4x4 is graded on the full solution (``players/search/exact4.py``): the share of the 22,191
reachable positions with a choice where its greedy move is optimal, and its worst-case score
against perfect play as Black and as White (perfect: -10 and +10). 6x6 is graded on the solved
position set (``players/search/solved6.py``).

    python examples/grade_dqn.py --size 4 --transitions 100000 --out runs/dqn4
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from othellolab.players.search.exact4 import Solution4
from othellolab.players.search.solved6 import grade_positions, load_solved_set
from othellolab.rl.observe import env_observations


def load_train_dqn():  # type: ignore[no-untyped-def]
    """The sibling example as a module."""
    path = Path(__file__).resolve().parent / "train_dqn.py"
    spec = importlib.util.spec_from_file_location("train_dqn", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_dqn"] = module
    spec.loader.exec_module(module)
    return module


def network_policy(net: torch.nn.Module, size: int):  # type: ignore[no-untyped-def]
    """The network's greedy legal move over arrays of bitboards."""

    def choose(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        obs = env_observations(player, opponent, size)
        with torch.no_grad():
            q = net(torch.as_tensor(obs["observation"]))
        q = q.masked_fill(torch.as_tensor(obs["action_mask"]) == 0, -torch.inf)
        return q.argmax(dim=1).numpy()

    return choose


def grade(net: torch.nn.Module, size: int) -> dict[str, float]:
    """The grades of a trained network on its board size."""
    choose = network_policy(net, size)
    if size == 4:
        g = Solution4.build().grade(choose)
        return {
            "optimal_share": g.optimal_share,
            "mean_loss": g.mean_loss,
            "score_as_black": g.score_as_black,
            "score_as_white": g.score_as_white,
        }
    p = grade_positions(load_solved_set(), choose)
    return {
        "optimal_share": p.optimal_share,
        "mean_loss": p.mean_loss,
        "mean_game_loss": p.mean_game_loss,
        "perfect_games": p.perfect_games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, choices=(4, 6), default=4)
    parser.add_argument("--transitions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/dqn-graded"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    ex = load_train_dqn()
    cfg = ex.Config(
        size=args.size,
        transitions=args.transitions,
        seed=args.seed,
        eval_every=max(args.transitions // 4, 1),
    )
    net, result = ex.train(cfg, progress=False)
    grades = grade(net, args.size)
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / "graded.json.tmp"
    tmp.write_text(
        json.dumps(
            {
                "config": asdict(cfg),
                "win_vs_random": result.win_rate,
                "seconds": result.seconds,
                **grades,
            },
            indent=1,
        )
        + "\n"
    )
    os.replace(tmp, args.out / "graded.json")
    print(
        f"DQN {args.size}x{args.size}, {result.transitions} transitions in {result.seconds:.0f} s: "
        f"wins {result.win_rate:.0%} vs random; "
        + ", ".join(
            f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in grades.items()
        )
    )


if __name__ == "__main__":
    main()
