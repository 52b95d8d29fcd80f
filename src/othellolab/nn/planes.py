"""Input planes and legal-action masks of many positions, for models and their trainers.

Planes come from the one feature encoder, ``datasets.features.encode_batch``; this module only
adapts a model config's plane names to it.

>>> import numpy as np
>>> from othellolab import Board
>>> b = Board()
>>> x = encode_planes(np.array([b.player], np.uint64), np.array([b.opponent], np.uint64),
...                   ("player", "opponent", "legal"), 8)
>>> x.shape, x[0].sum(axis=(1, 2)).tolist()
((1, 3, 8, 8), [2.0, 2.0, 4.0])
"""

from __future__ import annotations

import numpy as np

from othellolab.core import kernels as _k
from othellolab.datasets.features import FeatureSpec, encode_batch

__all__ = ["encode_planes", "legal_action_masks"]


def encode_planes(
    player: np.ndarray, opponent: np.ndarray, planes: tuple[str, ...], size: int
) -> np.ndarray:
    """Planes ``(B, C, size, size)`` float32 of positions seen from the side to move."""
    return encode_batch(player, opponent, FeatureSpec(tuple(planes), size))


def legal_action_masks(player: np.ndarray, opponent: np.ndarray, size: int) -> np.ndarray:
    """Boolean ``(N, size*size + 1)`` legal actions: placing moves, else pass unless the game
    is over."""
    own = _k.legal_mask_batch(player, opponent, size)
    mask = np.zeros((player.shape[0], size * size + 1), dtype=bool)
    shifts = np.arange(size * size, dtype=np.uint64)
    mask[:, :-1] = ((own[:, None] >> shifts) & np.uint64(1)).astype(bool)
    no_move = own == 0
    if no_move.any():
        theirs = _k.legal_mask_batch(opponent[no_move], player[no_move], size)
        mask[np.flatnonzero(no_move), -1] = theirs != 0
    return mask
