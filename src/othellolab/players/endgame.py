"""Exact endgame solver: the final disc difference under perfect play, with the best move and PV.

Scores are from the side to move, empty squares to the winner (as in WTHOR and the FFO suite).
The search is a fail-soft negamax: principal-variation search at PV nodes and null-window search
everywhere else, with fastest-first move ordering (fewest opponent replies), helped far from the
end by a shallow search of each child with the learned pattern evaluation (8x8; the hand-written
one on the small boards), and a transposition table (hash move first, enhanced transposition
cutoffs, symmetric keys near the start), parity ordering near the end, a stable-disc upper bound
that prunes hopeless nodes, and dedicated code for the last empties that counts flips square by
square instead of generating moves. Full-window solves run as a series of narrow windows from a
shallow search's guess (MTD(f)-like), which cut far more; far from the end (8x8) they are first
run as cheap selective pre-searches (ProbCut) whose best moves fill the table and whose score
becomes the guess. The kernels work on 8x8, 6x6 and 4x4.

>>> from othellolab import Board
>>> solve(Board(size=4)).score  # white wins 11-3 with two squares left: -10 for black
-10
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from othellolab.core import Board, ConfigError, Limit, PlayResult, Score, Stop, square_name
from othellolab.core.jit import hot_kernel, prefetch
from othellolab.core.kernels import (
    _FULL,
    _INNER,
    _RAYS,
    _SYM_DST,
    FULL8,
    INNER8,
    INVERSE_SYMMETRY,
    ONE,
    U64,
    ZERO,
    _flips,
    _legal,
    hash_position,
    popcount,
    transform,
)
from othellolab.players.base import Player
from othellolab.players.heuristics import (
    _CORNERS,
    _QUAD_BIT,
    _QUAD_MASK,
    Evaluation,
    evaluate,
    neighbours,
    stable_discs,
)
from othellolab.players.options import Option, checked_options
from othellolab.players.patterns import pattern_evaluation

INF = 127
"""Larger than any score on any board size; a search returns a score in ``[-INF, INF]``."""

SHALLOW_MIN = 3
"""From this many empties up, nodes loop over the empty squares in parity order."""

DEEP_MIN = 7
"""From this many empties up, nodes use the transposition table and fastest-first ordering."""

ETC_MIN = 10
"""From this many empties up, nodes probe their children in the table before searching any
(enhanced transposition cutoff) and order them with potential mobility as well."""

ASPIRATION_MIN = 14
"""From this many empties up, a full-window solve runs as a series of narrow windows."""

SYMMETRY_MAX_DISCS = 14
"""Positions with at most this many discs share one table entry with their 8 symmetric images
(the table key is the smallest hash of the eight): early positions of 6x6 and 4x4 solves are
symmetric transpositions of each other, and the start's four first moves are one."""

SORT_MIN = 16
"""From this many empties up, null-window nodes order their moves by a shallow search of each
child with the ordering evaluation (as Edax does with its patterns), on top of fastest first.
Once the children were searched as one alpha-beta instead of one window each, 16 beat 17 (FFO
#45/#49/#50/#53: 9% fewer nodes, 47% more ordering positions, 3% less time); 15 costs more
ordering than it saves."""

SORT_DEPTH_BASE = 10
SORT_DEPTH_MAX = 6
"""The ordering search of a node with ``ne`` empties goes ``(ne - SORT_DEPTH_BASE) // 3``
plies deep, at most ``SORT_DEPTH_MAX`` (2 plies at 16 empties, 4 at 22)."""

SORT_WEIGHT = 8
"""Ordering-key units per disc of the shallow search (an opponent's move costs 16)."""

SORT_MARGIN = 8
"""The ordering search tells apart child scores down to ``alpha`` minus this many discs."""

PRESEARCH_MIN = 22
"""From this many empties up (8x8), a full-window solve first runs selective pre-searches."""

PRESEARCH_MARGINS = (4, 8, 12)
"""The pre-searches, in order, by their probable-cut margin in discs: each prunes a node when a
shallow search says its score is this far outside the window (ProbCut), so it is far cheaper
than the exact search, and it leaves its best moves in the table and its score as the guess of
the next one; as Edax and Egaroucid do, with looser and looser cuts. On FFO #53/#56/#57 the
exact solve then visits 1.8x fewer nodes (6,265 M -> 3,320 M including the pre-searches);
4,8 and 4,8,12 beat 8, 6, 5,10, 12,6 and 3,6,9,12."""

MPC_MIN = 14
"""From this many empties up, pre-search nodes try a probable cut."""

MPC_DEPTH_BASE = 8
MPC_DEPTH_MAX = 6
"""The shallow search of a probable cut at ``ne`` empties goes ``(ne - MPC_DEPTH_BASE) // 3``
plies deep (2 at 14 empties, 6 from 26 on)."""

ESTIMATE_SORT_DEPTH = 3
"""Shallow-search nodes with this many plies left try their children best-evaluated first."""

GUESS_DEPTH = 4
"""Plies of the shallow search that guesses where the first window of a full-window solve goes
when the caller gives no guess."""

MAX_MOVES = 34
"""More than the most legal moves seen in an 8x8 position (33)."""

ESTIMATE_ROWS = max(SORT_DEPTH_MAX, MPC_DEPTH_MAX, GUESS_DEPTH) + 1
"""Move-list rows kept for the shallow searches, one per ply left."""

_TIME_CHECK = 1 << 14
"""Nodes between two looks at the clock when a time limit is set."""

# Statistics and limits shared by the kernels, in one int64 array.
_NODES, _NODE_LIMIT, _ABORTED = 0, 1, 2
_SHALLOW_NODES = 3
_NEXT_CHECK = 4
_SELECT = 5  # the pre-search margin in discs; 0 in an exact search
_STATS_SIZE = 6

_SELECTIVE = 64
"""Flag in a table entry's empties byte (at most 60 on 8x8): its bounds come from a selective
pre-search, which the exact search must not trust; its move is a good first guess all the same."""

_ODD_MASK = np.zeros((9, 16), dtype=np.uint64)
"""``_ODD_MASK[n, parity]``: the squares of the quadrants whose bit is set in ``parity``."""
for _n in (4, 6, 8):
    for _parity in range(16):
        for _q in range(4):
            if _parity >> _q & 1:
                _ODD_MASK[_n, _parity] |= _QUAD_MASK[_n, _q]

