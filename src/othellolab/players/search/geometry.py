"""Board geometry the search kernels share: named square masks per board size, the move
generator with 8x8 constants, the final score, stable discs, neighbours, and the move-list
buffer helper.

Tables are indexed by board size (rows 4, 6 and 8 are filled) so that one compiled kernel
serves every size.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import (
    _FULL,
    _INNER,
    _RAYS,
    FULL8,
    INNER8,
    ONE,
    U64,
    ZERO,
    _flips,
    legal_squares,
    popcount,
)
from othellolab.core.values import disc_score

INF = 127
"""Larger than any score on any board size; a search returns a score in ``[-INF, INF]``."""

MAX_MOVES = 34
"""More than the most legal moves seen in an 8x8 position (33)."""

# Per board size (rows 4, 6, 8 are used): the quadrant bit of each square (parity ordering),
# the quadrant masks, the files and edges used by the stability bound, and the lines.
QUAD_BIT = np.zeros((9, 64), dtype=np.int64)

QUAD_MASK = np.zeros((9, 4), dtype=np.uint64)

_FILE_A = np.zeros(9, dtype=np.uint64)

_FILE_LAST = np.zeros(9, dtype=np.uint64)

_ROW_EDGES = np.zeros(9, dtype=np.uint64)

_EDGES = np.zeros(9, dtype=np.uint64)

CORNERS = np.zeros(9, dtype=np.uint64)

_LINES = np.zeros((9, 4, 16), dtype=np.uint64)  # [size, axis, line]: rows, cols, diag, anti-diag

_N_LINES = np.zeros((9, 4), dtype=np.int64)

for _n in (4, 6, 8):
    _h = _n // 2
    for _sq in range(_n * _n):
        _r, _c = divmod(_sq, _n)
        _q = 2 * (_r >= _h) + (_c >= _h)
        QUAD_BIT[_n, _sq] = 1 << _q
        QUAD_MASK[_n, _q] |= np.uint64(1 << _sq)
        if _c == 0:
            _FILE_A[_n] |= np.uint64(1 << _sq)
        if _c == _n - 1:
            _FILE_LAST[_n] |= np.uint64(1 << _sq)
        if _r in (0, _n - 1):
            _ROW_EDGES[_n] |= np.uint64(1 << _sq)
        if _r in (0, _n - 1) or _c in (0, _n - 1):
            _EDGES[_n] |= np.uint64(1 << _sq)
        if _r in (0, _n - 1) and _c in (0, _n - 1):
            CORNERS[_n] |= np.uint64(1 << _sq)
    _lines: list[list[int]] = [[], [], [], []]
    for _i in range(_n):
        _lines[0].append(sum(1 << (_i * _n + _c) for _c in range(_n)))
        _lines[1].append(sum(1 << (_r * _n + _i) for _r in range(_n)))
    for _d in range(-(_n - 1), _n):
        _lines[2].append(sum(1 << (_r * _n + _r - _d) for _r in range(_n) if 0 <= _r - _d < _n))
        _lines[3].append(
            sum(1 << (_r * _n + _d + _n - 1 - _r) for _r in range(_n) if 0 <= _d + _n - 1 - _r < _n)
        )
    for _a in range(4):
        _N_LINES[_n, _a] = len(_lines[_a])
        for _i, _m in enumerate(_lines[_a]):
            _LINES[_n, _a, _i] = np.uint64(_m)


ODD_MASK = np.zeros((9, 16), dtype=np.uint64)
"""``ODD_MASK[n, parity]``: the squares of the quadrants whose bit is set in ``parity``."""

for _n in (4, 6, 8):
    for _parity in range(16):
        for _q in range(4):
            if _parity >> _q & 1:
                ODD_MASK[_n, _parity] |= QUAD_MASK[_n, _q]


NEIGHBOUR = np.zeros((9, 64), dtype=np.uint64)
"""``NEIGHBOUR[n, sq]``: the squares next to ``sq``; a move there flips only if one is the
opponent's, a test far cheaper than computing the flips."""

for _n in (4, 6, 8):
    for _sq in range(_n * _n):
        for _d in range(8):
            _ray = int(_RAYS[_n, _sq, _d])
            if _ray:
                # the first square of the ray: its lowest bit going up, its highest going down
                NEIGHBOUR[_n, _sq] |= U64(_ray & -_ray if _d < 4 else 1 << (_ray.bit_length() - 1))


_NOT_A = np.zeros(9, dtype=np.uint64)

_NOT_LAST = np.zeros(9, dtype=np.uint64)

