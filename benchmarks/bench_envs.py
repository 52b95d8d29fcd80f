"""Speed of the environments: agent steps per second of the single Gymnasium env, of
Gymnasium's own ``SyncVectorEnv`` over it, and of the Numba vector env at N=256.

Only ``step`` is timed (the agent's actions are computed outside the timed region), each figure
is the best of several rounds, and ratios are taken against the single env measured in the same
run. pgx's Othello (JAX, CPU) is measured too when pgx is installed (``pip install .[bench]``).
Run ``python benchmarks/bench_envs.py --write docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import machine, write_section

from othellolab.envs import OthelloEnv, OthelloVectorEnv


def legal_choice(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row."""
    return (rng.random(mask.shape) * mask).argmax(axis=-1)


def single_env_rate(seconds: float, seed: int = 0) -> float:
    """Agent steps per second of one ``OthelloEnv`` (8x8, random opponent)."""
    env = OthelloEnv(opponent="random")
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    steps, timed = 0, 0.0
    while timed < seconds:
        a = int(legal_choice(obs["action_mask"], rng))
        t = time.perf_counter()
        obs, _, done, _, _ = env.step(a)
        if done:
            obs, _ = env.reset()
        timed += time.perf_counter() - t
        steps += 1
    return steps / timed


def sync_vector_rate(n: int, seconds: float, seed: int = 0) -> float:
    """Agent steps per second of Gymnasium's ``SyncVectorEnv`` over ``n`` ``OthelloEnv``."""
    envs = gym.vector.SyncVectorEnv([lambda: OthelloEnv(opponent="random") for _ in range(n)])
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    steps, timed = 0, 0.0
    while timed < seconds:
        a = legal_choice(obs["action_mask"], rng)
        t = time.perf_counter()
        obs, *_ = envs.step(a)
        timed += time.perf_counter() - t
        steps += n
    envs.close()
    return steps / timed


def vector_rate(n: int, opponent: str, rounds: int, steps: int, *, copy: bool = True) -> float:
    """Agent steps per second of ``OthelloVectorEnv`` (best of ``rounds`` replays of the same
    ``steps`` batches of legal actions, recorded first so that only ``step`` is timed)."""
    envs = OthelloVectorEnv(n, opponent=opponent, copy=copy)
    rng = np.random.default_rng(0)
    obs, _ = envs.reset(seed=0)
    actions = []
    for _ in range(steps):
        a = legal_choice(obs["action_mask"], rng)
        actions.append(a)
        obs, *_ = envs.step(a)
    best = float("inf")
    for _ in range(rounds):
        envs.reset(seed=0)
        t = time.perf_counter()
        for a in actions:
            envs.step(a)
        best = min(best, time.perf_counter() - t)
    return n * steps / best


def pgx_rate(n: int, steps: int) -> float | None:
    """Agent steps per second of pgx's Othello on the CPU (jitted, vmapped), if installed."""
    try:
        import jax  # type: ignore[import-not-found]
        import pgx  # type: ignore[import-not-found]
    except ImportError:
        return None
    env = pgx.make("othello")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))

    def act(key, mask):  # type: ignore[no-untyped-def]
        logits = jax.numpy.where(mask, 0.0, -jax.numpy.inf)
        return jax.random.categorical(key, logits, axis=-1)

    act = jax.jit(act)
    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, n))
    keys = jax.random.split(key, steps)
    actions = []
    for k in keys:  # record legal actions first (pgx's states are immutable)
        a = act(k, state.legal_action_mask)
        actions.append(a)
        state = step(state, a)
    state0 = init(jax.random.split(key, n))
    state = step(state0, actions[0])
    state.observation.block_until_ready()
    best = float("inf")
    for _ in range(3):
        state = state0
        t = time.perf_counter()
        for a in actions:
            state = step(state, a)
        state.observation.block_until_ready()
        best = min(best, time.perf_counter() - t)
    return n * steps / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", type=Path, help="write the 'envs' section of this file")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()

    vector_rate(8, "random", 1, 5)  # compile (or load from the cache) first
    vector_rate(8, "greedy", 1, 5)
    single = single_env_rate(args.seconds)
    sync = sync_vector_rate(256, args.seconds)
    vec = vector_rate(256, "random", 5, 400)
    vec_nocopy = vector_rate(256, "random", 5, 400, copy=False)
    vec_greedy = vector_rate(256, "greedy", 5, 400)
    pgx = pgx_rate(256, 100)

    rows = [
        ("`OthelloEnv` (single env, Python + `Board`)", single),
        ("`gymnasium.vector.SyncVectorEnv` of 256 `OthelloEnv`", sync),
        ("`OthelloVectorEnv` N=256 vs batched random", vec),
        ("`OthelloVectorEnv` N=256 vs batched random, `copy=False`", vec_nocopy),
        ("`OthelloVectorEnv` N=256 vs batched greedy", vec_greedy),
        ("pgx `othello` N=256, CPU (jit + vmap)", pgx),
    ]
    date = _dt.date.today().isoformat()
    lines = [
        "## Environments (`benchmarks/bench_envs.py`)\n",
        f"{date}, {machine()}; 8x8, agent steps per second of `step` alone "
        "(the agent's legal actions computed outside the timed region); the vector figures are "
        "the best of 5 replays of 400 batches (a next-step auto-reset counts as a step, about 1 "
        "in 31 on 8x8). An agent step of ours is the agent's move and the opponent's reply; a "
        "pgx step is one move of either side (XLA may use both cores). Ratios are to the pure "
        "Gymnasium loop (the single env) and to pgx, measured in the same run.\n",
        "| environment | agent steps/s | ratio to single env | ratio to pgx |",
        "|---|---:|---:|---:|",
    ]
    for name, rate in rows:
        if rate is None:
            lines.append(f"| {name} | not installed | - | - |")
        else:
            vs_pgx = f"{rate / pgx:,.2f}x" if pgx else "-"
            lines.append(f"| {name} | {rate:,.0f} | {rate / single:,.1f}x | {vs_pgx} |")
    body = "\n".join(lines) + "\n"
    print(body)
    if args.write:
        write_section(args.write, "envs", body)


if __name__ == "__main__":
    main()