_NEIGHBOUR = np.zeros((9, 64), dtype=np.uint64)
"""``_NEIGHBOUR[n, sq]``: the squares next to ``sq``; a move there flips only if one is the
opponent's, a test far cheaper than computing the flips."""
for _n in (4, 6, 8):
    for _sq in range(_n * _n):
        for _d in range(8):
            _ray = int(_RAYS[_n, _sq, _d])
            if _ray:
                # the first square of the ray: its lowest bit going up, its highest going down
                _NEIGHBOUR[_n, _sq] |= U64(_ray & -_ray if _d < 4 else 1 << (_ray.bit_length() - 1))

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

# ----------------------------------------------------------------------------------------------
# Helpers
#
# The small kernels called once per node (``_solve1``, ``_solve2``, ``_order_moves``, ``_pick_row``,
# ``_tt_store``) are inlined by Numba (``inline="always"``): a call between compiled kernels
# passes its result through memory and checks a status code, and these are called hundreds of
# millions of times. FFO #45/#49/#50 about 8% faster, same nodes; the price is a first compile of
# about 40 s instead of 22 (cached afterwards).


@hot_kernel(inline="always")
def _moves(p: int, o: int, n: int) -> int:
    """Legal moves, with the 8x8 geometry as constants so that the shifts specialise."""
    if n == 8:
        return _legal(p, o, 8, INNER8, FULL8)
    return _legal(p, o, n, _INNER[n], _FULL[n])


@hot_kernel()
def _final(p: int, o: int, n: int) -> int:
    """Final score of a finished position for the side to move, empties to the winner."""
    pc = popcount(p)
    oc = popcount(o)
    diff = pc - oc
    if diff > 0:
        return diff + n * n - pc - oc
    if diff < 0:
        return diff - (n * n - pc - oc)
    return 0


@numba.njit(cache=True)
def _now() -> float:
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@numba.njit(cache=True)
def _check_limits(stats: np.ndarray, deadline: float) -> bool:
    """Look at the node and time limits (every ``_TIME_CHECK`` nodes); True once one is passed."""
    nodes = stats[_NODES]
    nxt = nodes + _TIME_CHECK
    if stats[_NODE_LIMIT] > 0:
        if nodes > stats[_NODE_LIMIT]:
            stats[_ABORTED] = 1
        nxt = min(nxt, stats[_NODE_LIMIT] + 1)
    if deadline > 0.0 and _now() > deadline:
        stats[_ABORTED] = 1
    stats[_NEXT_CHECK] = nxt
    return stats[_ABORTED] != 0


@hot_kernel(inline="always")
def _count(stats: np.ndarray, deadline: float) -> bool:
    """Count a node; return True once the node or time limit is passed (the search unwinds).

    Only the nodes with a table look at the limits; the small subtrees below them just count."""
    stats[_NODES] += 1
    if stats[_NODES] >= stats[_NEXT_CHECK]:
        return _check_limits(stats, deadline)
    return stats[_ABORTED] != 0


@hot_kernel()
def _can_move(p: int, o: int, empties: int, n: int) -> bool:
    """Whether ``p`` has a move, by trying the few empty squares one by one."""
    while empties:
        bit = empties & (~empties + ONE)
        sq = np.int64(trailing_zeros(bit))
        if _NEIGHBOUR[n, sq] & o and _flips(p, o, sq, n):
            return True
        empties ^= bit
    return False


# ----------------------------------------------------------------------------------------------
# The last empties: scores by flip counting, without a move generator


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
def _solve1(p: int, o: int, sq: int, n: int) -> int:
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
def _solve2(p: int, o: int, alpha: int, x1: int, x2: int, n: int, stats: np.ndarray) -> int:
    """Null-window score (fail-soft around ``alpha``) with the two empty squares ``x1``, ``x2``."""
    stats[_NODES] += 1
    b1 = ONE << U64(x1)
    b2 = ONE << U64(x2)
    best = -INF
    f = _flips(p, o, x1, n) if _NEIGHBOUR[n, x1] & o else ZERO
    if f:
        stats[_NODES] += 1
        best = -_solve1(o & ~f, p | f | b1, x2, n)
        if best > alpha:
            return best
    f = _flips(p, o, x2, n) if _NEIGHBOUR[n, x2] & o else ZERO
    if f:
        stats[_NODES] += 1
        s = -_solve1(o & ~f, p | f | b2, x1, n)
        return s if s > best else best
    if best > -INF:
        return best
    # No move: the opponent plays, or the game is over.
    best = INF
    f = _flips(o, p, x1, n) if _NEIGHBOUR[n, x1] & p else ZERO
    if f:
        stats[_NODES] += 1
        best = _solve1(p & ~f, o | f | b1, x2, n)
        if best <= alpha:
            return best
    f = _flips(o, p, x2, n) if _NEIGHBOUR[n, x2] & p else ZERO
    if f:
        stats[_NODES] += 1
        s = _solve1(p & ~f, o | f | b2, x1, n)
        return s if s < best else best
    if best < INF:
        return best
    return _final(p, o, n)


@hot_kernel()
def _nws_shallow(
    p: int, o: int, alpha: int, ne: int, parity: int, n: int, stats: np.ndarray, deadline: float
) -> int:
    """Null-window search with ``ne`` (3 or more) empties: parity order, no table, no sorting."""
    stats[_NODES] += 1
    empties = ~(p | o) & _FULL[n]
    odd = _ODD_MASK[n, parity]
    best = -INF
    for half in range(2):
        m = empties & odd if half == 0 else empties & ~odd
        while m:
            bit = m & (~m + ONE)
            m ^= bit
            sq = np.int64(trailing_zeros(bit))
            if _NEIGHBOUR[n, sq] & o == ZERO:
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
                s = -_solve2(np_, no, -alpha - 1, x1, x2, n, stats)
            else:
                s = -_nws_shallow(
                    np_, no, -alpha - 1, ne - 1, parity ^ _QUAD_BIT[n, sq], n, stats, deadline
                )
            if s > best:
                best = s
                if s > alpha:
                    return s
    if best > -INF:
        return best
    if not _can_move(o, p, empties, n):
        return _final(p, o, n)
    return -_nws_shallow(o, p, -alpha - 1, ne, parity, n, stats, deadline)


