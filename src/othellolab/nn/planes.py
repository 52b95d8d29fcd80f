"""Input planes of many positions from bitboards, named as in a model config.

This small encoder keeps ``nn`` usable before the datasets module lands; it reads the same
plane names (``player``, ``opponent``, ``legal``, ``empty``, ``ones``) so that the two give the
same arrays and one can replace the other.

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

__all__ = ["bits_to_array", "encode_planes", "legal_action_masks"]


def bits_to_array(x: np.ndarray, size: int) -> np.ndarray:
    """0/1 uint8 array ``(B, size, size)`` of the set squares of many bitboards."""
    shifts = np.arange(size * size, dtype=np.uint64)
    bits = (x[:, None] >> shifts) & np.uint64(1)
    return bits.astype(np.uint8).reshape(-1, size, size)


def encode_planes(
    player: np.ndarray, opponent: np.ndarray, planes: tuple[str, ...], size: int
) -> np.ndarray:
    """Planes ``(B, C, size, size)`` float32 of positions seen from the side to move."""
    p = np.ascontiguousarray(player, dtype=np.uint64)
    o = np.ascontiguousarray(opponent, dtype=np.uint64)
    out = np.empty((p.shape[0], len(planes), size, size), dtype=np.float32)
    if p.shape[0] == 0:
        return out
    base = _k.to_planes_batch(p, o, size)
    for c, name in enumerate(planes):
        if name == "player":
            out[:, c] = base[:, 0]
        elif name == "opponent":
            out[:, c] = base[:, 1]
        elif name == "legal":
            out[:, c] = bits_to_array(_k.legal_mask_batch(p, o, size), size)
        elif name == "empty":
            out[:, c] = 1 - base[:, 0] - base[:, 1]
        elif name == "ones":
            out[:, c] = 1.0
        else:
            raise ValueError(f"encode_planes: unknown plane {name!r}")
    return out


def legal_action_masks(player: np.ndarray, opponent: np.ndarray, size: int) -> np.ndarray:
    """Boolean ``(N, size*size + 1)`` legal actions: placing moves, else pass unless the game
    is over."""
    own = _k.legal_mask_batch(player, opponent, size)
    mask = np.zeros((player.shape[0], size * size + 1), dtype=bool)
    mask[:, :-1] = bits_to_array(own, size).reshape(-1, size * size).astype(bool)
    no_move = own == 0
    if no_move.any():
        theirs = _k.legal_mask_batch(opponent[no_move], player[no_move], size)
        mask[np.flatnonzero(no_move), -1] = theirs != 0
    return mask
