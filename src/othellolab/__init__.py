"""othellolab: a toolkit for Othello (Reversi) AI, from the rules to trained, rated players.

>>> from othellolab import Board, Game, get_game, make_player
>>> Board().legal_moves
SquareSet(['d3', 'c4', 'f5', 'e6'])
>>> get_game("othello", size=6).key
'othello6'
>>> make_player("greedy:seed=1").choose(Board()).move in Board().legal_actions()
True
"""

from typing import TYPE_CHECKING, Any

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
    num_actions,
    parse_move,
    parse_square,
    parse_transcript,
    pass_action,
    square_name,
)
from othellolab.core.games import Game, get_game

if TYPE_CHECKING:
    from othellolab.players import make_player

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
    "Game",
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
    "get_game",
    "make_player",
    "num_actions",
    "parse_move",
    "parse_square",
    "parse_transcript",
    "pass_action",
    "square_name",
]


def __getattr__(name: str) -> Any:
    """``make_player`` loads the players (and torch) on first use, not at ``import othellolab``."""
    if name == "make_player":
        from othellolab.players import make_player

        return make_player
    raise AttributeError(f"module 'othellolab' has no attribute {name!r}")
