"""What learning sees of animal shogi: the network planes (``encode_batch``) and the rules' one
symmetry, the left-right mirror, over states, actions and policies (scalar and batched).
"""

from __future__ import annotations

import numpy as np

from othellolab.core.animal_shogi.rules import (
    BOARD_MASK,
    DRAW_PLIES,
    N_ACTIONS,
    NIBBLE,
    OPPONENT,
    U64,
)
from othellolab.core.numba_kernel import kernel

__all__ = [
    "MIRROR_ACTIONS",
    "PLANES",
    "PLANE_NAMES",
    "SYMMETRIES",
    "encode_batch",
    "mirror_action",
    "mirror_policy",
    "mirror_state",
    "transform_policies",
    "transform_states",
]

SYMMETRIES = 2
"""Transforms of the rules: 0 identity, 1 left-right mirror."""

PLANE_NAMES = (
    "own_chick",
    "own_elephant",
    "own_giraffe",
    "own_lion",
    "own_hen",
    "opponent_chick",
    "opponent_elephant",
    "opponent_giraffe",
    "opponent_lion",
    "opponent_hen",
    "own_hand_chick",
    "own_hand_elephant",
    "own_hand_giraffe",
    "opponent_hand_chick",
    "opponent_hand_elephant",
    "opponent_hand_giraffe",
    "ply",
)
PLANES = len(PLANE_NAMES)

# The mirror: square (r, c) -> (r, 2 - c), direction k -> (8 - k) % 8, drops unchanged.
_MIRROR_SQUARE = np.array([(s // 3) * 3 + 2 - s % 3 for s in range(12)], dtype=np.int64)
MIRROR_ACTIONS = np.array(
    [
        _MIRROR_SQUARE[a // 11] * 11 + ((8 - a % 11) % 8 if a % 11 < 8 else a % 11)
        for a in range(N_ACTIONS)
    ],
    dtype=np.int64,
)
"""``MIRROR_ACTIONS[a]``: the image of action ``a`` under the mirror (an involution)."""


# ----------------------------------------------------------------------------------------------
# Kernels


@kernel
def mirror_action(action: int) -> int:
    """The image of an action under the left-right mirror."""
    return MIRROR_ACTIONS[action]


@kernel
def mirror_state(p: int, o: int) -> tuple[int, int]:
    """The left-right mirror of a position (column ``c`` -> ``2 - c``); hands and ply kept."""
    p = U64(p)
    out = p & ~BOARD_MASK
    for r in range(4):
        left = U64(4 * (3 * r))
        middle = U64(4 * (3 * r + 1))
        right = U64(4 * (3 * r + 2))
        out |= ((p >> left) & NIBBLE) << right
        out |= ((p >> middle) & NIBBLE) << middle
        out |= ((p >> right) & NIBBLE) << left
    return out, U64(o)


@kernel
def mirror_policy(policy: np.ndarray) -> np.ndarray:
    """A policy vector over the 132 actions, mirrored: ``out[mirror(a)] = policy[a]``."""
    out = np.empty_like(policy)
    for a in range(N_ACTIONS):
        out[MIRROR_ACTIONS[a]] = policy[a]
    return out


@kernel
def transform_states(
    p_arr: np.ndarray, o_arr: np.ndarray, ks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Symmetry ``ks[i]`` (0 identity, 1 mirror) applied to each position ``i``."""
    n = p_arr.shape[0]
    p_out = np.empty(n, dtype=np.uint64)
    o_out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        if ks[i] == 1:
            p2, o2 = mirror_state(p_arr[i], o_arr[i])
            p_out[i] = p2
            o_out[i] = o2
        else:
            p_out[i] = p_arr[i]
            o_out[i] = o_arr[i]
    return p_out, o_out


@kernel
def transform_policies(policy: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Symmetry ``ks[i]`` (0 identity, 1 mirror) applied to each row of an (N, 132) policy."""
    out = np.empty_like(policy)
    for i in range(policy.shape[0]):
        if ks[i] == 1:
            for a in range(N_ACTIONS):
                out[i, MIRROR_ACTIONS[a]] = policy[i, a]
        else:
            for a in range(N_ACTIONS):
                out[i, a] = policy[i, a]
    return out


@kernel
def encode_batch(p_arr: np.ndarray, o_arr: np.ndarray) -> np.ndarray:
    """Network planes ``(N, 17, 4, 3)`` float32 from the side to move (see ``PLANE_NAMES``)."""
    n = p_arr.shape[0]
    out = np.zeros((n, PLANES, 4, 3), dtype=np.float32)
    for i in range(n):
        p = U64(p_arr[i])
        for sq in range(12):
            piece = np.int64((p >> U64(4 * sq)) & NIBBLE)
            if piece != 0:
                plane = piece - 1 if piece < OPPONENT else piece - OPPONENT + 4
                out[i, plane, sq // 3, sq % 3] = 1.0
        for h in range(6):
            count = np.int64((p >> U64(48 + 2 * h)) & U64(3))
            if count != 0:
                out[i, 10 + h, :, :] = np.float32(count / 2.0)
        out[i, 16, :, :] = np.float32(np.float64(o_arr[i]) / DRAW_PLIES)
    return out
