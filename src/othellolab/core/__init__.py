"""The rules of Othello: bitboard kernels for machines and a frozen ``Board`` for people.

Nothing here imports from any other layer of othellolab.
"""

from othellolab.core.board import Board, format_transcript, parse_transcript
from othellolab.core.errors import (
    ConfigError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    MoveError,
    OthelloError,
)
from othellolab.core.squares import (
    BLACK,
    COLOR_NAMES,
    COLORS,
    PASS,
    SIZES,
    WHITE,
    Bitboard,
    Color,
    Square,
    num_actions,
    parse_move,
    parse_square,
    pass_action,
    square_name,
)
from othellolab.core.squareset import SquareSet
from othellolab.core.values import Limit, Outcome, PlayResult, Score, Stop, run_stoppable

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
    "ConfigError",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Limit",
    "MoveError",
    "OthelloError",
    "Outcome",
    "PlayResult",
    "Score",
    "Square",
    "SquareSet",
    "Stop",
    "format_transcript",
    "num_actions",
    "parse_move",
    "parse_square",
    "parse_transcript",
    "pass_action",
    "run_stoppable",
    "square_name",
]

# The built-in games register themselves (``core.games``) when their modules load.
from othellolab.core import othello_game as _othello_game  # noqa: F401
from othellolab.core.animal_shogi import game as _animal_shogi_game  # noqa: F401
