"""``othellolab solve``: exact endgame solutions of one position or of an OBF problem file."""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from othellolab.core import ConfigError, OthelloError, Stop, run_stoppable, square_name

if TYPE_CHECKING:
    from othellolab.core import Board
    from othellolab.players.search.endgame import SolveResult


def _line_range(text: str | None, total: int) -> range:
    """1-based inclusive ``A-B`` (or ``A``) as a 0-based range over ``total`` lines."""
    if not text:
        return range(total)
    first, _, last = text.partition("-")
    try:
        a = int(first)
        b = int(last) if last else a
    except ValueError:
        raise typer.BadParameter(f"expected A-B, got {text!r}", param_hint="--lines") from None
    if not 1 <= a <= b:
        raise typer.BadParameter(f"expected 1 <= A <= B, got {text!r}", param_hint="--lines")
    return range(a - 1, min(b, total))


MAX_EMPTIES = 30
"""Default for ``--max-empties``: FFO #40-#59 (20-34 empties) take seconds to minutes each
(docs/benchmarks.md); far more empties would run for hours."""

WARM_UP_NODES = 10_000
"""Nodes of the untimed first solve that compiles the kernels (or loads them from the cache)."""

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""


def _check_time_limit(seconds: float | None) -> None:
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise ConfigError(f"{seconds!r} is not a number of seconds above 0", option="--time-limit")


def _check_empties(board: Board, max_empties: int, where: str) -> None:
    """Refuse a position with more empties than ``--max-empties`` (an exact solve would run
    for hours), saying how to go on anyway."""
    if board.num_empties > max_empties:
        raise ConfigError(
            f"{where} has {board.num_empties} empty squares, above --max-empties "
            f"{max_empties}: an exact solve could take hours; pass --max-empties "
            f"{board.num_empties} (and maybe --time-limit SECONDS) to go on anyway"
        )


