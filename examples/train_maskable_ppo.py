"""Train sb3-contrib's MaskablePPO on 6x6 Othello against random and greedy, and grade it on the
solved 6x6 positions.

``OthelloEnv.action_masks()`` is the method sb3-contrib looks for, so the Gymnasium env works
as it is, with no wrapper. The agent plays either colour (drawn per game); half its training
games are against ``random`` and half against ``greedy`` (two envs in a ``DummyVecEnv``).
Evaluation: 200 games against each opponent (100 as Black, 100 as White), deterministic
masked actions; then the share of the solved 6x6 positions where its move is optimal, and the
discs it loses playing 50 of them out against the exact solver.

    pip install -e '.[rl]'                                    # sb3-contrib (optional extra)
    python examples/train_maskable_ppo.py --steps 20000 --out runs/ppo6
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch

import othellolab.envs  # noqa: F401 - registers the Gymnasium ids
from othellolab.players.search.solved6 import grade_positions, load_solved_set
from othellolab.rl.observe import env_observations

ENV_ID = "othellolab/Othello6x6-v0"


def make_model(seed: int, opponents: tuple[str, ...] = ("random", "greedy")):  # type: ignore[no-untyped-def]
    """A MaskablePPO over one env per opponent (the agent's colour drawn per game)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    def factory(opponent: str):  # type: ignore[no-untyped-def]
        return lambda: gym.make(ENV_ID, opponent=opponent, player_color="random")

    venv = DummyVecEnv([factory(o) for o in opponents])
    venv.seed(seed)
    return MaskablePPO(
        "MultiInputPolicy", venv, seed=seed, n_steps=512, batch_size=128, verbose=0, device="cpu"
    )


def win_rate(model, opponent: str, games: int, seed: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Win and draw rates of the deterministic masked policy, half the games as each colour."""
    env = gym.make(ENV_ID, opponent=opponent)
    wins = draws = 0
    for g in range(games):
        color = "black" if g % 2 == 0 else "white"
        obs, _ = env.reset(seed=seed + g, options={"player_color": color})
        done, reward = False, 0.0
        while not done:
            action, _ = model.predict(
                obs, action_masks=env.unwrapped.action_masks(), deterministic=True
            )
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward > 0
        draws += reward == 0
    env.close()
    return wins / games, draws / games


def policy(model, size: int = 6):  # type: ignore[no-untyped-def]
    """The deterministic masked policy over arrays of bitboards, as the graders take it."""

    def choose(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        obs = env_observations(player, opponent, size)
        actions, _ = model.predict(
            obs, action_masks=obs["action_mask"].astype(bool), deterministic=True
        )
        return np.asarray(actions, dtype=np.int64)

    return choose


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("runs/ppo6"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = make_model(args.seed)
    t0 = time.process_time()
    model.learn(args.steps, progress_bar=False)
    seconds = time.process_time() - t0
    result = {"steps": args.steps, "seed": args.seed, "train_cpu_seconds": round(seconds, 1)}
    for opponent in ("random", "greedy"):
        w, d = win_rate(model, opponent, args.games, seed=1_000_000 + args.seed)
        result[f"win_vs_{opponent}"], result[f"draw_vs_{opponent}"] = w, d
    grade = grade_positions(load_solved_set(), policy(model))
    result.update(
        optimal_share=grade.optimal_share,
        mean_loss=grade.mean_loss,
        mean_game_loss=grade.mean_game_loss,
        perfect_games=grade.perfect_games,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / "result.json.tmp"
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    os.replace(tmp, args.out / "result.json")
    print(
        f"MaskablePPO 6x6, {args.steps} steps ({seconds:.0f} CPU s): wins {result['win_vs_random']:.0%} vs "
        f"random, {result['win_vs_greedy']:.0%} vs greedy; optimal move in "
        f"{grade.optimal_share:.0%} of {grade.positions} solved positions (mean loss "
        f"{grade.mean_loss:.2f} discs); played out against the solver, {grade.mean_game_loss:.1f} "
        f"discs below the exact value on average"
    )


if __name__ == "__main__":
    main()
