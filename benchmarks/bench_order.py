"""Move ordering by a policy network inside alpha-beta (``alphabeta:order=MODEL``): the same
held-out positions (WTHOR 2023, 20-50 empties) searched to a fixed depth with the usual
ordering and with the network ordering every position within 1, 2 or 3 plies of the root, in
one process.

    python benchmarks/bench_order.py --positions 60 --depth 8

Nodes show what the ordering saves; the network's time shows what it costs (one torch thread,
a fresh cache each position, as a move whose positions the last one did not evaluate).
Strength is the arena's, at equal time (docs/arena.md).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from bench_core import WTHOR, heldout_midgame, machine

from othellolab.nn.pretrained import DEFAULT_MODEL
from othellolab.players.alphabeta import AlphaBetaPlayer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wthor", type=Path, default=WTHOR)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--plies", default="0,1,2,3", help="0: the usual ordering")
    args = ap.parse_args()
    torch.set_num_threads(1)
    boards = heldout_midgame(args.wthor, args.positions)
    print(
        f"{args.positions} positions of WTHOR 2023 (20-50 empties), depth {args.depth}, "
        f"order network {args.model}; {machine()}"
    )
    base: tuple[int, float, list[int]] | None = None
    for plies in (int(k) for k in args.plies.split(",")):
        order = {} if plies == 0 else {"order": args.model, "order_plies": plies}
        player = AlphaBetaPlayer(depth=args.depth, endgame=0, **order)
        player.choose(boards[0])  # compiles and loads before the clock starts
        nodes, search_s, total_s, moves = 0, 0.0, 0.0, []
        for board in boards:
            player.reset()
            if player._orderer is not None:
                player._orderer.clear_cache()
            t0 = time.perf_counter()
            r = player.choose(board)
            total_s += time.perf_counter() - t0
            nodes += r.info["nodes"]
            search_s += r.info["seconds"]
            moves.append(r.move)
        if base is None:
            base = (nodes, total_s, moves)
        same = np.mean([a == b for a, b in zip(moves, base[2], strict=True)])
        print(
            f"order_plies={plies}  nodes {nodes:>12,} ({nodes / base[0]:5.2f}x the usual)  "
            f"search {search_s:7.2f} s, network {total_s - search_s:6.2f} s, "
            f"all {total_s:7.2f} s ({total_s / base[1]:5.2f}x)  same move: {100 * same:.0f}%"
        )


if __name__ == "__main__":
    main()
