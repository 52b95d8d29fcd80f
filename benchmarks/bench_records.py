"""Speed of reading game records: the compiled replay against replaying through ``Board.play``.

Every figure comes with a ratio to a baseline measured in the same run (the machine is shared
and noisy). Run ``python benchmarks/bench_records.py --write docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import itertools
import sys
from pathlib import Path

from bench_core import best_of, machine, write_section

from othellolab import Board
from othellolab.records import read_logistello, read_transcripts, read_wthor
from othellolab.records.wthor import read_wtb

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def board_api_replay(moves_list: list[tuple[int, ...]]) -> int:
    """The baseline: replay each game move by move through ``Board.play``, inserting passes."""
    plies = 0
    for moves in moves_list:
        board = Board()
        for sq in moves:
            if board.must_pass():
                board = board.play_pass()
            board = board.play(sq)
            plies += 1
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="write the results into this markdown file")
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    args = parser.parse_args()
    wtb = DATA / "wthor" / "WTH_2004.wtb"
    if not wtb.exists():
        sys.exit(f"{wtb} is absent: the records benchmark reads the real data")
    rows = []

    raw = [g.moves for g in read_wtb(wtb)]
    n = len(raw)
    list(read_wthor(wtb))  # compile or load the kernels outside the timing
    t_read = best_of(lambda: sum(1 for _ in read_wthor(wtb)))
    sample = raw[: 1000 if args.quick else 3000]
    t_api = best_of(lambda: board_api_replay(sample), repeat=2) * n / len(sample)
    rows.append(
        (
            "read_wthor WTH_2004.wtb (9,113 games: parse, names, replay, result check)",
            f"{n / t_read:,.0f} games/s",
            f"{t_api / t_read:.1f}x replaying the same moves through Board.play "
            f"({n / t_api:,.0f} games/s)",
        )
    )

    book = DATA / "logistello" / "logbook.gam.gz"
    if book.exists():
        count = 20_000 if args.quick else 60_000
        head = list(itertools.islice(read_logistello(book), 2000))
        t_book = best_of(lambda: sum(1 for _ in itertools.islice(read_logistello(book), count)), 2)
        moves = [tuple(a for a in g.moves if a != 64) for g in head[:1000]]
        t_base = best_of(lambda: board_api_replay(moves), 2) * count / len(moves)
        with gzip.open(book, "rt") as f:
            total = sum(1 for _ in f)
        rows.append(
            (
                f"read_logistello logbook.gam.gz (first {count:,} of {total:,} games)",
                f"{count / t_book:,.0f} games/s",
                f"{t_base / t_book:.1f}x replaying through Board.play ({count / t_base:,.0f} games/s)",
            )
        )

    xot = DATA / "xot" / "openingslarge.txt"
    if xot.exists():
        t_xot = best_of(lambda: sum(1 for _ in read_transcripts(xot)), 2)
        openings = [g.moves for g in read_transcripts(xot)]
        t_base = best_of(lambda: board_api_replay(openings), 2)
        rows.append(
            (
                "read_transcripts openingslarge.txt (10,784 XOT lines, core.parse_transcript)",
                f"{len(openings) / t_xot:,.0f} games/s",
                f"{t_base / t_xot:.2f}x replaying through Board.play",
            )
        )

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    table = "\n".join(
        [
            "| benchmark | figure | ratio to a baseline in the same run |",
            "|---|---|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        ]
    )
    print(table)
    if args.write:
        header = (
            f"## Game records (benchmarks/bench_records.py)\n\nMeasured {stamp} on {machine()}.\n\n"
        )
        write_section(args.write, "records", header + table + "\n")


if __name__ == "__main__":
    main()
