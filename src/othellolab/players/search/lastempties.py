"""The last empties of an exact search: scores by flip counting, without a move generator
(one and two empties), and null-window search in parity order without a table (three to
``DEEP_MIN - 1`` empties).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import _FULL, _RAYS, ONE, U64, ZERO, _flips, popcount
from othellolab.players.search.geometry import (
    INF,
    NEIGHBOUR,
    ODD_MASK,
    QUAD_BIT,
    QUAD_MASK,
    can_move,
    final_score,
)
from othellolab.players.search.state import NODES

SHALLOW_MIN = 3
"""From this many empties up, nodes loop over the empty squares in parity order."""

_LINE_FLIPS = np.zeros((8, 256), dtype=np.int64)
"""``_LINE_FLIPS[i, line]``: the discs flipped along a line of 8 by playing its square ``i`` when
``line`` has the mover's discs and every other square is the opponent's (squares off the board
beyond the ends of a short diagonal read as the opponent's, which flips nothing: the walk reaches
the edge without meeting a disc of the mover's)."""

for _i in range(8):
    for _line in range(256):
        for _step in (-1, 1):
            _j = _i + _step
            while 0 <= _j < 8 and not _line >> _j & 1:
                _j += _step
            if 0 <= _j < 8:
                _LINE_FLIPS[_i, _line] += abs(_j - _i) - 1


_DIAGONALS = np.zeros((64, 2), dtype=np.uint64)
"""``_DIAGONALS[sq]``: the 8x8 diagonal (rays SE and NW, 2 and 6 in ``_RAYS``) and anti-diagonal
(rays SW and NE, 3 and 7) through ``sq``, ``sq`` included."""

for _sq in range(64):
    _DIAGONALS[_sq, 0] = _RAYS[8, _sq, 2] | _RAYS[8, _sq, 6] | U64(1 << _sq)
    _DIAGONALS[_sq, 1] = _RAYS[8, _sq, 3] | _RAYS[8, _sq, 7] | U64(1 << _sq)


_BYTES = U64(0x0101010101010101)

_COLUMN_TO_BYTE = U64(0x0102040810204080)


@hot_kernel(inline="always")
def _last_flip_count(p: int, sq: int) -> int:
    """8x8 with one empty square ``sq``: how many discs ``p`` flips by playing it (Edax's
    count_last_flip idea). The board is full but for ``sq``, so each of the four lines through
    it is known from ``p``'s discs alone: gather them into a byte by a multiplication and look
    the count up, instead of computing the flips."""
    r = U64(sq >> 3)
    c = sq & 7
    k = _LINE_FLIPS[c, (p >> (r << U64(3))) & U64(255)]
    k += _LINE_FLIPS[r, (((p >> U64(c)) & _BYTES) * _COLUMN_TO_BYTE) >> U64(56)]
    k += _LINE_FLIPS[c, ((p & _DIAGONALS[sq, 0]) * _BYTES) >> U64(56)]
    k += _LINE_FLIPS[c, ((p & _DIAGONALS[sq, 1]) * _BYTES) >> U64(56)]
    return k


@hot_kernel(inline="always")
def solve1(p: int, o: int, sq: int, n: int) -> int:
    """Exact score with one empty square ``sq``."""
    cells = n * n
    pc = popcount(p)
    if n == 8:
        k = _last_flip_count(p, sq)
        if k:
            return 2 * (pc + k) + 2 - cells
        k = _last_flip_count(o, sq)
        if k:
            return 2 * (pc - k) - cells
    else:
        f = _flips(p, o, sq, n)
        if f:
            return 2 * (pc + popcount(f)) + 2 - cells
        g = _flips(o, p, sq, n)
        if g:
            return 2 * (pc - popcount(g)) - cells
    diff = 2 * pc + 1 - cells
    return diff + 1 if diff > 0 else diff - 1


@hot_kernel(inline="always")
def solve2(p: int, o: int, alpha: int, x1: int, x2: int, n: int, stats: np.ndarray) -> int:
    """Null-window score (fail-soft around ``alpha``) with the two empty squares ``x1``, ``x2``."""
    stats[NODES] += 1
    b1 = ONE << U64(x1)
    b2 = ONE << U64(x2)
    best = -INF
    f = _flips(p, o, x1, n) if NEIGHBOUR[n, x1] & o else ZERO
    if f:
        stats[NODES] += 1
        best = -solve1(o & ~f, p | f | b1, x2, n)
        if best > alpha:
            return best
    f = _flips(p, o, x2, n) if NEIGHBOUR[n, x2] & o else ZERO
    if f:
        stats[NODES] += 1
        s = -solve1(o & ~f, p | f | b2, x1, n)
        return s if s > best else best
    if best > -INF:
        return best
    # No move: the opponent plays, or the game is over.
    best = INF
    f = _flips(o, p, x1, n) if NEIGHBOUR[n, x1] & p else ZERO
    if f:
        stats[NODES] += 1
        best = solve1(p & ~f, o | f | b1, x2, n)
        if best <= alpha:
            return best
    f = _flips(o, p, x2, n) if NEIGHBOUR[n, x2] & p else ZERO
    if f:
        stats[NODES] += 1
        s = solve1(p & ~f, o | f | b2, x1, n)
        return s if s < best else best
    if best < INF:
        return best
    return final_score(p, o, n)


@hot_kernel()
def nws_shallow(p: int, o: int, alpha: int, ne: int, parity: int, n: int, stats: np.ndarray) -> int:
    """Null-window search with ``ne`` (3 or more) empties: parity order, no table, no sorting."""
    stats[NODES] += 1
    empties = ~(p | o) & _FULL[n]
    odd = ODD_MASK[n, parity]
    best = -INF
    for half in range(2):
        m = empties & odd if half == 0 else empties & ~odd
        while m:
            bit = m & (~m + ONE)
            m ^= bit
            sq = np.int64(trailing_zeros(bit))
            if NEIGHBOUR[n, sq] & o == ZERO:
                continue
            f = _flips(p, o, sq, n)
            if f == ZERO:
                continue
            np_ = o & ~f
            no = p | f | bit
            if ne == 3:
                rest = empties ^ bit
                x1 = np.int64(trailing_zeros(rest))
                x2 = np.int64(trailing_zeros(rest & (rest - ONE)))
                s = -solve2(np_, no, -alpha - 1, x1, x2, n, stats)
            else:
                s = -nws_shallow(np_, no, -alpha - 1, ne - 1, parity ^ QUAD_BIT[n, sq], n, stats)
            if s > best:
                best = s
                if s > alpha:
                    return s
    if best > -INF:
        return best
    if not can_move(o, p, empties, n):
        return final_score(p, o, n)
    return -nws_shallow(o, p, -alpha - 1, ne, parity, n, stats)


@hot_kernel()
def nws_small(p: int, o: int, alpha: int, ne: int, parity: int, n: int, stats: np.ndarray) -> int:
    """Null-window search for fewer than ``DEEP_MIN`` empties (dispatch on ``ne``)."""
    if ne >= SHALLOW_MIN:
        return nws_shallow(p, o, alpha, ne, parity, n, stats)
    if ne == 2:
        empties = ~(p | o) & _FULL[n]
        x1 = np.int64(trailing_zeros(empties))
        x2 = np.int64(trailing_zeros(empties & (empties - ONE)))
        return solve2(p, o, alpha, x1, x2, n, stats)
    if ne == 1:
        stats[NODES] += 1
        return solve1(p, o, np.int64(trailing_zeros(~(p | o) & _FULL[n])), n)
    return final_score(p, o, n)


@hot_kernel()
def parity_of(p: int, o: int, n: int) -> int:
    """Bit ``q`` set when quadrant ``q`` holds an odd number of empty squares."""
    empties = ~(p | o) & _FULL[n]
    parity = 0
    for q in range(4):
        if popcount(empties & QUAD_MASK[n, q]) & 1:
            parity |= 1 << q
    return parity
