"""The midgame search's compiled kernels: fail-soft principal-variation search (``_ab``),
its root (``_root``, which records the best move so far for an interrupted iteration), move
ordering and the table store, over one state (``AlphaBetaState``) that they take by address
(``KernelState``). The driver (iterative deepening, aspiration windows, limits, threads) is
``search.midgame``."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from othellolab.core.jit import array_at, hot_kernel, prefetch
from othellolab.core.kernels import ONE, U64, ZERO, _flips, hash_position, popcount
from othellolab.players.search.evaluation import evaluate
from othellolab.players.search.geometry import CORNERS, final_score, gen_moves, pick_best
from othellolab.players.search.incremental import (
    child_indices,
    indexed_value,
    pass_indices,
    play_indices,
    set_indices,
)
from othellolab.players.search.priors import _prior_row
from othellolab.players.search.probcut import MIN_DEPTH as PROBCUT_MIN_DEPTH
from othellolab.players.search.smp import (
    entry_key,
    lockless_key,
    lower_bound,
    pack_bounds,
    probe,
    upper_bound,
)
from othellolab.players.search.state import ABORTED, PLY, count_node
from othellolab.players.search.table import midgame_depth, midgame_move, midgame_pack

MAX_DEPTH = 60
"""Deepest iteration of iterative deepening (a full 8x8 game)."""

BIG = 1.0e9
"""Larger than any evaluation: the initial window bound."""

_SORT_DEPTH = 2
"""Nodes with at least this much depth left order their moves by the evaluation of each child."""


class AlphaBetaState(NamedTuple):
    """The midgame search's state, passed whole to ``_ab``: the board size, the table's
    ``keys`` and ``payload`` (``table.TranspositionTable``, a position in one of two
    neighbouring slots, written lockless: ``search.smp``; threads share them), a small random
    score per square that breaks ties between equal moves, the statistics, the deadline (a
    ``perf_counter`` time; 0 for none), the evaluation (its ``kind`` and ``weights``, and the
    pattern weights in whole units where they are: ``Evaluation.units``), and
    multi-ProbCut's table (``probcut``) and confidence (``mpc_t``, 0 for none), the move
    priors of some positions (``prior_keys``, ``priors``: ``MovePriors``; empty for none), and
    a row of moves and their ordering keys per ply (``buf_sq``, ``buf_key``, ``BUFFER_ROWS``
    rows) and, by square, each move's flipped discs and the child's own moves where the node
    generated them (``buf_flip``, ``buf_reply``) and the child's hash where the node computed
    it (``buf_hash``, whose column ``KNOWN`` holds the hash of the node at that ply where its
    caller knows it, else 0), so that no node allocates or repeats that
    work: the kernels then run without reference counting
    (``core.jit.hot_kernel``), which took a fifth of the search's time. With a pattern
    evaluation on 8x8, ``idx`` holds each ply's pattern indices (``search.incremental``; no
    rows otherwise), made from the parent's with each move instead of from the bitboards at
    each evaluation.

    The kernels take it as a ``KernelState`` (``kernel_state``): its arrays by address."""

    n: int
    keys: np.ndarray
    payload: np.ndarray
    tiebreak: np.ndarray
    stats: np.ndarray
    deadline: float
    ev_kind: int
    ev_w: np.ndarray
    ev_units: np.ndarray
    ev_unit: float
    mpc: np.ndarray
    mpc_t: float
    prior_keys: np.ndarray
    priors: np.ndarray
    buf_sq: np.ndarray
    buf_key: np.ndarray
    buf_flip: np.ndarray
    buf_reply: np.ndarray
    buf_hash: np.ndarray
    idx: np.ndarray


BUFFER_ROWS = 2 * MAX_DEPTH + 4
"""Rows of the move buffers (``AlphaBetaState.buf_sq``/``buf_key``), one per ply from the
root: a line of ``MAX_DEPTH`` moves has at most a pass after each."""

KNOWN = 64
"""The column of ``AlphaBetaState.buf_hash`` (``BUFFER_ROWS + 1`` rows of ``KNOWN + 1``)
holding the hash of the node at each ply where its caller computed it, else 0: ``_ab`` takes
it (and sets it back to 0) instead of hashing the position again. A position whose hash is 0
is hashed again, to 0."""


class KernelState(NamedTuple):
    """What the kernels take of an ``AlphaBetaState``: its scalars, and its arrays as one int64
    array of addresses, shapes and strides (``refs``: ``_REF_WIDTH`` entries an array, in
    ``_REFS``' order), each made into an array again where a kernel reads it
    (``core.jit.array_at``, a few loads). Numba passes an array as seven words and two a
    dimension, and ``_ab`` took the state's arrays (fourteen then) as 119 words pushed at each
    recursive call (6% of its samples in a profile)."""

    n: int
    deadline: float
    ev_kind: int
    ev_unit: float
    mpc_t: float
    refs: np.ndarray


_REFS = (
    ("keys", np.uint64, False),
    ("payload", np.uint64, False),
    ("tiebreak", np.float64, True),
    ("stats", np.int64, True),
    ("ev_w", np.float64, True),
    ("ev_units", np.int16, True),
    ("mpc", np.float64, True),
    ("prior_keys", np.uint64, True),
    ("priors", np.float64, True),
    ("buf_sq", np.int64, True),
    ("buf_key", np.float64, True),
    ("buf_flip", np.uint64, True),
    ("buf_reply", np.uint64, True),
    ("buf_hash", np.uint64, True),
    ("idx", np.int32, True),
)
"""The arrays of ``AlphaBetaState`` that ``KernelState.refs`` points to: name, dtype, and
whether the kernels read it as C-contiguous (the table's ``keys`` and ``payload`` are
interleaved views, read with their strides)."""

_REF_WIDTH = 8
"""Entries of ``KernelState.refs`` per array: its address, three dimensions, three strides."""


def kernel_state(st: AlphaBetaState) -> KernelState:
    """``st`` for the kernels, which must not outlive it (``refs`` holds its arrays'
    addresses, not the arrays). Each array must have the dtype and layout its accessor reads
    (``_REFS``; at most three dimensions): a wrong one would be read as garbage, so it is an
    error here."""
    refs = np.zeros(len(_REFS) * _REF_WIDTH, dtype=np.int64)
    for i, (name, dtype, contiguous) in enumerate(_REFS):
        a = getattr(st, name)
        if a.dtype != dtype or a.ndim > 3 or (contiguous and not a.flags.c_contiguous):
            raise TypeError(
                f"AlphaBetaState.{name}: expected a{' C-contiguous' if contiguous else 'n'} "
                f"{np.dtype(dtype).name} array of at most 3 dimensions, got {a.dtype.name} "
                f"with shape {a.shape} and strides {a.strides}"
            )
        k = i * _REF_WIDTH
        refs[k] = a.ctypes.data
        refs[k + 1 : k + 1 + a.ndim] = a.shape
        refs[k + 4 : k + 4 + a.ndim] = a.strides
    return KernelState(st.n, st.deadline, st.ev_kind, st.ev_unit, st.mpc_t, refs)


@hot_kernel(inline="always")
def _ref1(refs: np.ndarray, i: int, dtype: type) -> np.ndarray:
    """Array ``i`` of ``refs`` (one dimension, C-contiguous)."""
    k = i * _REF_WIDTH
    return array_at(refs[k], (refs[k + 1],), None, dtype)


@hot_kernel(inline="always")
def _ref1_strided(refs: np.ndarray, i: int, dtype: type) -> np.ndarray:
    """Array ``i`` of ``refs`` (one dimension, with its stride)."""
    k = i * _REF_WIDTH
    return array_at(refs[k], (refs[k + 1],), (refs[k + 4],), dtype)


@hot_kernel(inline="always")
def _ref2(refs: np.ndarray, i: int, dtype: type) -> np.ndarray:
    """Array ``i`` of ``refs`` (two dimensions, C-contiguous)."""
    k = i * _REF_WIDTH
    return array_at(refs[k], (refs[k + 1], refs[k + 2]), None, dtype)


@hot_kernel(inline="always")
def _ref3(refs: np.ndarray, i: int, dtype: type) -> np.ndarray:
    """Array ``i`` of ``refs`` (three dimensions, C-contiguous)."""
    k = i * _REF_WIDTH
    return array_at(refs[k], (refs[k + 1], refs[k + 2], refs[k + 3]), None, dtype)


# The kernels' accessors, one per array of ``_REFS`` (its index, dimensions and dtype).


@hot_kernel(inline="always")
def _keys(st: KernelState) -> np.ndarray:
    return _ref1_strided(st.refs, 0, np.uint64)


@hot_kernel(inline="always")
def _payload(st: KernelState) -> np.ndarray:
    return _ref1_strided(st.refs, 1, np.uint64)


@hot_kernel(inline="always")
def _tiebreak(st: KernelState) -> np.ndarray:
    return _ref1(st.refs, 2, np.float64)


@hot_kernel(inline="always")
def _stats(st: KernelState) -> np.ndarray:
    return _ref1(st.refs, 3, np.int64)


@hot_kernel(inline="always")
def _ev_w(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 4, np.float64)


@hot_kernel(inline="always")
def _ev_units(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 5, np.int16)


@hot_kernel(inline="always")
def _mpc(st: KernelState) -> np.ndarray:
    return _ref3(st.refs, 6, np.float64)


@hot_kernel(inline="always")
def _prior_keys(st: KernelState) -> np.ndarray:
    return _ref1(st.refs, 7, np.uint64)


@hot_kernel(inline="always")
def _priors(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 8, np.float64)


@hot_kernel(inline="always")
def _buf_sq(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 9, np.int64)


@hot_kernel(inline="always")
def _buf_key(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 10, np.float64)


@hot_kernel(inline="always")
def _buf_flip(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 11, np.uint64)


@hot_kernel(inline="always")
def _buf_reply(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 12, np.uint64)


@hot_kernel(inline="always")
def _buf_hash(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 13, np.uint64)


@hot_kernel(inline="always")
def _idx(st: KernelState) -> np.ndarray:
    return _ref2(st.refs, 14, np.int32)


@hot_kernel(nogil=True)
def _ab(
    p: int, o: int, alpha: float, beta: float, depth: int, st: KernelState
) -> tuple[float, int]:
    """Fail-soft PVS to ``depth`` plies (passes are free): the score and the best move. The
    node's ply from the root is ``stats[PLY]``, which the caller sets (its row of the move
    buffers and pattern indices; a ProbCut search of the node uses them first). A ply argument
    instead crashed the kernel once loaded from Numba's cache (numba 0.68)."""
    n = st.n
    stats = _stats(st)
    ply = stats[PLY]
    known = _buf_hash(st)
    h = known[ply, KNOWN]
    known[ply, KNOWN] = ZERO
    if count_node(stats, st.deadline):
        return 0.0, -1
    moves = gen_moves(p, o, n)
    if moves == ZERO:
        if gen_moves(o, p, n) == ZERO:
            return float(final_score(p, o, n)), -1
        if _idx(st).shape[0]:
            pass_indices(_idx(st), ply)
        stats[PLY] = ply + 1
        s, _ = _ab(o, p, -beta, -alpha, depth, st)
        return -s, n * n
    if depth <= 0:
        return _value(p, o, ply, st, moves), -1
    if h == ZERO:
        h = hash_position(p, o)
    if st.mpc_t > 0.0 and depth >= PROBCUT_MIN_DEPTH:
        empties = n * n - popcount(p | o)
        if depth < empties:  # a search that reaches the end is exact: never cut it
            shallow = np.int64(_mpc(st)[empties, depth, 0])
            if shallow > 0:
                slope = _mpc(st)[empties, depth, 1]
                margin = st.mpc_t * _mpc(st)[empties, depth, 3]
                shift = _mpc(st)[empties, depth, 2]
                if beta < BIG:
                    bound = (beta + margin - shift) / slope
                    stats[PLY] = ply
                    known[ply, KNOWN] = h
                    s, _ = _ab(p, o, bound - 1e-6, bound, shallow, st)
                    if stats[ABORTED]:
                        return 0.0, -1
                    if s >= bound:
                        return beta, -1
                if alpha > -BIG:
                    bound = (alpha - margin - shift) / slope
                    stats[PLY] = ply
                    known[ply, KNOWN] = h
                    s, _ = _ab(p, o, bound, bound + 1e-6, shallow, st)
                    if stats[ABORTED]:
                        return 0.0, -1
                    if s <= bound:
                        return alpha, -1
    slot, key, pay = probe(_keys(st), _payload(st), h)
    hash_move = -1
    if slot >= 0:
        hash_move = midgame_move(key)
        if midgame_depth(key) >= depth:
            lo = lower_bound(pay)
            hi = upper_bound(pay)
            if lo >= beta or lo == hi:
                return float(lo), hash_move
            if hi <= alpha:
                return float(hi), hash_move
    best = -BIG
    best_move = -1
    a = alpha
    # The hash move goes first whatever the others' keys: it is searched before they are
    # ordered, whose evaluations a cut on it spares (the same tree: the ordering still puts
    # it first, in the same slot, and it is not searched again). One loop serves both, so
    # that the child's search is emitted once.
    pending = hash_move >= 0 and moves & (ONE << U64(hash_move)) != ZERO
    searched = hash_move if pending else -1
    ordered = False
    count = 0
    i = 0
    while True:
        if pending:
            sq = hash_move
            f = _flips(p, o, sq, n)
            reply = gen_moves(o & ~f, p | f | (ONE << U64(sq)), n) if depth == 1 else ZERO
            first = True
            pending = False
            hc = ZERO
        else:
            if not ordered:
                count = _order_moves(p, o, moves, depth, hash_move, st, ply, h)
                ordered = True
            if i == count:
                break
            sq = pick_best(_buf_sq(st), _buf_key(st), ply, i, count)
            first = i == 0
            i += 1
            if sq == searched:
                continue
            f = _buf_flip(st)[ply, sq]
            reply = _buf_reply(st)[ply, sq]
            hc = _buf_hash(st)[ply, sq]
        s = _child(p, o, sq, f, reply, hc, first, a, beta, depth, ply, st)
        if stats[ABORTED]:
            return 0.0, -1
        if s > best:
            best = s
            best_move = sq
            if s > a:
                a = s
                if s >= beta:
                    break
    _store(h, alpha, beta, best, best_move, depth, st)
    return best, best_move


