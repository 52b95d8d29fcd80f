"""OBF position lines (Edax and FFO problem files) with their scored moves.

A line is 64 cells a1..h8 (``X`` black, ``O`` white, ``-`` empty; 36 or 16 for 6x6 and 4x4),
a space, the side to move (``X``/``O``), then ``;``-separated ``MOVE:SCORE`` items such as
``G8:+18``. SCORE is the final disc difference for the side to move after best play following
MOVE (empties to the winner). A pass is ``PS``, ``PA`` or ``--``; ``--:-127`` (as in Edax's
``hard-20.obf``) is an empty pass slot without a value and is left out.

>>> entry = parse_obf_line("-" * 27 + "OX------XO" + "-" * 27 + " X; F5:+0; D3:+0;")
>>> entry.best_move, entry.best_score, len(entry.moves)
(37, 0, 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from othellolab.core import Board, OthelloError, parse_move, square_name
from othellolab.core.parsing import NumberError, clip, parse_int
from othellolab.records._stream import deliver, text_lines, undecodable, write_lines
from othellolab.records.report import ReadReport, RecordError

NO_VALUE = -127
"""Score that marks a slot without a value (Edax writes ``--:-127``)."""

SCORE_LIMIT = 127
"""A score must be written as a whole number in ``-SCORE_LIMIT..SCORE_LIMIT`` (one signed byte,
``NO_VALUE`` included); a real score must then lie within the board's disc range."""

COMMENT_PREFIXES = ("#", "%")
"""Lines starting with these are comments."""


class ObfError(RecordError):
    """A bad OBF line; the message names the file, the line and the scored move."""


@dataclass(frozen=True, slots=True)
class ObfEntry:
    """A position with its scored moves ``(action, score)`` in file order, and its line number.

    Scores are final disc differences for the side to move in ``board``.
    """

    board: Board
    moves: tuple[tuple[int, int], ...] = ()
    line: int | None = None

    @property
    def best_move(self) -> int | None:
        """The first listed move (the best one in Edax and FFO files), if any."""
        return self.moves[0][0] if self.moves else None

    @property
    def best_score(self) -> int | None:
        """The score of the first listed move, if any."""
        return self.moves[0][1] if self.moves else None

    def scores(self) -> dict[int, int]:
        """Score of each listed move."""
        return dict(self.moves)


def parse_obf_line(
    line: str, *, line_number: int | None = None, source: str | Path | None = None
) -> ObfEntry:
    """Parse one OBF line: the position, then its ``MOVE:SCORE`` items, each move checked legal.

    Raises ``ObfError`` naming the source, line and item for a bad position, a malformed item,
    an illegal move or a score off the -64..64 range.
    """
    text = line.strip()
    head, _, rest = text.partition(";")

    def err(message: str, item: int | None = None, item_text: str | None = None) -> ObfError:
        return ObfError(message, source=source, line=line_number, move=item, move_text=item_text)

    try:
        board = Board.from_obf(head)
    except OthelloError as e:
        raise err(str(e)) from None
    cells_and_side = head.split()
    if len(cells_and_side) != 2:
        raise err(f"unexpected text {' '.join(cells_and_side[2:])[:20]!r} before the first ';'")
    moves: list[tuple[int, int]] = []
    legal = board.legal_actions()
    for k, item in enumerate((i.strip() for i in rest.split(";")), 1):
        if not item:
            continue
        name, colon, value = item.partition(":")
        if not colon:
            raise err("expected MOVE:SCORE like G8:+18", k, clip(item))
        try:
            score = parse_int(value, lo=-SCORE_LIMIT, hi=SCORE_LIMIT, what="score")
        except NumberError as e:
            raise err(e.what, k, clip(item)) from None
        try:
            action = parse_move(name.strip(), board.size)
        except OthelloError as e:
            raise err(str(e), k, clip(item)) from None
        if action == board.pass_action and score == NO_VALUE:
            continue
        if not -board.pass_action <= score <= board.pass_action:
            raise err(
                f"score {score} is off the -{board.pass_action}..{board.pass_action} range",
                k,
                clip(item),
            )
        if action not in legal:
            names = ", ".join(square_name(a, board.size) for a in legal) or "none"
            raise err(
                f"{square_name(action, board.size)} is not legal here; legal moves: {names}",
                k,
                clip(item),
            )
        moves.append((action, score))
    return ObfEntry(board, tuple(moves), line_number)


def format_obf_line(entry: ObfEntry) -> str:
    """An OBF line: the position, then ``MOVE:SCORE;`` items (``parse_obf_line`` inverse)."""
    items = "".join(
        f" {'PS' if a == entry.board.pass_action else square_name(a, entry.board.size).upper()}:{s:+d};"
        for a, s in entry.moves
    )
    return entry.board.obf() + ";" + items


def read_obf(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[ObfEntry]:
    """Stream the entries of an OBF file (gzip read transparently); blank and ``#``/``%``
    comment lines are skipped. Strict by default; ``lenient=True`` skips bad lines and counts
    them in ``report``."""
    p = Path(path)
    return deliver(_items(p), source=p, lenient=lenient, report=report)


def _items(p: Path) -> Iterator[ObfEntry | RecordError]:
    for number, raw in text_lines(p, error=ObfError):
        text = raw.strip()
        if not text or text.startswith(COMMENT_PREFIXES):
            continue
        if reason := undecodable(text, "UTF-8"):
            yield ObfError(reason, source=p, line=number)
            continue
        try:
            yield parse_obf_line(text, line_number=number, source=p)
        except ObfError as e:
            yield e


def write_obf(path: str | Path, entries: Iterable[ObfEntry]) -> int:
    """Write entries as OBF lines, atomically; returns the count."""
    return write_lines(path, entries, format_obf_line)
