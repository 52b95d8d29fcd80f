"""Midgame alpha-beta: negamax with principal-variation search, iterative deepening, a
transposition table and a pluggable evaluation. Scores are on the disc-difference scale from
the side to move: heuristic until the search reaches the end of the game on every line, exact
from then on (``SearchResult.exact``).

>>> from othellolab import Board
>>> result = search(Board(), depth=3)
>>> result.depth, result.best_move in Board().legal_actions()
(3, True)
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from functools import partial as partial_fn
from typing import NamedTuple

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from othellolab.core import Board, ConfigError, Stop
from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import ONE, U64, ZERO, _flips, hash_position, popcount
from othellolab.players.search.evaluation import (
    EVAL_PATTERN_TERMS,
    EVAL_PATTERNS,
    Evaluation,
    evaluate,
)
from othellolab.players.search.geometry import CORNERS, MAX_MOVES, final_score, gen_moves, pick_best
from othellolab.players.search.incremental import (
    indexed_value,
    new_indices,
    pass_indices,
    play_indices,
    set_indices,
)
from othellolab.players.search.priors import MovePriors, _prior_arrays, _prior_row
from othellolab.players.search.probcut import MIN_DEPTH as PROBCUT_MIN_DEPTH
from othellolab.players.search.probcut import shipped_probcut
from othellolab.players.search.smp import (
    check_threads,
    entry_key,
    lockless_key,
    lower_bound,
    pack_bounds,
    probe,
    run_threads,
    upper_bound,
)
from othellolab.players.search.state import (
    ABORTED,
    CHECK_EVERY,
    NODE_LIMIT,
    NODES,
    PLY,
    STATS_SIZE,
    count_node,
    ready_clock,
)
from othellolab.players.search.table import (
    MIDGAME_MIN_BITS,
    TranspositionTable,
    midgame_depth,
    midgame_move,
    midgame_pack,
)

MAX_DEPTH = 60
"""Deepest iteration of iterative deepening (a full 8x8 game)."""

MAX_PROBCUT = 10.0
"""The largest ProbCut confidence, in standard deviations (beyond it nothing is ever cut)."""

_BIG = 1.0e9
"""Larger than any evaluation: the initial window bound."""

ASPIRATION = 4.0
"""Half-width in discs of an iteration's first window, around the previous iteration's score."""

ASPIRATION_MAX = 64.0
"""An aspiration window widened this far (in discs either side) has no bound on that side."""

RESERVE_FRACTION = 0.01
"""Part of a time limit kept back from the search's own deadline, for what comes after it
(unwinding, the principal variation, the player's return) and a late look at the clock: on a
busy machine the process may wait a scheduler tick or two (4 ms each) to run again."""

MIN_RESERVE = 0.005
"""Seconds kept back from the search's own deadline besides ``RESERVE_FRACTION``."""

CHECK_NODES = 1 << 11
"""Nodes between two looks at the clock under a time limit (well under a millisecond)."""

_SORT_DEPTH = 2
"""Nodes with at least this much depth left order their moves by the evaluation of each child."""


class AlphaBetaState(NamedTuple):
    """The midgame search's state, passed whole to ``_ab``: the board size, the table's
    ``keys`` and ``payload`` (``table.TranspositionTable``, a position in one of two
    neighbouring slots, written lockless: ``search.smp``; threads share them), a small random
    score per square that breaks ties between equal moves, the statistics, the deadline (a
    ``perf_counter`` time; 0 for none), the evaluation (its ``kind`` and ``weights``), and
    multi-ProbCut's table (``probcut``) and confidence (``mpc_t``, 0 for none), the move
    priors of some positions (``prior_keys``, ``priors``: ``MovePriors``; empty for none), and
    a row of moves and their ordering keys per ply (``buf_sq``, ``buf_key``, ``BUFFER_ROWS``
    rows), so that no node allocates: the kernels then run without reference counting
    (``core.jit.hot_kernel``), which took a fifth of the search's time. With a pattern
    evaluation on 8x8, ``idx`` holds each ply's pattern indices (``search.incremental``; no
    rows otherwise), made from the parent's with each move instead of from the bitboards at
    each evaluation."""

    n: int
    keys: np.ndarray
    payload: np.ndarray
    tiebreak: np.ndarray
    stats: np.ndarray
    deadline: float
    ev_kind: int
    ev_w: np.ndarray
    mpc: np.ndarray
    mpc_t: float
    prior_keys: np.ndarray
    priors: np.ndarray
    buf_sq: np.ndarray
    buf_key: np.ndarray
    idx: np.ndarray


BUFFER_ROWS = 2 * MAX_DEPTH + 4
"""Rows of the move buffers (``AlphaBetaState.buf_sq``/``buf_key``), one per ply from the
root: a line of ``MAX_DEPTH`` moves has at most a pass after each."""

INCREMENTAL = True
"""Keep the pattern indices move by move (``AlphaBetaState.idx``); False gathers them from the
bitboards at each evaluation, the reference that tests compare node counts and scores with."""


@hot_kernel(nogil=True)
def _ab(
    p: int, o: int, alpha: float, beta: float, depth: int, st: AlphaBetaState
) -> tuple[float, int]:
    """Fail-soft PVS to ``depth`` plies (passes are free): the score and the best move. The
    node's ply from the root is ``stats[PLY]``, which the caller sets (its row of the move
    buffers and pattern indices; a ProbCut search of the node uses them first). A ply argument
    instead crashed the kernel once loaded from Numba's cache (numba 0.68)."""
    n = st.n
    stats = st.stats
    ply = stats[PLY]
    if count_node(stats, st.deadline):
        return 0.0, -1
    moves = gen_moves(p, o, n)
    if moves == ZERO:
        if gen_moves(o, p, n) == ZERO:
            return float(final_score(p, o, n)), -1
        if st.idx.shape[0]:
            pass_indices(st.idx, ply)
        stats[PLY] = ply + 1
        s, _ = _ab(o, p, -beta, -alpha, depth, st)
        return -s, n * n
    if depth <= 0:
        return _value(p, o, ply, st, moves), -1
    if st.mpc_t > 0.0 and depth >= PROBCUT_MIN_DEPTH:
        empties = n * n - popcount(p | o)
        if depth < empties:  # a search that reaches the end is exact: never cut it
            shallow = np.int64(st.mpc[empties, depth, 0])
            if shallow > 0:
                slope = st.mpc[empties, depth, 1]
                margin = st.mpc_t * st.mpc[empties, depth, 3]
                shift = st.mpc[empties, depth, 2]
                if beta < _BIG:
                    bound = (beta + margin - shift) / slope
                    stats[PLY] = ply
                    s, _ = _ab(p, o, bound - 1e-6, bound, shallow, st)
                    if stats[ABORTED]:
                        return 0.0, -1
                    if s >= bound:
                        return beta, -1
                if alpha > -_BIG:
                    bound = (alpha - margin - shift) / slope
                    stats[PLY] = ply
                    s, _ = _ab(p, o, bound, bound + 1e-6, shallow, st)
                    if stats[ABORTED]:
                        return 0.0, -1
                    if s <= bound:
                        return alpha, -1
    h = hash_position(p, o)
    slot, key, pay = probe(st.keys, st.payload, h)
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
    count = _order_moves(p, o, moves, depth, hash_move, st, ply, h)
    best = -_BIG
    best_move = -1
    a = alpha
    for i in range(count):
        sq = pick_best(st.buf_sq, st.buf_key, ply, i, count)
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        if st.idx.shape[0]:
            play_indices(st.idx, ply, sq, f)
        if i == 0:
            stats[PLY] = ply + 1
            s, _ = _ab(np_, no, -beta, -a, depth - 1, st)
            s = -s
        else:
            stats[PLY] = ply + 1
            s, _ = _ab(np_, no, -a - 1e-6, -a, depth - 1, st)
            s = -s
            if a < s < beta:
                stats[PLY] = ply + 1
                s, _ = _ab(np_, no, -beta, -s, depth - 1, st)
                s = -s
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
def _order_moves(
    p: int,
    o: int,
    moves: int,
    depth: int,
    first: int,
    st: AlphaBetaState,
    row_out: int,
    h: int,
) -> int:
    """Fill row ``row_out`` of the move buffers with the moves and their ordering keys (higher
    first):
    the position's move priors where ``st`` has them (``MovePriors``), else the evaluation of
    each child with ``_SORT_DEPTH`` plies or more left, else fewest replies (corners twice);
    ``first`` (the hash move, ``h`` being the position's hash) goes first. Return the
    count."""
    n = st.n
    count = 0
    corners = CORNERS[n]
    row = _prior_row(st.prior_keys, h) if st.prior_keys.shape[0] else -1
    while moves:
        bit = moves & (~moves + ONE)
        moves ^= bit
        sq = np.int64(trailing_zeros(bit))
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        if row >= 0:
            k = st.priors[row, sq]
        elif depth >= _SORT_DEPTH:
            if st.idx.shape[0]:
                play_indices(st.idx, row_out, sq, f)
            k = -_value(np_, no, row_out + 1, st, ZERO)
        else:
            reply = gen_moves(np_, no, n)
            k = -float(popcount(reply) + popcount(reply & corners))
            if bit & corners:
                k += 0.5
        if sq == first:
            k = _BIG
        st.buf_sq[row_out, count] = sq
        st.buf_key[row_out, count] = k + st.tiebreak[sq]
        count += 1
    return count


@hot_kernel(nogil=True, inline="always")
def _value(p: int, o: int, ply: int, st: AlphaBetaState, moves: int) -> float:
    """The evaluation of ``(p, o)``, the position at ``ply``: from its row of pattern indices
    when the search keeps them (``st.idx`` has rows), else from the bitboards; ``moves`` (the
    side to move's, or 0) spares the mobility term generating them again."""
    if st.idx.shape[0]:
        return indexed_value(st.ev_kind, st.ev_w, p, o, st.n, st.idx, ply, moves)
    return evaluate(st.ev_kind, st.ev_w, p, o, st.n)


@hot_kernel(nogil=True, inline="always")
def _store(
    h: int,
    alpha: float,
    beta: float,
    best: float,
    best_move: int,
    depth: int,
    st: AlphaBetaState,
) -> None:
    """Record a node's result in the table unless a deeper search of it is there: in its own
    entry if it has one (the children may have moved it meanwhile), else in whichever of its
    two slots holds the shallower search (an empty one first)."""
    keys = st.keys
    slot, key, _ = probe(keys, st.payload, h)
    if slot >= 0:
        if midgame_depth(key) > depth:
            return
    else:
        slot = np.int64(h & U64(keys.shape[0] - 1))
        other = slot ^ 1
        if keys[other] == ZERO or (
            keys[slot] != ZERO
            and midgame_depth(entry_key(keys[other], st.payload[other]))
            < midgame_depth(entry_key(keys[slot], st.payload[slot]))
        ):
            slot = other
    pay = pack_bounds(best if best > alpha else -_BIG, best if best < beta else _BIG)
    st.payload[slot] = pay
    keys[slot] = lockless_key(midgame_pack(h, best_move, depth), pay)


@numba.njit(cache=True, nogil=True)
def _root(
    p: int,
    o: int,
    alpha: float,
    beta: float,
    depth: int,
    first: int,
    st: AlphaBetaState,
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
    stats = st.stats
    if count_node(stats, st.deadline):
        return 0.0, -1
    moves = gen_moves(p, o, n)
    h = hash_position(p, o)
    slot, key, _ = probe(st.keys, st.payload, h)
    if first < 0 and slot >= 0:
        first = midgame_move(key)
    count = _order_moves(p, o, moves, depth, first, st, 0, h)
    best = -_BIG
    best_move = -1
    a = alpha
    for i in range(count):
        sq = pick_best(st.buf_sq, st.buf_key, 0, i, count)
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        if st.idx.shape[0]:
            play_indices(st.idx, 0, sq, f)
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


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What an alpha-beta search found: ``score`` for the side to move (exact when ``exact``),
    the best action, the depth of the last finished iteration, nodes, seconds and PV.
    ``partial``: the move beat the last finished iteration's in the next one, which a limit
    interrupted (``score`` is then that iteration's lower bound for it)."""

    score: float
    best_move: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[int, ...]
    exact: bool
    partial: bool = False


def search(
    board: Board,
    *,
    depth: int | None = None,
    time_limit: float | None = None,
    max_nodes: int | None = None,
    evaluation: Evaluation | None = None,
    table: TranspositionTable | None = None,
    seed: int | None = None,
    stop: Stop | None = None,
    probcut: float = 0.0,
    probcut_table: np.ndarray | None = None,
    target: float | None = None,
    priors: MovePriors | None = None,
    threads: int = 1,
) -> SearchResult:
    """Iterative-deepening PVS of ``board`` until ``depth``, ``time_limit`` or ``max_nodes``.

    The search's own deadline is ``time_limit`` less a small reserve (``time_reserve``) for
    what comes after it, so that the call returns within ``time_limit``. The clock is checked
    between iterations and inside the search every ``CHECK_NODES`` nodes; an interrupted
    iteration gives its best move if one beat the previous iteration's
    (``SearchResult.partial``), so iterations start until the deadline: time left unspent is
    lost. On a game clock, where it is not (later moves spend it), ``target`` seconds (within
    ``time_limit``) is the move's aim: no iteration starts after it, and one started before
    it may run on to the deadline. ``stop`` ends the search from another thread, at the next
    node. With no limit at all the search goes
    to depth 6. ``table`` (at least ``2**MIDGAME_MIN_BITS`` entries) may be kept between
    searches of one game. The compiled search releases the GIL, so other threads
    run meanwhile. ``probcut`` > 0 turns on multi-ProbCut with that confidence (in standard
    deviations) and ``probcut_table`` (default: the shipped fit, ``search.probcut``), on 8x8.
    ``priors`` order the moves of the positions they hold (a policy network's near the root)
    in place of the evaluation; the table's hash move still goes first.

    ``threads`` > 1 runs lazy SMP: helper threads search the same root into the same table
    (written lockless, ``search.smp``), each with its own move buffers and tiebreak and
    ``HELPER_AHEAD`` plies deeper than the main thread, whose limits stop them all (all are
    joined before this returns; ``max_nodes`` counts the main thread's nodes, ``nodes`` all).
    The answer is the main thread's, or a helper's deeper finished iteration.
    """
    if board.is_game_over():
        raise ValueError(f"no legal move: the game is over\n{board}")
    evaluation = evaluation or Evaluation()
    evaluation.check_size(board.size)
    table = table or TranspositionTable(18)
    if table.bits < MIDGAME_MIN_BITS:
        raise ConfigError(
            f"a midgame table needs at least {MIDGAME_MIN_BITS} bits, got {table.bits}",
            option="bits",
        )
    threads = check_threads(threads)
    n = board.size
    if depth is None and time_limit is None and max_nodes is None:
        depth = 6
    max_depth = min(depth if depth is not None else MAX_DEPTH, MAX_DEPTH)
    tiebreak = np.zeros(n * n, dtype=np.float64)
    if seed is not None:
        tiebreak = np.random.default_rng(seed).random(n * n) * 1e-3
    if time_limit is not None and not (np.isfinite(time_limit) and time_limit > 0):
        raise ConfigError(
            f"time_limit must be a positive number of seconds, got {time_limit!r}",
            option="time_limit",
        )
    stats = np.zeros(STATS_SIZE, dtype=np.int64)
    t0 = time.perf_counter()  # before ``ready_timed_search``: a first call loads, and counts
    if time_limit is not None:
        ready_timed_search()
        stats[CHECK_EVERY] = CHECK_NODES
    budget = time_limit - time_reserve(time_limit) if time_limit is not None else 0.0
    deadline = t0 + budget if time_limit is not None else 0.0
    if target is not None and (
        time_limit is None or not (np.isfinite(target) and 0 < target <= time_limit)
    ):
        raise ConfigError(
            f"target must be a positive number of seconds within time_limit "
            f"({time_limit!r}), got {target!r}",
            option="target",
        )
    start_until = budget if target is None else min(budget, target)
    if not (np.isfinite(probcut) and 0.0 <= probcut <= MAX_PROBCUT):
        raise ConfigError(
            f"probcut must be 0 (off) to {MAX_PROBCUT} standard deviations, got {probcut!r}",
            option="probcut",
        )
    mpc = probcut_table if probcut_table is not None else shipped_probcut()
    inc = INCREMENTAL and n == 8 and evaluation.kind in (EVAL_PATTERNS, EVAL_PATTERN_TERMS)
    state = AlphaBetaState(
        n,
        table.keys,
        table.payload,
        tiebreak,
        stats,
        deadline,
        evaluation.kind,
        evaluation.weights,
        mpc,
        float(probcut) if n == 8 else 0.0,
        *_prior_arrays(priors, n * n),
        np.zeros((BUFFER_ROWS, MAX_MOVES), dtype=np.int64),
        np.zeros((BUFFER_ROWS, MAX_MOVES), dtype=np.float64),
        new_indices(BUFFER_ROWS + 1 if inc else 0),
    )
    if inc:
        set_indices(state.idx, 0, U64(board.player), U64(board.opponent))
    p, o = U64(board.player), U64(board.opponent)
    legal = board.legal_actions()
    progress = [0]  # the main thread's iteration, which helpers keep ahead of

    def deepen(st: AlphaBetaState, ahead: int | None) -> tuple[tuple[float, int, int], bool]:
        """Iterative deepening in one thread: the last finished iteration's score, move and
        depth, and whether the move is partial. The main thread (``ahead`` None) keeps the
        limits; a helper searches at least ``ahead`` plies deeper than it until stopped."""
        best, partial = (0.0, legal[0], 0), False
        found = np.full(2, -1.0)
        stats = st.stats
        cap = max(1, max_depth)
        d = 1 if ahead is None else min(cap, 1 + ahead)
        while True:
            if ahead is None:
                if d > 1 and time_limit is not None and time.perf_counter() - t0 >= start_until:
                    return best, partial
                if max_nodes is not None:
                    stats[NODE_LIMIT] = max_nodes
                progress[0] = d
            found[0] = -1.0
            if legal[0] == n * n:  # the root passes: nothing to order or to keep
                stats[PLY] = 0
                score, move = _ab(p, o, -_BIG, _BIG, d, st)
            else:
                score, move = _iteration(p, o, d, best if best[2] else None, st, found)
            if stats[ABORTED]:
                if ahead is None and found[0] >= 0 and int(found[0]) != best[1]:
                    # a move that beat the previous best in the interrupted iteration
                    best = (float(found[1]), int(found[0]), best[2])
                    partial = True
                return best, partial
            best = (float(score), int(move), d)
            nxt = d + 1 if ahead is None else min(cap, max(d + 1, progress[0] + ahead))
            if d >= board.num_empties or nxt <= d or nxt > cap:
                return best, partial
            d = nxt

    helpers = [_helper_state(state, board, seed, i, inc) for i in range(1, threads)]
    with contextlib.ExitStack() as linked:
        if stop is not None:
            linked.enter_context(stop.link(stats, ABORTED))
        (best, partial), done = run_threads(
            lambda: deepen(state, None),
            [partial_fn(deepen, h, HELPER_AHEAD[i % 2]) for i, h in enumerate(helpers)],
            [h.stats for h in helpers],
        )
    for other in done:  # a helper's deeper finished iteration beats the main thread's
        if other is not None and other[0][2] > best[2] and other[0][1] >= 0:
            best, partial = other[0], False
    score, move, reached = best
    if move < 0:
        move = legal[0]
    pv = _pv_from_table(board, table, reached)
    if not pv or pv[0] != move:
        pv = [move]
    return SearchResult(
        score,
        move,
        reached,
        int(stats[NODES]) + sum(int(h.stats[NODES]) for h in helpers),
        time.perf_counter() - t0,
        tuple(pv),
        reached >= board.num_empties,
        partial,
    )


HELPER_AHEAD = (1, 0)
"""Plies the helper threads of lazy SMP keep ahead of the main thread's iteration: odd helpers
one (they fill the table for its next iteration), even ones none (a second view of its
current one, ordered by another tiebreak)."""


def _helper_state(
    state: AlphaBetaState, board: Board, seed: int | None, i: int, inc: bool
) -> AlphaBetaState:
    """Helper thread ``i``'s copy of ``state``: the shared table, evaluation and deadline, its
    own statistics, move buffers, pattern indices and tiebreak (seeded by ``seed`` and ``i``)."""
    n = board.size
    stats = np.zeros(STATS_SIZE, dtype=np.int64)
    stats[CHECK_EVERY] = state.stats[CHECK_EVERY]
    st = state._replace(
        tiebreak=np.random.default_rng([i] if seed is None else [seed, i]).random(n * n) * 1e-3,
        stats=stats,
        buf_sq=np.zeros_like(state.buf_sq),
        buf_key=np.zeros_like(state.buf_key),
        idx=new_indices(state.idx.shape[0]),
    )
    if inc:
        set_indices(st.idx, 0, U64(board.player), U64(board.opponent))
    return st


_TIMED_READY = False


def ready_timed_search() -> None:
    """Load what a timed search first calls after its deadline is set (the clock's compiled
    block, ``state.ready_clock``, and the table probes that ``table_move`` calls from Python,
    20 ms from the cache), so that a player can do it before its first move is timed."""
    global _TIMED_READY
    if not _TIMED_READY:
        ready_clock()
        table_move(TranspositionTable(MIDGAME_MIN_BITS), Board())
        _TIMED_READY = True


def time_reserve(time_limit: float) -> float:
    """Seconds of ``time_limit`` the search keeps back from its own deadline: ``MIN_RESERVE``
    and ``RESERVE_FRACTION`` of it, but never over half of it."""
    return min(MIN_RESERVE + RESERVE_FRACTION * time_limit, 0.5 * time_limit)


def _iteration(
    p: int,
    o: int,
    depth: int,
    previous: tuple[float, int, int] | None,
    state: AlphaBetaState,
    found: np.ndarray,
) -> tuple[float, int]:
    """One iteration of iterative deepening: the root's score and best move at ``depth``.

    After the first iteration the window starts ``ASPIRATION`` discs either side of the
    ``previous`` iteration's score and its best move goes first; a score outside the window
    (fail-soft: a bound) widens that side, four times as far each time, up to no bound at all.
    """
    if previous is None:
        return _root(p, o, -_BIG, _BIG, depth, -1, state, found)
    centre, first, _ = previous
    delta = ASPIRATION
    lo, hi = centre - delta, centre + delta
    while True:
        score, move = _root(p, o, lo, hi, depth, first, state, found)
        if state.stats[ABORTED]:
            return score, move
        if lo < score < hi or (score <= lo and lo <= -_BIG) or (score >= hi and hi >= _BIG):
            return score, move
        delta *= 4.0
        if score <= lo:
            lo = score - delta if delta < ASPIRATION_MAX else -_BIG
        else:
            hi = score + delta if delta < ASPIRATION_MAX else _BIG


def table_move(table: TranspositionTable, board: Board) -> int | None:
    """The best move a midgame search left in ``table`` for ``board``, or ``None``."""
    h = U64(hash_position(U64(board.player), U64(board.opponent)))
    slot, key, _ = probe(table.keys, table.payload, h)
    if slot < 0:
        return None
    move = int(midgame_move(U64(key)))
    return None if move < 0 else move


def _pv_from_table(board: Board, table: TranspositionTable, depth: int) -> list[int]:
    """The principal variation by following the table's best moves (checked for legality)."""
    line: list[int] = []
    for _ in range(depth):
        if board.is_game_over():
            break
        move = table_move(table, board)
        if move is None or move not in board.legal_actions():
            break
        line.append(move)
        board = board.play(move)
    return line
