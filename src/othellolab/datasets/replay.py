"""Replay games into position rows with one Numba kernel over the move arrays.

The kernel walks every game of a ``GameArrays``, inserts the forced passes a record leaves out,
checks every move, and emits one row per action (passes included): the position before the
action, the colour to move, the action, and its 1-based number in the game. It runs twice:
once to count rows and find errors, once to fill arrays of exactly that size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from othellolab.core import kernels as _k
from othellolab.core import move_name
from othellolab.core.errors import IllegalMoveError
from othellolab.core.kernels import FULL8, INNER8, ONE, U64, ZERO, _flips, _legal, kernel
from othellolab.datasets.sources import GameArrays

OK = 0
ILLEGAL_MOVE = 1
ILLEGAL_PASS = 2
AFTER_END = 3
OFF_BOARD = 4

_WHY = {
    ILLEGAL_MOVE: "illegal move",
    ILLEGAL_PASS: "pass while a placing move is legal (or after the end)",
    AFTER_END: "move after the end of the game",
    OFF_BOARD: "action out of range",
}


@kernel
def _legal_n(p: int, o: int, size: int) -> int:
    """Legal moves, through the specialised 8x8 helper on the common board."""
    if size == 8:
        return _legal(p, o, 8, INNER8, FULL8)
    return _k.legal_mask(p, o, size)


@kernel
def _flips_n(p: int, o: int, sq: int, size: int) -> int:
    """Flipped discs, through the specialised 8x8 helper on the common board."""
    if size == 8:
        return _flips(p, o, sq, 8)
    return _k.flip_mask(p, o, sq, size)


@kernel
def _replay(
    moves: np.ndarray,
    start_p: np.ndarray,
    start_o: np.ndarray,
    start_color: np.ndarray,
    size: int,
    offsets: np.ndarray,
    fill: bool,
    out_p: np.ndarray,
    out_o: np.ndarray,
    out_color: np.ndarray,
    out_move: np.ndarray,
    out_number: np.ndarray,
    out_game: np.ndarray,
    n_rows: np.ndarray,
    n_passes: np.ndarray,
    final_black: np.ndarray,
    complete: np.ndarray,
    error: np.ndarray,
    error_move: np.ndarray,
) -> None:
    npass = size * size
    for g in range(moves.shape[0]):
        p = U64(start_p[g])
        o = U64(start_o[g])
        color = np.int64(start_color[g])
        row = offsets[g] if fill else 0
        n = 0
        passes = 0
        err = OK
        for j in range(moves.shape[1]):
            m = np.int64(moves[g, j])
            if m < 0:
                break
            if m > npass:
                err = OFF_BOARD
                error_move[g] = j
                break
            legal = _legal_n(p, o, size)
            if m == npass:
                if legal != ZERO or _legal_n(o, p, size) == ZERO:
                    err = ILLEGAL_PASS
                    error_move[g] = j
                    break
                if fill:
                    out_p[row] = p
                    out_o[row] = o
                    out_color[row] = color
                    out_move[row] = npass
                    out_number[row] = n + 1
                    out_game[row] = g
                    row += 1
                n += 1
                passes += 1
                p, o = o, p
                color = 1 - color
                continue
            if legal == ZERO:
                if _legal_n(o, p, size) == ZERO:
                    err = AFTER_END
                    error_move[g] = j
                    break
                if fill:
                    out_p[row] = p
                    out_o[row] = o
                    out_color[row] = color
                    out_move[row] = npass
                    out_number[row] = n + 1
                    out_game[row] = g
                    row += 1
                n += 1
                passes += 1
                p, o = o, p
                color = 1 - color
                legal = _legal_n(p, o, size)
            bit = ONE << U64(m)
            if legal & bit == ZERO:
                err = ILLEGAL_MOVE
                error_move[g] = j
                break
            if fill:
                out_p[row] = p
                out_o[row] = o
                out_color[row] = color
                out_move[row] = m
                out_number[row] = n + 1
                out_game[row] = g
                row += 1
            f = _flips_n(p, o, m, size)
            p, o = o & ~f, p | f | bit
            color = 1 - color
            n += 1
        if not fill:
            n_rows[g] = n
            n_passes[g] = passes
            error[g] = err
            score = _k.final_score(p, o, size)
            final_black[g] = score if color == 0 else -score
            complete[g] = _k.is_game_over(p, o, size)


@dataclass(frozen=True, eq=False)
class Replayed:
    """Rows of one source after replay, and per-game facts.

    Rows: ``p``/``o`` the position before the action (side to move, opponent), ``color`` of
    the side to move (0 black, 1 white), ``move`` the action (``size*size`` = pass),
    ``move_number`` its 1-based place among the game's actions (passes count), ``game`` the
    game's 0-based index in the source. Games: ``n_rows``, ``n_passes`` (forced passes), the
    replayed final disc difference for black ``final_black`` (empties to the winner, an
    unfinished game scored as it stands), whether it reached the end (``complete``), and
    ``valid`` (false only for games skipped in lenient mode).
    """

    p: np.ndarray
    o: np.ndarray
    color: np.ndarray
    move: np.ndarray
    move_number: np.ndarray
    game: np.ndarray
    n_rows: np.ndarray
    n_passes: np.ndarray
    final_black: np.ndarray
    complete: np.ndarray
    valid: np.ndarray

    ROW_FIELDS = ("p", "o", "color", "move", "move_number", "game")
    GAME_FIELDS = ("n_rows", "n_passes", "final_black", "complete", "valid")


def replay_games(games: GameArrays, *, strict: bool = True) -> Replayed:
    """Replay every game of ``games`` into rows (one per action, passes included).

    A bad move raises ``IllegalMoveError`` naming the source, the game (1-based) and the move
    (1-based among the recorded moves); with ``strict=False`` such games are skipped (their
    ``valid`` is false and they give no rows).
    """
    n = games.n_games
    moves = np.ascontiguousarray(games.moves, dtype=np.int16)
    n_rows = np.zeros(n, dtype=np.int64)
    n_passes = np.zeros(n, dtype=np.int64)
    final_black = np.zeros(n, dtype=np.int64)
    complete = np.zeros(n, dtype=np.bool_)
    error = np.zeros(n, dtype=np.int64)
    error_move = np.zeros(n, dtype=np.int64)
    none_u64 = np.zeros(0, dtype=np.uint64)
    none_u8 = np.zeros(0, dtype=np.uint8)
    none_i32 = np.zeros(0, dtype=np.int32)
    args = (moves, games.start_p, games.start_o, games.start_color, games.size)
    _replay(
        *args, np.zeros(n, dtype=np.int64), False, none_u64, none_u64, none_u8, none_u8,
        none_u8, none_i32, n_rows, n_passes, final_black, complete, error, error_move,
    )  # fmt: skip
    valid = error == OK
    if not valid.all():
        g = int(np.flatnonzero(~valid)[0])
        if strict:
            j = int(error_move[g])
            m = int(moves[g, j])
            name = move_name(m, games.size) if 0 <= m <= games.size**2 else str(m)
            raise IllegalMoveError(
                f"{games.name}: game {g + 1}, move {j + 1} ({name}): {_WHY[int(error[g])]}"
            )
        n_rows[~valid] = 0
        n_passes[~valid] = 0
        moves = moves.copy()
        moves[~valid] = -1
    total = int(n_rows.sum())
    offsets = np.zeros(n, dtype=np.int64)
    np.cumsum(n_rows[:-1], out=offsets[1:])
    out = {
        "p": np.empty(total, dtype=np.uint64),
        "o": np.empty(total, dtype=np.uint64),
        "color": np.empty(total, dtype=np.uint8),
        "move": np.empty(total, dtype=np.uint8),
        "move_number": np.empty(total, dtype=np.uint8),
        "game": np.empty(total, dtype=np.int32),
    }
    scratch = np.zeros(n, dtype=np.int64)
    _replay(
        moves, games.start_p, games.start_o, games.start_color, games.size, offsets, True,
        out["p"], out["o"], out["color"], out["move"], out["move_number"], out["game"],
        scratch, scratch, scratch, np.zeros(n, dtype=np.bool_), scratch, scratch,
    )  # fmt: skip
    return Replayed(
        **out,
        n_rows=n_rows,
        n_passes=n_passes,
        final_black=final_black,
        complete=complete,
        valid=valid,
    )
