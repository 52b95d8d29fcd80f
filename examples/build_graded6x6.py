"""Build the graded 6x6 set that grades self-play generations (``players/search/solved6.py``).

nice -n 19 python examples/build_graded6x6.py   # about an hour on one core; resumable

Positions are appended to the file as they are solved: run the same command again after an
interruption and it carries on. ``--per-stage`` sets the positions per number of empties.

nice -n 19 python examples/build_graded6x6.py --outcomes   # about half an hour on one core

then writes ``graded6x6-outcomes.npz`` beside the set (``solved6.GRADED_OUTCOMES``): the win,
draw or loss after every legal move of every position, so a grade can say how often a move
keeps the result (the set's lines above 22 empties list only the optimal moves).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from othellolab.core.progress import StepProgress
from othellolab.players.search.solved6 import (
    GRADED_6X6,
    GRADED_OUTCOMES,
    build_graded_set,
    build_outcomes,
    load_graded_set,
    save_outcomes,
)
from othellolab.records.obf import ObfEntry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=GRADED_6X6)
    parser.add_argument("--per-stage", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--outcomes", action="store_true", help="build the outcomes of the set's moves instead"
    )
    args = parser.parse_args()
    t0 = time.perf_counter()
    if args.outcomes:
        entries = load_graded_set(args.out)
        bar = StepProgress(True, total=len(entries), done=0, name="outcomes", unit="positions")
        outcome = build_outcomes(entries, progress=lambda i: bar.advance(f"{i + 1} positions"))
        bar.close()
        out = args.out.with_name(GRADED_OUTCOMES.name)
        save_outcomes(out, entries, outcome)
        print(f"{out}: {len(entries)} positions in {time.perf_counter() - t0:.0f} s")
        return

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
