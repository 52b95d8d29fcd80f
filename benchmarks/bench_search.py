"""Speed of the search players: FFO #40-#59 solved exactly, alpha-beta depth in one second.

The exact solver's nodes/s is compared with perft's leaves/s measured in the same run (the
machine is shared and noisy); every solved position is checked against the scores in the file.
Run ``python benchmarks/bench_search.py --write docs/benchmarks.md`` (``--ffo 40-44`` for a
subset, ``--six`` to also solve 6x6 from the start, ``--jobs 2`` to solve two positions at once,
each on its own core). ``--midgame-depth 10 --positions 20`` times the midgame search to a fixed
depth on WTHOR positions instead (the default player's settings, with and without ProbCut), and
``--time-use 1.0`` the default player's time per move on the same positions.
``--threads 1,2 --ffo 40-49`` solves each FFO position on 1 and on 2 threads, alternating in
one process, and compares their wall times (nothing else is run).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import machine, write_section

from othellolab import Board
from othellolab.core import kernels as k
from othellolab.core import square_name
from othellolab.players.search.endgame import SolveAborted, solve, warm_up
from othellolab.players.search.midgame import search
from othellolab.players.search.table import TranspositionTable
from othellolab.records.obf import ObfEntry, parse_obf_line
from othellolab.records.wthor import read_wtb

DATA = Path(
    os.environ.get(
        "OTHELLOLAB_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)


def perft_rate() -> float:
    """Perft(9) leaves per second from the start: the baseline."""
    p, o = k.start_position(8)
    k.perft(p, o, 2)
    t0 = time.perf_counter()
    leaves = k.perft(p, o, 9)
    return leaves / (time.perf_counter() - t0)


def ffo_entry(number: int) -> ObfEntry:
    """FFO position #number (40-59) with the scores ``fforum-40-59.obf`` lists."""
    lines = (DATA / "ffo" / "fforum-40-59.obf").read_text().splitlines()
    return parse_obf_line(lines[number - 40], line_number=number - 39, source="fforum-40-59.obf")


def solve_ffo(
    number: int, table_bits: int, time_limit: float | None, weights: str | None = None
) -> tuple[str, int, int, float, bool]:
    """Solve FFO #number on this process's core (its moves ordered by the pattern ``weights``
    named, default the shipped default): the table row, solver nodes, ordering nodes, seconds
    (0 nodes when not solved) and whether the score and move match the file."""
    from othellolab.players.search.evaluation import weights_evaluation

    entry = ffo_entry(number)
    board, scores = entry.board, list(entry.moves)
    want = scores[0][1]
    evaluation = weights_evaluation(weights) if weights else None
    try:
        r = solve(
            board,
            table=TranspositionTable(table_bits),
            pv=False,
            time_limit=time_limit,
            evaluation=evaluation,
        )
    except SolveAborted:
        row = (
            f"| #{number} | {board.num_empties} | not solved in {time_limit:.0f} s | "
            f"{want:+d} | timeout | | | | | |"
        )
        print(row, flush=True)
        return row, 0, 0, 0.0, False
    ok_moves = {m for m, s in scores if s == want}
    ok = r.score == want and r.best_move in ok_moves
    row = (
        f"| #{number} | {board.num_empties} | {square_name(r.best_move)} {r.score:+d} | "
        f"{want:+d} | {'ok' if ok else 'MISMATCH'} | {r.nodes:,} | {r.presearch_nodes:,} | "
        f"{r.ordering_nodes:,} | "
        f"{r.seconds:.2f} | {r.nodes / r.seconds / 1e6:.1f} |"
    )
    print(row, flush=True)
    return row, r.nodes, r.ordering_nodes, r.seconds, ok


def ffo(
    first: int, last: int, table_bits: int, time_limit: float | None = None, jobs: int = 1
) -> tuple[list[str], int, int, float, int]:
    """Solve FFO #first..#last, each on one core (``jobs`` at a time, hardest first); return
    table rows, solver nodes, ordering nodes, seconds and mismatches (a position not solved
    within ``time_limit`` seconds counts as one)."""
    numbers = list(range(first, last + 1))
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            futures = {
                n: pool.submit(solve_ffo, n, table_bits, time_limit) for n in reversed(numbers)
            }
            results = [futures[n].result() for n in numbers]
    else:
        results = [solve_ffo(n, table_bits, time_limit) for n in numbers]
    rows = [r[0] for r in results]
    nodes = sum(r[1] for r in results)
    ordering = sum(r[2] for r in results)
    seconds = sum(r[3] for r in results)
    bad = sum(not r[4] for r in results)
    return rows, nodes, ordering, seconds, bad