@hot_kernel()
def _nws_small(
    p: int, o: int, alpha: int, ne: int, parity: int, n: int, stats: np.ndarray, deadline: float
) -> int:
    """Null-window search for fewer than ``DEEP_MIN`` empties (dispatch on ``ne``)."""
    if ne >= SHALLOW_MIN:
        return _nws_shallow(p, o, alpha, ne, parity, n, stats, deadline)
    if ne == 2:
        empties = ~(p | o) & _FULL[n]
        x1 = np.int64(trailing_zeros(empties))
        x2 = np.int64(trailing_zeros(empties & (empties - ONE)))
        return _solve2(p, o, alpha, x1, x2, n, stats)
    if ne == 1:
        stats[_NODES] += 1
        return _solve1(p, o, np.int64(trailing_zeros(~(p | o) & _FULL[n])), n)
    return _final(p, o, n)


# ----------------------------------------------------------------------------------------------
# Far from the end: transposition table, fastest-first ordering, stability cutoff

# Transposition table: ``keys[i]`` is the position hash (0 = empty slot); ``data[i]`` holds the
# lower bound, the upper bound, the best move (-1 for none) and the number of empties.
_LOWER, _UPPER, _MOVE, _DEPTH = 0, 1, 2, 3


@hot_kernel(inline="always")
def _home_slot(keys: np.ndarray, h: int) -> int:
    """The first of the two slots (``i`` and ``i ^ 1``, one cache line) position ``h`` may use."""
    return np.int64(h & U64(keys.shape[0] - 1))


@hot_kernel(inline="always")
def _tt_find(keys: np.ndarray, h: int) -> int:
    """The slot holding position ``h``, or -1."""
    i = _home_slot(keys, h)
    if keys[i] == h:
        return i
    if keys[i ^ 1] == h:
        return i ^ 1
    return -1


@hot_kernel(inline="always")
def _table_key(p: int, o: int, ne: int, n: int) -> tuple[int, int]:
    """The table key of a position and the symmetry that maps it to the form the entry is kept
    in (0 far from the start, where the key is the plain hash)."""
    h = hash_position(p, o)
    if n * n - ne > SYMMETRY_MAX_DISCS:
        return h, 0
    k = 0
    for t in range(1, 8):
        ht = hash_position(transform(p, t, n), transform(o, t, n))
        if ht < h:
            h = ht
            k = t
    return h, k


@hot_kernel(inline="always")
def _prefetch_slot(keys: np.ndarray, p: int, o: int, ne: int, n: int) -> None:
    """Start loading the table slot of position ``(p, o)`` with ``ne`` empties (a parent does this
    for its children: their table probes come soon, and far more often miss the caches than
    hit them)."""
    prefetch(keys, _home_slot(keys, _table_key(p, o, ne, n)[0]))


@hot_kernel(inline="always")
def _to_table(move: int, k: int, n: int) -> int:
    """A move of the searched position as kept in the entry (symmetry ``k`` applied)."""
    return _SYM_DST[n, k, move] if move >= 0 and k else move


@hot_kernel(inline="always")
def _from_table(move: int, k: int, n: int) -> int:
    """A move kept in the entry as a move of the searched position."""
    return _SYM_DST[n, INVERSE_SYMMETRY[k], move] if move >= 0 and k else move


@hot_kernel(inline="always")
def _bounds_usable(data: np.ndarray, slot: int, sel: int) -> bool:
    """Whether a search may cut on the bounds of entry ``slot``: an exact entry's always, a
    pre-search's only in another pre-search (``sel > 0``)."""
    return sel > 0 or not data[slot, _DEPTH] & _SELECTIVE


@hot_kernel(inline="always")
def _tt_store(
    keys: np.ndarray,
    data: np.ndarray,
    h: int,
    alpha: int,
    beta: int,
    score: int,
    move: int,
    ne: int,
    sel: bool,
) -> None:
    """Record what a search of window ``(alpha, beta)`` proved: a bound or the exact score.

    A position has two candidate slots; a new position takes the one holding fewer empties (an
    empty slot counts as none), so the costly entries far from the end survive the flood of
    entries near it. A pre-search (``sel``) result goes into a new or selective entry, flagged;
    into an exact entry it only gives a move if there was none. An exact result drops the
    bounds of a selective entry before it records its own.
    """
    i = _tt_find(keys, h)
    if i < 0:
        i = _home_slot(keys, h)
        j = i ^ 1
        di = data[i, _DEPTH] & (_SELECTIVE - 1) if keys[i] != ZERO else -1
        dj = data[j, _DEPTH] & (_SELECTIVE - 1) if keys[j] != ZERO else -1
        if dj < di:
            i = j
        keys[i] = h
        data[i, _LOWER] = -INF
        data[i, _UPPER] = INF
        data[i, _MOVE] = -1
        data[i, _DEPTH] = ne | _SELECTIVE if sel else ne
    elif data[i, _DEPTH] & _SELECTIVE:
        if not sel:
            data[i, _LOWER] = -INF
            data[i, _UPPER] = INF
            data[i, _DEPTH] = ne
    elif sel:
        if data[i, _MOVE] < 0:
            data[i, _MOVE] = move
        return
    if score > alpha and score >= data[i, _LOWER]:
        # The move proved this lower bound: it stays the move that achieves the lower bound, so
        # an exact entry (lower == upper) names a best move.
        data[i, _LOWER] = score
        data[i, _MOVE] = move
    elif data[i, _MOVE] < 0:
        data[i, _MOVE] = move
    if score < beta and score < data[i, _UPPER]:
        data[i, _UPPER] = score


@hot_kernel()
def _stability_threshold(ne: int, cells: int) -> int:
    """Try the stability bound only when ``alpha`` is this high (it costs a fixed-point loop).

    On 8x8 about twice the empties, as Edax does: lower than before near the end and higher far
    from it (FFO #49: 3% fewer nodes; #43-#47 unchanged)."""
    return min(2 * ne, ne + 24) if cells == 64 else cells - cells // 2


@hot_kernel(inline="always")
def _order_moves(
    p: int,
    o: int,
    moves: int,
    hash_move: int,
    n: int,
    buf_sq: np.ndarray,
    buf_key: np.ndarray,
    row: int,
    tt_keys: np.ndarray,
    ne: int,
) -> int:
    """Fill row ``row`` of ``buf_sq``/``buf_key`` with the moves and their ordering keys (higher
    first); return the count. (Rows of one 2-D buffer, not 1-D views: a view costs two atomic
    reference-count updates.)

    Fastest first: fewest replies for the opponent (corners counted twice), then a bonus for
    our own corner moves and for moves that keep the opponent's frontier small; the hash move
    goes first. When the children (``ne - 1`` empties) have table entries, their slots are
    prefetched on the way.
    """
    k = 0
    corners = _CORNERS[n]
    while moves:
        bit = moves & (~moves + ONE)
        moves ^= bit
        sq = np.int64(trailing_zeros(bit))
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        if ne > DEEP_MIN:
            _prefetch_slot(tt_keys, np_, no, ne - 1, n)
        reply = _moves(np_, no, n)
        key = -16 * (popcount(reply) + popcount(reply & corners))
        if bit & corners:
            key += 8
        key -= popcount(f) // 2
        if sq == hash_move:
            key = 1 << 20
        buf_sq[row, k] = sq
        buf_key[row, k] = key
        k += 1
    return k


