"""Build the graded 6x6 set that grades self-play generations (``training/rl/solved6.py``).

nice -n 19 python examples/build_graded6x6.py   # about an hour on one core; resumable

Positions are appended to the file as they are solved: run the same command again after an
interruption and it carries on. ``--per-stage`` sets the positions per number of empties.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from othellolab.records.obf import ObfEntry
from othellolab.training.rl.solved6 import GRADED_6X6, build_graded_set, load_graded_set


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=GRADED_6X6)
    parser.add_argument("--per-stage", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    t0 = time.perf_counter()

    def report(entry: ObfEntry) -> None:
        print(
            f"{time.perf_counter() - t0:8.1f} s  {entry.board.num_empties:2d} empties  "
            f"{entry.board.obf()}",
            flush=True,
        )

    added = build_graded_set(args.out, per_stage=args.per_stage, seed=args.seed, progress=report)
    counts = Counter(e.board.num_empties for e in load_graded_set(args.out))
    print(f"added {added} positions in {time.perf_counter() - t0:.0f} s; by empties:")
    print(", ".join(f"{e}: {counts[e]}" for e in sorted(counts)))


if __name__ == "__main__":
    main()
