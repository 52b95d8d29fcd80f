"""Why 8x8 self-play from a supervised network made it weaker (issue 41, part 4): two checks
on the expert games the network never saw (WTHOR 2023, positions with 15 or more empties, the
part of a game self-play searches rather than solves).

    python experiments/az-8x8-sup-lowlr/supervised_start.py targets --model b6c48-all
    python experiments/az-8x8-sup-lowlr/supervised_start.py drift --lr 5e-4 --steps 1000

``targets`` asks whether the search teaches anything: the expert-move top-1 and cross-entropy
of the network's prior against those of its searches' policy targets (visit shares, with and
without self-play's Dirichlet root noise, at 100 and 400 simulations). ``drift`` asks whether
the learning rate alone undoes the supervised training: it goes on training the network with
self-play's trainer (``WindowTrainer``, the config's optimiser at ``--lr``) on nothing but the
expert positions it was trained on (the config's ``[train] anchor``), and prints the top-1 and
cross-entropy on the held-out positions every ``--every`` steps. Self-play trains about 480 steps
a generation at 512 games.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from othellolab.core.games import get_game
from othellolab.datasets.heldout import load_positions
from othellolab.measure.model import resolve_model
from othellolab.nn.inference import NetworkEvaluator
from othellolab.nn.io import load_model
from othellolab.players.mcts.batch import SearchConfig, search_positions
from othellolab.training.selfplay.anchor import load_anchor
from othellolab.training.selfplay.runconfig import load_run_config
from othellolab.training.selfplay.trainer import WindowTrainer

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "alphazero-8x8-supervised-anchor.toml"
GAME = get_game("othello8")


def heldout(data: str, years: str, positions: int, min_empties: int) -> tuple[np.ndarray, ...]:
    """``positions`` expert positions (seeded) of ``years`` with ``min_empties`` or more
    empties: player, opponent and the expert's move."""
    pos = load_positions([data], split="test", years=years, size=8)
    rows = np.flatnonzero((pos.move < 64) & (pos.empties >= min_empties))
    pick = np.random.default_rng(0).choice(rows, min(positions, len(rows)), replace=False)
    rows = np.sort(pick)
    return pos.player[rows], pos.opponent[rows], pos.move[rows]


def agreement(policy: np.ndarray, moves: np.ndarray, smooth: float = 0.0) -> tuple[float, float]:
    """Top-1 and cross-entropy of ``policy`` rows against the expert ``moves``; ``smooth``
    mixes in that share of a uniform 10-move policy so a zero visit share has a finite loss."""
    p = policy[np.arange(len(moves)), moves]
    p = (1 - smooth) * p + smooth / 10 if smooth else p + 1e-6
    return float(np.mean(policy.argmax(1) == moves)), float(-np.mean(np.log(p)))


def search_targets(
    ev: NetworkEvaluator, player: np.ndarray, opponent: np.ndarray, sims: int, noise: float
) -> np.ndarray:
    """The policy target of a ``sims``-simulation PUCT search of each position, with Dirichlet
    root noise of weight ``noise`` as self-play's full searches have (c_puct 1.5, alpha 0.3)."""
    cfg = SearchConfig(simulations=sims, c_puct=1.5, parallel=256, seed=0, dirichlet_epsilon=noise)
    return search_positions(ev, player, opponent, GAME, cfg, noise=noise > 0)[1]


def targets(args: argparse.Namespace) -> None:
    player, opponent, moves = heldout(args.data, args.years, args.positions, args.min_empties)
    print(f"{len(moves)} positions of WTHOR {args.years}, >= {args.min_empties} empties")
    print("| model | policy | top-1 | cross-entropy (3 % uniform) |\n|---|---|---|---|")
    for spec in args.model.split(","):
        ev = NetworkEvaluator.from_dir(resolve_model(spec), precision="auto")
        prior, _ = ev.evaluate(player, opponent, GAME)
        top1, ce = agreement(np.asarray(prior), moves, 0.03)
        print(f"| {spec} | prior | {top1:.3f} | {ce:.3f} |", flush=True)
        for sims, noise in ((100, 0.0), (100, 0.25), (400, 0.0), (400, 0.25)):
            t = search_targets(ev, player, opponent, sims, noise)
            top1, ce = agreement(t, moves, 0.03)
            label = f"{sims} simulations" + (f", root noise {noise}" if noise else "")
            print(f"| {spec} | {label} | {top1:.3f} | {ce:.3f} |", flush=True)


def drift(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    cfg, _ = load_run_config(args.config)
    cfg = dataclasses.replace(cfg, optim=dataclasses.replace(cfg.optim, lr=args.lr))
    anchor = load_anchor(cfg.train, GAME, cfg.seed)
    player, opponent, moves = heldout(args.data, args.years, args.positions, args.min_empties)
    model, _ = load_model(resolve_model(args.model))

    def measure(step: int, cpu: float) -> None:
        ev = NetworkEvaluator(copy.deepcopy(model).eval(), cache_size=0)
        prior, _ = ev.evaluate(player, opponent, GAME)
        top1, ce = agreement(np.asarray(prior), moves)
        print(f"| {args.lr:g} | {step} | {top1:.4f} | {ce:.4f} | {cpu:.0f} |", flush=True)

    print(f"{args.model} trained on {anchor.description}; held out: {len(moves)} positions")
    print("| learning rate | steps | top-1 | cross-entropy | CPU s |\n|---|---|---|---|---|")
    measure(0, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        trainer = WindowTrainer(
            cfg,
            model,
            anchor,
            generation=1,
            previous_state=None,
            device=torch.device("cpu"),
            target=Path(tmp) / "model",
        )
        rng = np.random.default_rng(cfg.seed + 1)  # apart from the anchor's own draw
        start = time.process_time()
        for step in range(1, args.steps + 1):
            rows = rng.integers(0, len(anchor), cfg.train.batch_size)
            trainer.step(trainer._batch(anchor, rows, rng), step)
            if step % args.every == 0 or step == args.steps:
                model.eval()
                measure(step, time.process_time() - start)
                model.train()


def _positive(kind: type, most: float = math.inf) -> Callable[[str], int | float]:
    """An argparse type: a number of ``kind`` above 0 and at most ``most``, or a usage error
    naming the option."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            name = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {name}") from None
        if not (math.isfinite(value) and 0 < value <= most):
            raise argparse.ArgumentTypeError(f"{text!r}: give a finite number in (0, {most:g}]")
        return value

    return parse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, helptext in (
        ("targets", "the prior against the search's policy targets, on expert moves"),
        ("drift", "train on the expert positions alone at --lr; the held-out top-1 along"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--model", default="b6c48-all", help="model(s), comma-separated")
        p.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wthor"))
        p.add_argument("--years", default="2023", help="held-out WTHOR years")
        p.add_argument("--positions", type=_positive(int), default=1000)
        p.add_argument("--min-empties", type=_positive(int), default=15)
        if name == "drift":
            p.add_argument("--config", default=str(CONFIG), help="the self-play config")
            p.add_argument("--lr", type=_positive(float, most=1.0), required=True)
            p.add_argument("--steps", type=_positive(int), default=1000)
            p.add_argument("--every", type=_positive(int), default=500)
            p.add_argument("--threads", type=_positive(int), default=1)
    args = parser.parse_args()
    {"targets": targets, "drift": drift}[args.command](args)


if __name__ == "__main__":
    main()
