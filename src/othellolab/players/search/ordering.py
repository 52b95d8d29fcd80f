"""Move ordering of the exact search: fastest first near the end, then table probes of the
children (enhanced transposition cutoffs) and their potential mobility, and far from the end a
shallow search of each child with an evaluation (``estimate``), as Edax does with its
patterns.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from othellolab.core.jit import hot_kernel, prefetch
from othellolab.core.kernels import _FULL, ONE, U64, ZERO, _flips, popcount
from othellolab.players.search.evaluation import evaluate
from othellolab.players.search.geometry import (
    CORNERS,
    INF,
    MAX_MOVES,
    final_score,
    gen_moves,
    neighbours,
    pick_best,
)
from othellolab.players.search.state import SELECT, SHALLOW_NODES, ShallowState, SolverState
from othellolab.players.search.table import (
    bounds_usable,
    entry_upper,
    home_slot,
    prefetch_slot,
    table_key,
    tt_probe,
)

DEEP_MIN = 7
"""From this many empties up, nodes use the transposition table and fastest-first ordering."""

ETC_MIN = 10
"""From this many empties up, nodes probe their children in the table before searching any
(enhanced transposition cutoff) and order them with potential mobility as well."""

SORT_MIN = 16
"""From this many empties up, null-window nodes order their moves by a shallow search of each
child with the ordering evaluation (as Edax does with its patterns), on top of fastest first;
closer to the end the ordering costs more than it saves."""

SORT_DEPTH_BASE = 10

SORT_DEPTH_MAX = 6
"""The ordering search of a node with ``ne`` empties goes ``(ne - SORT_DEPTH_BASE) // 3``
plies deep, at most ``SORT_DEPTH_MAX`` (2 plies at 16 empties, 4 at 22)."""

SORT_WEIGHT = 8
"""Ordering-key units per disc of the shallow search (an opponent's move costs 16)."""

SORT_MARGIN = 8
"""The ordering search tells apart child scores down to ``alpha`` minus this many discs."""

ESTIMATE_SORT_DEPTH = 3
"""Shallow-search nodes with this many plies left try their children best-evaluated first."""


@hot_kernel(inline="always")
def order_moves(
    p: int, o: int, moves: int, hash_move: int, row: int, ne: int, st: SolverState
) -> int:
    """Fill row ``row`` of ``buf_sq``/``buf_key`` with the moves and their ordering keys (higher
    first); return the count. (Rows of one 2-D buffer, not 1-D views: a view costs two atomic
    reference-count updates.)

    Fastest first: fewest replies for the opponent (corners counted twice), then a bonus for
    our own corner moves and for moves that keep the opponent's frontier small; the hash move
    goes first. When the children (``ne - 1`` empties) have table entries, their slots are
    prefetched on the way.
    """
    n = st.shallow.n
    buf_sq = st.shallow.buf_sq
    buf_key = st.shallow.buf_key
    tt_keys = st.keys
    k = 0
    corners = CORNERS[n]
    while moves:
        bit = moves & (~moves + ONE)
        moves ^= bit
        sq = np.int64(trailing_zeros(bit))
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        if ne > DEEP_MIN:
            prefetch_slot(tt_keys, np_, no, ne - 1, n)
        reply = gen_moves(np_, no, n)
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
def estimate(p: int, o: int, alpha: float, beta: float, depth: int, sh: ShallowState) -> float:
    """Fail-soft alpha-beta to ``depth`` plies with evaluation ``ev_kind``/``ev_w`` and no table, in
    discs for the side to move: a cheap guess of the score, used only to order moves and to
    centre the first window. Nodes visited are counted in ``stats[SHALLOW_NODES]``. The move
    lists live in the last ``ESTIMATE_ROWS`` rows of ``buf_sq``/``buf_key`` (one per ply left),
    which the solver's own nodes never reach. A leaf is evaluated without looking for a pass
    (a move generation, a sixth of its cost), and the last ply evaluates the children in a loop
    instead of a call each."""
    n = sh.n
    stats = sh.stats
    ev_kind = sh.ev_kind
    ev_w = sh.ev_w
    buf_sq = sh.buf_sq
    buf_key = sh.buf_key
    stats[SHALLOW_NODES] += 1
    if depth <= 0:
        return evaluate(ev_kind, ev_w, p, o, n)
    moves = gen_moves(p, o, n)
    if moves == ZERO:
        if gen_moves(o, p, n) == ZERO:
            return float(final_score(p, o, n))
        return -estimate(o, p, -beta, -alpha, depth, sh)
    if depth == 1:
        best = -1.0e9
        while moves:
            bit = moves & (~moves + ONE)
            moves ^= bit
            f = _flips(p, o, np.int64(trailing_zeros(bit)), n)
            stats[SHALLOW_NODES] += 1
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
            sq = pick_best(buf_sq, buf_key, row, i, count)
        else:
            sq = buf_sq[row, i]
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        s = -estimate(o & ~f, p | f | bit, -beta, -max(alpha, best), depth - 1, sh)
        if s > best:
            best = s
            if s >= beta:
                break
    return best


@hot_kernel(inline="always")
def _sort_depth(ne: int) -> int:
    """Depth of the shallow search that orders the moves of a node with ``ne`` empties."""
    return min(SORT_DEPTH_MAX, (ne - SORT_DEPTH_BASE) // 3)


@hot_kernel()
def order_moves_etc(
    p: int,
    o: int,
    moves: int,
    ne: int,
    alpha: int,
    row: int,
    etc: bool,
    sort: bool,
    st: SolverState,
) -> tuple[int, int]:
    """``order_moves`` far from the end (``ne`` empties before the move). With ``etc``, probe
    each child in the table and return ``(count, cut)`` where ``cut > alpha`` is a proven
    fail-high score (enhanced transposition cutoff) and ``-INF - 1`` means none; not at PV
    nodes, where a bound above alpha proves nothing. The key adds the opponent's potential
    mobility (empty squares next to our discs), and with ``sort`` a shallow search of each
    child (``estimate``): far from the end a wrong first move at a cut node costs a whole
    subtree, and fastest first alone picks it too often. The children are searched in
    fastest-first order as one alpha-beta: only a child that may beat the best so far gets
    its exact estimate, the others a bound (the one that cuts first is almost always the
    best, so the rest only need to be below it), and only estimates above ``alpha -
    SORT_MARGIN`` are told apart at all, since the moves below that all fail low anyway.
    Without ``sort``, fewer flips break ties instead."""
    n = st.shallow.n
    tt_keys = st.keys
    tt_pay = st.payload
    stats = st.shallow.stats
    buf_sq = st.shallow.buf_sq
    buf_key = st.shallow.buf_key
    corners = CORNERS[n]
    full = _FULL[n]
    depth = _sort_depth(ne)
    beta = float(SORT_MARGIN - alpha)
    # First the children's flips (kept in the key row for now) and, with ``etc``, their table
    # keys (in the row's second half) and a prefetch of their slots. The probes come after the
    # mobility keys, whose work hides the memory latency.
    k = 0
    while moves:
        bit = moves & (~moves + ONE)
        moves ^= bit
        sq = np.int64(trailing_zeros(bit))
        f = _flips(p, o, sq, n)
        if etc:
            h = table_key(o & ~f, p | f | bit, ne - 1, n)[0]
            prefetch(tt_keys, home_slot(tt_keys, h))
            buf_key[row, MAX_MOVES + k] = np.int64(h)
        buf_sq[row, k] = sq
        buf_key[row, k] = np.int64(f)
        k += 1
    for i in range(k):
        bit = ONE << U64(buf_sq[row, i])
        f = U64(buf_key[row, i])
        np_ = o & ~f
        no = p | f | bit
        reply = gen_moves(np_, no, n)
        key = -16 * (popcount(reply) + popcount(reply & corners))
        key -= 4 * popcount(neighbours(no, n) & ~(np_ | no) & full)
        if bit & corners:
            key += 8
        if not sort:
            key -= popcount(f) // 2
        buf_key[row, i] = key
    if etc:
        for i in range(k):
            slot, entry = tt_probe(tt_keys, tt_pay, U64(buf_key[row, MAX_MOVES + i]))
            if slot >= 0:
                upper = entry_upper(entry)
                if -upper > alpha and bounds_usable(entry, stats[SELECT]):
                    return i, -upper
    if sort:
        # One alpha-beta over the children, not a window each: only the best needs its value.
        best = -1.0e9
        for j in range(k):
            sq = pick_best(buf_sq, buf_key, row, j, k)
            bit = ONE << U64(sq)
            f = _flips(p, o, sq, n)
            e = estimate(o & ~f, p | f | bit, -1.0e9, min(beta, -best), depth, st.shallow)
            buf_key[row, j] -= np.int64(SORT_WEIGHT * e)
            best = max(best, -e)
    return k, -INF - 1


@hot_kernel(inline="always")
def order_nws(
    p: int, o: int, moves: int, ne: int, alpha: int, row: int, st: SolverState
) -> tuple[int, int]:
    """Order the moves of a null-window node by the means its depth pays for (shallow search,
    table probes, fastest first); ``(count, cut)`` as ``order_moves_etc``."""
    if ne >= ETC_MIN:
        return order_moves_etc(p, o, moves, ne, alpha, row, True, ne >= SORT_MIN, st)
    return order_moves(p, o, moves, -1, row, ne, st), -INF - 1


@hot_kernel(inline="always")
def order_pv(
    p: int, o: int, moves: int, ne: int, alpha: int, hash_move: int, row: int, st: SolverState
) -> int:
    """Order the moves of a principal-variation node (the shallow search far from the end,
    fastest first near it) with ``hash_move`` first, into row ``row``; return the count."""
    if ne < SORT_MIN:
        return order_moves(p, o, moves, hash_move, row, ne, st)
    count = order_moves_etc(p, o, moves, ne, alpha, row, False, True, st)[0]
    for i in range(count):
        if st.shallow.buf_sq[row, i] == hash_move:
            st.shallow.buf_key[row, i] = 1 << 40
    return count
