"""Exact scores of held-out positions: a test set for an evaluation, free of the noise of human
results.

Samples positions with 20-24 empty squares from WTHOR 2023 (the year no shipped weights train
on), solves each exactly with the search's solver (``players.search.solve``), and writes
``player``, ``opponent`` and ``exact`` (the disc difference from the side to move under perfect
play, empties to the winner) as an ``.npz`` that ``othellolab train engine-fit CONFIG --set measure.exact=FILE``
(``fitting.patterns.exact_errors``) scores any weights against. Solved positions are saved
every few solves, so a killed run resumes where it stopped.

``python experiments/exact-labels/exact_labels.py --out /tmp/exact-20-24.npz --count 800`` (about 2-5 s a
position on the shared machine) wrote ``experiments/exact-labels/exact-wthor2023-20-24.npz`` (seed 0), which
``othellolab train engine-fit configs/engine.toml --set measure.exact=experiments/exact-labels/exact-wthor2023-20-24.npz --set measure.compare=NAME``
scores.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from othellolab import Board
from othellolab.core.files import write_bytes
from othellolab.core.kernels import popcount_batch
from othellolab.datasets.heldout import load_positions
from othellolab.players.search import TranspositionTable, solve

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def sample(wthor: Path, count: int, low: int, high: int, seed: int) -> tuple[np.ndarray, ...]:
    """``count`` distinct positions of WTHOR 2023 with ``low..high`` empties, in a fixed order."""
    held = load_positions([wthor], years="2023", size=8)
    p = held.player.astype(np.uint64)
    o = held.opponent.astype(np.uint64)
    empties = 64 - popcount_batch(p | o).astype(np.int64)
    rows = np.flatnonzero((empties >= low) & (empties <= high))
    _, first = np.unique(np.stack([p[rows], o[rows]], 1), axis=0, return_index=True)
    rows = rows[np.sort(first)]
    pick = np.random.default_rng(seed).permutation(len(rows))[:count]
    return p[rows[pick]], o[rows[pick]]


def _save(path: Path, p: np.ndarray, o: np.ndarray, exact: list[int]) -> None:
    import io

    buf = io.BytesIO()
    n = len(exact)
    np.savez(buf, player=p[:n], opponent=o[:n], exact=np.array(exact, dtype=np.int64))
    write_bytes(path, buf.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write (resumes)")
    parser.add_argument("--wthor", type=Path, default=DATA / "wthor", help="WTHOR folder")
    parser.add_argument("--count", type=int, default=300, help="positions to solve")
    parser.add_argument("--empties", default="20-24", help="range of empty squares")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed")
    args = parser.parse_args()
    low, high = (int(x) for x in args.empties.split("-"))
    p, o = sample(args.wthor, args.count, low, high, args.seed)
    exact: list[int] = []
    if args.out.exists():
        done = np.load(args.out)
        if not (np.array_equal(done["player"], p[: len(done["exact"])])):
            raise SystemExit(f"{args.out}: solved for another sample; remove it or change --out")
        exact = [int(x) for x in done["exact"]]
    table = TranspositionTable(22)
    t0 = time.perf_counter()
    start = len(exact)
    for i in range(start, len(p)):
        board = Board.from_bitboards(int(p[i]), int(o[i]))
        exact.append(int(solve(board, table=table, pv=False).score))
        table.clear()
        if (i + 1) % 10 == 0 or i + 1 == len(p):
            _save(args.out, p, o, exact)
            rate = (time.perf_counter() - t0) / (i + 1 - start)
            print(f"{i + 1}/{len(p)} solved ({rate:.1f} s each)", flush=True)
    _save(args.out, p, o, exact)


if __name__ == "__main__":
    main()
