"""Top-1 and cross-entropy on held-out WTHOR positions with the network read once and averaged
over the symmetries of each position (``NetworkEvaluator(symmetries=N)``), moves equal up to
the position's symmetry counted as one (as ``othellolab evaluate model`` counts them)::

    python experiments/strength-network/eval_symmetries.py b8c64-all b6c48-all --positions 12000 --years 2023
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from othellolab.core.features import equivalent_actions
from othellolab.datasets.heldout import load_positions
from othellolab.nn.inference import NetworkEvaluator
from othellolab.nn.pretrained import resolve

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # bench_core
from bench_core import WTHOR


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--wthor", type=Path, default=WTHOR)
    ap.add_argument("--years", default="2023")
    ap.add_argument("--positions", type=int, default=12000, help="a random sample (0: all)")
    ap.add_argument("--symmetries", default="1,8")
    args = ap.parse_args()
    torch.set_num_threads(1)
    x = load_positions([args.wthor], years=args.years, size=8)
    rows = np.flatnonzero(x.move < 64)  # moves, not forced passes
    if 0 < args.positions < len(rows):
        rows = np.sort(np.random.default_rng(0).choice(rows, args.positions, replace=False))
    p, o, m = x.player[rows].astype(np.uint64), x.opponent[rows].astype(np.uint64), x.move[rows]
    same = equivalent_actions(p, o, m, 8)
    print(f"{len(rows):,} positions of WTHOR {args.years}")
    for model in args.models:
        for count in (int(k) for k in args.symmetries.split(",")):
            ev = NetworkEvaluator.from_dir(resolve(model), cache_size=0, symmetries=count)
            priors = ev.evaluate_full(p, o).priors[:, : same.shape[1]]
            top1 = same[np.arange(len(m)), priors.argmax(axis=1)].mean()
            ce = -np.log(np.maximum((priors * same).sum(axis=1), 1e-9)).mean()
            print(f"{model}  symmetries={count}  top-1 {top1:.4f}  cross-entropy {ce:.4f}")


if __name__ == "__main__":
    main()