for _n in (4, 6, 8):
    for _sq in range(_n * _n):
        if _sq % _n != 0:
            _NOT_A[_n] |= np.uint64(1 << _sq)
        if _sq % _n != _n - 1:
            _NOT_LAST[_n] |= np.uint64(1 << _sq)


_disc_score = hot_kernel(inline="always")(disc_score)


@hot_kernel(inline="always")
def gen_moves(p: int, o: int, n: int) -> int:
    """Legal moves (``core.kernels.legal_squares``, in place), with the 8x8 geometry as
    constants so that the shifts specialise."""
    if n == 8:
        return legal_squares(p, o, 8, INNER8, FULL8)
    return legal_squares(p, o, n, _INNER[n], _FULL[n])


@hot_kernel()
def final_score(p: int, o: int, n: int) -> int:
    """Final score of a finished position for the side to move, empties to the winner: the one
    rule, ``core.values.disc_score``, compiled into the search's own kernels (Numba inlines a
    kernel of another module only when told to)."""
    pc = popcount(p)
    oc = popcount(o)
    return _disc_score(pc, oc, n * n - pc - oc)


@hot_kernel()
def can_move(p: int, o: int, empties: int, n: int) -> bool:
    """Whether ``p`` has a move, by trying the few empty squares one by one."""
    while empties:
        bit = empties & (~empties + ONE)
        sq = np.int64(trailing_zeros(bit))
        if NEIGHBOUR[n, sq] & o and _flips(p, o, sq, n):
            return True
        empties ^= bit
    return False


@numba.njit(cache=True)
def _full_lines(occ: int, n: int, axis: int) -> int:
    """Union of the full lines of ``occ`` along one axis (rows, columns, diagonals, anti-)."""
    f = ZERO
    for i in range(_N_LINES[n, axis]):
        line = _LINES[n, axis, i]
        if occ & line == line:
            f |= line
    return f


@numba.njit(cache=True)
def stable_discs(p: int, o: int, n: int) -> int:
    """Discs of ``p`` that can never be flipped (a subset of them, found by a fixed point).

    A disc is stable when along each of the four axes its line is full, it touches the edge, or
    a neighbour on that axis is a stable disc of the same colour: a flip along an axis needs an
    empty square on the line and a run of discs ending on the opponent's colour on both sides.
    """
    p = U64(p)
    o = U64(o)
    occ = p | o
    not_a = ~_FILE_A[n]
    not_last = ~_FILE_LAST[n]
    edges = _EDGES[n]
    fixed_h = _full_lines(occ, n, 0) | _FILE_A[n] | _FILE_LAST[n]
    fixed_v = _full_lines(occ, n, 1) | _ROW_EDGES[n]
    fixed_d = _full_lines(occ, n, 2) | edges
    fixed_a = _full_lines(occ, n, 3) | edges
    s1 = U64(1)
    sn = U64(n)
    sd = U64(n + 1)
    sa = U64(n - 1)
    stable = p & fixed_h & fixed_v & fixed_d & fixed_a
    while True:
        h = fixed_h | ((stable << s1) & not_a) | ((stable >> s1) & not_last)
        v = fixed_v | (stable << sn) | (stable >> sn)
        d = fixed_d | ((stable << sd) & not_a) | ((stable >> sd) & not_last)
        an = fixed_a | ((stable << sa) & not_last) | ((stable >> sa) & not_a)
        new = p & h & v & d & an
        if new == stable:
            return stable
        stable = new


@numba.njit(cache=True)
def neighbours(x: int, n: int) -> int:
    """Squares next to (in the 8 directions) a square of ``x`` and not in it, ``n`` x ``n``."""
    x = U64(x)
    row = x | ((x >> U64(1)) & _NOT_LAST[n]) | ((x << U64(1)) & _NOT_A[n])
    out = row | (row << U64(n)) | (row >> U64(n))
    return out & ~x & _FULL[n]


@hot_kernel(inline="always")
def pick_best(buf_sq: np.ndarray, buf_key: np.ndarray, row: int, i: int, count: int) -> int:
    """Move the best remaining move of row ``row`` to slot ``i`` (selection sort, lazily) and
    return it."""
    best = i
    for j in range(i + 1, count):
        if buf_key[row, j] > buf_key[row, best]:
            best = j
    if best != i:
        buf_sq[row, i], buf_sq[row, best] = buf_sq[row, best], buf_sq[row, i]
        buf_key[row, i], buf_key[row, best] = buf_key[row, best], buf_key[row, i]
    return buf_sq[row, i]