@hot_kernel(nogil=True, inline="always")
def _child(
    p: int,
    o: int,
    sq: int,
    f: int,
    reply: int,
    hc: int,
    first: bool,
    a: float,
    beta: float,
    depth: int,
    ply: int,
    st: KernelState,
) -> float:
    """The score of move ``sq`` (flipping ``f``) of the node at ``ply`` with ``depth`` plies
    left, for the node's side: a full window for its ``first`` move, else a null window on
    ``a`` and a re-search where it lands inside ``(a, beta)``. A child of a node with one ply
    left is a leaf, evaluated here (``reply``: its moves) and counted as ``_ab`` counts it;
    a deeper one is searched by ``_ab``, given its hash ``hc`` where the node has it (else
    0)."""
    stats = _stats(st)
    bit = ONE << U64(sq)
    np_ = o & ~f
    no = p | f | bit
    if depth == 1:
        if _idx(st).shape[0]:
            child_indices(_idx(st), ply, sq, f)
        s = -_leaf(np_, no, ply + 1, st, reply)
        if not first and a < s < beta and _leaf_again(np_, no, st, reply):
            return 0.0  # _ab's re-search, whose value is the same but whose nodes count
        return s
    if _idx(st).shape[0]:
        play_indices(_idx(st), ply, sq, f)
    stats[PLY] = ply + 1
    known = _buf_hash(st)
    known[ply + 1, KNOWN] = hc
    if first:
        s, _ = _ab(np_, no, -beta, -a, depth - 1, st)
        return -s
    s, _ = _ab(np_, no, -a - 1e-6, -a, depth - 1, st)
    s = -s
    if a < s < beta:
        stats[PLY] = ply + 1
        known[ply + 1, KNOWN] = hc
        s, _ = _ab(np_, no, -beta, -s, depth - 1, st)
        s = -s
    return s


