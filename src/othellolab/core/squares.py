"""Squares, colours, bitboards and their names: every board-geometry fact, stated once.

Square index ``i = row * size + col`` (``a1 = 0``, ``h1 = 7``, ``h8 = 63`` on 8x8); bit ``i``
of an unsigned 64-bit bitboard is square ``i``. Action ``size * size`` is pass.
"""

from __future__ import annotations

import operator
from typing import TypeAlias

import numpy as np

from othellolab.core.errors import ConfigError, InvalidMoveError

Square: TypeAlias = int
Bitboard: TypeAlias = int
Color: TypeAlias = int

BLACK: Color = 0
WHITE: Color = 1
COLORS: tuple[Color, Color] = (BLACK, WHITE)
COLOR_NAMES: tuple[str, str] = ("black", "white")

SIZES: tuple[int, ...] = (8, 6, 4)
"""Board sizes supported by the rules kernels."""

FILE_NAMES = "abcdefgh"

PASS: int = 64
"""The pass action on 8x8. A smaller board's pass action is its own ``size * size`` (see
:func:`pass_action`): 64 is no action on 6x6 or 4x4."""

PASS_NAMES = frozenset({"pass", "pa", "--", "ps"})
"""Spellings of a pass accepted by :func:`parse_move` (compared case-insensitively)."""


def check_size(size: int) -> int:
    """Return ``size`` (as an ``int``) if it is a supported board size, else raise a
    ``ConfigError`` naming it; ``8.0`` or ``True`` are not sizes."""
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size not in SIZES:
        raise ConfigError(
            f"unsupported board size {size!r}: expected one of {SIZES}",
            option="size",
            allowed=", ".join(map(str, SIZES)),
        )
    return int(size)


def pass_action(size: int = 8) -> int:
    """The pass action index on a ``size`` x ``size`` board (the last action)."""
    return check_size(size) * size


def num_actions(size: int = 8) -> int:
    """Size of the action space: every square, plus pass."""
    return check_size(size) * size + 1


def full_mask(size: int = 8) -> Bitboard:
    """Bitboard with every square of the board set."""
    return (1 << (check_size(size) * size)) - 1


def square(col: int, row: int, size: int = 8) -> Square:
    """Square index of 0-based column ``col`` and row ``row``."""
    if not (0 <= col < size and 0 <= row < size):
        raise ValueError(f"column {col}, row {row} is off a {size}x{size} board")
    return row * size + col


def square_col(sq: Square, size: int = 8) -> int:
    """0-based column (file) of a square."""
    return sq % size


def square_row(sq: Square, size: int = 8) -> int:
    """0-based row (rank) of a square; row 0 is the top row, named 1."""
    return sq // size


def square_name(sq: Square, size: int = 8) -> str:
    """Name of a square, ``square_name(37) == "f5"``; the pass action is named ``"pass"``."""
    n = check_size(size) * size
    if sq == n:
        return "pass"
    if not 0 <= sq < n:
        raise InvalidMoveError(f"square index {sq!r} is off a {size}x{size} board (0..{n - 1})")
    return FILE_NAMES[sq % size] + str(sq // size + 1)


def parse_square(name: str, size: int = 8) -> Square:
    """Index of a square name, ``parse_square("f5") == 37``; case-insensitive."""
    check_size(size)
    s = name.strip().lower()
    # The row is one ASCII digit: str.isdigit and int would also take '５' (and fail on '²').
    if len(s) == 2 and s[0] in FILE_NAMES[:size] and "1" <= s[1] <= "9":
        row = ord(s[1]) - ord("1")
        if row < size:
            return row * size + FILE_NAMES.index(s[0])
    raise InvalidMoveError(
        f"invalid square name {name!r}: expected a column a-{FILE_NAMES[size - 1]} "
        f"then a row 1-{size}, like 'c4'"
    )


def parse_move(move: str | int, size: int = 8) -> int:
    """Action index of a move given as a name (``"f5"``, ``"pass"``/``"PA"``/``"--"``) or index.

    Only the syntax and range are checked here; legality is the board's business.
    """
    n = check_size(size) * size
    if isinstance(move, str):
        if move.strip().lower() in PASS_NAMES:
            return n
        return parse_square(move, size)
    try:
        if isinstance(move, bool):
            raise TypeError
        move = operator.index(move)
    except TypeError:
        raise InvalidMoveError(
            f"a move must be a square name or an action index, not {move!r}"
        ) from None
    if 0 <= move <= n:
        return move
    hint = f" (64 is 8x8's pass; pass_action({size}) is {n})" if move == PASS else ""
    raise InvalidMoveError(
        f"action {move} is out of range for a {size}x{size} board: squares are 0..{n - 1}, "
        f"pass is {n}{hint}"
    )
