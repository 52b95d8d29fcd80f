"""Play a match between two player specs on balanced XOT openings and print the result.

python examples/match.py "alphabeta:depth=4,endgame=0" "montecarlo:playouts=150" --games 100
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from othellolab.arena import play_match, read_openings
from othellolab.players import make_player

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="player spec A")
    parser.add_argument("b", help="player spec B")
    parser.add_argument("--games", type=int, default=100, help="games (colours alternate)")
    parser.add_argument(
        "--openings", type=Path, default=DATA / "xot" / "openingssmall.txt", help="XOT list"
    )
    args = parser.parse_args()
    openings = read_openings(args.openings) if args.openings.exists() else []
    t0 = time.perf_counter()
    result = play_match(
        make_player(args.a), make_player(args.b), games=args.games, openings=openings
    )
    print(f"{args.a} vs {args.b}: {result} in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
