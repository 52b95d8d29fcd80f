"""Self-play throughput: the batched engine against the tutorial's loop, in the same run.

The baseline is the loop of the classic AlphaZero tutorials: one game at a time, a Python
tree of node objects, a new tree for every move, and one network call per simulation (a batch
of one position). The engine (``training.selfplay``) plays ``--parallel`` games at once, its
trees in one node array, every batched step of every tree scored by one network call, the
subtree of the move played kept, exact values carried up the tree (a search ends once its root
is solved). Both use the same network (untrained, ``--model``), evaluated by
``nn.inference.NetworkEvaluator`` without a cache: the tutorial's loop in float32 as trained
(``precision="float32"``), the engine at ``precision="auto"`` (bfloat16 where the CPU has
AMX, else a folded float32 copy) and, in a row of its own, at float32 too, so that the table
shows what each part gives. Both use PUCT with c = 1.5, Dirichlet noise, moves drawn from the
visits for the first 10 plies, no resignation, and count the same positions: moves searched
(a move with one legal action is played without a search, by both). Everything runs on one
core (torch and Numba single-threaded).

Run ``python benchmarks/bench_selfplay.py --write docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import time
from pathlib import Path

import numpy as np
import torch
from bench_core import machine, write_section

from othellolab import Board
from othellolab.core.games import get_game
from othellolab.nn.config import model_config
from othellolab.nn.inference import NetworkEvaluator
from othellolab.nn.models import build_model
from othellolab.training.selfplay import SelfPlayConfig, play_games

C_PUCT = 1.5


class _Node:
    """A node of the tutorial's tree: a position, its prior, its children once expanded."""

    __slots__ = ("board", "children", "n", "prior", "w")

    def __init__(self, board: Board, prior: float) -> None:
        self.board = board
        self.prior = prior
        self.children: list[tuple[int, _Node]] | None = None
        self.n = 0
        self.w = 0.0

    def evaluate(self, net: NetworkEvaluator) -> float:
        """One simulation through this node; returns its value for the side to move here."""
        board = self.board
        if board.is_game_over():
            s = board.score()
            value = float((s > 0) - (s < 0))
        elif self.children is None:
            priors, values = net.evaluate(
                np.array([board.player], np.uint64),
                np.array([board.opponent], np.uint64),
                board.game,
            )
            value = float(values[0])
            self.children = [
                (a, _Node(board.play(a), float(priors[0, a]))) for a in board.legal_actions()
            ]
        else:
            scale = math.sqrt(self.n)
            best, child = -math.inf, self.children[0][1]
            for _, c in self.children:
                q = -c.w / c.n if c.n else 0.0
                u = q + C_PUCT * c.prior * scale / (1 + c.n)
                if u > best:
                    best, child = u, c
            value = -child.evaluate(net)
        self.n += 1
        self.w += value
        return value


def tutorial_games(
    net: NetworkEvaluator, size: int, sims: int, games: int, rng: np.random.Generator
) -> int:
    """Play ``games`` games the tutorial's way; returns the positions searched."""
    positions = 0
    for _ in range(games):
        board = Board(size=size)
        ply = 0
        while not board.is_game_over():
            actions = board.legal_actions()
            if len(actions) == 1:
                board = board.play(actions[0])
                ply += 1
                continue
            root = _Node(board, 1.0)
            root.evaluate(net)
            assert root.children is not None
            noise = rng.dirichlet(np.full(len(root.children), 0.3))
            for (_, c), x in zip(root.children, noise, strict=True):
                c.prior = 0.75 * c.prior + 0.25 * x
            for _ in range(sims):
                root.evaluate(net)
            visits = np.array([c.n for _, c in root.children], dtype=np.float64)
            if ply < 10:
                k = int(rng.choice(len(visits), p=visits / visits.sum()))
            else:
                k = int(np.argmax(visits))
            board = board.play(root.children[k][0])
            positions += 1
            ply += 1
    return positions


def _network(model: str, size: int, precision: str) -> NetworkEvaluator:
    torch.manual_seed(0)
    net = build_model(model_config(model, size=size))
    return NetworkEvaluator(net, cache_size=0, precision=precision)


