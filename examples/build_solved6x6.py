"""Build the solved 6x6 position set that grades 6x6 policies (``players/search/solved6.py``).

python examples/build_solved6x6.py   # about a minute; rewrites src/othellolab/players/search/data/solved6x6.obf
"""

from __future__ import annotations

import argparse
from pathlib import Path

from othellolab.core.progress import StepProgress
from othellolab.players.search.solved6 import SOLVED_6X6, build_solved_set
from othellolab.records.obf import write_obf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=SOLVED_6X6)
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    bar = StepProgress(True, total=args.count, done=0, name="solving")
    try:
        entries = build_solved_set(
            args.count, seed=args.seed, progress=lambda k: bar.advance(f"{k} positions")
        )
        n = write_obf(args.out, entries)
    finally:
        bar.close()
    print(f"wrote {n} solved positions to {args.out}")


if __name__ == "__main__":
    main()
