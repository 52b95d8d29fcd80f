"""Top-1 on held-out WTHOR games as played and under a random symmetry per game.

Every WTHOR game is written from f5, so a network trained without symmetries only ever sees
one orientation of each opening; a player meets all eight (a human may open d3, c4 or e6).
This measures both for each model (docs/supervised.md, "Architectures at equal training
time")::

    python experiments/supervised-cpu/heldout_symmetries.py MODEL [MODEL ...] [--years 2023]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

from othellolab.core import ConfigError
from othellolab.core.features import transform_actions, transform_bitboards
from othellolab.datasets.heldout import EvalPositions, load_positions
from othellolab.measure.model import measure_model
from othellolab.nn.pretrained import resolve

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # bench_core
from bench_core import int_arg

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "wthor"


def turned(pos: EvalPositions, seed: int) -> EvalPositions:
    """The same positions, each game turned by one of the 8 symmetries drawn at random."""
    ks = np.random.default_rng(seed).integers(0, 8, size=int(pos.game.max()) + 1)[pos.game]
    return dataclasses.replace(
        pos,
        player=transform_bitboards(pos.player, ks, pos.size),
        opponent=transform_bitboards(pos.opponent, ks, pos.size),
        move=transform_actions(pos.move.astype(np.int64), ks, pos.size).astype(pos.move.dtype),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="model directories or shipped names")
    parser.add_argument("--data", type=Path, default=DATA, help="a folder of WTHOR files")
    parser.add_argument("--years", default="2023")
    parser.add_argument("--seed", type=int_arg(0, 2**63 - 1), default=0)
    parser.add_argument("--threads", type=int_arg(1, 1024), default=2)
    args = parser.parse_args()
    try:
        paths = [resolve(m) for m in args.models]
    except ConfigError as e:
        parser.error(str(e))
    torch.set_num_threads(args.threads)
    pos = load_positions([args.data], split="test", years=args.years)
    views = {"as played": pos, "turned": turned(pos, args.seed)}
    for model, path in zip(args.models, paths, strict=True):
        for view, data in views.items():
            m = measure_model(path, data, progress=False).metrics
            phases = ", ".join(
                f"{p['empties'][0]}-{p['empties'][1]} {p['top1']:.3f}" for p in m["phases"]
            )
            print(f"{model} {view}: top-1 {m['overall']['top1']:.3f} ({phases})", flush=True)


if __name__ == "__main__":
    main()