def measure(
    size: int, sims: int, model: str, games: int, parallel: int, base_games: int
) -> list[tuple[str, str, str]]:
    """The tutorial's loop, then the engine at ``auto`` and at ``float32`` precision."""
    exact = _network(model, size, "float32")
    rng = np.random.default_rng(0)
    tutorial_games(exact, size, 2, 1, rng)  # warm up
    t0 = time.perf_counter()
    base_positions = tutorial_games(exact, size, sims, base_games, rng)
    base_rate = base_positions / (time.perf_counter() - t0)
    config = SelfPlayConfig(
        simulations=sims, parallel=parallel, resign_threshold=-1.0, seed=0, c_puct=C_PUCT
    )
    rows = []
    for precision in ("auto", "float32"):
        net = _network(model, size, precision)
        play_games(
            net,
            2,
            game=get_game("othello", size=size),
            config=SelfPlayConfig(simulations=4, seed=1),
        )  # warm up
        t0 = time.perf_counter()
        records = play_games(net, games, game=get_game("othello", size=size), config=config)
        seconds = time.perf_counter() - t0
        rate = len(records) / seconds
        arithmetic = "bfloat16" if net.bfloat16 else "float32"
        rows.append(
            (
                f"self-play {size}x{size}, {sims} simulations, {model}, {parallel} games at once, "
                f"precision {precision} ({arithmetic})",
                f"{rate:,.0f} positions/s ({len(records)} positions, "
                f"{records.evaluations / seconds:,.0f} network evaluations/s, "
                f"{records.solved.mean():.0%} of searches solved)",
                f"{rate / base_rate:.1f}x the tutorial's loop ({base_rate:,.1f} positions/s over "
                f"{base_positions} positions)",
            )
        )
    return rows


def second_game_rows(model: str, games: int, parallel: int) -> list[tuple[str, str, str]]:
    """Animal shogi's self-play against Othello 6x6's, the same network shape, search and
    precision, in the same run (the second game goes through the same engine)."""
    from othellolab.core.games import get_game

    rows = []
    for sims in (32, 100):
        rates = {}
        for key in ("othello6", "animal-shogi"):
            game = get_game(key)
            torch.manual_seed(0)
            net = NetworkEvaluator(
                build_model(model_config(model, size=6, game=game.name)),
                cache_size=0,
                precision="auto",
            )
            config = SelfPlayConfig(
                simulations=sims, parallel=parallel, resign_threshold=-1.0, seed=0, c_puct=C_PUCT
            )
            play_games(net, 2, game=game, config=SelfPlayConfig(simulations=4, seed=1))
            t0 = time.perf_counter()
            records = play_games(net, games, game=game, config=config)
            rates[key] = (len(records) / (time.perf_counter() - t0), len(records))
        rate, n = rates["animal-shogi"]
        rows.append(
            (
                f"self-play animal shogi, {sims} simulations, {model}, {parallel} games at once",
                f"{rate:,.0f} positions/s ({n} positions)",
                f"{rate / rates['othello6'][0]:.2f}x Othello 6x6 with the same settings "
                f"({rates['othello6'][0]:,.0f} positions/s)",
            )
        )
    return rows


def network_rows(size: int, model: str) -> tuple[str, str, str]:
    """The network alone: positions/s in batches of one (float32, as trained) and of 1024 at
    the engine's precision (the most batching and bfloat16 can give)."""
    board = Board(size=size)

    def rate(net: NetworkEvaluator, batch: int) -> float:
        p = np.full(batch, board.player, np.uint64)
        o = np.full(batch, board.opponent, np.uint64)
        net.evaluate(p, o, board.game)
        count, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 2.0:
            net.evaluate(p, o, board.game)
            count += batch
        return count / (time.perf_counter() - t0)

    fast = _network(model, size, "auto")
    one, many = rate(_network(model, size, "float32"), 1), rate(fast, 1024)
    arithmetic = "bfloat16" if fast.bfloat16 else "float32"
    return (
        f"the network alone, {size}x{size}, {model} (NetworkEvaluator)",
        f"{many:,.0f} positions/s in batches of 1024 ({arithmetic})",
        f"{many / one:.1f}x batches of one in float32 ({one:,.0f} positions/s): the most "
        "batching and precision can give",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    parser.add_argument("--quick", action="store_true", help="smaller workloads (smoke test)")
    parser.add_argument("--model", default="resnet-b4c32", help="network preset")
    parser.add_argument("--parallel", type=int, default=128, help="games at once")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    for size in (6, 8):
        rows.append(network_rows(size, args.model))
        print(rows[-1], flush=True)
        for sims in (32, 100):
            games = 16 if args.quick else args.parallel
            base_games = 1 if args.quick or size == 8 else 2
            for row in measure(size, sims, args.model, games, args.parallel, base_games):
                rows.append(row)
                print(row, flush=True)
    for row in second_game_rows(args.model, 16 if args.quick else args.parallel, args.parallel):
        rows.append(row)
        print(row, flush=True)
    table = "\n".join(
        [
            "| benchmark | figure | ratio to a baseline in the same run |",
            "|---|---|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        ]
    )
    print(table)
    if args.write:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        header = (
            "## Self-play (benchmarks/bench_selfplay.py)\n\n"
            f"Measured {stamp} on {machine()}, one core (torch and Numba single-threaded).\n\n"
        )
        write_section(args.write, "selfplay", header + table + "\n")


if __name__ == "__main__":
    main()