@hot_kernel(nogil=True)
def _estimate(
    p: int,
    o: int,
    alpha: float,
    beta: float,
    depth: int,
    n: int,
    stats: np.ndarray,
    ev_kind: int,
    ev_w: np.ndarray,
    buf_sq: np.ndarray,
    buf_key: np.ndarray,
) -> float:
    """Fail-soft alpha-beta to ``depth`` plies with evaluation ``ev_kind``/``ev_w`` and no table, in
    discs for the side to move: a cheap guess of the score, used only to order moves and to
    centre the first window. Nodes visited are counted in ``stats[_SHALLOW_NODES]``. The move
    lists live in the last ``ESTIMATE_ROWS`` rows of ``buf_sq``/``buf_key`` (one per ply left),
    which the solver's own nodes never reach. A leaf is evaluated without looking for a pass
    (a move generation, a sixth of its cost), and the last ply evaluates the children in a loop
    instead of a call each."""
    stats[_SHALLOW_NODES] += 1
    if depth <= 0:
        return evaluate(ev_kind, ev_w, p, o, n)
    moves = _moves(p, o, n)
    if moves == ZERO:
        if _moves(o, p, n) == ZERO:
            return float(_final(p, o, n))
        return -_estimate(o, p, -beta, -alpha, depth, n, stats, ev_kind, ev_w, buf_sq, buf_key)
    if depth == 1:
        best = -1.0e9
        while moves:
            bit = moves & (~moves + ONE)
            moves ^= bit
            f = _flips(p, o, np.int64(trailing_zeros(bit)), n)
            stats[_SHALLOW_NODES] += 1
            s = -evaluate(ev_kind, ev_w, o & ~f, p | f | bit, n)
            if s > best:
                best = s
                if s >= beta:
                    break
        return best
    row = buf_sq.shape[0] - depth
    count = 0
    while moves:
        bit = moves & (~moves + ONE)
        moves ^= bit
        sq = np.int64(trailing_zeros(bit))
        buf_sq[row, count] = sq
        if depth >= ESTIMATE_SORT_DEPTH:
            # Deep enough that a cut from the best move first pays for evaluating every child.
            f = _flips(p, o, sq, n)
            buf_key[row, count] = -np.int64(64.0 * evaluate(ev_kind, ev_w, o & ~f, p | f | bit, n))
        count += 1
    best = -1.0e9
    for i in range(count):
        if depth >= ESTIMATE_SORT_DEPTH:
            sq = _pick_row(buf_sq, buf_key, row, i, count)
        else:
            sq = buf_sq[row, i]
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        s = -_estimate(
            o & ~f,
            p | f | bit,
            -beta,
            -max(alpha, best),
            depth - 1,
            n,
            stats,
            ev_kind,
            ev_w,
            buf_sq,
            buf_key,
        )
        if s > best:
            best = s
            if s >= beta:
                break
    return best