@hot_kernel(nogil=True, inline="always")
def _order_moves(
    p: int,
    o: int,
    moves: int,
    depth: int,
    first: int,
    st: KernelState,
    row_out: int,
    h: int,
) -> int:
    """Fill row ``row_out`` of the move buffers with the moves and their ordering keys (higher
    first):
    the position's move priors where ``st`` has them (``MovePriors``), else the evaluation of
    each child with ``_SORT_DEPTH`` plies or more left, else fewest replies (corners twice);
    ``first`` (the hash move, ``h`` being the position's hash) goes first. Each child's hash
    goes into ``buf_hash`` where it was computed (0 where not). Return the count."""
    n = st.n
    count = 0
    corners = CORNERS[n]
    row = _prior_row(_prior_keys(st), h) if _prior_keys(st).shape[0] else -1
    while moves:
        bit = moves & (~moves + ONE)
        moves ^= bit
        sq = np.int64(trailing_zeros(bit))
        f = _flips(p, o, sq, n)
        _buf_flip(st)[row_out, sq] = f
        _buf_hash(st)[row_out, sq] = ZERO
        np_ = o & ~f
        no = p | f | bit
        if sq == first:  # searched first whatever its key: nothing to estimate
            _buf_sq(st)[row_out, count] = sq
            _buf_key(st)[row_out, count] = BIG + _tiebreak(st)[sq]
            count += 1
            continue
        reply = ZERO
        if depth < _SORT_DEPTH:
            reply = gen_moves(np_, no, n)
            _buf_reply(st)[row_out, sq] = reply
        if row >= 0:
            k = _priors(st)[row, sq]
        elif depth >= _SORT_DEPTH:  # the child's table lines come while it is evaluated
            hc = hash_position(np_, no)
            _buf_hash(st)[row_out, sq] = hc
            home = np.int64(hc & U64(_keys(st).shape[0] - 1))
            prefetch(_keys(st), home)  # the payload shares the key's cache line
            if _idx(st).shape[0]:
                child_indices(_idx(st), row_out, sq, f)
            k = -_value(np_, no, row_out + 1, st, ZERO)
        else:
            k = -float(popcount(reply) + popcount(reply & corners))
            if bit & corners:
                k += 0.5
        _buf_sq(st)[row_out, count] = sq
        _buf_key(st)[row_out, count] = k + _tiebreak(st)[sq]
        count += 1
    return count


