"""What every othellolab environment shares: observation planes, action masks, and rendering.

The environments differ in who moves (one agent against an opponent, two agents, many games at
once); the picture they give of a position is the same, so it is built here once.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import numpy as np

from othellolab.core import BLACK, COLOR_NAMES, Board, Color, IllegalMoveError
from othellolab.core import animal_shogi as _shogi
from othellolab.core.features import FeatureSpec, encode_batch
from othellolab.core.games import get_game
from othellolab.core.kernels import action_mask_batch
from othellolab.core.squares import check_size

COLOR_BY_NAME = {name: color for color, name in enumerate(COLOR_NAMES)}

ILLEGAL_ACTION_MODES = ("raise", "lose", "mask")
"""What an environment does with an illegal action: raise an error, lose the game, or replace
it by a random legal action."""

REWARD_MODES = ("outcome", "disc_diff")
"""Final reward: the outcome (+1/0/-1), or the final disc difference divided by the cells."""

RENDER_MODES = ("human", "ansi", "rgb_array")
"""``human`` prints the text board (on every reset and step in Gymnasium), ``ansi`` returns
it, ``rgb_array`` returns an image."""


def check_choice(name: str, value: object, choices: Iterable[object]) -> None:
    """Raise ``ValueError`` naming the option when ``value`` is not one of ``choices``."""
    options = tuple(choices)
    if value not in options:
        raise ValueError(f"{name}={value!r} is not one of {', '.join(map(repr, options))}")


def agent_action(
    position: Any, action: int, mode: str, agent: str, rng: np.random.Generator, extra: dict
) -> int | None:
    """The action an agent's ``action`` plays, by the envs' one rule for an illegal action:
    a legal one is played; an illegal one raises an ``IllegalMoveError`` naming the ``agent``
    (``mode`` ``"raise"``), loses the game (``"lose"``: returns None) or is replaced by a
    uniformly random legal action (``"mask"``: ``extra["played_action"]``). ``extra`` gets
    ``illegal_action``; ``position`` is any game's position (``Board``, ``AnimalShogi``)."""
    extra["illegal_action"] = False
    if position.is_legal(action):
        return action
    if mode == "raise":
        try:
            position.play(action)
        except IllegalMoveError as e:
            raise IllegalMoveError(f"agent ({agent}) action {action}: {e}") from None
    extra["illegal_action"] = True
    if mode == "lose":
        return None
    legal = position.legal_actions()
    extra["played_action"] = legal[int(rng.integers(len(legal)))]
    return int(extra["played_action"])


def parse_color(value: str | Color) -> Color:
    """``BLACK``/``WHITE`` from ``"black"``/``"white"`` (or the colour constant itself)."""
    if isinstance(value, str) and value.lower() in COLOR_BY_NAME:
        return COLOR_BY_NAME[value.lower()]
    if value in (0, 1) and not isinstance(value, bool):
        return int(value)
    raise ValueError(f"player colour {value!r} is not 'black' or 'white'")


def num_planes(legal_plane: bool) -> int:
    """Number of observation planes: own discs, opponent discs, and optionally legal moves."""
    return 3 if legal_plane else 2


def observation_planes(
    board: Board, color: Color, *, legal_plane: bool, legal: bool = True
) -> np.ndarray:
    """Planes ``(C, size, size)`` uint8 from ``color``'s view: its discs, the opponent's, and
    (with ``legal_plane``) the squares it may play now (all zero unless ``legal``), encoded by
    the one feature encoder (``core.features``)."""
    own, opp = (board.black, board.white) if color == BLACK else (board.white, board.black)
    planes = _PLANES[legal_plane]
    out = encode_batch(
        np.array([own], np.uint64), np.array([opp], np.uint64), _spec(planes, board.size),
        dtype=np.uint8,
    )[0]  # fmt: skip
    if legal_plane and not (legal and board.turn == color):
        out[2] = 0
    return out


_PLANES = {False: ("player", "opponent"), True: ("player", "opponent", "legal")}


@cache
def _spec(planes: tuple[str, ...], size: int) -> FeatureSpec:
    return FeatureSpec(planes, size)


def action_mask(board: Board, color: Color, *, resign: bool = False) -> np.ndarray:
    """``int8`` 0/1 vector over the actions (squares, pass, then resign if enabled) of the moves
    ``color`` may make now: all zero when it is not ``color``'s turn or the game is over."""
    n = board.size * board.size
    out = np.zeros(n + 1 + int(resign), dtype=np.int8)
    if board.turn == color:
        p = np.array([board.player], np.uint64)
        o = np.array([board.opponent], np.uint64)
        out[: n + 1] = action_mask_batch(p, o, board.size)[0]
        if resign and out[: n + 1].any():
            out[n + 1] = 1
    return out


# ----------------------------------------------------------------------------------------------
# Animal shogi

SHOGI_SIDES = {
    "first": _shogi.SENTE,
    "second": _shogi.GOTE,
    "sente": _shogi.SENTE,
    "gote": _shogi.GOTE,
}
"""Names of animal shogi's two sides: the first player and the second, also by their Japanese
names (``core.animal_shogi.COLOR_NAMES``)."""

