"""Multi-ProbCut's node counts: the same held-out positions (WTHOR 2023, 20-50 empties)
searched to a fixed depth without it and with each confidence, in one process.

    python benchmarks/bench_probcut.py --positions 60 --depth 10

Nodes are not strength (the arena measures that at equal time); they show what a cut saves.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from bench_core import WTHOR, heldout_midgame

from othellolab.players.search.evaluation import pattern_evaluation
from othellolab.players.search.midgame import search
from othellolab.players.search.table import TranspositionTable


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wthor", type=Path, default=WTHOR)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--confidences", default="0,1.0,1.5,2.0")
    args = ap.parse_args()
    boards = heldout_midgame(args.wthor, args.positions)
    ev = pattern_evaluation()
    base = None
    print(f"{args.positions} positions, depth {args.depth}")
    for t in (float(c) for c in args.confidences.split(",")):
        nodes, secs, moves = 0, 0.0, []
        for board in boards:
            r = search(
                board, depth=args.depth, evaluation=ev, table=TranspositionTable(20), probcut=t
            )
            nodes, secs = nodes + r.nodes, secs + r.seconds
            moves.append(r.best_move)
        if base is None:
            base = (nodes, secs, moves)
        same = np.mean([a == b for a, b in zip(moves, base[2], strict=True)])
        print(
            f"probcut={t:<4} nodes {nodes:>12,} ({base[0] / nodes:5.1f}x fewer)  "
            f"{secs:7.2f} s  same best move as without: {100 * same:.0f}%"
        )


if __name__ == "__main__":
    main()