@hot_kernel(nogil=True, inline="always")
def _leaf(p: int, o: int, ply: int, st: KernelState, moves: int) -> float:
    """What ``_ab`` at depth 0 returns for ``(p, o)``, the position at ``ply`` whose moves
    (``moves``) its parent generated to order them, with the same nodes counted: the frontier's
    parent evaluates its children itself instead of a recursive call each (most nodes are
    leaves, and a call passes the whole state). Row ``ply`` of the pattern indices need only
    hold the position's own view (``incremental.child_indices``)."""
    n = st.n
    stats = _stats(st)
    if count_node(stats, st.deadline):
        return 0.0
    if moves == ZERO:
        back = gen_moves(o, p, n)
        if back == ZERO:
            return float(final_score(p, o, n))
        if count_node(stats, st.deadline):  # the pass's node
            return 0.0
        if _idx(st).shape[0]:
            set_indices(_idx(st), ply + 1, o, p)
        return -_value(o, p, ply + 1, st, back)
    return _value(p, o, ply, st, moves)


@hot_kernel(nogil=True, inline="always")
def _leaf_again(p: int, o: int, st: KernelState, moves: int) -> bool:
    """Count the nodes of ``_leaf(p, o, ..., moves)`` again, for a re-search of a leaf whose
    value is known (an evaluation does not depend on the window): the search visits the same
    nodes without evaluating the leaf twice. True once a limit is passed."""
    stats = _stats(st)
    if count_node(stats, st.deadline):
        return True
    if moves == ZERO and gen_moves(o, p, st.n) != ZERO:
        return count_node(stats, st.deadline)  # the pass's node
    return False