def compare_ordering(
    first: int, last: int, names: list[str], table_bits: int, time_limit: float | None
) -> None:
    """Solve FFO #first..#last once per pattern-weights set, the sets alternating position by
    position (a busy machine's drift falls on all alike); print each set's nodes and seconds
    and their ratios to the first set's."""
    totals = {n: [0, 0.0, 0] for n in names}
    for number in range(first, last + 1):
        for name in names:
            _, nodes, ordering, seconds, ok = solve_ffo(number, table_bits, time_limit, name)
            totals[name][0] += nodes + ordering
            totals[name][1] += seconds
            totals[name][2] += not ok
    base_nodes, base_seconds, _ = totals[names[0]]
    print(f"\nFFO #{first}-#{last}, moves ordered by each evaluation (one core, alternating):")
    print("| evaluation | nodes (with ordering) | s | nodes ratio | time ratio | failed |")
    print("|---|---|---|---|---|---|")
    for name, (nodes, seconds, bad) in totals.items():
        print(
            f"| {name} | {nodes:,} | {seconds:.1f} | {nodes / base_nodes:.3f} | "
            f"{seconds / base_seconds:.3f} | {bad} |"
        )


def compare_threads(first: int, last: int, counts: list[int], table_bits: int, rounds: int) -> None:
    """Solve FFO #first..#last with each thread count in ``counts``, alternating in this process
    (the order flipped each round, so that a busy machine's drift falls on all alike), each on
    a fresh table; print each position's best wall time and nodes per count, the sums and the
    ratios to the first count's time. A wrong score stops the run."""
    best: dict[tuple[int, int], tuple[float, int]] = {}
    for round_ in range(rounds):
        for number in range(first, last + 1):
            entry = ffo_entry(number)
            order = counts if round_ % 2 == 0 else counts[::-1]
            for threads in order:
                r = solve(
                    entry.board, table=TranspositionTable(table_bits), pv=False, threads=threads
                )
                if r.score != entry.moves[0][1]:
                    raise SystemExit(f"FFO #{number} on {threads} threads: score {r.score:+d}")
                key = (number, threads)
                if key not in best or r.seconds < best[key][0]:
                    best[key] = (r.seconds, r.nodes)
                print(f"round {round_ + 1} FFO #{number} threads {threads}: {r.seconds:.2f} s")
    head = " | ".join(f"{t} thr s | {t} thr nodes" for t in counts)
    print(
        f"\nFFO #{first}-#{last}, best of {rounds} alternating runs, fresh 2**{table_bits} table:"
    )
    print(f"| FFO | empties | {head} | " + " | ".join(f"x{t}" for t in counts[1:]) + " |")
    print("|---|---|" + "---|---|" * len(counts) + "---|" * (len(counts) - 1))
    sums = dict.fromkeys(counts, 0.0)
    for number in range(first, last + 1):
        cells = []
        for t in counts:
            seconds, nodes = best[number, t]
            sums[t] += seconds
            cells.append(f"{seconds:.2f} | {nodes:,}")
        ratios = [f"{best[number, counts[0]][0] / best[number, t][0]:.2f}" for t in counts[1:]]
        empties = ffo_entry(number).board.num_empties
        print(f"| #{number} | {empties} | " + " | ".join(cells + ratios) + " |")
    total = " | ".join(f"{sums[t]:.2f} | " for t in counts)
    ratios = " | ".join(f"{sums[counts[0]] / sums[t]:.2f}" for t in counts[1:])
    print(f"| sum | | {total} | {ratios} |")


def midgame(games: int, seconds: float) -> list[tuple[int, int, int, float]]:
    """Alpha-beta for ``seconds`` on WTHOR 2004 positions after moves 20, 25 and 30."""
    out = []
    for number, game in enumerate(read_wtb(DATA / "wthor" / "WTH_2004.wtb"), 1):
        if number > games:
            break
        for ply in (20, 25, 30):
            board = Board()
            for sq in game.moves[:ply]:
                if board.must_pass():
                    board = board.play_pass()
                board = board.play(sq)
            if board.is_game_over():
                continue
            r = search(board, time_limit=seconds, table=TranspositionTable(20))
            out.append((number, ply, r.depth, r.nodes / r.seconds))
            print(
                f"game {number} move {ply}: depth {r.depth}, {r.nodes / r.seconds / 1e3:.0f} k nodes/s",
                flush=True,
            )
    return out


MIDGAME_PLIES = (16, 22, 28, 34, 40)
"""Plies after which ``midgame_positions`` takes a WTHOR game's position."""

