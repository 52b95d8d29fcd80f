"""Animal shogi behind the game protocol (``core.games``): its rules kernels for the compiled
search, planes and the left-right mirror, and its registration as ``animal-shogi``."""

from __future__ import annotations

from typing import Any

import numpy as np

from othellolab.core import animal_shogi as _shogi
from othellolab.core.animal_shogi.heuristic import shogi_heuristic, shogi_order
from othellolab.core.errors import ConfigError
from othellolab.core.games import (
    CHILDREN_SIGNATURE,
    RESULT_SIGNATURE,
    Game,
    register_game,
    rules_kernel,
)

__all__ = ["AnimalShogiGame"]


@rules_kernel(CHILDREN_SIGNATURE)
def shogi_children(param, p, o, actions, cp, co):  # type: ignore[no-untyped-def]
    """Animal shogi's ``children`` kernel (``param`` unused)."""
    n = _shogi.legal_actions(p, o, actions)
    for i in range(n):
        a, b = _shogi.step(p, o, actions[i])
        cp[i] = a
        co[i] = b
    return n


@rules_kernel(RESULT_SIGNATURE)
def shogi_result(param, p, o):  # type: ignore[no-untyped-def]
    """Animal shogi's ``result`` kernel: +1/0/-1 for the side to move at the end, NaN before."""
    r = _shogi.result(p, o)
    if r == _shogi.ONGOING:
        return np.nan
    return float(r)


def _bitboards(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.uint64).reshape(-1))


