"""The midgame search on several threads (lazy SMP, ``search.smp``): wall time to a fixed depth
and nodes per second on WTHOR midgame positions, one thread against N, and the helpers'
diversification (``midgame.HELPER_AHEAD``) compared.

    python benchmarks/bench_smp.py --depth 14 --positions 20 --threads 1,2 --ahead 1,0 --runs 2

Runs alternate (each setting once per round) since the machine is shared; each search has a
fresh 2^20 table, the default player's evaluation (``patterns-r1``) and ProbCut 1.5 with its
fit. Strength at equal time is measured with ``othellolab arena match`` (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search import midgame_positions

from othellolab import Board
from othellolab.players.search import midgame
from othellolab.players.search.evaluation import weights_evaluation
from othellolab.players.search.patterns import pattern_weights_dir
from othellolab.players.search.probcut import weights_probcut
from othellolab.players.search.table import TranspositionTable


def run(positions: list[tuple[str, Board]], depth: int, threads: int, ahead: int) -> tuple:
    """Search every position to ``depth`` on ``threads`` threads, the first helper ``ahead``
    plies ahead: total nodes, wall seconds, and the positions whose move differs from none."""
    evaluation = weights_evaluation("patterns-r1")
    fit = weights_probcut(str(pattern_weights_dir("patterns-r1")))
    midgame.HELPER_AHEAD = (ahead, 0)
    nodes, moves = 0, []
    t0 = time.perf_counter()
    for _, board in positions:
        r = midgame.search(
            board,
            depth=depth,
            evaluation=evaluation,
            table=TranspositionTable(20),
            probcut=1.5,
            probcut_table=fit,
            threads=threads,
        )
        nodes += r.nodes
        moves.append(r.best_move)
    return nodes, time.perf_counter() - t0, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=14)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    parser.add_argument("--ahead", default="1,0", help="the first helper's lead(s) in plies")
    parser.add_argument("--runs", type=int, default=2, help="rounds of alternating runs")
    args = parser.parse_args()
    positions = midgame_positions(args.positions)
    if not positions:
        return
    midgame.search(Board(), depth=3, threads=2)  # compile outside the timings
    settings = [(1, 0)] if "1" in args.threads.split(",") else []
    for t in (int(x) for x in args.threads.split(",") if x != "1"):
        settings += [(t, int(a)) for a in args.ahead.split(",")]
    seen: dict[tuple[int, int], list[tuple[int, float, list[int]]]] = {s: [] for s in settings}
    for _ in range(args.runs):
        for s in settings:
            nodes, secs, moves = run(positions, args.depth, *s)
            seen[s].append((nodes, secs, moves))
            print(f"threads {s[0]} ahead {s[1]}: {nodes:,} nodes {secs:.2f} s", flush=True)
    base = seen[settings[0]]
    print(
        f"\n{len(positions)} WTHOR 2004 positions, depth {args.depth}, ProbCut 1.5, "
        f"patterns-r1, table 2^20, load average {os.getloadavg()[0]:.2f}:"
    )
    print("| threads | helper ahead | nodes (mean) | wall s (median) | k nodes/s | same moves |")
    print("|---|---|---|---|---|---|")
    for s, rows in seen.items():
        nodes = statistics.mean(r[0] for r in rows)
        secs = statistics.median(r[1] for r in rows)
        same = sum(a == b for a, b in zip(rows[-1][2], base[-1][2], strict=True))
        ahead = "-" if s[0] == 1 else str(s[1])
        print(
            f"| {s[0]} | {ahead} | {nodes:,.0f} | {secs:.2f} | {nodes / secs / 1e3:.0f} | "
            f"{same}/{len(positions)} |"
        )


if __name__ == "__main__":
    main()
