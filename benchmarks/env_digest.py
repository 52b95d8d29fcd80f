"""Digests of the environments' behaviour that a refactor must not change: fixed-seed episodes
in every env (Othello single-agent against random and greedy opponents on 6x6 and 8x8, the
vector env in both auto-reset modes, the PettingZoo AEC env, the animal shogi env), hashing
observations, masks, rewards, flags and infos step by step.

Run it on two commits and compare the JSON: every digest must match.

    python benchmarks/env_digest.py --out before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


class Digest:
    """A running SHA-256 over canonical forms of arrays, numbers, strings and containers."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, value: Any) -> None:
        self.h.update(self._canon(value).encode())

    def _canon(self, v: Any) -> str:
        if isinstance(v, np.ndarray):
            a = np.ascontiguousarray(v)
            return f"a{a.dtype}{a.shape}{hashlib.sha256(a.tobytes()).hexdigest()}"
        if isinstance(v, dict):
            return "{" + ",".join(f"{k!r}:{self._canon(v[k])}" for k in sorted(v)) + "}"
        if isinstance(v, list | tuple):
            return "[" + ",".join(self._canon(x) for x in v) + "]"
        if isinstance(v, bool | np.bool_):
            return f"b{bool(v)}"
        if isinstance(v, int | np.integer):
            return f"i{int(v)}"
        if isinstance(v, float | np.floating):
            return f"f{float(v)!r}"
        return f"s{v!s}"

    def hex(self) -> str:
        return self.h.hexdigest()[:16]


def legal_choice(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (or of the one row)."""
    return (rng.random(mask.shape) * mask).argmax(axis=-1)


def single_env(make: Any, episodes: int, seed: int, *, mask_of: Any, every: int = 7) -> str:
    """Episodes of a single-agent env: random legal actions, and action 0 at every ``every``-th step
    (mostly illegal: the env's ``illegal_action_mode`` decides; a raised error's message is
    hashed and the env goes on with a legal action)."""
    from othellolab.core import IllegalMoveError

    env = make()
    d = Digest()
    rng = np.random.default_rng(seed)
    for e in range(episodes):
        obs, info = env.reset(seed=seed + e if e % 2 == 0 else None)
        d.add((obs, info))
        done, k = False, 0
        while not done:
            k += 1
            mask = mask_of(obs, info)
            a = int(legal_choice(mask, rng))
            if k % every == 0:
                try:  # the mode decides; "raise" leaves the env as it was
                    obs, reward, done, truncated, info = env.step(0)
                except IllegalMoveError as e:
                    d.add(str(e))
                else:
                    d.add((obs, reward, done, truncated, info, env.action_masks()))
                    continue
            obs, reward, done, truncated, info = env.step(a)
            d.add((obs, reward, done, truncated, info, env.action_masks()))
    return d.hex()


def vector_env(make: Any, steps: int, seed: int) -> str:
    """``steps`` batched steps of random legal actions, a reseeded reset half way."""
    envs = make()
    d = Digest()
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    d.add((obs, info))
    for k in range(steps):
        if k == steps // 2:
            obs, info = envs.reset(seed=seed + 1)
            d.add((obs, info))
        actions = legal_choice(obs["action_mask"], rng)
        obs, reward, terminated, truncated, info = envs.step(actions)
        d.add((obs, reward, terminated, truncated, info, envs.action_masks()))
    return d.hex()


def aec_env(make: Any, games: int, seed: int) -> str:
    """Whole PettingZoo games of random legal actions; every agent's view after every step."""
    d = Digest()
    rng = np.random.default_rng(seed)
    for g in range(games):
        env = make()
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            d.add((agent, obs, reward, terminated, truncated, info))
            d.add([env.observe(a) for a in env.possible_agents])
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(legal_choice(obs["action_mask"], rng)))
        d.add((env.rewards, env.terminations))
    return d.hex()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from othellolab.envs import AnimalShogiEnv, OthelloEnv, OthelloVectorEnv
    from othellolab.envs.pettingzoo import raw_env

    out: dict[str, str] = {}

    def record(name: str, value: str) -> None:
        out[name] = value
        print(name, value, flush=True)

    dict_mask = lambda obs, info: obs["action_mask"]  # noqa: E731
    info_mask = lambda obs, info: info["action_mask"]  # noqa: E731
    for size in (6, 8):
        for opponent in ("random", "greedy"):
            for mode, reward in (("mask", "outcome"), ("lose", "disc_diff")):
                name = f"gym othello{size} {opponent} {mode} {reward}"
                kw = dict(
                    size=size,
                    opponent=opponent,
                    player_color="random",
                    illegal_action_mode=mode,
                    reward=reward,
                )
                make = lambda kw=kw: OthelloEnv(**kw)  # noqa: E731
                record(name, single_env(make, 8, size, mask_of=dict_mask))
    make = lambda: OthelloEnv(size=6, allow_resign=True, legal_plane=False)  # noqa: E731
    record("gym othello6 resign noplane", single_env(make, 4, 1, mask_of=dict_mask))
    for opponent in ("random", "shogi-alphabeta:depth=1"):
        for mode in ("mask", "lose"):
            kw = dict(opponent=opponent, player_color="random", illegal_action_mode=mode)
            make = lambda kw=kw: AnimalShogiEnv(**kw)  # noqa: E731
            record(
                f"gym animal-shogi {opponent} {mode}",
                single_env(make, 12, 3, mask_of=info_mask, every=2),
            )
    for size in (6, 8):
        for opponent in ("random", "greedy"):
            for autoreset in ("next_step", "same_step"):
                kw = dict(
                    size=size,
                    opponent=opponent,
                    player_color="random",
                    autoreset_mode=autoreset,
                    illegal_action_mode="mask",
                )
                make = lambda kw=kw: OthelloVectorEnv(16, **kw)  # noqa: E731
                record(f"vector othello{size} {opponent} {autoreset}", vector_env(make, 120, 5))
    make = lambda: OthelloVectorEnv(  # noqa: E731
        8, size=4, allow_resign=True, reward="disc_diff", legal_plane=False
    )
    record("vector othello4 resign disc_diff noplane", vector_env(make, 60, 6))
    for size in (4, 6, 8):
        for reward in ("outcome", "disc_diff"):
            make = lambda s=size, r=reward: raw_env(size=s, reward=r)  # noqa: E731
            record(f"pettingzoo othello{size} {reward}", aec_env(make, 4, 7))
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