@contextlib.contextmanager
def _spinner(text: str) -> Iterator[None]:
    """A spinner with the elapsed time on the terminal's stderr while a solve runs (nothing
    when stderr is not a terminal)."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn(text),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        bar.add_task(text, total=None)
        yield


def solve(
    position: Annotated[
        str | None, typer.Argument(help="An OBF line: 64 cells, a space, X or O to move.")
    ] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Solve every line of an OBF file.")
    ] = None,
    first: Annotated[int | None, typer.Option(help="Only the first N lines of --file.")] = None,
    lines: Annotated[
        str | None, typer.Option(help="Only lines A-B of --file (1-based, inclusive).")
    ] = None,
    all_scores: Annotated[
        bool,
        typer.Option(
            "--all-scores/--first-score",
            help="Also check that the best move is one listed with the best score.",
        ),
    ] = True,
    table_bits: Annotated[
        int, typer.Option(help="Transposition table: 2**BITS entries of 16 bytes.", min=4, max=30)
    ] = 22,
    evaluation: Annotated[
        str,
        typer.Option(
            help="Evaluation that orders moves far from the end: auto (patterns on 8x8, "
            "heuristic on smaller boards), patterns, heuristic or discs. It changes the time, "
            "never the result."
        ),
    ] = "auto",
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time-limit",
            metavar="SECONDS",
            help="Give up on a position after this many seconds (exit status 1).",
        ),
    ] = None,
    max_empties: Annotated[
        int,
        typer.Option(
            "--max-empties",
            min=0,
            max=64,
            help="Refuse positions with more empty squares than this (raise it to go on anyway).",
        ),
    ] = MAX_EMPTIES,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            metavar="N",
            help="Threads for each solve, 1-256 (default: the cores this process may use); "
            "the score never depends on it, the best move may be another of equal score.",
        ),
    ] = None,
) -> None:
    """Solve positions exactly: best move, final disc difference (empties to the winner), PV.

    With --file, each line's result is compared with the scores listed on it (``MOVE:SCORE``
    items, best first); the exit code is 1 if any line disagrees. Ctrl-C stops the solve and
    exits with status 130.
    """
    try:
        _solve_command(
            position,
            file,
            first,
            lines,
            all_scores,
            table_bits,
            evaluation,
            time_limit,
            max_empties,
            threads,
        )
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(INTERRUPTED) from None


def _solve_command(
    position: str | None,
    file: Path | None,
    first: int | None,
    lines: str | None,
    all_scores: bool,
    table_bits: int,
    evaluation: str,
    time_limit: float | None,
    max_empties: int,
    threads: int | None = None,
) -> None:
    from othellolab.players.search.endgame import SolveAborted
    from othellolab.players.search.endgame import solve as solve_board
    from othellolab.players.search.evaluation import named_evaluation
    from othellolab.players.search.parallel_solve import check_threads, default_threads
    from othellolab.players.search.table import TranspositionTable
    from othellolab.records.obf import parse_obf_line

    if (position is None) == (file is None):
        raise typer.BadParameter("give either a POSITION or --file")
    _check_time_limit(time_limit)
    try:
        threads = check_threads(default_threads() if threads is None else threads)
    except ConfigError as e:
        raise typer.BadParameter(str(e), param_hint="--threads") from None
    try:
        ev = None if evaluation == "auto" else named_evaluation(evaluation)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--evaluation") from None
    table = TranspositionTable(table_bits)
    stop = Stop()  # Ctrl-C stops a solve at its next node

    def run(board: Board, **kwargs: Any) -> SolveResult:
        def work() -> SolveResult:
            return solve_board(
                board, evaluation=ev, stop=stop, time_limit=time_limit, threads=threads, **kwargs
            )

        return run_stoppable(work, stop)  # SolveAborted: out of --time-limit

    def warm_up(board: Board) -> None:
        """Compile the kernels outside the timed solve: a few thousand nodes of the same
        position run every kernel the solve will (a Ctrl-C here still stops at once)."""
        with contextlib.suppress(SolveAborted):
            run_stoppable(
                lambda: solve_board(
                    board,
                    evaluation=ev,
                    stop=stop,
                    table=TranspositionTable(10),
                    max_nodes=WARM_UP_NODES,
                    threads=threads,
                ),
                stop,
            )
        if stop.is_set():
            raise KeyboardInterrupt

    if position is not None:
        try:
            board = parse_obf_line(position).board
        except (OthelloError, ValueError) as e:
            raise typer.BadParameter(str(e), param_hint="POSITION") from None
        _check_empties(board, max_empties, "the position")
        typer.echo(
            f"solving {board.num_empties} empties"
            + (f", at most {time_limit:g} s" if time_limit is not None else "")
            + " (Ctrl-C stops)",
            err=True,
        )
        with _spinner(f"solving {board.num_empties} empties"):
            warm_up(board)
            try:
                r = run(board, table=table)
            except SolveAborted:
                raise OthelloError(
                    f"no result within --time-limit {time_limit:g} s ({board.num_empties} empties)"
                ) from None
        rate = r.nodes / r.seconds if r.seconds > 0 else 0.0
        best = "none (game over)" if r.best_move is None else square_name(r.best_move, board.size)
        typer.echo(f"best move: {best}")
        typer.echo(f"score:     {r.score:+d} (final disc difference for the side to move)")
        typer.echo(f"pv:        {' '.join(r.pv_names(board.size))}")
        typer.echo(f"nodes:     {r.nodes} in {r.seconds:.3f} s ({rate / 1e6:.2f} M nodes/s)")
        return
    assert file is not None
    try:
        text_lines = [ln for ln in file.read_text().splitlines() if ln.strip()]
    except OSError as e:
        raise typer.BadParameter(str(e), param_hint="--file") from None
    chosen = list(_line_range(lines, len(text_lines)))
    if first is not None:
        chosen = chosen[:first]
    mismatches = 0
    total_nodes = 0
    t0 = time.perf_counter()
    typer.echo(
        f"{'line':>5} {'empt':>4} {'move':>4} {'score':>5} {'want':>5} {'nodes':>12} "
        f"{'time':>8} {'Mn/s':>6}  result"
    )
    entries = []
    for index in chosen:
        try:
            entry = parse_obf_line(text_lines[index], line_number=index + 1, source=file)
        except (OthelloError, ValueError) as e:
            typer.echo(str(e), err=True)
            raise typer.Exit(2) from None
        _check_empties(entry.board, max_empties, f"{file} line {index + 1}")
        entries.append((index, entry))
    for done, (index, entry) in enumerate(entries):
        board, scores = entry.board, list(entry.moves)
        table.clear()
        try:
            with _spinner(
                f"line {index + 1} ({done + 1}/{len(entries)}), {board.num_empties} empties"
            ):
                r = run(board, table=table, pv=False)
        except SolveAborted:
            mismatches += 1
            typer.echo(
                f"{index + 1:>5} {board.num_empties:>4} {'':>4} {'':>5} {'':>5} {'':>12} "
                f"{'':>8} {'':>6}  NO RESULT within --time-limit {time_limit:g} s"
            )
            continue
        total_nodes += r.nodes
        verdict = "ok"
        want = scores[0][1] if scores else None
        if want is not None and r.score != want:
            verdict = f"MISMATCH: score {r.score:+d}, file says {want:+d}"
        elif all_scores and want is not None and r.best_move is not None:
            best_moves = {m for m, s in scores if s == want and m is not None}
            if best_moves and r.best_move not in best_moves:
                names = ", ".join(sorted(square_name(m, board.size) for m in best_moves))
                verdict = f"MISMATCH: move {square_name(r.best_move, board.size)} not in {names}"
        if verdict != "ok":
            mismatches += 1
        move = "--" if r.best_move is None else square_name(r.best_move, board.size)
        rate = r.nodes / r.seconds / 1e6 if r.seconds > 0 else 0.0
        want_text = f"{want:+d}" if want is not None else "?"
        typer.echo(
            f"{index + 1:>5} {board.num_empties:>4} {move:>4} {r.score:>+5d} "
            f"{want_text:>5} {r.nodes:>12} {r.seconds:>8.2f} {rate:>6.1f}  {verdict}"
        )
    dt = time.perf_counter() - t0
    rate = total_nodes / dt / 1e6 if dt > 0 else 0.0
    typer.echo(
        f"solved {len(chosen)} positions, {mismatches} mismatches, {total_nodes} nodes in "
        f"{dt:.2f} s ({rate:.2f} M nodes/s)"
    )
    if mismatches:
        raise typer.Exit(1)