DEFAULT_SETTINGS = "time=1.0,endgame=18,probcut=1.5,weights=patterns-r1"
"""The options ``time_to_depth`` and ``time_use`` measure: the default player's midgame search
(its ``endgame`` is now 20, which would solve the positions after ply 40 instead; kept at 18
so the figures compare with the earlier ones)."""


def midgame_positions(count: int) -> list[tuple[str, Board]]:
    """``count`` positions of WTHOR 2004 games, each game's after ``MIDGAME_PLIES`` plies in
    turn (games in file order), labelled ``game/ply``; none when the data is absent."""
    path = DATA / "wthor" / "WTH_2004.wtb"
    if not path.is_file():
        print(f"no WTHOR data at {path}: skipped", flush=True)
        return []
    out: list[tuple[str, Board]] = []
    for number, game in enumerate(read_wtb(path), 1):
        for ply in MIDGAME_PLIES:
            if len(out) == count:
                return out
            board = Board()
            for sq in game.moves[:ply]:
                if board.must_pass():
                    board = board.play_pass()
                board = board.play(sq)
            if not board.is_game_over():
                out.append((f"{number}/{ply}", board))
    return out


def time_to_depth(depth: int, plain_depth: int, count: int) -> None:
    """Search ``count`` midgame positions with the default player's evaluation, to ``depth``
    with its ProbCut (1.5, with the fit kept beside ``patterns-r1``) and to ``plain_depth`` without (far slower per ply), a fresh table
    for each search; print each search and the totals."""
    from othellolab.players.search.evaluation import weights_evaluation
    from othellolab.players.search.patterns import pattern_weights_dir
    from othellolab.players.search.probcut import weights_probcut

    positions = midgame_positions(count)
    if not positions:
        return
    evaluation = weights_evaluation("patterns-r1")
    fit = weights_probcut(str(pattern_weights_dir("patterns-r1")))  # the player's ProbCut fit
    search(Board(), depth=3, evaluation=evaluation, probcut=1.5)  # compile outside the timings
    totals = []
    for probcut, d in ((1.5, depth), (0.0, plain_depth)):
        nodes, seconds = 0, 0.0
        for label, board in positions:
            r = search(
                board,
                depth=d,
                evaluation=evaluation,
                table=TranspositionTable(20),
                probcut=probcut,
                probcut_table=fit,
            )
            nodes += r.nodes
            seconds += r.seconds
            print(
                f"probcut {probcut} {label}: {square_name(r.best_move)} {r.score:+.2f} "
                f"{r.nodes:,} nodes {r.seconds:.3f} s",
                flush=True,
            )
        totals.append((probcut, d, nodes, seconds))
    print(f"\n{len(positions)} WTHOR 2004 positions (patterns-r1, table 2^20):")
    print("| probcut | depth | nodes | s | k nodes/s |")
    print("|---|---|---|---|---|")
    for probcut, d, nodes, seconds in totals:
        print(f"| {probcut} | {d} | {nodes:,} | {seconds:.2f} | {nodes / seconds / 1e3:.0f} |")


