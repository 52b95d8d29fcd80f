"""Records -> position rows, once: one Numba kernel over the move arrays of any reader.

The kernel walks every game of a ``GameArrays``, inserts the forced passes a record leaves out,
checks every move, and emits one row per action (passes included): the position before the
action, the colour to move, the action, and its 1-based number in the game. It runs twice:
once to count rows and find errors, once to fill arrays of exactly that size.

``replay_games`` gives the rows of one source and the facts of its games (the dataset builder
caches these per source); ``game_results`` is the rule for a game's result;
``positions_from_games`` puts both together into ``PositionArrays`` for the trainer, the
held-out evaluation and the pattern fit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from othellolab.core import kernels as _k
from othellolab.core import square_name
from othellolab.core.errors import IllegalMoveError
from othellolab.core.kernels import FULL8, INNER8, ONE, U64, ZERO, _flips, _legal
from othellolab.core.numba_kernel import kernel
from othellolab.datasets.sources import NO_SCORE, GameArrays

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
def _emit(
    fill: bool,
    out: tuple[np.ndarray, ...],
    row: int,
    p: int,
    o: int,
    color: int,
    move: int,
    number: int,
    game: int,
) -> int:
    """The next row after ``row``; when filling, row ``row`` of ``out`` (``_replay``'s
    ``out_p`` to ``out_game``) gets the position before ``move``, its colour, number and game."""
    if not fill:
        return row
    out[0][row] = p
    out[1][row] = o
    out[2][row] = color
    out[3][row] = move
    out[4][row] = number
    out[5][row] = game
    return row + 1


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
    out = (out_p, out_o, out_color, out_move, out_number, out_game)
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
            if m == npass or legal == ZERO:  # a pass: written, or left out of the record
                why = OK
                if m == npass and legal != ZERO:
                    why = ILLEGAL_PASS
                elif _legal_n(o, p, size) == ZERO:
                    why = ILLEGAL_PASS if m == npass else AFTER_END
                if why != OK:
                    err = why
                    error_move[g] = j
                    break
                row = _emit(fill, out, row, p, o, color, npass, n + 1, g)
                n += 1
                passes += 1
                p, o = o, p
                color = 1 - color
                if m == npass:
                    continue
                legal = _legal_n(p, o, size)
            bit = ONE << U64(m)
            if legal & bit == ZERO:
                err = ILLEGAL_MOVE
                error_move[g] = j
                break
            row = _emit(fill, out, row, p, o, color, m, n + 1, g)
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
            name = square_name(m, games.size) if 0 <= m <= games.size**2 else str(m)
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


RESULT_RULES = ("replay", "recorded", "finished")
"""Where a game's result comes from: the ``replay`` of its moves (an unfinished game scored as
it stands), as ``recorded``, or ``finished``: the replay for a game that reaches its end, the
recorded result for one that stops early (adjudicated), the replay when none is recorded."""


def game_results(
    final_black: np.ndarray, complete: np.ndarray, recorded: np.ndarray, rule: str
) -> np.ndarray:
    """Black's final disc difference (empties to the winner) of each game under ``rule``, one
    of ``RESULT_RULES``, from the replay's ``final_black`` and ``complete`` (``Replayed``) and
    the ``recorded`` scores (``GameArrays.recorded_score``, ``NO_SCORE`` if none)."""
    final = final_black.astype(np.int64)
    recorded = recorded.astype(np.int64)
    if rule == "replay":
        return final
    if rule == "recorded":
        return recorded
    if rule == "finished":
        return np.where(complete | (recorded == NO_SCORE), final, recorded)
    raise ValueError(f"result rule {rule!r}: expected one of {RESULT_RULES}")


@dataclass(frozen=True, eq=False)
class PositionArrays:
    """Position rows in memory, one per action played, with the game's result.

    ``player``/``opponent`` are uint64 bitboards of the side to move and its opponent,
    ``move`` the action played (``size*size`` = pass), ``outcome`` the game's result for the
    side to move (+1, 0, -1), ``score`` its final disc difference / ``size*size``, ``game`` a
    game number (rows of one game share it, so splits can keep games whole), ``color`` the
    colour to move (0 black, 1 white) when known; ``sources`` names where the rows came from.
    """

    player: np.ndarray
    opponent: np.ndarray
    move: np.ndarray
    outcome: np.ndarray
    score: np.ndarray | None = None
    game: np.ndarray | None = None
    size: int = 8
    sources: tuple[str, ...] = field(default=())
    color: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.player)
        dtypes = {
            "player": np.uint64, "opponent": np.uint64, "move": np.int64,
            "outcome": np.float32, "score": np.float32, "game": np.int64, "color": np.uint8,
        }  # fmt: skip
        for name, dtype in dtypes.items():
            a = getattr(self, name)
            if a is None:
                continue
            object.__setattr__(self, name, np.ascontiguousarray(a, dtype=dtype))
            if len(a) != n:
                raise ValueError(f"PositionArrays: {name} has {len(a)} rows, player has {n}")
        if n and (self.move.min() < 0 or self.move.max() > self.size * self.size):
            raise ValueError(f"PositionArrays: moves outside 0..{self.size * self.size}")

    def __len__(self) -> int:
        return len(self.player)

    def take(self, index: np.ndarray) -> PositionArrays:
        """The rows at ``index``."""
        return replace(
            self,
            **{
                name: None if getattr(self, name) is None else getattr(self, name)[index]
                for name in ("player", "opponent", "move", "outcome", "score", "game", "color")
            },
        )


def head(games: GameArrays, count: int) -> GameArrays:
    """The first ``count`` games."""
    return replace(
        games,
        **{
            k: getattr(games, k)[:count]
            for k in ("moves", "start_p", "start_o", "start_color", "year", "recorded_score")
        },
    )


def positions_from_games(
    sources: Iterable[GameArrays],
    *,
    max_games: int = 0,
    passes: bool = True,
    first_game: int = 0,
    result: str = "finished",
    names: tuple[str, ...] = (),
) -> PositionArrays:
    """The rows of every game of ``sources`` (read lazily, in order), games numbered from
    ``first_game`` on, each row's result by ``result`` (see ``RESULT_RULES``).

    ``max_games`` caps the games over all sources (0 = all); ``passes=False`` leaves out the
    forced passes (they carry no choice). A bad move raises ``IllegalMoveError`` naming the
    source, the game and the move (see ``replay_games``)."""
    parts: list[dict[str, np.ndarray]] = []
    size = 8
    taken = 0
    for games in sources:
        if max_games:
            games = head(games, max_games - taken)
        if games.n_games == 0:
            continue
        size = games.size
        r = replay_games(games)
        black = game_results(r.final_black, r.complete, games.recorded_score, result)
        row_game = r.game.astype(np.int64)
        final = (1 - 2 * r.color.astype(np.int64)) * black[row_game]
        rows = {
            "player": r.p, "opponent": r.o, "move": r.move, "color": r.color,
            "outcome": np.sign(final), "final": final, "game": row_game + first_game + taken,
        }  # fmt: skip
        if not passes:
            keep = r.move != size * size
            rows = {k: v[keep] for k, v in rows.items()}
        parts.append(rows)
        taken += games.n_games
        if max_games and taken >= max_games:
            break
    cols = {
        k: np.concatenate([p[k] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        for k in ("player", "opponent", "move", "color", "outcome", "final", "game")
    }
    return PositionArrays(
        cols["player"],
        cols["opponent"],
        cols["move"],
        cols["outcome"],
        cols["final"] / (size * size),
        cols["game"],
        size,
        names,
        color=cols["color"],
    )
