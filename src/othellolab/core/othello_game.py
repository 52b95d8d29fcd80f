"""Othello behind the game protocol (``core.games``): its rules kernels for the compiled
search, its batched masks, priors and values, its encoding (``core.features``) and symmetries,
and its registration as ``othello`` at sizes 4, 6 and 8."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from othellolab.core import features as _f
from othellolab.core import kernels as _k
from othellolab.core.board import Board, format_transcript, parse_transcript
from othellolab.core.errors import ConfigError
from othellolab.core.games import (
    CHILDREN_SIGNATURE,
    PLAYOUT_SIGNATURE,
    RESULT_SIGNATURE,
    Game,
    register_game,
    rules_kernel,
)
from othellolab.core.numba_kernel import kernel
from othellolab.core.squares import BLACK, parse_move, square_name

__all__ = ["Othello", "othello_children", "othello_result"]


@rules_kernel(CHILDREN_SIGNATURE)
def othello_children(size, p, o, actions, cp, co):  # type: ignore[no-untyped-def]
    """Othello's ``children`` kernel: placing moves in increasing square order, or the pass
    (action ``size*size``) alone when the side to move has none but its opponent has."""
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


@rules_kernel(RESULT_SIGNATURE)
def othello_result(size, p, o):  # type: ignore[no-untyped-def]
    """Othello's ``result`` kernel: the final disc difference (empties to the winner) once
    neither side can move, NaN before."""
    if _k.legal_mask(p, o, size) == np.uint64(0) and _k.legal_mask(o, p, size) == np.uint64(0):
        return float(_k.final_score(p, o, size))
    return np.nan


@rules_kernel(PLAYOUT_SIGNATURE)
def othello_playout(size, p, o, state):  # type: ignore[no-untyped-def]
    """Othello's own random playout (``core.kernels.random_playout``: no random number is
    drawn for a pass)."""
    return float(_k.random_playout(p, o, state, size))


_write_mask = numba.njit(cache=True, nogil=True)(_k.write_action_mask.py_func)
"""The one legal-action mask, compiled into this module (Numba does not inline another
module's kernel; the call doubled the time of the uniform priors)."""


@kernel
def _legal_priors(player: np.ndarray, opponent: np.ndarray, size: int) -> np.ndarray:
    n = player.shape[0]
    npass = size * size
    out = np.zeros((n, npass + 1), dtype=np.float32)
    for i in range(n):
        p = player[i]
        o = opponent[i]
        moves = _k.legal_mask(p, o, size)
        live = moves != np.uint64(0) or _k.legal_mask(o, p, size) != np.uint64(0)
        share = np.float32(1.0 / _k.popcount(moves)) if moves != np.uint64(0) else np.float32(0)
        _write_mask(moves, live, npass, out, i, share)
    return out


@kernel
def _terminal_values(player: np.ndarray, opponent: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(player.shape[0], dtype=np.float32)
    for i in range(player.shape[0]):
        if _k.is_game_over(player[i], opponent[i], size):
            s = _k.final_score(player[i], opponent[i], size)
            out[i] = 1.0 if s > 0 else (-1.0 if s < 0 else 0.0)
    return out


def _bitboards(x: np.ndarray) -> np.ndarray:
    if isinstance(x, np.ndarray) and x.dtype == np.uint64 and x.ndim == 1 and x.flags.c_contiguous:
        return x
    return np.ascontiguousarray(np.asarray(x, dtype=np.uint64).reshape(-1))


class Othello(Game):
    """Othello on a ``size`` x ``size`` board (8, 6 or 4): bitboards, actions ``row*size+col``
    and pass last, the disc difference as the final score, the 8 symmetries of the square."""

    name = "othello"
    symmetries = 8
    plane_names = ("player", "opponent")
    plane_choices = _f.PLANE_NAMES
    children_kernel = othello_children
    result_kernel = othello_result
    playout_kernel = othello_playout
    has_exact_endgame = True
    title = "Othello"
    record_format = "ggf"
    opening_format = "transcript"
    score_name = "disc difference"
    sizes = (4, 6, 8)

    def __init__(self, size: int = 8) -> None:
        if isinstance(size, bool) or size not in (4, 6, 8):
            raise ConfigError(f"must be 4, 6 or 8, got {size!r}", option="size")
        self.size = int(size)
        self.key = f"othello{self.size}"
        self.param = self.size
        self.rows = self.cols = self.size
        self.n_actions = self.size * self.size + 1
        self.pass_action = self.size * self.size
        self.score_scale = float(self.size * self.size)
        self.default_player = {8: "alphabeta", 6: "alphazero:model=az-6x6", 4: "endgame"}[self.size]
        self.has_exact_grading = self.size in (4, 6)

    @property
    def label(self) -> str:
        return f"{self.size}x{self.size} boards"

    @property
    def params(self) -> dict[str, int]:
        return {"size": self.size}

    def moves_left(self, p: int, o: int) -> int | None:
        """Half the empty squares, rounded up: each move fills one."""
        return (self.size * self.size - (int(p) | int(o)).bit_count() + 1) // 2

    def start(self) -> tuple[int, int]:
        p, o = _k.start_position(self.size)
        return int(p), int(o)

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        if action == self.size * self.size:
            return int(o), int(p)
        np_, no_ = _k.play(p, o, action, self.size)
        return int(np_), int(no_)

    def legal_mask_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        return _k.action_mask_batch(_bitboards(p), _bitboards(o), self.size)

    def legal_priors(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        return _legal_priors(_bitboards(p), _bitboards(o), self.size)

    def terminal_values(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        return _terminal_values(_bitboards(p), _bitboards(o), self.size)

    def result(self, p: int, o: int) -> int | None:
        if _k.legal_mask(p, o, self.size) or _k.legal_mask(o, p, self.size):
            return None
        return int(_k.final_score(p, o, self.size))

    def ownership(self, p: int, o: int) -> np.ndarray | None:
        """Each square's owner at the end, from the side to move: +1 its discs, -1 the
        opponent's, and the empty squares to the winner (0 in a draw), so that the sum is the
        final disc difference (``core.values.disc_score``)."""
        return self.ownership_batch(np.array([p], np.uint64), np.array([o], np.uint64))[0]

    def ownership_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        shifts = np.arange(self.size * self.size, dtype=np.uint64)
        mine = ((_bitboards(p)[:, None] >> shifts) & np.uint64(1)).astype(np.float32)
        theirs = ((_bitboards(o)[:, None] >> shifts) & np.uint64(1)).astype(np.float32)
        lead = np.sign(mine.sum(axis=1) - theirs.sum(axis=1))
        return mine - theirs + (1 - mine - theirs) * lead[:, None]

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
        return square_name(int(action), self.size)

    def parse_action(self, text: str) -> int:
        return parse_move(text, self.size)

    def record_fields(self) -> dict[str, int]:
        """``{"size": ...}`` alone: Othello's results records predate the ``game`` field (a
        record without one is ``core.games.DEFAULT_GAME``'s)."""
        return {"size": self.size}

    def format_moves(self, actions: Sequence[int], *, start: Sequence[int] = ()) -> str:
        """A transcript with passes as ``PA`` (``"f5d6PA"``)."""
        return format_transcript(actions, size=self.size, passes=True)

    def parse_moves(self, text: str, *, start: Sequence[int] = ()) -> list[int]:
        """A transcript (passes written or left out) checked after ``start``."""
        return parse_transcript(text, start=self._after(start))

    def encode(
        self, p: np.ndarray, o: np.ndarray, planes: tuple[str, ...] | None = None
    ) -> np.ndarray:
        """Othello's named planes (``core.features.PLANE_NAMES``), any of them in any order."""
        names = self.plane_names if planes is None else tuple(planes)
        return _f.encode_batch(_bitboards(p), _bitboards(o), _f.FeatureSpec(names, self.size))

    def check_planes(self, planes: tuple[str, ...] | None) -> tuple[str, ...]:
        """Any of ``core.features.PLANE_NAMES``, the first two ``player`` and ``opponent``."""
        names = self.plane_names if planes is None else tuple(planes)
        if names[:2] != ("player", "opponent"):
            raise ConfigError("planes must start with 'player', 'opponent'", option="planes")
        _f.FeatureSpec(names, self.size)
        return names

    def transform_states(
        self, p: np.ndarray, o: np.ndarray, ks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        ks = np.ascontiguousarray(ks, dtype=np.int64)
        return (
            _f.transform_bitboards(p, ks, self.size),
            _f.transform_bitboards(o, ks, self.size),
        )

    def transform_policies(self, policy: np.ndarray, ks: np.ndarray) -> np.ndarray:
        return _f.transform_policy(policy, np.ascontiguousarray(ks, dtype=np.int64), self.size)

    # environments and the terminal -----------------------------------------------------------

    side_names = side_choices = ("black", "white")
    observation_dtype = np.uint8
    renders_images = True

    def env_planes(self, legal_plane: bool | None) -> tuple[str, ...]:
        """The discs of the side to move and of its opponent, and by default its legal moves."""
        return ("player", "opponent", "legal") if legal_plane in (None, True) else self.plane_names

    def observe(self, p: int, o: int, planes: tuple[str, ...], *, legal: bool = True) -> Any:
        out = _f.encode_batch(
            np.array([p], np.uint64), np.array([o], np.uint64), _env_spec(planes, self.size),
            dtype=np.uint8,
        )[0]  # fmt: skip
        if not legal and "legal" in planes:
            out[planes.index("legal")] = 0
        return out

    def env_info(self, position: Any, side: int) -> dict[str, Any]:
        """``score``: ``side``'s disc difference now, its final score (empties to the winner)
        once the game is over, then also the ``outcome``."""
        board: Board = position
        if not board.is_game_over():
            return {"score": board.disc_count(side) - board.disc_count(1 - side)}
        s = board.score()
        return {"score": s if board.turn == side else -s, "outcome": board.outcome()}

    def render_position(
        self, position: Any, *, last: int | None = None, last_name: str | None = None,
        legend: bool = False,
    ) -> str:  # fmt: skip
        """``Board.diagram``: ``X`` black, ``O`` white, ``*`` legal moves, the last move in
        brackets, the disc counts and whose turn it is (its own legend)."""
        return str(position.diagram(last=last))

    def render_image(self, position: Any, *, last: int | None = None) -> Any:
        return _render_rgb(position, last=last)

    def describe_side(self, side: int) -> str:
        return f"{self.side_names[side]} ({'XO'[side]})"

    def describe_end(self, position: Any) -> str:
        return str(position.outcome())

    def move_help(self) -> str:
        return "Type a move like f5, or 'pass' when you have no move."

    def board_view(self, position: Any) -> dict[str, Any]:
        """``discs``: ``cells`` 0 empty, 1 black, 2 white from a1 row by row, the disc
        ``counts`` (black, white) and, once the game is over, the ``final`` counts with the
        empties given to the winner."""
        board: Board = position
        n = self.size * self.size
        black, white = board.black, board.white
        outcome = board.outcome()
        return {
            "kind": "discs",
            "rows": self.size,
            "cols": self.size,
            "squares": [square_name(i, self.size) for i in range(n)],
            "cells": [1 if black >> i & 1 else 2 if white >> i & 1 else 0 for i in range(n)],
            "counts": [board.disc_count(BLACK), board.disc_count(1 - BLACK)],
            "final": None if outcome is None else list(outcome.final_counts()),
        }

    def move_parts(self, position: Any, action: int) -> dict[str, str | None]:
        """A disc placed on ``to``; a pass is nowhere."""
        to = None if action == self.size * self.size else square_name(int(action), self.size)
        return {"from": None, "to": to, "drop": None}

    def vector_kernels(self) -> Any:
        """Numba kernels that step many games against a batched random or greedy opponent."""
        from othellolab.core.othello_vector import OthelloVectorKernels

        return OthelloVectorKernels


@functools.cache
def _env_spec(planes: tuple[str, ...], size: int) -> _f.FeatureSpec:
    return _f.FeatureSpec(planes, size)


BOARD_GREEN = np.array([0, 110, 60], dtype=np.uint8)
GRID = np.array([0, 50, 25], dtype=np.uint8)
BLACK_RGB = np.array([20, 20, 20], dtype=np.uint8)
WHITE_RGB = np.array([240, 240, 240], dtype=np.uint8)
DOT_RGB = np.array([0, 60, 30], dtype=np.uint8)
LAST_RGB = np.array([220, 40, 40], dtype=np.uint8)

_CELL = 40


def _disc(radius: float) -> np.ndarray:
    y, x = np.mgrid[0:_CELL, 0:_CELL] + 0.5 - _CELL / 2
    return x * x + y * y <= (radius * _CELL) ** 2  # type: ignore[no-any-return]


_DISC = _disc(0.40)[:-1, :-1]
_DOT = _disc(0.11)[:-1, :-1]
_MARK = _disc(0.08)[:-1, :-1]


def _render_rgb(board: Board, *, last: int | None = None) -> np.ndarray:
    """The board as an RGB image ``(size*40+1, size*40+1, 3)`` uint8: a green board with grid
    lines, black and white discs, small dots on the legal moves, a red mark on the last move."""
    n = board.size
    side = n * _CELL + 1
    img = np.empty((side, side, 3), dtype=np.uint8)
    img[:] = BOARD_GREEN
    img[::_CELL, :] = GRID
    img[:, ::_CELL] = GRID
    black, white, moves = board.black, board.white, board.legal_mask
    for sq in range(n * n):
        r, c = divmod(sq, n)
        part = img[r * _CELL + 1 : (r + 1) * _CELL, c * _CELL + 1 : (c + 1) * _CELL]
        if black >> sq & 1:
            part[_DISC] = BLACK_RGB
        elif white >> sq & 1:
            part[_DISC] = WHITE_RGB
        elif moves >> sq & 1:
            part[_DOT] = DOT_RGB
        if sq == last:
            part[_MARK] = LAST_RGB
    return img


_SIZES: dict[int, Othello] = {}


def _make(size: int | None) -> Othello:
    size = 8 if size is None else size
    if size not in _SIZES:
        _SIZES[size] = Othello(size)  # validates
    return _SIZES[size]


register_game(
    "othello",
    _make,
    keys={"othello4": 4, "othello6": 6, "othello8": 8},
    aliases=("reversi",),
    position_types=(Board,),
)