_SHOGI = get_game("animal-shogi")


def parse_side(value: str | int) -> int:
    """``SENTE``/``GOTE`` from ``"first"``/``"second"`` (or ``"sente"``/``"gote"``, or the
    constant itself)."""
    if isinstance(value, str) and value.lower() in SHOGI_SIDES:
        return SHOGI_SIDES[value.lower()]
    if value in (0, 1) and not isinstance(value, bool):
        return int(value)
    raise ValueError(f"player_color={value!r} is not 'first' or 'second' (or 'random')")


def start_episode(env: Any, seed: int | None, options: dict[str, Any] | None, parse: Any) -> int:
    """What both single-agent envs do first in ``reset``: reseed the opponent from the env's
    generator (on a seeded reset, and once before the first episode), reset it, and return the
    agent's side for this episode (``options["player_color"]`` or the env's ``player_color``;
    ``"random"`` draws it; ``parse`` reads the rest)."""
    if seed is not None or not env._opponent_seeded:
        env.opponent.seed(int(env.np_random.integers(2**63)))
        env._opponent_seeded = True
    env.opponent.reset()
    side = (options or {}).get("player_color", env.player_color)
    if side == "random":
        return int(env.np_random.integers(2))
    return parse(side)  # type: ignore[no-any-return]


def animal_shogi_planes(position: _shogi.AnimalShogi, side: int) -> np.ndarray:
    """The 17 planes ``(17, 4, 3)`` float32 (``core.animal_shogi.PLANE_NAMES``) of
    ``position`` seen from ``side``: the side to move's view, turned when the other side is to
    move (a finished game), encoded by the one encoder (``datasets.games``)."""
    p, o = position.state
    if position.turn != side:
        p, o = _shogi.rotate_state(p, o)
    return _SHOGI.encode(np.array([p], np.uint64), np.array([o], np.uint64))[0]


def animal_shogi_action_mask(position: _shogi.AnimalShogi, side: int) -> np.ndarray:
    """``int8`` 0/1 vector over the 132 actions of the moves ``side`` may make now: all zero
    when it is not ``side``'s turn or the game is over."""
    if position.turn != side:
        return np.zeros(_shogi.N_ACTIONS, dtype=np.int8)
    return position.legal_action_mask().astype(np.int8)


# ----------------------------------------------------------------------------------------------
# Rendering


def render(mode: str | None, board: Board, *, last: int | None = None) -> str | np.ndarray | None:
    """Render ``board`` in one of ``RENDER_MODES`` (``None`` renders nothing)."""
    if mode == "ansi":
        return render_ansi(board, last=last)
    if mode == "rgb_array":
        return render_rgb(board, last=last)
    if mode == "human":
        print(render_ansi(board, last=last))
    return None


def render_ansi(board: Board, *, last: int | None = None, legal: bool = True) -> str:
    """The board as text (``Board.diagram``): ``X`` black, ``O`` white, ``*`` legal moves,
    ``.`` empty; the last move in brackets; then the disc counts and whose turn it is."""
    return board.diagram(last=last, legal=legal) + "\n"


BOARD_GREEN = np.array([0, 110, 60], dtype=np.uint8)
GRID = np.array([0, 50, 25], dtype=np.uint8)
BLACK_RGB = np.array([20, 20, 20], dtype=np.uint8)
WHITE_RGB = np.array([240, 240, 240], dtype=np.uint8)
DOT_RGB = np.array([0, 60, 30], dtype=np.uint8)
LAST_RGB = np.array([220, 40, 40], dtype=np.uint8)

_CELL = 40


def _disc(radius: float) -> np.ndarray:
    y, x = np.mgrid[0:_CELL, 0:_CELL] + 0.5 - _CELL / 2
    return x * x + y * y <= (radius * _CELL) ** 2


_DISC = _disc(0.40)
_DOT = _disc(0.11)
_MARK = _disc(0.08)


def render_rgb(board: Board, *, last: int | None = None, legal: bool = True) -> np.ndarray:
    """The board as an RGB image ``(size*40+1, size*40+1, 3)`` uint8: a green board with grid
    lines, black and white discs, small dots on the legal moves, a red mark on the last move."""
    n = check_size(board.size)
    side = n * _CELL + 1
    img = np.empty((side, side, 3), dtype=np.uint8)
    img[:] = BOARD_GREEN
    img[::_CELL, :] = GRID
    img[:, ::_CELL] = GRID
    black, white = board.black, board.white
    moves = board.legal_mask if legal else 0
    for sq in range(n * n):
        r, c = divmod(sq, n)
        cell = img[r * _CELL + 1 : (r + 1) * _CELL + 1, c * _CELL + 1 : (c + 1) * _CELL + 1]
        part = cell[: _CELL - 1, : _CELL - 1]
        if black >> sq & 1:
            part[_DISC[:-1, :-1]] = BLACK_RGB
        elif white >> sq & 1:
            part[_DISC[:-1, :-1]] = WHITE_RGB
        elif moves >> sq & 1:
            part[_DOT[:-1, :-1]] = DOT_RGB
        if sq == last:
            part[_MARK[:-1, :-1]] = LAST_RGB
    return img
