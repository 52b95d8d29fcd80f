"""OBF problem lines (Edax/FFO files): a position, the side to move, then scored moves.

A line is 64 (or 36, 16) cells, a space, the side to move, then ``;``-separated ``MOVE:SCORE``
items, best first, e.g. ``...X; G8:+18; H1:+12;``. A score is the final disc difference for the
side to move after that move with best play, empties to the winner. ``--:-127`` marks a pass
slot without a value (hard-20.obf); it is kept as move ``None``.

>>> board, scores = parse_obf_line("-" * 27 + "OX------XO" + "-" * 27 + " X; F5:+0; D3:+0;")
>>> board.num_empties, scores
(60, [(37, 0), (19, 0)])
"""

from __future__ import annotations

from othellolab.core import Board, InvalidMoveError, InvalidPositionError, parse_square

PASS_SLOT = "--"
"""The move token that marks a pass slot without a score."""


class ObfError(InvalidPositionError):
    """A malformed OBF line; the message names the line and the item."""


def parse_obf_line(line: str, *, where: str = "") -> tuple[Board, list[tuple[int | None, int]]]:
    """The position of an OBF line and its ``(move, score)`` items in file order.

    ``where`` (e.g. ``"problems.obf line 3: "``) prefixes error messages.
    """
    text = line.split("%", 1)[0].strip()
    head, _, rest = text.partition(";")
    try:
        board = Board.from_obf(head)
    except InvalidPositionError as e:
        raise ObfError(f"{where}{e}") from None
    scores: list[tuple[int | None, int]] = []
    for item in rest.split(";"):
        item = item.strip()
        if not item:
            continue
        move_text, colon, score_text = item.partition(":")
        if not colon:
            raise ObfError(f"{where}item {item!r} is not MOVE:SCORE")
        try:
            score = int(score_text.strip())
        except ValueError:
            raise ObfError(
                f"{where}item {item!r}: score {score_text.strip()!r} is not an integer"
            ) from None
        move_text = move_text.strip()
        if move_text == PASS_SLOT:
            scores.append((None, score))
            continue
        try:
            move = parse_square(move_text.lower(), board.size)
        except (InvalidMoveError, ValueError) as e:
            raise ObfError(f"{where}item {item!r}: {e}") from None
        scores.append((move, score))
    return board, scores
