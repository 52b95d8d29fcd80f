"""The game protocol: what self-play, MCTS, the arena and the environments need of a game.

A game's position is two ``uint64`` words seen from the side to move, ``(p, o)``: for Othello
the discs of the side to move and of its opponent (the project's convention), for animal shogi
the packed board and hands, and the ply counter (``core.animal_shogi``). Actions are integers
``0 .. n_actions - 1`` (the network's policy index). A ``Game`` says, for positions:

- ``start()``: the start position; ``step(p, o, action)``: the next position (from the next
  side to move); ``legal_mask_batch(p, o)``: legal actions, all false at the end;
- ``result(p, o)``: ``None`` while the game goes on, else its final score for the side to
  move: the disc difference for Othello (empties to the winner), +1/0/-1 for animal shogi;
  ``score_scale`` turns a score into a value in [-1, 1];
- ``position(p, o, turn)``: the people's object (``Board``, ``AnimalShogi``) that players,
  the arena and the boards work with; ``action_name(action)`` and ``render``;
- its shape (``rows`` x ``cols``), the names of its input planes and how many symmetries
  its rules have (the learning tier, ``datasets.games``, encodes and transforms them).

The compiled search (``players.mcts``) reaches the rules through three kernels dispatched on
the game's ``code`` (``game_children``, ``game_result``, ``game_value``), so its trees hold any
game; Othello's code is its board size, and its branch calls the same bitboard kernels as
before. A new game adds a ``Game`` subclass here and a branch to each of those kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from othellolab.core import animal_shogi as _shogi
from othellolab.core import kernels as _k
from othellolab.core.board import Board
from othellolab.core.errors import ConfigError
from othellolab.core.numba_kernel import kernel
from othellolab.core.squares import BLACK, move_name

__all__ = [
    "ANIMAL_SHOGI",
    "GAMES",
    "MAX_CHILDREN",
    "AnimalShogiGame",
    "Game",
    "Othello",
    "game_child",
    "game_children",
    "game_for",
    "game_result",
    "game_value",
    "get_game",
    "n_actions_of",
    "position_game",
    "position_state",
]

ANIMAL_SHOGI = 1
"""The kernels' code of animal shogi (Othello's code is its board size: 4, 6 or 8)."""

MAX_CHILDREN = 132
"""The most children a position of any game has (room for the kernels' buffers)."""

GAMES = ("othello", "animal-shogi")
"""The games behind the protocol, by name."""


class Game:
    """A game behind the protocol (see the module docstring); subclasses fill it in."""

    name: str = ""
    key: str = ""
    """Unique among games and their sizes (``othello6``, ``animal-shogi``): configs and
    records name the game by it."""
    code: int = 0
    rows: int = 0
    cols: int = 0
    n_actions: int = 0
    score_scale: float = 1.0
    symmetries: int = 1
    plane_names: tuple[str, ...] = ()

    def start(self) -> tuple[int, int]:
        raise NotImplementedError

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        raise NotImplementedError

    def legal_mask_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def result(self, p: int, o: int) -> int | None:
        raise NotImplementedError

    def position(self, p: int, o: int, turn: int) -> Any:
        raise NotImplementedError

    def action_name(self, action: int) -> str:
        raise NotImplementedError

    # derived ---------------------------------------------------------------------------------

    def legal_actions(self, p: int, o: int) -> list[int]:
        """The legal actions of one position, in increasing order (none at the end)."""
        mask = self.legal_mask_batch(np.array([p], np.uint64), np.array([o], np.uint64))[0]
        return [int(a) for a in np.flatnonzero(mask)]

    def new_position(self) -> Any:
        """The people's object of the start position."""
        return self.position(*self.start(), 0)

    def render(self, p: int, o: int, turn: int) -> str:
        """The position as text."""
        return str(self.position(p, o, turn))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<game {self.key}>"


class Othello(Game):
    """Othello on a ``size`` x ``size`` board (8, 6 or 4): bitboards, actions ``row*size+col``
    and pass last, the disc difference as the final score, the 8 symmetries of the square."""

    name = "othello"
    symmetries = 8
    plane_names = ("player", "opponent")

    def __init__(self, size: int = 8) -> None:
        if isinstance(size, bool) or size not in (4, 6, 8):
            raise ConfigError(f"must be 4, 6 or 8, got {size!r}", option="size")
        self.size = int(size)
        self.key = f"othello{self.size}"
        self.code = self.size
        self.rows = self.cols = self.size
        self.n_actions = self.size * self.size + 1
        self.score_scale = float(self.size * self.size)

    def start(self) -> tuple[int, int]:
        p, o = _k.start_position(self.size)
        return int(p), int(o)

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        if action == self.size * self.size:
            return int(o), int(p)
        np_, no_ = _k.play(p, o, action, self.size)
        return int(np_), int(no_)

    def legal_mask_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        return _k.action_mask_batch(
            np.ascontiguousarray(p, np.uint64), np.ascontiguousarray(o, np.uint64), self.size
        )

    def result(self, p: int, o: int) -> int | None:
        if _k.legal_mask(p, o, self.size) or _k.legal_mask(o, p, self.size):
            return None
        return int(_k.final_score(p, o, self.size))

    def legal_actions(self, p: int, o: int) -> list[int]:
        """From the bitboard alone (self-play asks it at every move)."""
        moves = int(_k.legal_mask(p, o, self.size))
        if moves == 0:
            return [] if _k.legal_mask(o, p, self.size) == 0 else [self.size * self.size]
        out = []
        while moves:
            low = moves & -moves
            out.append(low.bit_length() - 1)
            moves ^= low
        return out

    def position(self, p: int, o: int, turn: int = BLACK) -> Board:
        return Board.from_bitboards(int(p), int(o), turn=turn, size=self.size)

    def action_name(self, action: int) -> str:
        return move_name(int(action), self.size)


class AnimalShogiGame(Game):
    """Animal shogi (``core.animal_shogi``): a 4 x 3 board, 132 actions, results +1/0/-1, the
    left-right mirror as its one symmetry."""

    name = "animal-shogi"
    key = "animal-shogi"
    code = ANIMAL_SHOGI
    rows, cols = 4, 3
    n_actions = _shogi.N_ACTIONS
    score_scale = 1.0
    symmetries = _shogi.SYMMETRIES
    plane_names = _shogi.PLANE_NAMES

    def start(self) -> tuple[int, int]:
        p, o = _shogi.start_state()
        return int(p), int(o)

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        np_, no_ = _shogi.step(p, o, action)
        return int(np_), int(no_)

    def legal_mask_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        return _shogi.legal_mask_batch(
            np.ascontiguousarray(p, np.uint64), np.ascontiguousarray(o, np.uint64)
        )

    def result(self, p: int, o: int) -> int | None:
        r = int(_shogi.result(p, o))
        return None if r == _shogi.ONGOING else r

    def legal_actions(self, p: int, o: int) -> list[int]:
        buf = np.empty(_shogi.MAX_LEGAL_ACTIONS, np.int64)
        return buf[: _shogi.legal_actions(p, o, buf)].tolist()

    def position(self, p: int, o: int, turn: int | None = None) -> _shogi.AnimalShogi:
        """``turn`` defaults to the ply's parity (the first player moves at even plies)."""
        side = int(o) % 2 if turn is None else int(turn)
        return _shogi.AnimalShogi.from_state(int(p), int(o), side)

    def action_name(self, action: int) -> str:
        return f"action {int(action)}"


def get_game(name: str | int | Game = "othello", size: int | None = None) -> Game:
    """A game by name (``othello`` with its ``size``, default 8; ``animal-shogi``), by key
    (``othello6``), or an Othello board's size alone (``6``); a ``ConfigError`` names what is
    unknown."""
    if isinstance(name, Game):
        return name
    if isinstance(name, int | np.integer) and not isinstance(name, bool):
        return Othello(int(name))
    if not isinstance(name, str):
        raise ConfigError(f"expected a game name ({', '.join(GAMES)}), got {name!r}")
    key = name.strip().lower()
    if key in ("othello", "reversi"):
        return Othello(8 if size is None else size)
    if key.startswith("othello") and key[7:].isdigit():
        return Othello(int(key[7:]))
    if key in ("animal-shogi", "animal_shogi", "dobutsu"):
        if size not in (None, 0, 3, 4):
            raise ConfigError("animal shogi has one board (3 x 4); give no size", option="size")
        return AnimalShogiGame()
    raise ConfigError(f"unknown game {name[:40]!r}; known: {', '.join(GAMES)}", option="game")


def game_for(game: str | Game | None, size: int = 8) -> Game:
    """The game an API call means: ``game`` (a name, key or ``Game``), with ``size`` for plain
    ``othello``; Othello on ``size`` when ``game`` is None."""
    if game is None or (isinstance(game, str) and game.strip().lower() in ("othello", "reversi")):
        return Othello(size)
    return get_game(game)


def position_game(position: Any) -> Game:
    """The game of a people's position object: a ``Board`` (Othello on its size) or an
    ``AnimalShogi``."""
    if isinstance(position, Board):
        return Othello(position.size)
    if isinstance(position, _shogi.AnimalShogi):
        return AnimalShogiGame()
    raise TypeError(f"not a position of a known game: {type(position).__name__}")


def position_state(position: Any) -> tuple[int, int]:
    """The kernels' ``(p, o)`` of a people's position object."""
    if isinstance(position, Board):
        return position.player, position.opponent
    return position.state


def n_actions_of(code: int) -> int:
    """The number of actions of the game with kernel code ``code``."""
    return _shogi.N_ACTIONS if code == ANIMAL_SHOGI else int(code) * int(code) + 1


# ----------------------------------------------------------------------------------------------
# The kernels the compiled search calls (dispatched on the game's code).


@kernel
def game_child(game: int, p: int, o: int, action: int) -> tuple[int, int]:
    """The position a legal ``action`` leads to, from the next side to move."""
    if game == ANIMAL_SHOGI:
        return _shogi.step(p, o, action)
    size = game
    if action == size * size:
        return o, p
    f = _k.flip_mask(p, o, action, size)
    return o & ~f, p | f | (np.uint64(1) << np.uint64(action))


@kernel
def game_children(game: int, p: int, o: int, actions: np.ndarray, cp: np.ndarray, co: np.ndarray):  # type: ignore[no-untyped-def]
    """The legal actions of a position and the positions they lead to (``actions``, ``cp``,
    ``co``, each of length ``MAX_CHILDREN``); returns how many (0: the game is over)."""
    if game == ANIMAL_SHOGI:
        n = _shogi.legal_actions(p, o, actions)
        for i in range(n):
            a, b = _shogi.step(p, o, actions[i])
            cp[i] = a
            co[i] = b
        return n
    size = game
    moves = _k.legal_mask(p, o, size)
    if moves == np.uint64(0):
        if _k.legal_mask(o, p, size) == np.uint64(0):
            return 0
        actions[0] = size * size
        cp[0] = o
        co[0] = p
        return 1
    n = 0
    for sq in range(size * size):
        bit = np.uint64(1) << np.uint64(sq)
        if moves & bit:
            f = _k.flip_mask(p, o, sq, size)
            actions[n] = sq
            cp[n] = o & ~f
            co[n] = p | f | bit
            n += 1
    return n


@kernel
def game_result(game: int, p: int, o: int) -> tuple[bool, float]:
    """``(finished, score)``: whether the game is over at this position, and its final score
    for the side to move (the disc difference for Othello, +1/0/-1 for animal shogi)."""
    if game == ANIMAL_SHOGI:
        r = _shogi.result(p, o)
        if r == _shogi.ONGOING:
            return False, 0.0
        return True, float(r)
    size = game
    if _k.legal_mask(p, o, size) == np.uint64(0) and _k.legal_mask(o, p, size) == np.uint64(0):
        return True, float(_k.final_score(p, o, size))
    return False, 0.0


@kernel
def game_value(game: int, score: float, score_weight: float) -> float:
    """A final score as a value in [-1, 1] for the side to move: its sign (win 1, draw 0, loss
    -1) mixed with the score over ``score_scale`` in the share ``score_weight`` (animal shogi's
    scores are already results)."""
    sign = 1.0 if score > 0 else (-1.0 if score < 0 else 0.0)
    scale = 1.0 if game == ANIMAL_SHOGI else float(game * game)
    return (1.0 - score_weight) * sign + score_weight * score / scale
