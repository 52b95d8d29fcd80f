"""Speed (and optionally strength) of the Monte Carlo and MCTS players.

Every speed figure has a ratio to a baseline measured in the same run: Monte Carlo playouts in
the kernel against playouts driven from Python through the ``Board`` API, and MCTS simulations
against the kernel's playout rate (a simulation costs at least one playout). Run
``python benchmarks/bench_mcts.py --write docs/benchmarks.md``; ``--strength`` also plays
matches (a few minutes) and prints win rates for docs/players.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_core import best_of, machine, write_section

from othellolab import Board
from othellolab.core import kernels as k
from othellolab.players import (
    MCTS,
    MonteCarloPlayer,
    Player,
    RandomPlayer,
    RandomRolloutEvaluator,
    make_player,
)
from othellolab.players.montecarlo import montecarlo_playouts


def kernel_playouts(board: Board, n: int, seed: int) -> None:
    """``n`` Monte Carlo playouts over the legal moves of ``board`` in one kernel call."""
    acts = np.array(board.legal_actions(), dtype=np.int64)
    z = np.zeros(len(acts))
    montecarlo_playouts(
        board.player,
        board.opponent,
        acts,
        np.zeros(len(acts), dtype=np.int64),
        z,
        z.copy(),
        n,
        1,
        1.0,
        k.rng_seed(seed),
        board.size,
    )


def python_playouts(board: Board, n: int, seed: int) -> None:
    """The same playouts driven from Python: ``Board.legal_actions``/``play``, Python's RNG."""
    rng = random.Random(seed)
    actions = board.legal_actions()
    for i in range(n):
        b = board.play(actions[i % len(actions)])
        moves = b.legal_actions()
        while moves:
            b = b.play(rng.choice(moves))
            moves = b.legal_actions()


def mcts_rate(sims: int, batch: int, playouts: int = 1) -> float:
    """MCTS simulations per second from the 8x8 start position (random-rollout UCT)."""
    tree = MCTS(RandomRolloutEvaluator(playouts, seed=1), batch=batch)

    def run() -> None:
        tree.reset()
        tree.search(Board(), simulations=sims)

    return sims / best_of(run)


def match(
    make_a: Callable[[int], Player], make_b: Callable[[int], Player], games: int, size: int = 8
) -> tuple[int, int, int]:
    """(wins, draws, losses) of A against B, colours alternating, fresh seeded players per game."""
    wins = draws = 0
    for g in range(games):
        a, b = make_a(g), make_b(g)
        color, board = g % 2, Board(size=size)
        while not board.is_game_over():
            board = board.play((a if board.turn == color else b).choose(board).move)
        result = board.outcome().result(color)  # type: ignore[union-attr]
        wins += result == 1
        draws += result == 0
    return wins, draws, games - wins - draws


def strength(quick: bool) -> list[tuple[str, str]]:
    """Win/draw/loss records of the players against random and against each other."""
    n = 20 if quick else 100
    rows = []
    for label, make_a, make_b, games, size in [
        (
            "montecarlo (150 playouts/move) vs random, 8x8",
            lambda g: MonteCarloPlayer(seed=g),
            lambda g: RandomPlayer(seed=10_000 + g),
            n,
            8,
        ),
        (
            "mcts (1000 sims) vs random, 8x8",
            lambda g: make_player(f"mcts:seed={g}"),
            lambda g: RandomPlayer(seed=10_000 + g),
            n // 5,
            8,
        ),
        (
            "mcts (300 sims) vs random, 6x6",
            lambda g: make_player(f"mcts:sims=300,seed={g}"),
            lambda g: RandomPlayer(seed=10_000 + g),
            n // 2,
            6,
        ),
        (
            "mcts (1000 sims) vs montecarlo (150 playouts/move), 8x8",
            lambda g: make_player(f"mcts:seed={g}"),
            lambda g: MonteCarloPlayer(seed=10_000 + g),
            n // 5,
            8,
        ),
    ]:
        t0 = time.perf_counter()
        w, d, lost = match(make_a, make_b, games, size)
        rows.append((label, f"{w}-{d}-{lost} (W-D-L of {games}, {time.perf_counter() - t0:.0f} s)"))
        print(rows[-1])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    parser.add_argument("--quick", action="store_true", help="smaller workloads (smoke test)")
    parser.add_argument("--strength", action="store_true", help="also play strength matches")
    args = parser.parse_args()

    board = Board()
    kernel_playouts(board, 10, 0)
    mcts_rate(50, 1)
    mcts_rate(50, 8)
    rows: list[tuple[str, str, str]] = []

    n_kernel = 20_000 if args.quick else 100_000
    kernel_rate = n_kernel / best_of(lambda: kernel_playouts(board, n_kernel, 1))
    n_py = 200 if args.quick else 1_000
    python_rate = n_py / best_of(lambda: python_playouts(board, n_py, 1))
    rows.append(
        (
            "Monte Carlo playouts from the 8x8 start, in one kernel call, 1 core",
            f"{kernel_rate:,.0f} playouts/s",
            f"{kernel_rate / python_rate:.0f}x playouts driven through Board.legal_actions/play "
            f"({python_rate:,.0f}/s)",
        )
    )
    sims = 3_000 if args.quick else 20_000
    for batch, playouts in ((1, 1), (8, 1), (32, 1), (8, 4)):
        rate = mcts_rate(sims, batch, playouts)
        rows.append(
            (
                f"MCTS simulations from the 8x8 start, batch {batch}, {playouts} playout(s)/leaf",
                f"{rate:,.0f} sims/s ({sims} sims per search)",
                f"{rate / kernel_rate:.2f}x the kernel playout rate above",
            )
        )

    lines = [
        "| benchmark | figure | ratio to a baseline in the same run |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
    ]
    if args.strength:
        lines += ["", "| match | result |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in strength(args.quick)]
    table = "\n".join(lines)
    print(table)
    if args.write:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        header = (
            "## Monte Carlo and MCTS (benchmarks/bench_mcts.py)\n\n"
            f"Measured {stamp} on {machine()}.\n\n"
        )
        write_section(args.write, "mcts", header + table + "\n")


if __name__ == "__main__":
    main()