@hot_kernel(inline="always")
def _mpc_depth(ne: int) -> int:
    """Depth of the shallow search that decides a probable cut at a node with ``ne`` empties."""
    return min(MPC_DEPTH_MAX, max(1, (ne - MPC_DEPTH_BASE) // 3))


@hot_kernel(inline="always")
def _sort_depth(ne: int) -> int:
    """Depth of the shallow search that orders the moves of a node with ``ne`` empties."""
    return min(SORT_DEPTH_MAX, (ne - SORT_DEPTH_BASE) // 3)


@hot_kernel()
def _order_moves_etc(
    p: int,
    o: int,
    moves: int,
    ne: int,
    alpha: int,
    n: int,
    row: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    stats: np.ndarray,
    etc: bool,
    sort: bool,
    ev_kind: int,
    ev_w: np.ndarray,
    buf_sq: np.ndarray,
    buf_key: np.ndarray,
) -> tuple[int, int]:
    """``_order_moves`` far from the end (``ne`` empties before the move). With ``etc``, probe
    each child in the table and return ``(count, cut)`` where ``cut > alpha`` is a proven
    fail-high score (enhanced transposition cutoff) and ``-INF - 1`` means none; not at PV
    nodes, where a bound above alpha proves nothing. The key adds the opponent's potential
    mobility (empty squares next to our discs), and with ``sort`` a shallow search of each
    child (``_estimate``): far from the end a wrong first move at a cut node costs a whole
    subtree, and fastest first alone picks it too often. The children are searched in
    fastest-first order as one alpha-beta: only a child that may beat the best so far gets
    its exact estimate, the others a bound (the one that cuts first is almost always the
    best, so the rest only need to be below it), and only estimates above ``alpha -
    SORT_MARGIN`` are told apart at all, since the moves below that all fail low anyway.
    Without ``sort``, fewer flips break ties instead."""
    corners = _CORNERS[n]
    full = _FULL[n]
    depth = _sort_depth(ne)
    beta = float(SORT_MARGIN - alpha)
    # First the children's flips (kept in the key row for now) and, with ``etc``, their table
    # keys (in the row's second half) and a prefetch of their slots. The probes come after the
    # mobility keys, whose work hides the memory latency (probing straight after the prefetches
    # waited on memory: 2% slower on FFO #45/#49/#50/#53).
    k = 0
    while moves:
        bit = moves & (~moves + ONE)
        moves ^= bit
        sq = np.int64(trailing_zeros(bit))
        f = _flips(p, o, sq, n)
        if etc:
            h = _table_key(o & ~f, p | f | bit, ne - 1, n)[0]
            prefetch(tt_keys, _home_slot(tt_keys, h))
            buf_key[row, MAX_MOVES + k] = np.int64(h)
        buf_sq[row, k] = sq
        buf_key[row, k] = np.int64(f)
        k += 1
    for i in range(k):
        bit = ONE << U64(buf_sq[row, i])
        f = U64(buf_key[row, i])
        np_ = o & ~f
        no = p | f | bit
        reply = _moves(np_, no, n)
        key = -16 * (popcount(reply) + popcount(reply & corners))
        key -= 4 * popcount(neighbours(no, n) & ~(np_ | no) & full)
        if bit & corners:
            key += 8
        if not sort:
            key -= popcount(f) // 2
        buf_key[row, i] = key
    if etc:
        for i in range(k):
            slot = _tt_find(tt_keys, U64(buf_key[row, MAX_MOVES + i]))
            if slot >= 0:
                upper = tt_data[slot, _UPPER]
                if -upper > alpha and _bounds_usable(tt_data, slot, stats[_SELECT]):
                    return i, -upper
    if sort:
        # A window per child gave every good child an exact estimate: 2.6x the ordering
        # positions of FFO #49/#50 for the same nodes within 1%.
        best = -1.0e9
        for j in range(k):
            sq = _pick_row(buf_sq, buf_key, row, j, k)
            bit = ONE << U64(sq)
            f = _flips(p, o, sq, n)
            e = _estimate(
                o & ~f,
                p | f | bit,
                -1.0e9,
                min(beta, -best),
                depth,
                n,
                stats,
                ev_kind,
                ev_w,
                buf_sq,
                buf_key,
            )
            buf_key[row, j] -= np.int64(SORT_WEIGHT * e)
            best = max(best, -e)
    return k, -INF - 1


@hot_kernel(inline="always")
def _order_nws(
    p: int,
    o: int,
    moves: int,
    ne: int,
    alpha: int,
    n: int,
    row: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    stats: np.ndarray,
    ev_kind: int,
    ev_w: np.ndarray,
    buf_sq: np.ndarray,
    buf_key: np.ndarray,
) -> tuple[int, int]:
    """Order the moves of a null-window node by the means its depth pays for (shallow search,
    table probes, fastest first); ``(count, cut)`` as ``_order_moves_etc``."""
    if ne >= ETC_MIN:
        return _order_moves_etc(
            p,
            o,
            moves,
            ne,
            alpha,
            n,
            row,
            tt_keys,
            tt_data,
            stats,
            True,
            ne >= SORT_MIN,
            ev_kind,
            ev_w,
            buf_sq,
            buf_key,
        )
    return _order_moves(p, o, moves, -1, n, buf_sq, buf_key, row, tt_keys, ne), -INF - 1


@hot_kernel(inline="always")
def _pick_row(buf_sq: np.ndarray, buf_key: np.ndarray, row: int, i: int, count: int) -> int:
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


@hot_kernel()
def _nws_deep(
    p: int,
    o: int,
    alpha: int,
    ne: int,
    parity: int,
    n: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    buf_sq: np.ndarray,
    buf_key: np.ndarray,
    stats: np.ndarray,
    deadline: float,
    ev_kind: int,
    ev_w: np.ndarray,
) -> int:
    """Null-window search with ``ne >= DEEP_MIN`` empties: fail-soft score around ``alpha``."""
    if _count(stats, deadline):
        return 0
    cells = n * n
    h, sym = _table_key(p, o, ne, n)
    prefetch(tt_keys, _home_slot(tt_keys, h))  # while the stability bound runs
    if alpha >= _stability_threshold(ne, cells):
        bound = cells - 2 * popcount(stable_discs(o, p, n))
        if bound <= alpha:
            return bound
    slot = _tt_find(tt_keys, h)
    hash_move = -1
    sel = stats[_SELECT]
    if slot >= 0:
        if _bounds_usable(tt_data, slot, sel):
            if tt_data[slot, _LOWER] > alpha:
                return tt_data[slot, _LOWER]
            if tt_data[slot, _UPPER] <= alpha:
                return tt_data[slot, _UPPER]
        hash_move = _from_table(tt_data[slot, _MOVE], sym, n)
    if sel > 0 and ne >= MPC_MIN:
        # Probable cut (pre-searches only): a shallow search far enough outside the window.
        d = _mpc_depth(ne)
        hi = float(alpha + 1 + sel)
        if _estimate(p, o, hi - 0.01, hi, d, n, stats, ev_kind, ev_w, buf_sq, buf_key) >= hi:
            return alpha + 1
        lo = float(alpha - sel)
        if _estimate(p, o, lo, lo + 0.01, d, n, stats, ev_kind, ev_w, buf_sq, buf_key) <= lo:
            return alpha
    moves = _moves(p, o, n)
    if moves == ZERO:
        if _moves(o, p, n) == ZERO:
            return _final(p, o, n)
        return -_nws_deep(
            o,
            p,
            -alpha - 1,
            ne,
            parity,
            n,
            tt_keys,
            tt_data,
            buf_sq,
            buf_key,
            stats,
            deadline,
            ev_kind,
            ev_w,
        )
    row = ne  # a node's descendants have fewer empties, but for a pass after no move here
    # The hash move goes first, before the others are ordered: it often cuts at once.
    hash_bit = ONE << U64(hash_move) if hash_move >= 0 else ZERO
    hash_bit &= moves
    moves ^= hash_bit
    count = 0
    i = -1 if hash_bit else 0  # slot -1: the hash move; the others are ordered at slot 0
    best = -INF
    best_move = -1
    while True:
        if i == 0:
            if moves == ZERO:
                break
            count, cut = _order_nws(
                p,
                o,
                moves,
                ne,
                alpha,
                n,
                row,
                tt_keys,
                tt_data,
                stats,
                ev_kind,
                ev_w,
                buf_sq,
                buf_key,
            )
            if cut > alpha:
                return cut
        elif i >= count:
            break
        sq = hash_move if i < 0 else _pick_row(buf_sq, buf_key, row, i, count)
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        child_parity = parity ^ _QUAD_BIT[n, sq]
        if ne - 1 >= DEEP_MIN:
            s = -_nws_deep(
                np_,
                no,
                -alpha - 1,
                ne - 1,
                child_parity,
                n,
                tt_keys,
                tt_data,
                buf_sq,
                buf_key,
                stats,
                deadline,
                ev_kind,
                ev_w,
            )
        else:  # ne - 1 == DEEP_MIN - 1 >= SHALLOW_MIN: no dispatch on the count needed
            s = -_nws_shallow(np_, no, -alpha - 1, ne - 1, child_parity, n, stats, deadline)
        if stats[_ABORTED]:
            return 0
        if s > best:
            best = s
            best_move = sq
            if s > alpha:
                break
        i += 1
    _tt_store(
        tt_keys,
        tt_data,
        h,
        alpha,
        alpha + 1,
        best,
        _to_table(best_move, sym, n),
        ne,
        sel > 0,
    )
    return best


@hot_kernel()
def _parity_of(p: int, o: int, n: int) -> int:
    """Bit ``q`` set when quadrant ``q`` holds an odd number of empty squares."""
    empties = ~(p | o) & _FULL[n]
    parity = 0
    for q in range(4):
        if popcount(empties & _QUAD_MASK[n, q]) & 1:
            parity |= 1 << q
    return parity


@hot_kernel()
def _nws(
    p: int,
    o: int,
    alpha: int,
    ne: int,
    parity: int,
    n: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    buf_sq: np.ndarray,
    buf_key: np.ndarray,
    stats: np.ndarray,
    deadline: float,
    ev_kind: int,
    ev_w: np.ndarray,
) -> int:
    """Null-window search at any number of empties."""
    if ne >= DEEP_MIN:
        return _nws_deep(
            p,
            o,
            alpha,
            ne,
            parity,
            n,
            tt_keys,
            tt_data,
            buf_sq,
            buf_key,
            stats,
            deadline,
            ev_kind,
            ev_w,
        )
    return _nws_small(p, o, alpha, ne, parity, n, stats, deadline)


@hot_kernel()
def _pvs(
    p: int,
    o: int,
    alpha: int,
    beta: int,
    ne: int,
    parity: int,
    n: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    buf_sq: np.ndarray,
    buf_key: np.ndarray,
    pv_buf: np.ndarray,
    stats: np.ndarray,
    deadline: float,
    ev_kind: int,
    ev_w: np.ndarray,
) -> int:
    """Principal-variation search: full window on the first move, null windows on the rest.

    Returns the fail-soft score and writes the best move to ``pv_buf[ne]`` (-1 if none, the pass
    action ``n*n`` for a forced pass).
    """
    pv_buf[ne] = -1
    if _count(stats, deadline):
        return 0
    h, sym = _table_key(p, o, ne, n)
    slot = _tt_find(tt_keys, h)
    hash_move = -1
    sel = stats[_SELECT]
    if slot >= 0:
        hash_move = _from_table(tt_data[slot, _MOVE], sym, n)
        lo = tt_data[slot, _LOWER]
        hi = tt_data[slot, _UPPER]
        if lo == hi and hash_move >= 0 and _bounds_usable(tt_data, slot, sel):
            pv_buf[ne] = hash_move
            return lo
    moves = _moves(p, o, n)
    if moves == ZERO:
        if _moves(o, p, n) == ZERO:
            return _final(p, o, n)
        s = -_pvs(
            o,
            p,
            -beta,
            -alpha,
            ne,
            parity,
            n,
            tt_keys,
            tt_data,
            buf_sq,
            buf_key,
            pv_buf,
            stats,
            deadline,
            ev_kind,
            ev_w,
        )
        pv_buf[ne] = n * n
        return s
    row = ne
    if ne >= SORT_MIN:
        count = _order_moves_etc(
            p,
            o,
            moves,
            ne,
            alpha,
            n,
            row,
            tt_keys,
            tt_data,
            stats,
            False,
            True,
            ev_kind,
            ev_w,
            buf_sq,
            buf_key,
        )[0]
        for i in range(count):
            if buf_sq[row, i] == hash_move:
                buf_key[row, i] = 1 << 40
    else:
        count = _order_moves(p, o, moves, hash_move, n, buf_sq, buf_key, row, tt_keys, ne)
    best = -INF
    best_move = -1
    a = alpha
    for i in range(count):
        sq = _pick_row(buf_sq, buf_key, row, i, count)
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        cp = parity ^ _QUAD_BIT[n, sq]
        if i == 0:
            s = -_pvs(
                np_,
                no,
                -beta,
                -a,
                ne - 1,
                cp,
                n,
                tt_keys,
                tt_data,
                buf_sq,
                buf_key,
                pv_buf,
                stats,
                deadline,
                ev_kind,
                ev_w,
            )
        else:
            s = -_nws(
                np_,
                no,
                -a - 1,
                ne - 1,
                cp,
                n,
                tt_keys,
                tt_data,
                buf_sq,
                buf_key,
                stats,
                deadline,
                ev_kind,
                ev_w,
            )
            if a < s < beta:
                s = -_pvs(
                    np_,
                    no,
                    -beta,
                    -s,
                    ne - 1,
                    cp,
                    n,
                    tt_keys,
                    tt_data,
                    buf_sq,
                    buf_key,
                    pv_buf,
                    stats,
                    deadline,
                    ev_kind,
                    ev_w,
                )
        if stats[_ABORTED]:
            return 0
        if s > best:
            best = s
            best_move = sq
            if s > a:
                a = s
                if s >= beta:
                    break
    _tt_store(tt_keys, tt_data, h, alpha, beta, best, _to_table(best_move, sym, n), ne, sel > 0)
    pv_buf[ne] = best_move
    return best


@numba.njit(cache=True, nogil=True)
def _solve_kernel(
    p: int,
    o: int,
    alpha: int,
    beta: int,
    n: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    stats: np.ndarray,
    deadline: float,
    ev_kind: int,
    ev_w: np.ndarray,
) -> tuple[int, int]:
    """Fail-soft exact score of ``(p, o)`` within ``(alpha, beta)`` and the best move (-1: none)."""
    p = U64(p)
    o = U64(o)
    ne = popcount(~(p | o) & _FULL[n])
    buf_sq = np.empty((ne + 2 + ESTIMATE_ROWS, MAX_MOVES), dtype=np.int64)
    buf_key = np.empty((ne + 2 + ESTIMATE_ROWS, 2 * MAX_MOVES), dtype=np.int64)
    pv_buf = np.full(ne + 2, -1, dtype=np.int64)
    s = _pvs(
        p,
        o,
        alpha,
        beta,
        ne,
        _parity_of(p, o, n),
        n,
        tt_keys,
        tt_data,
        buf_sq,
        buf_key,
        pv_buf,
        stats,
        deadline,
        ev_kind,
        ev_w,
    )
    return s, pv_buf[ne]


@numba.njit(cache=True, nogil=True)
def _aspiration(
    p: int,
    o: int,
    guess: int,
    n: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    stats: np.ndarray,
    deadline: float,
    ev_kind: int,
    ev_w: np.ndarray,
) -> tuple[int, int]:
    """Exact score and best move by narrow windows: first ``(guess - 1, guess + 1)`` (a final
    score is always even, so that window alone proves or refutes ``guess``), then the same
    narrow window around each fail-soft bound in turn, reusing the table (MTD(f)-like). On FFO
    #48 (+28 from a guess of 0) this visits 2.2x fewer nodes than windows that double in width,
    since a narrow window cuts far more than a wide one."""
    cells = n * n
    s = guess
    while True:
        a = max(-cells - 1, s - 1)
        b = min(cells + 1, s + 1)
        s, move = _solve_kernel(p, o, a, b, n, tt_keys, tt_data, stats, deadline, ev_kind, ev_w)
        if stats[_ABORTED] or a < s < b or s <= -cells or s >= cells:
            return s, move


@functools.cache
def default_evaluation(size: int) -> Evaluation:
    """The evaluation that orders moves when the caller names none: the learned patterns on
    8x8 (FFO #43-#48: 2x fewer nodes than the hand-written one), the hand-written one on the
    small boards, which have no pattern weights. Built once per size: the pattern table is 16 MB,
    too much to copy for every solve of a game."""
    return pattern_evaluation() if size == 8 else Evaluation()


# ----------------------------------------------------------------------------------------------
# Python API


class SolveAborted(RuntimeError):
    """The solver ran out of its node or time budget before proving the score."""


@dataclass(frozen=True, slots=True)
class SolveResult:
    """An exact solve: ``score`` is the final disc difference for the side to move (empties to
    the winner) under perfect play, when ``alpha < score < beta``; outside the window it is a
    bound (``exact`` False). ``best_move`` is an action (``size*size`` = pass; ``None`` once the
    game is over) and ``pv`` the principal variation as actions."""

    score: int
    best_move: int | None
    pv: tuple[int, ...]
    nodes: int
    seconds: float
    exact: bool = True
    ordering_nodes: int = 0
    """Positions visited by the shallow searches that order moves far from the end or decide
    probable cuts (not in ``nodes``)."""
    presearch_nodes: int = 0
    """The part of ``nodes`` visited by the selective pre-searches."""

    def pv_names(self, size: int = 8) -> list[str]:
        """The principal variation as square names (``pass`` for passes)."""
        return [square_name(a, size) for a in self.pv]


class TranspositionTable:
    """The solver's table: ``2**bits`` entries of (hash, lower, upper, best move, empties).

    Entries are exact-solver bounds, valid for any later solve, so one table can serve a whole
    game; ``clear`` frees nothing but forgets everything. ``keys`` and ``data`` are strided views
    of one buffer of 16-byte entries, so that a probe of the two slots a position may use and
    the read of the entry found touch a single cache line (two apart: 3-4x slower probes).
    """

    def __init__(self, bits: int = 20) -> None:
        if isinstance(bits, bool) or not isinstance(bits, int) or not 4 <= bits <= 30:
            raise ConfigError(f"must be a whole number in 4..30, got {bits!r}", option="bits")
        self.bits = bits
        # 64-byte alignment keeps each pair of slots (i, i ^ 1) inside one cache line.
        raw = np.zeros((1 << bits) * 16 + 64, dtype=np.uint8)
        start = -raw.ctypes.data % 64
        entries = raw[start : start + (1 << bits) * 16].reshape(1 << bits, 16)
        self.keys = entries[:, :8].view(np.uint64)[:, 0]
        self.data = entries[:, 8:12].view(np.int8)

    def clear(self) -> None:
        """Forget every entry."""
        self.keys[:] = 0


def solve(
    board: Board,
    *,
    alpha: int = -64,
    beta: int = 64,
    table: TranspositionTable | None = None,
    pv: bool = True,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    evaluation: Evaluation | None = None,
    guess: int | None = None,
    presearch: bool = True,
    stop: Stop | None = None,
) -> SolveResult:
    """Solve ``board`` exactly: score from the side to move (empties to the winner), best move, PV.

    ``alpha``/``beta`` narrow the window (a score outside it is a bound, ``exact`` False); a
    ``table`` may be shared between solves; ``max_nodes``/``time_limit`` raise ``SolveAborted``
    when exceeded. ``evaluation`` orders moves far from the end (it never changes the result,
    only the time); ``guess`` is where the first narrow window of a full-window solve goes
    (default: a shallow search with ``evaluation``). From ``PRESEARCH_MIN`` empties on 8x8, a
    full-window solve first runs the selective pre-searches (``presearch``) from that guess.
    ``stop`` aborts the solve from another thread (``SolveAborted``) at the next node. The
    compiled search releases the GIL, so other threads run meanwhile.
    """
    with contextlib.ExitStack() as linked:
        stats = np.zeros(_STATS_SIZE, dtype=np.int64)
        if stop is not None:
            linked.enter_context(stop.link(stats, _ABORTED))
        return _solve(
            board,
            alpha,
            beta,
            table,
            pv,
            max_nodes,
            time_limit,
            evaluation,
            guess,
            presearch,
            stats,
        )


def _solve(
    board: Board,
    alpha: int,
    beta: int,
    table: TranspositionTable | None,
    pv: bool,
    max_nodes: int | None,
    time_limit: float | None,
    evaluation: Evaluation | None,
    guess: int | None,
    presearch: bool,
    stats: np.ndarray,
) -> SolveResult:
    n = board.size
    cells = n * n
    lo = max(-cells - 1, min(alpha, cells))
    hi = min(cells + 1, max(beta, -cells))
    if lo >= hi:
        raise ValueError(f"empty search window: alpha={alpha} >= beta={beta}")
    if table is None:
        table = TranspositionTable(max(10, min(22, 2 * board.num_empties)))
    stats[_NODE_LIMIT] = max_nodes or 0
    t0 = time.perf_counter()
    deadline = t0 + time_limit if time_limit is not None else 0.0
    ev = evaluation or default_evaluation(n)
    ev.check_size(n)
    p, o = U64(board.player), U64(board.opponent)
    presearch_nodes = 0
    if lo > -cells or hi < cells or board.num_empties < ASPIRATION_MIN:
        score, move = _solve_kernel(
            p, o, lo, hi, n, table.keys, table.data, stats, deadline, ev.kind, ev.weights
        )
    else:
        if guess is None:
            # Called from Python, not from the kernel: numba's cache fails to reload a kernel
            # that calls the recursive ``_estimate`` both directly and through the solver.
            rows = np.empty((ESTIMATE_ROWS, MAX_MOVES), dtype=np.int64)
            e = _estimate(
                p,
                o,
                -1.0e9,
                1.0e9,
                GUESS_DEPTH,
                n,
                stats,
                ev.kind,
                ev.weights,
                rows,
                np.empty_like(rows),
            )
            guess = max(-cells, min(cells, 2 * round(e / 2.0)))
        if presearch and n == 8 and board.num_empties >= PRESEARCH_MIN:
            guess = _presearch(p, o, guess, n, table, stats, deadline, ev)
        presearch_nodes = int(stats[_NODES])
        score, move = _aspiration(
            p, o, guess, n, table.keys, table.data, stats, deadline, ev.kind, ev.weights
        )
    if stats[_ABORTED]:
        raise SolveAborted(
            f"solve of {board.obf()} stopped after {int(stats[_NODES])} nodes "
            f"({time.perf_counter() - t0:.2f} s) without a result"
        )
    score = int(score)
    exact = lo < score < hi
    line: list[int] = []
    if move >= 0:
        line.append(int(move))
    if pv and exact and move >= 0:
        line = _principal_variation(board, score, table, stats, deadline, ev)
        if stats[_ABORTED]:
            line = [int(move)]
    best = None if board.is_game_over() else int(move)
    return SolveResult(
        score,
        best,
        tuple(line),
        int(stats[_NODES]),
        time.perf_counter() - t0,
        exact,
        int(stats[_SHALLOW_NODES]),
        presearch_nodes,
    )


_WARM_UP_POSITION = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
"""FFO #1 (14 empties, black to move, +18 by G8): solved in milliseconds, and far enough from
the end to run every kernel a solve uses (the guess, the narrow windows, the PV walk)."""


def warm_up() -> SolveResult:
    """Compile the solver's kernels, or load them from Numba's disk cache, by solving FFO #1.

    A first compile takes about 40 s; a server or a long job calls this at start-up (in a
    thread, say) so that its first endgame does not pay for it in the middle of a game."""
    return solve(Board.from_obf(_WARM_UP_POSITION))


def _presearch(
    p: int,
    o: int,
    guess: int,
    n: int,
    table: TranspositionTable,
    stats: np.ndarray,
    deadline: float,
    ev: Evaluation,
) -> int:
    """Run the selective pre-searches (``PRESEARCH_MARGINS``) and return the last one's score as
    the exact search's guess. Each runs narrow windows from the previous guess like
    ``_aspiration``, but its scores are not exact and may contradict each other, so it stops at
    the first window that turns back (at most 8). Afterwards the pre-search bounds are dropped
    from the table, so that a later, less selective search does not trust them."""
    cells = n * n
    for margin in PRESEARCH_MARGINS:
        stats[_SELECT] = margin
        direction = 0
        for _ in range(8):
            a, b = max(-cells - 1, guess - 1), min(cells + 1, guess + 1)
            s, _move = _solve_kernel(
                p, o, a, b, n, table.keys, table.data, stats, deadline, ev.kind, ev.weights
            )
            if stats[_ABORTED] or a < s < b or s <= -cells or s >= cells:
                guess = s
                break
            step = 1 if s >= b else -1
            guess = s + (s & 1) * step  # a probable cut fails soft to an odd bound
            if direction == -step:
                break
            direction = step
        guess = max(-cells, min(cells, guess + (guess & 1)))
        selective = (table.data[:, _DEPTH] & _SELECTIVE) != 0
        table.data[selective, _LOWER] = -INF
        table.data[selective, _UPPER] = INF
        if stats[_ABORTED]:
            break  # out of time or stopped: the rest would return at once, after a table sweep each
    stats[_SELECT] = 0
    return guess


def _principal_variation(
    board: Board,
    score: int,
    table: TranspositionTable,
    stats: np.ndarray,
    deadline: float,
    ev: Evaluation,
) -> list[int]:
    """Walk the PV: at each position, a narrow re-solve around the known score names the move."""
    line: list[int] = []
    n = board.size
    while not board.is_game_over():
        s, move = _solve_kernel(
            U64(board.player),
            U64(board.opponent),
            score - 1,
            score + 1,
            n,
            table.keys,
            table.data,
            stats,
            deadline,
            ev.kind,
            ev.weights,
        )
        if stats[_ABORTED] or s != score or move < 0:
            break
        line.append(int(move))
        board = board.play(int(move))
        score = -score
    return line


# ----------------------------------------------------------------------------------------------
# Player


class EndgamePlayer(Player):
    """Plays perfectly once at most ``max_empties`` squares are empty; before that, it hands the
    move to a fast shallow alpha-beta search (``fallback_depth`` plies) so that it can play
    whole games. A ``Limit`` with a time or node budget (or a cap) bounds the solve: when it
    runs out, the shallow search answers with what time is left.

    The move is the solver's best move; the reported ``Score`` is exact for solved positions.
    """

    name = "endgame"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "max_empties": Option(int, 0, 60, help="solve exactly from this many empty squares"),
        "fallback_depth": Option(int, 1, 20, help="plies of the search before that"),
        "table_bits": Option(int, 10, 26, help="solver table of 2**bits entries (16 bytes each)"),
    }

    @checked_options
    def __init__(
        self, *, max_empties: int = 20, fallback_depth: int = 4, table_bits: int = 22
    ) -> None:
        self.max_empties = max_empties
        self.fallback_depth = fallback_depth
        self.table = TranspositionTable(table_bits)
        self._fallback: Player | None = None

    def reset(self) -> None:
        self.table.clear()

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = board.legal_actions()
        if not actions:
            raise ValueError(f"no legal move: the game is over\n{board}")
        limit = limit or Limit()
        if board.num_empties > self.max_empties:
            return self._shallow(board, limit)
        t0 = time.perf_counter()
        seconds = limit.capped_time(limit.time)
        try:
            result = solve(
                board,
                table=self.table,
                pv=True,
                max_nodes=limit.capped_nodes(limit.nodes),
                time_limit=seconds,
                stop=limit.stop,
            )
        except SolveAborted:
            if seconds is not None:
                left = max(0.01, seconds - (time.perf_counter() - t0))
                time_left = None if limit.time is None else left
                limit = dataclasses.replace(limit, time=time_left, max_time=left)
            return self._shallow(board, limit)
        assert result.best_move is not None
        return PlayResult(
            result.best_move,
            score=Score(float(result.score), exact=True),
            info={
                "score": result.score,
                "nodes": result.nodes,
                "seconds": result.seconds,
                "depth": board.num_empties,
                "pv": result.pv_names(board.size),
                "solved": True,
            },
        )

    def _shallow(self, board: Board, limit: Limit) -> PlayResult:
        if self._fallback is None:
            from othellolab.players.alphabeta import AlphaBetaPlayer

            self._fallback = AlphaBetaPlayer(depth=self.fallback_depth, endgame=0)
        return self._fallback.choose(board, limit)