class AnimalShogiGame(Game):
    """Animal shogi (``core.animal_shogi``): a 4 x 3 board, 132 actions, results +1/0/-1, the
    left-right mirror as its one symmetry."""

    name = "animal-shogi"
    key = "animal-shogi"
    rows, cols = 4, 3
    n_actions = _shogi.N_ACTIONS
    score_scale = 1.0
    symmetries = _shogi.SYMMETRIES
    plane_names = _shogi.PLANE_NAMES
    children_kernel = shogi_children
    result_kernel = shogi_result
    default_player = "alphazero:model=az-animal-shogi"
    title = "animal shogi"
    heuristic_kernel = shogi_heuristic
    order_kernel = shogi_order
    heuristic_scale = 10.0
    """A material lead of ``m`` chicks reads as the expected result ``tanh(m / 10)``."""

    def start(self) -> tuple[int, int]:
        p, o = _shogi.start_state()
        return int(p), int(o)

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        np_, no_ = _shogi.step(p, o, action)
        return int(np_), int(no_)

    def legal_mask_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        return _shogi.legal_mask_batch(_bitboards(p), _bitboards(o))

    def terminal_values(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        results = _shogi.result_batch(_bitboards(p), _bitboards(o))
        return np.where(results == _shogi.ONGOING, 0, results).astype(np.float32)

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

    def parse_move(self, position: _shogi.AnimalShogi, text: str) -> int:
        """The action of a move's name in ``position`` (``move_name``'s inverse)."""
        return position.parse_move(text)

    def encode(
        self, p: np.ndarray, o: np.ndarray, planes: tuple[str, ...] | None = None
    ) -> np.ndarray:
        self.check_planes(planes)
        return _shogi.encode_batch(_bitboards(p), _bitboards(o))

    def transform_states(
        self, p: np.ndarray, o: np.ndarray, ks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        ks = np.ascontiguousarray(ks, dtype=np.int64)
        return _shogi.transform_states(_bitboards(p), _bitboards(o), ks)

    def transform_policies(self, policy: np.ndarray, ks: np.ndarray) -> np.ndarray:
        ks = np.ascontiguousarray(ks, dtype=np.int64)
        return _shogi.transform_policies(np.ascontiguousarray(policy), ks)

    # environments and the terminal -----------------------------------------------------------

    side_names = _shogi.COLOR_NAMES

    def turned(self, p: int, o: int) -> tuple[int, int]:
        """The board turned round (``rotate_state``), the ply kept."""
        a, b = _shogi.rotate_state(p, o)
        return int(a), int(b)

    def move_name(self, position: Any, action: int) -> str:
        """``b3b2``, ``b2b1+``, ``C*b2``: the name depends on the side to move."""
        return str(position.move_name(action))

    def env_info(self, position: Any, side: int) -> dict[str, Any]:
        """Once the game is over: ``result`` (+1/0/-1 for ``side``) and ``termination``."""
        r = position.result()
        if r is None:
            return {}
        return {
            "result": r if position.turn == side else -r,
            "termination": position.termination(),
        }

    def render_position(
        self, position: Any, *, last: int | None = None, last_name: str | None = None,
        legend: bool = False,
    ) -> str:  # fmt: skip
        text = super().render_position(position, last=last, last_name=last_name)
        return f"{text}\n{LEGEND}" if legend else text

    def describe_end(self, position: Any) -> str:
        return str(position.termination())

    def move_help(self) -> str:
        return (
            "Type a move as from and to squares, like b3b2 (a chick reaching the far row "
            "promotes: b2b1 or b2b1+), or a drop like C*b2 (C chick, E elephant, G giraffe "
            "from your hand). Squares are named from the first player's side: columns a-c, "
            "rows 1-4 from the top; the first player's pieces are uppercase."
        )

    # the web board ---------------------------------------------------------------------------

    position_format = "sfen"

    def start_position(self, text: str | None = None) -> _shogi.AnimalShogi:
        """The start or an SFEN position, keeping the game's history: a position seen a third
        time is a draw."""
        if text is None:
            return _shogi.AnimalShogi.start(repetition_draw=True)
        return _shogi.AnimalShogi.from_sfen(text, repetition_draw=True)

    def format_position(self, position: Any) -> str:
        return str(position.sfen())

    def board_view(self, position: Any) -> dict[str, Any]:
        """``pieces``: the board from the first player's side (row 1 at the top), each cell
        ``None`` or its piece (``letter`` as in SFEN, upper case, ``name``, ``side`` 0 for the
        first player), and each side's ``hands`` (letter -> count)."""
        cells: list[dict[str, Any] | None] = []
        for square in range(12):
            letter = position.piece_at(square)
            cells.append(
                None
                if letter is None
                else {
                    "letter": letter.upper(),
                    "name": _PIECE_OF[letter.upper()],
                    "side": 0 if letter.isupper() else 1,
                }
            )
        hands = [
            {name[0].upper(): count for name, count in position.hand(side).items()}
            for side in (_shogi.SENTE, _shogi.GOTE)
        ]
        return {
            "kind": "pieces",
            "rows": self.rows,
            "cols": self.cols,
            "squares": [_shogi.square_name(i) for i in range(12)],
            "cells": cells,
            "hands": hands,
            "pieces": _PIECE_OF,
        }

    def move_parts(self, position: Any, action: int) -> dict[str, str | None]:
        """``b3b2``: from b3 to b2; ``C*b2``: a chick dropped on b2."""
        name = position.move_name(action)
        if "*" in name:
            return {"from": None, "to": name[2:4], "drop": name[0]}
        return {"from": name[0:2], "to": name[2:4], "drop": None}

    def end_reason(self, position: Any) -> str | None:
        why = position.termination()
        return None if why is None else _END_REASONS.get(why)


_PIECE_OF = {name[0].upper(): name for name in _shogi.PIECE_NAMES if name}
"""Each piece's name by its letter (``L``: lion)."""

_END_REASONS = {
    "lion captured": "A lion was captured: its side loses.",
    "try": "Try: a lion reached the far row and was not captured on the next move, so its "
    "side wins.",
    "repetition": "The same position (board, hands and side to move) came up a third time: a draw.",
    "ply limit": f"{_shogi.DRAW_PLIES} moves were played without a result: a draw.",
    "no legal move": "The side to move has no legal move: it loses.",
}
"""Each way a game can end (``AnimalShogi.termination``), explained."""


LEGEND = (
    ", ".join(f"{name[0].upper()} {name}" for name in _shogi.PIECE_NAMES if name)
    + " (a promoted chick); uppercase: sente (first), lowercase: gote (second)"
)
"""What the letters of the board mean: each piece by its initial."""


_GAME = AnimalShogiGame()


def _make(size: int | None) -> AnimalShogiGame:
    if size not in (None, 0, 3, 4):
        raise ConfigError("animal shogi has one board (3 x 4); give no size", option="size")
    return _GAME


register_game(
    "animal-shogi",
    _make,
    aliases=("animal_shogi", "dobutsu"),
    position_types=(_shogi.AnimalShogi,),
)
