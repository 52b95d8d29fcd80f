"""The Othello vector env's step rate against another checkout's, in the same run: each source
tree (``--src``, e.g. this worktree's ``src`` and the base commit's) is timed in its own
subprocess, alternately, and the best of the rounds is kept, so that a refactor can show its
steps within a few percent of before.

    python benchmarks/bench_vector_env.py --src /path/to/base/src --src src --rounds 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CHILD = """
import time, numpy as np
from othellolab.envs import OthelloVectorEnv
envs = OthelloVectorEnv({n}, opponent={opponent!r})
rng = np.random.default_rng(0)
obs, _ = envs.reset(seed=0)
actions = []
for _ in range({steps}):
    a = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(axis=1)
    actions.append(a)
    obs, *_ = envs.step(a)
best = float("inf")
for _ in range(5):
    envs.reset(seed=0)
    t = time.perf_counter()
    for a in actions:
        envs.step(a)
    best = min(best, time.perf_counter() - t)
print({n} * {steps} / best)
"""


def rate(src: str, n: int, opponent: str, steps: int) -> float:
    """Agent steps per second of ``OthelloVectorEnv`` imported from ``src``."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    code = CHILD.format(n=n, opponent=opponent, steps=steps)
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    return float(out.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", action="append", required=True, help="a source tree (twice)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--num-envs", type=int, default=256)
    args = parser.parse_args()
    if args.rounds < 1 or args.steps < 1 or args.num_envs < 1:
        parser.error("--rounds, --steps and --num-envs must be at least 1")
    for opponent in ("random", "greedy"):
        best = dict.fromkeys(args.src, 0.0)
        for _ in range(args.rounds):
            for src in args.src:
                best[src] = max(best[src], rate(src, args.num_envs, opponent, args.steps))
        base = best[args.src[0]]
        for src, r in best.items():
            print(f"{opponent:7s} {src}: {r:,.0f} steps/s ({r / base:.3f}x the first)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
