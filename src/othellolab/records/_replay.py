"""Numba replay of whole move lists: readers check 100,000s of games, one kernel call each.

The rules come from ``core.kernels`` (``legal_mask``, ``flip_mask``); this module only walks a
move list, makes the passes explicit and says where the first illegal move is. The error
message itself comes from replaying that game through ``Board.play``, so there is one wording.
"""

from __future__ import annotations

import numpy as np

from othellolab.core.kernels import ONE, U64, ZERO, flip_mask, legal_mask
from othellolab.core.numba_kernel import kernel


@kernel
def insert_passes(
    p: int, o: int, moves: np.ndarray, size: int = 8
) -> tuple[np.ndarray, int, int, int]:
    """Replay ``moves`` (actions; ``size*size`` = an explicit pass) from ``(p, o)``.

    Returns ``(actions, bad, p, o)``: the actions with every forced pass made explicit, the
    0-based index of the first move that is illegal (-1 if none; the actions then stop before
    it), and the final position seen from the side to move.
    """
    p = U64(p)
    o = U64(o)
    n = size * size
    out = np.empty(2 * moves.shape[0], dtype=np.int64)
    k = 0
    bad = -1
    for i in range(moves.shape[0]):
        a = moves[i]
        legal = legal_mask(p, o, size)
        if a == n:
            if legal != ZERO or legal_mask(o, p, size) == ZERO:
                bad = i
                break
            p, o = o, p
            out[k] = n
            k += 1
            continue
        if a < 0 or a > n:
            bad = i
            break
        if legal == ZERO:
            if legal_mask(o, p, size) == ZERO:
                bad = i
                break
            p, o = o, p
            out[k] = n
            k += 1
            legal = legal_mask(p, o, size)
        bit = ONE << U64(a)
        if legal & bit == ZERO:
            bad = i
            break
        f = flip_mask(p, o, a, size)
        p, o = o & ~f, p | f | bit
        out[k] = a
        k += 1
    return out[:k], bad, p, o


@kernel
def insert_passes_batch(
    p: int, o: int, moves: np.ndarray, lengths: np.ndarray, size: int = 8
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``insert_passes`` over many games from one start: row ``i`` of ``moves`` holds
    ``lengths[i]`` moves. Returns ``(actions, n_actions, bad, p, o)`` arrays, one row or entry
    per game (``actions`` rows padded with -1)."""
    g = moves.shape[0]
    width = 2 * moves.shape[1]
    actions = np.full((g, width), -1, dtype=np.int64)
    n_actions = np.zeros(g, dtype=np.int64)
    bad = np.full(g, -1, dtype=np.int64)
    fp = np.empty(g, dtype=np.uint64)
    fo = np.empty(g, dtype=np.uint64)
    for i in range(g):
        acts, b, pi, oi = insert_passes(p, o, moves[i, : lengths[i]], size)
        k = acts.shape[0]
        actions[i, :k] = acts
        n_actions[i] = k
        bad[i] = b
        fp[i] = pi
        fo[i] = oi
    return actions, n_actions, bad, fp, fo
