"""Move priors (a policy network's, say) of a few positions, for the midgame search to order
their moves by: the table the search probes by position hash (``MovePriors``) and the probe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from othellolab.core import Board
from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import U64, ZERO, hash_position


@dataclass(frozen=True)
class MovePriors:
    """Move priors (a policy network's, say) of a few positions, for the search to order
    their moves by: an open-addressed table of position hashes (``keys``, 0 for an empty
    slot, a power of two long) and a row of priors per slot (``priors``, one per square)."""

    keys: np.ndarray
    priors: np.ndarray

    @classmethod
    def empty(cls, squares: int) -> MovePriors:
        """No positions: every node orders its moves the usual way."""
        return cls(np.zeros(0, dtype=np.uint64), np.zeros((0, squares), dtype=np.float64))

    @classmethod
    def build(cls, boards: Sequence[Board], priors: np.ndarray) -> MovePriors:
        """The table of ``boards`` with their priors (``(len(boards), n*n)``, any scale where
        higher is better), at most half full so that probes stay short."""
        priors = np.asarray(priors, dtype=np.float64)
        if not boards:
            return cls.empty(priors.shape[1] if priors.ndim == 2 else 0)
        squares = boards[0].size ** 2
        if priors.shape != (len(boards), squares) or not np.all(np.isfinite(priors)):
            raise ValueError(
                f"MovePriors: expected finite priors of shape ({len(boards)}, {squares}), "
                f"got shape {priors.shape}"
            )
        slots = 1 << max(4, (2 * len(boards) - 1).bit_length())
        keys = np.zeros(slots, dtype=np.uint64)
        rows = np.zeros((slots, squares), dtype=np.float64)
        for board, row in zip(boards, priors, strict=True):
            h = U64(hash_position(U64(board.player), U64(board.opponent)))
            slot = int(h) & (slots - 1)
            while keys[slot] != 0 and keys[slot] != h:
                slot = (slot + 1) & (slots - 1)
            keys[slot] = h
            rows[slot] = row
        return cls(keys, rows)

    def __len__(self) -> int:
        return int(np.count_nonzero(self.keys))


def _prior_arrays(priors: MovePriors | None, squares: int) -> tuple[np.ndarray, np.ndarray]:
    """The search state's ``prior_keys`` and ``priors`` (empty ones for no priors)."""
    if priors is None or not len(priors):
        priors = MovePriors.empty(squares)
    if priors.priors.shape[1] != squares:
        raise ValueError(
            f"MovePriors: priors over {priors.priors.shape[1]} squares for a board of {squares}"
        )
    return priors.keys, priors.priors


@hot_kernel(nogil=True, inline="always")
def _prior_row(keys: np.ndarray, h: int) -> int:
    """The slot of ``MovePriors`` holding position hash ``h``, or -1."""
    mask = keys.shape[0] - 1
    slot = np.int64(h & U64(mask))
    while keys[slot] != ZERO:
        if keys[slot] == h:
            return slot
        slot = (slot + 1) & mask
    return -1