@hot_kernel(nogil=True, inline="always")
def _value(p: int, o: int, ply: int, st: KernelState, moves: int) -> float:
    """The evaluation of ``(p, o)``, the position at ``ply``: from its row of pattern indices
    when the search keeps them (``_idx(st)`` has rows), else from the bitboards; ``moves`` (the
    side to move's, or 0) spares the mobility term generating them again."""
    if _idx(st).shape[0]:
        return indexed_value(
            st.ev_kind, _ev_w(st), p, o, st.n, _idx(st), ply, moves, _ev_units(st), st.ev_unit
        )
    return evaluate(st.ev_kind, _ev_w(st), p, o, st.n)


@hot_kernel(nogil=True, inline="always")
def _store(
    h: int,
    alpha: float,
    beta: float,
    best: float,
    best_move: int,
    depth: int,
    st: KernelState,
) -> None:
    """Record a node's result in the table unless a deeper search of it is there: in its own
    entry if it has one (the children may have moved it meanwhile), else in whichever of its
    two slots holds the shallower search (an empty one first)."""
    keys = _keys(st)
    slot, key, _ = probe(keys, _payload(st), h)
    if slot >= 0:
        if midgame_depth(key) > depth:
            return
    else:
        slot = np.int64(h & U64(keys.shape[0] - 1))
        other = slot ^ 1
        if keys[other] == ZERO or (
            keys[slot] != ZERO
            and midgame_depth(entry_key(keys[other], _payload(st)[other]))
            < midgame_depth(entry_key(keys[slot], _payload(st)[slot]))
        ):
            slot = other
    pay = pack_bounds(best if best > alpha else -BIG, best if best < beta else BIG)
    _payload(st)[slot] = pay
    keys[slot] = lockless_key(midgame_pack(h, best_move, depth), pay)