def time_use(seconds: float, count: int) -> None:
    """The default player's time per move at ``time=seconds`` on ``count`` midgame positions
    (a fresh player each, so no table carries over): mean and max wall time, and depths."""
    from othellolab.players import make_player

    positions = midgame_positions(count)
    if not positions:
        return
    settings = DEFAULT_SETTINGS.replace("time=1.0", f"time={seconds}")
    make_player(f"alphabeta:{settings}").choose(Board())  # compile outside the timings
    walls, depths = [], []
    for label, board in positions:
        player = make_player(f"alphabeta:{settings}")
        t0 = time.perf_counter()
        result = player.choose(board)
        walls.append(time.perf_counter() - t0)
        depths.append(int(result.info["depth"]))
        print(f"{label}: depth {depths[-1]}, {walls[-1]:.3f} s", flush=True)
    print(
        f"\nalphabeta:{settings} on {len(walls)} positions: mean {sum(walls) / len(walls):.3f} s, "
        f"max {max(walls):.3f} s a move; depth {min(depths)}-{max(depths)} "
        f"(mean {sum(depths) / len(depths):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    parser.add_argument("--ffo", default="40-59", help="FFO numbers to solve, A-B within 40-59")
    parser.add_argument("--table-bits", type=int, default=22)
    parser.add_argument(
        "--time-limit", type=float, default=300.0, help="seconds per FFO position before giving up"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="FFO positions solved at once, each in its own process on one core",
    )
    parser.add_argument("--games", type=int, default=3, help="WTHOR games for the midgame test")
    parser.add_argument("--six", action="store_true", help="also solve 6x6 from the start")
    parser.add_argument(
        "--compare-weights",
        help="comma-separated pattern weights (shipped names or folders): solve --ffo with "
        "each ordering the moves, alternating, and compare (nothing else is run)",
    )
    parser.add_argument(
        "--midgame-depth",
        type=int,
        help="search --positions WTHOR midgame positions to this depth with ProbCut 1.5 and to "
        "--plain-depth without (nothing else is run)",
    )
    parser.add_argument(
        "--plain-depth", type=int, default=11, help="the depth of --midgame-depth without ProbCut"
    )
    parser.add_argument(
        "--time-use",
        type=float,
        help="time per move of the default player at this time= on --positions positions",
    )
    parser.add_argument("--positions", type=int, default=20, help="positions for the midgame runs")
    parser.add_argument(
        "--threads",
        help="comma-separated thread counts: solve --ffo with each, alternating, and compare "
        "wall times (nothing else is run)",
    )
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds of --threads")
    args = parser.parse_args()
    if args.midgame_depth is not None or args.time_use is not None:
        if args.positions < 1:
            parser.error("--positions must be at least 1")
        if args.midgame_depth is not None:
            if not (1 <= args.midgame_depth <= 30 and 1 <= args.plain_depth <= 30):
                parser.error("--midgame-depth and --plain-depth must be within 1-30")
            time_to_depth(args.midgame_depth, args.plain_depth, args.positions)
        if args.time_use is not None:
            if not 0.001 <= args.time_use <= 60:
                parser.error("--time-use must be within 0.001-60 seconds")
            time_use(args.time_use, args.positions)
        return
    a, _, b = args.ffo.partition("-")
    first, last = int(a), int(b or a)
    if not 40 <= first <= last <= 59:
        parser.error("--ffo must be within 40-59")

    # Compile (or load) the kernels outside the timings.
    warm_up()  # the solver on 1 and 2 threads
    search(Board(), depth=2)
    if args.threads:
        counts = [int(t) for t in args.threads.split(",") if t.strip()]
        compare_threads(first, last, counts, args.table_bits, args.rounds)
        return
    if args.compare_weights:
        names = [n.strip() for n in args.compare_weights.split(",") if n.strip()]
        compare_ordering(first, last, names, args.table_bits, args.time_limit)
        return
    base = perft_rate()
    rows, nodes, ordering, seconds, bad = ffo(
        first, last, args.table_bits, args.time_limit, args.jobs
    )
    rate = nodes / seconds
    mid = midgame(args.games, 1.0)
    six = ""
    if args.six:
        r = solve(Board(size=6), table=TranspositionTable(args.table_bits), pv=False)
        six = f"\n6x6 from the start: score {r.score:+d} (white wins 20-16), {r.nodes:,} nodes, {r.seconds:.1f} s.\n"

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    n_solved = last - first + 1
    summary = [
        "| benchmark | figure | ratio to a baseline in the same run |",
        "|---|---|---|",
        f"| FFO #{first}-#{last} exact solve, 1 core per position ({args.jobs} at a time) | "
        f"{n_solved - bad}/{n_solved} correct (score and move), {seconds:.1f} s, {nodes:,} "
        f"nodes (solved positions), {rate / 1e6:.1f} M nodes/s; with the {ordering:,} "
        f"positions of the ordering searches, {(nodes + ordering) / seconds / 1e6:.1f} M/s | "
        f"{rate / base:.3f}x perft(9) leaves/s ({base / 1e6:.0f} M/s) |",
    ]
    if mid:
        depths = [d for _, _, d, _ in mid]
        mrate = sum(r for *_, r in mid) / len(mid)
        summary.append(
            f"| alpha-beta, 1 s per WTHOR 2004 position (moves 20/25/30, {len(mid)} positions) | "
            f"depth {min(depths)}-{max(depths)} (mean {sum(depths) / len(depths):.1f}), "
            f"{mrate / 1e3:.0f} k nodes/s | {mrate / base:.4f}x perft(9) leaves/s |"
        )
    detail = [
        "| FFO | empties | solver | file | check | nodes | of which pre-search | ordering nodes "
        "| s | M nodes/s |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
    ]
    body = (
        "## Search (benchmarks/bench_search.py)\n\n"
        f"Measured {stamp} on {machine()} (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores: figures are pessimistic on a busy machine).\n\n"
        + "\n".join(summary)
        + "\n\n"
        + "\n".join(detail)
        + "\n"
        + six
    )
    print(body)
    if args.write:
        write_section(args.write, "search", body)
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
