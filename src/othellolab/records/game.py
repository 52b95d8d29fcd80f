"""``GameRecord``: one game record in any format — headers, start board, moves with passes, results."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from othellolab.core import (
    BLACK,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    Outcome,
    format_transcript,
    parse_move,
    square_name,
)
from othellolab.records._replay import insert_passes

HEADER_KEYS = ("black", "white", "event", "tournament", "date", "year", "round", "source")
"""Header names readers fill when the format has them (others may appear too)."""

_START8 = Board()


@dataclass(frozen=True, eq=True)
class GameRecord:
    """A game record: the actions from ``start`` (passes explicit, as ``size*size``), headers,
    and what the record claims about the result.

    ``recorded_score`` is black's final disc difference as stored in the file (WTHOR stores
    black's disc count; GGF ``RE``); ``theoretical_score`` is black's disc difference under
    perfect play from the stored depth, when the format has one (WTHOR).

    As on ``Board``, facts are properties and work is a method: ``final_board``, ``boards``
    (every position, a tuple), ``result`` (an ``Outcome``) and ``score`` (black's disc
    difference) come from replaying the moves, once; ``replay()`` walks the game as
    ``(board, move)`` pairs, ``is_complete()`` asks ``final_board.is_game_over()``, and
    ``transcript()`` writes the moves.
    """

    moves: tuple[int, ...]
    start: Board = field(default_factory=Board)
    headers: Mapping[str, Any] = field(default_factory=dict)
    recorded_score: int | None = None
    theoretical_score: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "moves", tuple(int(m) for m in self.moves))
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))

    def __hash__(self) -> int:
        return hash((self.moves, self.start, tuple(sorted(self.headers.items(), key=str))))

    @property
    def size(self) -> int:
        """Board size of the game."""
        return self.start.size

    @classmethod
    def from_moves(
        cls,
        moves: Iterable[int | str],
        *,
        start: Board | None = None,
        where: str = "",
        **fields: Any,
    ) -> GameRecord:
        """A game from moves that may omit passes (as WTHOR and transcripts do): passes are
        inserted where the side to move has no placing move, and every move is checked.

        ``where`` prefixes error messages (e.g. ``"WTH_2004.wtb game 17: "``); move numbers in
        errors count the given moves from 1. Integer moves (a list or a numpy array) are checked
        by one compiled replay; the error of an illegal move comes from ``Board.play``.

        >>> GameRecord.from_moves(["f5", "d6", "c3"]).transcript()
        'f5d6c3'
        """
        first = start if start is not None else _START8
        if not isinstance(moves, list | tuple | np.ndarray):
            moves = list(moves)
        size = first.size
        arr: np.ndarray | None = None
        if isinstance(moves, np.ndarray):
            if moves.dtype.kind in "iu":
                arr = moves.astype(np.int64, copy=False)
        elif not any(isinstance(m, str | bool) for m in moves):
            try:
                arr = np.asarray(moves, dtype=np.int64)
            except (TypeError, ValueError, OverflowError):
                arr = None
        if arr is not None and arr.ndim == 1:
            actions, bad, p, o = insert_passes(first.player, first.opponent, arr, size)
            if bad < 0:
                game = cls._trusted(tuple(actions.tolist()), first, fields)
                turn = first.turn ^ (len(actions) & 1)
                final = Board.from_bitboards(int(p), int(o), turn, size=size)
                object.__setattr__(game, "_final", final)
                return game
        return cls._from_moves_checked(list(moves), first, where, fields)

    @classmethod
    def _trusted(cls, moves: tuple[int, ...], start: Board, fields: dict[str, Any]) -> GameRecord:
        """A game from checked actions (a tuple of ints), skipping the conversions of __init__."""
        game = object.__new__(cls)
        headers = fields.pop("headers", None)
        set_ = object.__setattr__
        set_(game, "moves", moves)
        set_(game, "start", start)
        set_(game, "headers", MappingProxyType(dict(headers) if headers else {}))
        set_(game, "recorded_score", fields.pop("recorded_score", None))
        set_(game, "theoretical_score", fields.pop("theoretical_score", None))
        if fields:
            raise TypeError(f"unexpected GameRecord fields: {', '.join(fields)}")
        return game

    @classmethod
    def _from_moves_checked(
        cls, moves: list[Any], first: Board, where: str, fields: dict[str, Any]
    ) -> GameRecord:
        board = first
        n = board.size * board.size
        actions: list[int] = []
        for number, move in enumerate(moves, 1):
            try:
                a = parse_move(move if isinstance(move, str) else int(move), board.size)
                if a != n and board.must_pass():
                    actions.append(n)
                    board = board.play(n)
                board = board.play(a)
            except ValueError as e:
                text = _show(move, board.size)
                error = e if isinstance(e, MoveError) else InvalidMoveError(str(e))
                raise error.at(f"{where}move {number} ({text})", move=text, number=number) from None
            actions.append(a)
        return cls(tuple(actions), first, **fields)

    def with_headers(self, **headers: Any) -> GameRecord:
        """The same game with headers added or replaced (a value of ``None`` removes one)."""
        merged = {**self.headers, **headers}
        merged = {k: v for k, v in merged.items() if v is not None}
        game = replace(self, headers=merged)
        for kept in ("_final", "_boards"):
            if kept in self.__dict__:
                object.__setattr__(game, kept, self.__dict__[kept])
        return game

    def replay(self) -> Iterator[tuple[Board, int]]:
        """Each position with the action played from it, in order: the one way to walk a game
        move by move (``for board, move in game.replay()``). The final position, which has no
        move, is ``final_board``; ``boards`` holds every position at once."""
        board = self.start
        for number, a in enumerate(self.moves, 1):
            yield board, a
            try:
                board = board.play(a)
            except IllegalMoveError as e:
                raise e.at(f"move {number}", number=number) from None

    @property
    def boards(self) -> tuple[Board, ...]:
        """Every position from ``start`` to ``final_board`` inclusive (one more than the
        moves: ``boards[i]`` is the position before ``moves[i]``), replayed once and kept."""
        cached = self.__dict__.get("_boards")
        if cached is not None:
            return cached
        board = self.start
        boards = [board]
        for number, a in enumerate(self.moves, 1):
            try:
                board = board.play(a)
            except IllegalMoveError as e:
                raise e.at(f"move {number}", number=number) from None
            boards.append(board)
        result = tuple(boards)
        object.__setattr__(self, "_boards", result)
        if "_final" not in self.__dict__:
            object.__setattr__(self, "_final", result[-1])
        return result

    @property
    def final_board(self) -> Board:
        """The position after the last move (computed once, by the compiled replay)."""
        cached = self.__dict__.get("_final")
        if cached is not None:
            return cached
        start = self.start
        actions, bad, p, o = insert_passes(
            start.player, start.opponent, np.asarray(self.moves, dtype=np.int64), start.size
        )
        if bad >= 0 or len(actions) != len(self.moves):
            return self.boards[-1]  # raises the error of the bad move, naming it
        final = Board.from_bitboards(
            int(p), int(o), start.turn ^ (len(actions) & 1), size=start.size
        )
        object.__setattr__(self, "_final", final)
        return final

    def is_complete(self) -> bool:
        """Whether the moves reach the end of the game (``final_board.is_game_over()``)."""
        return self.final_board.is_game_over()

    @property
    def result(self) -> Outcome:
        """The result of replaying the moves; an unfinished game is scored as it stands."""
        final = self.final_board
        b, w = final.disc_count(BLACK), final.disc_count(1 - BLACK)
        return Outcome(b, w, final.size * final.size - b - w)

    @property
    def score(self) -> int:
        """Black's final disc difference from the replay, empties to the winner (beside the
        stored ``recorded_score``)."""
        return self.result.score(BLACK)

    def result_mismatch(self) -> str | None:
        """A message when the recorded score disagrees with the replay, else ``None``."""
        if self.recorded_score is None:
            return None
        replayed = self.score
        if replayed != self.recorded_score:
            return f"recorded score {self.recorded_score:+d} for black, replay gives {replayed:+d}"
        return None

    def transcript(self, *, passes: bool = False) -> str:
        """The moves as a transcript (``"f5d6c3..."``), passes as ``PA`` if ``passes``."""
        return format_transcript(self.moves, size=self.size, passes=passes)

    def _repr_html_(self) -> str:
        """The game in Jupyter: ``core.viewer.game_html``'s offline viewer with a move slider,
        headed by the players and year."""
        from othellolab.core.viewer import game_html  # drawing is loaded only when asked for

        names = [str(self.headers.get(k, "?")) for k in ("black", "white")]
        title = f"{names[0]} (black) vs {names[1]} (white)"
        if "year" in self.headers:
            title += f", {self.headers['year']}"
        return game_html(self.start, self.moves, title=title)

    def __repr__(self) -> str:
        head = ", ".join(
            f"{k}={v!r}" for k, v in self.headers.items() if k in ("black", "white", "year")
        )
        return f"<GameRecord {head} {len(self.moves)} moves: {self.transcript()[:40]}...>"


def _show(move: Any, size: int) -> str:
    """A move as written in an error: its name when it is a valid action, else its repr."""
    if isinstance(move, str):
        return repr(move)
    try:
        return square_name(int(move), size)
    except (ValueError, TypeError):
        return repr(move)


def move_names(game: GameRecord) -> list[str]:
    """Move names of a game, ``"pass"`` for passes."""
    return [square_name(a, game.size) for a in game.moves]
