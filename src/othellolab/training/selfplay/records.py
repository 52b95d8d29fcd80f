"""The self-play record format: the arrays that the engine produces and that shards store and
the trainer reads, by name and dtype, and ``SelfPlayRecords``, which holds them.

The format is named here once, so that the producer (``engine``) and the consumers
(``shards``, ``trainer``, ``workers``) share it without importing one another. A score array
(``score``, ``black_score``) holds ``NO_SCORE`` (``core.values``, -128) for a resigned game:
int8 holds it as it is, so shards store it unconverted and every shard ever written reads
back the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from othellolab.core.values import NO_SCORE

__all__ = [
    "GAME_DTYPES",
    "GAME_FIELDS",
    "NO_SCORE",
    "POSITION_DTYPES",
    "POSITION_FIELDS",
    "TARGET_DTYPES",
    "TARGET_FIELDS",
    "SelfPlayRecords",
    "empty_positions",
]

POSITION_DTYPES: dict[str, np.dtype[Any]] = {
    "player": np.dtype(np.uint64),
    "opponent": np.dtype(np.uint64),
    "color": np.dtype(np.int8),
    "policy": np.dtype(np.float32),
    "value": np.dtype(np.float32),
    "result": np.dtype(np.int8),
    "score": np.dtype(np.int8),
    "game": np.dtype(np.int32),
    "ply": np.dtype(np.int16),
    "full_search": np.dtype(np.bool_),
    "simulations": np.dtype(np.int32),
    "solved": np.dtype(np.bool_),
}
"""The per-position arrays, in shard order, and their dtypes (``policy`` is
``(N, n_actions)``, the others ``(N,)``)."""

TARGET_DTYPES: dict[str, np.dtype[Any]] = {
    "final_player": np.dtype(np.uint64),
    "final_opponent": np.dtype(np.uint64),
    "final_side": np.dtype(np.int8),
    "next_action": np.dtype(np.int16),
}
"""The per-position arrays of the auxiliary targets (``(N,)`` each), stored beside the
position arrays; a shard written before them reads without them (``shards.OPTIONAL``)."""

GAME_DTYPES: dict[str, np.dtype[Any]] = {
    "moves": np.dtype(np.int16),
    "length": np.dtype(np.int16),
    "black_result": np.dtype(np.int8),
    "black_score": np.dtype(np.int8),
    "resigned": np.dtype(np.int8),
    "resign_ply": np.dtype(np.int16),
    "no_resign": np.dtype(np.bool_),
    "would_resign": np.dtype(np.int8),
    "would_resign_ply": np.dtype(np.int16),
    "false_resignation": np.dtype(np.bool_),
}
"""The per-game arrays, in shard order, and their dtypes (``moves`` is ``(G, longest)``, the
others ``(G,)``)."""

POSITION_FIELDS = tuple(POSITION_DTYPES)
TARGET_FIELDS = tuple(TARGET_DTYPES)
GAME_FIELDS = tuple(GAME_DTYPES)


def empty_positions(n: int, n_actions: int) -> dict[str, np.ndarray]:
    """Zeroed per-position arrays of the format (targets included) for ``n`` rows, for a
    producer to fill."""
    return {
        name: np.zeros((n, n_actions) if name == "policy" else n, dtype=dtype)
        for name, dtype in {**POSITION_DTYPES, **TARGET_DTYPES}.items()
    }


@dataclass(frozen=True)
class SelfPlayRecords:
    """Self-play games as arrays.

    One row per searched position (``N`` rows): ``player``/``opponent`` (uint64 bitboards of
    the side to move and of its opponent), ``color`` (int8, ``BLACK`` 0 or ``WHITE`` 1, the
    side to move), ``policy`` (float32 ``(N, size*size+1)``: the visit distribution, or for
    Gumbel the improved policy), ``value`` (float32: the root's search value), ``result``
    (int8 +1/0/-1: the game's result for the side to move), ``score`` (int8: its final disc
    difference, empties to the winner; ``NO_SCORE`` if the game was resigned), ``game``
    (int32 index), ``ply`` (int16: moves played before it, passes included),
    ``full_search`` (bool: the policy target comes from a full search; playout-cap
    randomisation's fast searches give values only), ``simulations`` (int32) and ``solved``
    (bool: the search proved the root's exact value, so ``value`` is exact and ``policy`` is
    uniform over the moves proven best); the auxiliary targets: ``final_player`` and
    ``final_opponent`` (uint64: the game's final position, from the side to move at the end;
    the exact endgame plays it out optimally), ``final_side`` (int8: +1 when that side is
    the row's side to move, -1 when it is the other, 0 for a resigned game: no final
    position) and ``next_action`` (int16: the opponent's reply, the action played at the next
    ply; -1 when the game ended before it).

    One row per game (``G`` rows): ``moves`` (int16 ``(G, max plies)``, actions with passes,
    -1 after the end), ``length`` (int16 plies), ``black_result`` (int8) and ``black_score``
    (int8, ``NO_SCORE`` if resigned) for Black, ``resigned`` (int8: the colour that resigned,
    -1 none) at ``resign_ply`` (int16, -1), ``no_resign`` (bool: resignation was off in this
    game), and, for those, ``would_resign`` (int8: the first colour that would have resigned,
    -1 none) at ``would_resign_ply``, and ``false_resignation`` (bool: that side then did not
    lose).
    """

    size: int
    player: np.ndarray
    opponent: np.ndarray
    color: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    result: np.ndarray
    score: np.ndarray
    game: np.ndarray
    ply: np.ndarray
    full_search: np.ndarray
    simulations: np.ndarray
    solved: np.ndarray
    final_player: np.ndarray
    final_opponent: np.ndarray
    final_side: np.ndarray
    next_action: np.ndarray
    moves: np.ndarray
    length: np.ndarray
    black_result: np.ndarray
    black_score: np.ndarray
    resigned: np.ndarray
    resign_ply: np.ndarray
    no_resign: np.ndarray
    would_resign: np.ndarray
    would_resign_ply: np.ndarray
    false_resignation: np.ndarray
    evaluations: int = 0
    seconds: float = 0.0
    info: dict[str, float] = field(default_factory=dict)
    game_key: str = ""
    """The game's key (``core.games``: ``othello6``, ``animal-shogi``); ``size`` is its kernel
    code (an Othello board's size)."""

    def __len__(self) -> int:
        return int(self.player.shape[0])

    @property
    def games(self) -> int:
        """Number of games."""
        return int(self.length.shape[0])

    def position_arrays(self) -> dict[str, np.ndarray]:
        """The per-position arrays by name (for a shard)."""
        return {name: getattr(self, name) for name in POSITION_FIELDS}

    def target_arrays(self) -> dict[str, np.ndarray]:
        """The per-position arrays of the auxiliary targets by name (for a shard)."""
        return {name: getattr(self, name) for name in TARGET_FIELDS}

    def game_arrays(self) -> dict[str, np.ndarray]:
        """The per-game arrays by name."""
        return {name: getattr(self, name) for name in GAME_FIELDS}

    def false_resignation_rate(self) -> float | None:
        """Among the games played out with resignation off in which a side would have
        resigned, the share in which that side did not lose (``None`` if there were none)."""
        would = self.no_resign & (self.would_resign >= 0)
        return float(self.false_resignation[would].mean()) if would.any() else None
