"""othellolab: a toolkit for Othello (Reversi) AI, from the rules to trained, rated players.

>>> from othellolab import Board
>>> Board().legal_moves
SquareSet(['d3', 'c4', 'f5', 'e6'])
"""

from othellolab.core import (
    BLACK,
    COLOR_NAMES,
    COLORS,
    PASS,
    SIZES,
    WHITE,
    Bitboard,
    Board,
    Color,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Limit,
    OthelloError,
    Outcome,
    PlayResult,
    Score,
    Square,
    SquareSet,
    format_transcript,
    move_name,
    num_actions,
    parse_move,
    parse_square,
    parse_transcript,
    pass_action,
    square_name,
)

__version__ = "0.1.0"

__all__ = [
    "BLACK",
    "COLORS",
    "COLOR_NAMES",
    "PASS",
    "SIZES",
    "WHITE",
    "Bitboard",
    "Board",
    "Color",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Limit",
    "OthelloError",
    "Outcome",
    "PlayResult",
    "Score",
    "Square",
    "SquareSet",
    "__version__",
    "format_transcript",
    "move_name",
    "num_actions",
    "parse_move",
    "parse_square",
    "parse_transcript",
    "pass_action",
    "square_name",
]
