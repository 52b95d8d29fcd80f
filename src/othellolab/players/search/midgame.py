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

import numpy as np

from othellolab.core import Board, ConfigError, Stop
from othellolab.core.kernels import U64, hash_position
from othellolab.players.search.evaluation import (
    EVAL_PATTERN_TERMS,
    EVAL_PATTERNS,
    NO_UNITS,
    Evaluation,
)
from othellolab.players.search.geometry import MAX_MOVES
from othellolab.players.search.incremental import needs_wide_indices, new_indices, set_indices
from othellolab.players.search.priors import MovePriors, _prior_arrays
from othellolab.players.search.probcut import shipped_probcut
from othellolab.players.search.pvs import (
    BIG,
    BUFFER_ROWS,
    KNOWN,
    MAX_DEPTH,
    AlphaBetaState,
    KernelState,
    _ab,
    _root,
    kernel_state,
)
from othellolab.players.search.smp import check_threads, probe, run_threads
from othellolab.players.search.state import (
    ABORTED,
    CHECK_EVERY,
    NODE_LIMIT,
    NODES,
    PLY,
    STATS_SIZE,
    ready_clock,
)
from othellolab.players.search.table import MIDGAME_MIN_BITS, TranspositionTable, midgame_move

MAX_PROBCUT = 10.0
"""The largest ProbCut confidence, in standard deviations (beyond it nothing is ever cut)."""

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

INCREMENTAL = True
"""Keep the pattern indices move by move (``AlphaBetaState.idx``); False gathers them from the
bitboards at each evaluation, the reference that tests compare node counts and scores with."""


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
        *(evaluation.units if inc else (NO_UNITS, 0.0)),
        mpc,
        float(probcut) if n == 8 else 0.0,
        *_prior_arrays(priors, n * n),
        np.zeros((BUFFER_ROWS, MAX_MOVES), dtype=np.int64),
        np.zeros((BUFFER_ROWS, MAX_MOVES), dtype=np.float64),
        np.zeros((BUFFER_ROWS, 64), dtype=np.uint64),
        np.zeros((BUFFER_ROWS, 64), dtype=np.uint64),
        np.zeros((BUFFER_ROWS + 1, KNOWN + 1), dtype=np.uint64),
        new_indices(BUFFER_ROWS + 1 if inc else 0, inc and needs_wide_indices(evaluation.weights)),
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
        kst = kernel_state(st)  # ``st`` keeps its arrays alive while the kernels run
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
                score, move = _ab(p, o, -BIG, BIG, d, kst)
            else:
                score, move = _iteration(p, o, d, best if best[2] else None, kst, found, stats)
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
        buf_flip=np.zeros_like(state.buf_flip),
        buf_reply=np.zeros_like(state.buf_reply),
        buf_hash=np.zeros_like(state.buf_hash),
        idx=np.zeros_like(state.idx),
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
    state: KernelState,
    found: np.ndarray,
    stats: np.ndarray,
) -> tuple[float, int]:
    """One iteration of iterative deepening: the root's score and best move at ``depth``
    (``state``: the kernels' view of the search state whose statistics are ``stats``).

    After the first iteration the window starts ``ASPIRATION`` discs either side of the
    ``previous`` iteration's score and its best move goes first; a score outside the window
    (fail-soft: a bound) widens that side, four times as far each time, up to no bound at all.
    """
    if previous is None:
        return _root(p, o, -BIG, BIG, depth, -1, state, found)
    centre, first, _ = previous
    delta = ASPIRATION
    lo, hi = centre - delta, centre + delta
    while True:
        score, move = _root(p, o, lo, hi, depth, first, state, found)
        if stats[ABORTED]:
            return score, move
        if lo < score < hi or (score <= lo and lo <= -BIG) or (score >= hi and hi >= BIG):
            return score, move
        delta *= 4.0
        if score <= lo:
            lo = score - delta if delta < ASPIRATION_MAX else -BIG
        else:
            hi = score + delta if delta < ASPIRATION_MAX else BIG


def table_move(table: TranspositionTable, board: Board) -> int | None:
    """The best move a midgame search left in ``table`` for ``board``, or ``None``."""
    h = U64(hash_position(U64(board.player), U64(board.opponent)))
    slot, key, _ = probe(table.keys, table.payload, h)
    if slot < 0:
        return None
    # The kernel's Python body: this runs after a timed search's deadline, where a first call
    # of the compiled kernel would compile or load it.
    move = int(midgame_move.py_func(U64(key)))
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