@numba.njit(cache=True, nogil=True)
def _root(
    p: int,
    o: int,
    alpha: float,
    beta: float,
    depth: int,
    first: int,
    st: KernelState,
    found: np.ndarray,
) -> tuple[float, int]:
    """The root of a PVS iteration (a position with a move): ``_ab`` without ProbCut or table
    cutoffs, ``first`` (the previous iteration's best move, -1 for none) searched first. Its
    move loop is ``_ab``'s with the recording below: one loop shared by both, inlined, searched
    the same nodes 4% slower, so the hot kernel keeps its own.

    As soon as a move is known to be the best so far (the first move once searched, a later
    one once it fails high on its null window) it goes into ``found`` as ``[move, score]``
    (the score a lower bound until its re-search ends), so that an iteration the deadline
    interrupts still gives the best move it found (``found`` is left alone before that)."""
    n = st.n
    stats = _stats(st)
    if count_node(stats, st.deadline):
        return 0.0, -1
    moves = gen_moves(p, o, n)
    h = hash_position(p, o)
    slot, key, _ = probe(_keys(st), _payload(st), h)
    if first < 0 and slot >= 0:
        first = midgame_move(key)
    count = _order_moves(p, o, moves, depth, first, st, 0, h)
    best = -BIG
    best_move = -1
    a = alpha
    for i in range(count):
        sq = pick_best(_buf_sq(st), _buf_key(st), 0, i, count)
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        if _idx(st).shape[0]:
            play_indices(_idx(st), 0, sq, f)
        if i == 0:
            stats[PLY] = 1
            s, _ = _ab(np_, no, -beta, -a, depth - 1, st)
            s = -s
        else:
            stats[PLY] = 1
            s, _ = _ab(np_, no, -a - 1e-6, -a, depth - 1, st)
            s = -s
            if a < s and not stats[ABORTED]:
                found[0] = sq  # proved better than every move before it
                found[1] = s
                if s < beta:
                    stats[PLY] = 1
                    s, _ = _ab(np_, no, -beta, -s, depth - 1, st)
                    s = -s
        if stats[ABORTED]:
            return 0.0, -1
        if s > best:
            best = s
            best_move = sq
            if i == 0 or s > a:  # else both are upper bounds: nothing is proved
                found[0] = sq
                found[1] = s
            if s > a:
                a = s
                if s >= beta:
                    break
    _store(h, alpha, beta, best, best_move, depth, st)
    return best, best_move
