"""``Game``: one game record in any format — headers, start board, moves with passes, results."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from othellolab.core import (
    BLACK,
    Board,
    IllegalMoveError,
    Outcome,
    format_transcript,
    parse_move,
    square_name,
)

HEADER_KEYS = ("black", "white", "event", "tournament", "date", "year", "round", "source")
"""Header names readers fill when the format has them (others may appear too)."""


@dataclass(frozen=True, eq=True)
class Game:
    """A game record: the actions from ``start`` (passes explicit, as ``size*size``), headers,
    and what the record claims about the result.

    ``recorded_score`` is black's final disc difference as stored in the file (WTHOR stores
    black's disc count; GGF ``RE``); ``theoretical_score`` is black's disc difference under
    perfect play from the stored depth, when the format has one (WTHOR). Use ``result()`` for
    the result of replaying the moves.
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
    ) -> Game:
        """A game from moves that may omit passes (as WTHOR and transcripts do): passes are
        inserted where the side to move has no placing move, and every move is checked.

        ``where`` prefixes error messages (e.g. ``"WTH_2004.wtb game 17: "``); move numbers in
        errors count the given moves from 1.
        """
        first = start if start is not None else Board()
        board = first
        n = board.size * board.size
        actions: list[int] = []
        for number, move in enumerate(moves, 1):
            try:
                a = parse_move(move, board.size)
                if a != n and board.must_pass():
                    actions.append(n)
                    board = board.play(n)
                board = board.play(a)
            except ValueError as e:
                raise type(e)(f"{where}move {number} ({move!r}): {e}") from None
            actions.append(a)
        return cls(tuple(actions), first, **fields)

    def replay(self) -> Iterator[tuple[Board, int]]:
        """Each position with the action played from it, in order (the final board is not
        included: see ``final_board``)."""
        board = self.start
        for number, a in enumerate(self.moves, 1):
            yield board, a
            try:
                board = board.play(a)
            except IllegalMoveError as e:
                raise IllegalMoveError(f"move {number}: {e}") from None

    def boards(self) -> Iterator[Board]:
        """Every position from the start to the final one inclusive."""
        board = self.start
        yield board
        for a in self.moves:
            board = board.play(a)
            yield board

    def final_board(self) -> Board:
        """The position after the last move."""
        board = self.start
        for a in self.moves:
            board = board.play(a)
        return board

    def is_complete(self) -> bool:
        """Whether the moves reach the end of the game."""
        return self.final_board().is_game_over()

    def result(self) -> Outcome:
        """The result of replaying the moves; an unfinished game is scored as it stands."""
        final = self.final_board()
        b, w = final.disc_count(BLACK), final.disc_count(1 - BLACK)
        return Outcome(b, w, final.size * final.size - b - w)

    def score(self) -> int:
        """Black's final disc difference from the replay, empties to the winner."""
        return self.result().score(BLACK)

    def result_mismatch(self) -> str | None:
        """A message when the recorded score disagrees with the replay, else ``None``."""
        if self.recorded_score is None:
            return None
        replayed = self.score()
        if replayed != self.recorded_score:
            return f"recorded score {self.recorded_score:+d} for black, replay gives {replayed:+d}"
        return None

    def transcript(self, *, passes: bool = False) -> str:
        """The moves as a transcript (``"f5d6c3..."``), passes as ``PA`` if ``passes``."""
        return format_transcript(self.moves, size=self.size, passes=passes)

    def __repr__(self) -> str:
        head = ", ".join(
            f"{k}={v!r}" for k, v in self.headers.items() if k in ("black", "white", "year")
        )
        return f"<Game {head} {len(self.moves)} moves: {self.transcript()[:40]}...>"


def move_names(game: Game) -> list[str]:
    """Move names of a game, ``"pass"`` for passes."""
    return [square_name(a, game.size) for a in game.moves]
