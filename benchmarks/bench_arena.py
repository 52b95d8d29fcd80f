"""Tournament throughput: games per hour with 2 worker processes against 1, same players, same
games, in the same run (worker start-up included: a real tournament pays it too).

Run ``python benchmarks/bench_arena.py --write docs/benchmarks.md``. The players are fixed-work
searches (Monte Carlo playouts and MCTS simulations, no time limits), so that more workers can
only change how fast the games finish, not how they are played.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import tempfile
import time
from pathlib import Path

from bench_core import machine, write_section

from othellolab.arena.tournament import run_tournament
from othellolab.arena.tournament_config import Entrant, TournamentConfig

PLAYERS = (
    Entrant("mc", "montecarlo:playouts=800,seed=1"),
    Entrant("mcts", "mcts:sims=3000,seed=2"),
)


def games_per_hour(games: int, workers: int) -> tuple[float, float]:
    """(games per hour, seconds) for a fresh tournament of ``games`` games."""
    config = TournamentConfig(PLAYERS, games=games, openings="random:8", seed=3, name="bench")
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        run = run_tournament(config, Path(folder), workers=workers)
        seconds = time.perf_counter() - t0
    assert run.played == games
    return 3600 * games / seconds, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per run (even)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each, interleaved")
    parser.add_argument("--write", type=Path, help="update this Markdown file's arena section")
    args = parser.parse_args()
    games_per_hour(2, 1)  # compile or load the kernels outside the timing
    best: dict[int, tuple[float, float]] = {}
    for _ in range(args.repeat):
        for workers in (1, 2):
            rate, secs = games_per_hour(args.games, workers)
            print(
                f"{workers} worker(s): {rate:,.0f} games/hour ({args.games} games in {secs:.1f} s)"
            )
            if workers not in best or rate > best[workers][0]:
                best[workers] = (rate, secs)
    ratio = best[2][0] / best[1][0]
    rows = [
        (f"tournament, 1 worker ({args.games} games, baseline)", best[1], "1.00x"),
        (f"tournament, 2 workers ({args.games} games)", best[2], f"{ratio:.2f}x the 1-worker rate"),
    ]
    table = "\n".join(
        [
            "| benchmark | games/hour | ratio to a baseline in the same run |",
            "|---|---|---|",
            *[f"| {name} | {r:,.0f} ({s:.1f} s) | {c} |" for name, (r, s), c in rows],
        ]
    )
    print(table)
    if args.write:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        header = (
            "## Arena (`benchmarks/bench_arena.py`)\n\n"
            f"Measured {stamp} on {machine()}. `{PLAYERS[0].spec}` against "
            f"`{PLAYERS[1].spec}` on random 8-ply openings, colours swapped; the best of "
            f"{args.repeat} interleaved runs each; times include starting the worker processes.\n\n"
        )
        write_section(args.write, "arena", header + table + "\n")


if __name__ == "__main__":
    main()
