"""Multi-ProbCut's node counts: the same held-out positions (WTHOR 2023, 20-50 empties)
searched to a fixed depth without it and with each confidence, in one process; or, with
``--fits``, with each of several ProbCut fits at one confidence (what a refit saves).

    python benchmarks/bench_probcut.py --positions 60 --depth 10
    python benchmarks/bench_probcut.py --weights patterns-r1 --depth 16 --confidences 1.5 \\
        --fits OLD/probcut.json,NEW/probcut.json --runs 2

Nodes are not strength (the arena measures that at equal time); they show what a cut saves.
Times are CPU seconds; with ``--runs`` above 1 the settings alternate and the median counts.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from bench_core import WTHOR, heldout_midgame

from othellolab.core import ConfigError
from othellolab.players.search.evaluation import pattern_evaluation
from othellolab.players.search.midgame import MAX_PROBCUT, search
from othellolab.players.search.patterns import pattern_weights_dir
from othellolab.players.search.probcut import load_probcut, weights_probcut
from othellolab.players.search.table import TranspositionTable


def run(boards: list, depth: int, ev, t: float, fit: np.ndarray) -> tuple[int, float, list]:
    """Search every board to ``depth`` with confidence ``t`` (0: no ProbCut) and the ProbCut
    table ``fit``: nodes, CPU seconds and best moves."""
    nodes, moves = 0, []
    t0 = time.process_time()
    for board in boards:
        r = search(
            board,
            depth=depth,
            evaluation=ev,
            table=TranspositionTable(20),
            probcut=t,
            probcut_table=fit,
        )
        nodes += r.nodes
        moves.append(r.best_move)
    return nodes, time.process_time() - t0, moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wthor", type=Path, default=WTHOR)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--confidences", default="0,1.0,1.5,2.0")
    ap.add_argument(
        "--weights", help="pattern weights (a shipped name or a folder); default the default set"
    )
    ap.add_argument(
        "--fits",
        help="ProbCut fit files, comma-separated: each at the first nonzero confidence (1.5 if "
        "none), after the search without ProbCut when --confidences holds 0",
    )
    ap.add_argument("--runs", type=int, default=1, help="alternating runs of each setting")
    args = ap.parse_args()
    if args.positions < 1 or args.runs < 1 or not 1 <= args.depth <= 60:
        ap.error("--positions and --runs must be at least 1, --depth 1 to 60")
    try:
        confidences = [float(c) for c in args.confidences.split(",")]
    except ValueError:
        ap.error(f"--confidences: numbers, comma-separated; got {args.confidences!r}")
    if not all(0.0 <= c <= MAX_PROBCUT for c in confidences):  # nan fails too
        ap.error(f"--confidences: each 0 (off) to {MAX_PROBCUT}; got {args.confidences!r}")
    try:
        boards = heldout_midgame(args.wthor, args.positions)
        ev = pattern_evaluation(args.weights)
        own = weights_probcut(str(pattern_weights_dir(args.weights)))  # what the player uses
        if args.fits:
            t = next((c for c in confidences if c > 0), 1.5)
            settings = [("no ProbCut", 0.0, own)] if 0.0 in confidences else []
            settings += [(p, t, load_probcut(p)) for p in args.fits.split(",")]
        else:
            settings = [(f"probcut={c}", c, own) for c in confidences]
    except (ConfigError, FileNotFoundError) as e:
        ap.error(str(e))
    search(boards[0], depth=3, evaluation=ev)  # compile outside the timings
    seen: dict[str, list[tuple[int, float, list]]] = {name: [] for name, _, _ in settings}
    for _ in range(args.runs):
        for name, c, fit in settings:
            seen[name].append(run(boards, args.depth, ev, c, fit))
    print(f"{args.positions} positions, depth {args.depth}, weights {args.weights or 'default'}")
    base = seen[settings[0][0]][0]
    print("| setting | nodes | fewer than the first | CPU s | same best move as the first |")
    print("|---|---:|---:|---:|---:|")
    for name, _, _ in settings:
        nodes, _, moves = seen[name][0]
        secs = statistics.median(s for _, s, _ in seen[name])
        same = np.mean([a == b for a, b in zip(moves, base[2], strict=True)])
        print(f"| {name} | {nodes:,} | {base[0] / nodes:.2f}x | {secs:.2f} | {100 * same:.0f}% |")


if __name__ == "__main__":
    main()
