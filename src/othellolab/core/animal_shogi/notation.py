"""Animal shogi's notation, always from the first player's side: square names, the letters of
pieces, the move-name patterns (``"b3b2"``, ``"b2b1+"``, ``"C*b2"``) and the SFEN hands field.
"""

from __future__ import annotations

import re

from othellolab.core.animal_shogi.rules import _STEPS, GOTE, SENTE
from othellolab.core.errors import InvalidMoveError, InvalidPositionError

__all__ = ["START_SFEN", "parse_square", "square_name"]

_LETTERS = " CEGLH"
_DROP_LETTERS = "CEG"

START_SFEN = "gle/1c1/1C1/ELG b - 1"

_FILES = "abc"
_SQUARE_RE = r"[a-c][1-4]"
_MOVE_RE = re.compile(rf"({_SQUARE_RE})({_SQUARE_RE})(\+?)")
_DROP_RE = re.compile(rf"([CEGceg])\*({_SQUARE_RE})")
_DIRECTION_OF = {step: k for k, step in enumerate(_STEPS)}


def _view_square(square: int, turn: int) -> int:
    """A board square (a1 = 0, row-major from the first player's side) as the side to move
    sees it, or back: the map is its own inverse."""
    return square if turn == SENTE else 11 - square


def square_name(square: int) -> str:
    """The name of board square ``square`` (0 = a1 .. 11 = c4, from the first player's side)."""
    return f"{_FILES[square % 3]}{square // 3 + 1}"


def parse_square(name: str) -> int:
    """The board square named ``name`` (``"a1"`` = 0 .. ``"c4"`` = 11)."""
    if not re.fullmatch(_SQUARE_RE, name):
        raise InvalidMoveError(f"invalid square name {name!r}: expected a1..c4", move=name)
    return (int(name[1]) - 1) * 3 + _FILES.index(name[0])


def _parse_hands(text: str, where: str) -> tuple[list[int], list[int]]:
    """``(sente, gote)`` hand counts (chick, elephant, giraffe) from the SFEN hands field."""
    hands = ([0, 0, 0], [0, 0, 0])
    if text == "-":
        return hands
    i = 0
    seen: set[str] = set()
    while i < len(text):
        count = 1
        if text[i].isdigit():
            if text[i] != "2":
                raise InvalidPositionError(
                    f"hands {text!r}: invalid count {text[i]!r} at offset {i}; write 2 before "
                    "a letter for two pieces, nothing for one",
                    where=where,
                )
            count = 2
            i += 1
        if i >= len(text) or text[i].upper() not in _DROP_LETTERS:
            found = repr(text[i]) if i < len(text) else "the end"
            raise InvalidPositionError(
                f"hands {text!r}: expected C, E or G (uppercase first player, lowercase second) "
                f"at offset {i}, found {found}",
                where=where,
            )
        letter = text[i]
        if letter in seen:
            raise InvalidPositionError(
                f"hands {text!r}: {letter!r} appears twice; write 2{letter} for two",
                where=where,
            )
        seen.add(letter)
        hands[SENTE if letter.isupper() else GOTE][_DROP_LETTERS.index(letter.upper())] = count
        i += 1
    return hands
