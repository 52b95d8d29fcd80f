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
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numba
import numpy as np

from othellolab.core import Board, PlayResult, Score, Stop, square_name
from othellolab.core.jit import hot_kernel, prefetch
from othellolab.core.kernels import _FULL, ONE, U64, ZERO, _flips, popcount
from othellolab.players.search.evaluation import Evaluation, default_evaluation
from othellolab.players.search.geometry import (
    INF,
    MAX_MOVES,
    QUAD_BIT,
    final_score,
    gen_moves,
    pick_best,
    stable_discs,
)
from othellolab.players.search.lastempties import nws_shallow, nws_small, parity_of
from othellolab.players.search.ordering import (
    DEEP_MIN,
    SORT_DEPTH_MAX,
    estimate,
    order_nws,
    order_pv,
)
from othellolab.players.search.parallel_solve import check_threads, split_aspiration, split_search
from othellolab.players.search.state import (
    ABORTED,
    NODE_LIMIT,
    NODES,
    SELECT,
    SHALLOW_NODES,
    STATS_SIZE,
    ShallowState,
    SolverState,
    count_node,
    ready_clock,
)
from othellolab.players.search.table import (
    TranspositionTable,
    bounds_usable,
    drop_selective,
    entry_lower,
    entry_move,
    entry_upper,
    from_table,
    home_slot,
    table_key,
    to_table,
    tt_probe,
    tt_store,
)

ASPIRATION_MIN = 14
"""From this many empties up, a full-window solve runs as a series of narrow windows."""

PRESEARCH_MIN = 22
"""From this many empties up (8x8), a full-window solve first runs selective pre-searches."""

PRESEARCH_MARGINS = (4, 8, 12)
"""The pre-searches, in order, by their probable-cut margin in discs: each prunes a node when a
shallow search says its score is this far outside the window (ProbCut), so it is far cheaper
than the exact search, and it leaves its best moves in the table and its score as the guess of
the next one; as Edax and Egaroucid do, with looser and looser cuts (the trials that chose
them: docs/benchmarks.md, "How the solver's constants were chosen")."""

MPC_MIN = 14
"""From this many empties up, pre-search nodes try a probable cut."""

MPC_DEPTH_BASE = 8

MPC_DEPTH_MAX = 6
"""The shallow search of a probable cut at ``ne`` empties goes ``(ne - MPC_DEPTH_BASE) // 3``
plies deep (2 at 14 empties, 6 from 26 on)."""

GUESS_DEPTH = 4
"""Plies of the shallow search that guesses where the first window of a full-window solve goes
when the caller gives no guess."""

ESTIMATE_ROWS = max(SORT_DEPTH_MAX, MPC_DEPTH_MAX, GUESS_DEPTH) + 1
"""Move-list rows kept for the shallow searches, one per ply left."""


@hot_kernel()
def _stability_threshold(ne: int, cells: int) -> int:
    """Try the stability bound only when ``alpha`` is this high (it costs a fixed-point loop).

    On 8x8 about twice the empties, as Edax does."""
    return min(2 * ne, ne + 24) if cells == 64 else cells - cells // 2


@hot_kernel(inline="always")
def _mpc_depth(ne: int) -> int:
    """Depth of the shallow search that decides a probable cut at a node with ``ne`` empties."""
    return min(MPC_DEPTH_MAX, max(1, (ne - MPC_DEPTH_BASE) // 3))


@hot_kernel()
def _nws_deep(p: int, o: int, alpha: int, ne: int, parity: int, st: SolverState) -> int:
    """Null-window search with ``ne >= DEEP_MIN`` empties: fail-soft score around ``alpha``."""
    n = st.shallow.n
    tt_keys = st.keys
    tt_pay = st.payload
    buf_sq = st.shallow.buf_sq
    buf_key = st.shallow.buf_key
    stats = st.shallow.stats
    deadline = st.deadline
    if count_node(stats, deadline):
        return 0
    cells = n * n
    h, sym = table_key(p, o, ne, n)
    prefetch(tt_keys, home_slot(tt_keys, h))  # while the stability bound runs
    if alpha >= _stability_threshold(ne, cells):
        bound = cells - 2 * popcount(stable_discs(o, p, n))
        if bound <= alpha:
            return bound
    slot, entry = tt_probe(tt_keys, tt_pay, h)
    hash_move = -1
    sel = stats[SELECT]
    if slot >= 0:
        if bounds_usable(entry, sel):
            if entry_lower(entry) > alpha:
                return entry_lower(entry)
            if entry_upper(entry) <= alpha:
                return entry_upper(entry)
        hash_move = from_table(entry_move(entry), sym, n)
    if sel > 0 and ne >= MPC_MIN:
        # Probable cut (pre-searches only): a shallow search far enough outside the window.
        d = _mpc_depth(ne)
        hi = float(alpha + 1 + sel)
        if estimate(p, o, hi - 0.01, hi, d, st.shallow) >= hi:
            return alpha + 1
        lo = float(alpha - sel)
        if estimate(p, o, lo, lo + 0.01, d, st.shallow) <= lo:
            return alpha
    moves = gen_moves(p, o, n)
    if moves == ZERO:
        if gen_moves(o, p, n) == ZERO:
            return final_score(p, o, n)
        return -_nws_deep(o, p, -alpha - 1, ne, parity, st)
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
            count, cut = order_nws(p, o, moves, ne, alpha, row, st)
            if cut > alpha:
                return cut
        elif i >= count:
            break
        sq = hash_move if i < 0 else pick_best(buf_sq, buf_key, row, i, count)
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        child_parity = parity ^ QUAD_BIT[n, sq]
        if ne - 1 >= DEEP_MIN:
            s = -_nws_deep(np_, no, -alpha - 1, ne - 1, child_parity, st)
        else:  # ne - 1 == DEEP_MIN - 1 >= SHALLOW_MIN: no dispatch on the count needed
            s = -nws_shallow(np_, no, -alpha - 1, ne - 1, child_parity, n, stats)
        if stats[ABORTED]:
            return 0
        if s > best:
            best = s
            best_move = sq
            if s > alpha:
                break
        i += 1
    tt_store(
        tt_keys,
        tt_pay,
        h,
        alpha,
        alpha + 1,
        best,
        to_table(best_move, sym, n),
        ne,
        sel > 0,
    )
    return best


@hot_kernel()
def _nws(p: int, o: int, alpha: int, ne: int, parity: int, st: SolverState) -> int:
    """Null-window search at any number of empties."""
    n = st.shallow.n
    stats = st.shallow.stats
    if ne >= DEEP_MIN:
        return _nws_deep(p, o, alpha, ne, parity, st)
    return nws_small(p, o, alpha, ne, parity, n, stats)


@hot_kernel()
def _pvs(
    p: int, o: int, alpha: int, beta: int, ne: int, parity: int, st: SolverState, pv: np.ndarray
) -> int:
    """Principal-variation search: full window on the first move, null windows on the rest.

    Returns the fail-soft score and writes the best move to ``pv[ne]`` (-1 if none, the pass
    action ``n*n`` for a forced pass).
    """
    n = st.shallow.n
    tt_keys = st.keys
    tt_pay = st.payload
    buf_sq = st.shallow.buf_sq
    buf_key = st.shallow.buf_key
    stats = st.shallow.stats
    deadline = st.deadline
    pv[ne] = -1
    if count_node(stats, deadline):
        return 0
    h, sym = table_key(p, o, ne, n)
    slot, entry = tt_probe(tt_keys, tt_pay, h)
    hash_move = -1
    sel = stats[SELECT]
    if slot >= 0:
        hash_move = from_table(entry_move(entry), sym, n)
        lo = entry_lower(entry)
        hi = entry_upper(entry)
        if lo == hi and hash_move >= 0 and bounds_usable(entry, sel):
            pv[ne] = hash_move
            return lo
    moves = gen_moves(p, o, n)
    if moves == ZERO:
        if gen_moves(o, p, n) == ZERO:
            return final_score(p, o, n)
        s = -_pvs(o, p, -beta, -alpha, ne, parity, st, pv)
        pv[ne] = n * n
        return s
    row = ne
    count = order_pv(p, o, moves, ne, alpha, hash_move, row, st)
    best = -INF
    best_move = -1
    a = alpha
    for i in range(count):
        sq = pick_best(buf_sq, buf_key, row, i, count)
        bit = ONE << U64(sq)
        f = _flips(p, o, sq, n)
        np_ = o & ~f
        no = p | f | bit
        cp = parity ^ QUAD_BIT[n, sq]
        if i == 0:
            s = -_pvs(np_, no, -beta, -a, ne - 1, cp, st, pv)
        else:
            s = -_nws(np_, no, -a - 1, ne - 1, cp, st)
            if a < s < beta:
                s = -_pvs(np_, no, -beta, -s, ne - 1, cp, st, pv)
        if stats[ABORTED]:
            return 0
        if s > best:
            best = s
            best_move = sq
            if s > a:
                a = s
                if s >= beta:
                    break
    tt_store(tt_keys, tt_pay, h, alpha, beta, best, to_table(best_move, sym, n), ne, sel > 0)
    pv[ne] = best_move
    return best


@numba.njit(cache=True, nogil=True)
def _solve_kernel(p: int, o: int, alpha: int, beta: int, st: SolverState) -> tuple[int, int]:
    """Fail-soft exact score of ``(p, o)`` within ``(alpha, beta)`` and the best move (-1: none).
    The state's move lists must have a row per empty square of ``(p, o)``, plus two, plus
    ``ESTIMATE_ROWS`` (``new_state`` sizes them for a root position)."""
    p = U64(p)
    o = U64(o)
    ne = popcount(~(p | o) & _FULL[st.shallow.n])
    pv = np.full(ne + 2, -1, dtype=np.int64)
    score = _pvs(p, o, alpha, beta, ne, parity_of(p, o, st.shallow.n), st, pv)
    return score, pv[ne]


@numba.njit(cache=True, nogil=True)
def _aspiration(p: int, o: int, guess: int, st: SolverState) -> tuple[int, int]:
    """Exact score and best move by narrow windows: first ``(guess - 1, guess + 1)`` (a final
    score is always even, so that window alone proves or refutes ``guess``), then the same
    narrow window around each fail-soft bound in turn, reusing the table (MTD(f)-like): a
    narrow window cuts far more than a wide one."""
    cells = st.shallow.n * st.shallow.n
    score = guess
    while True:
        a = max(-cells - 1, score - 1)
        b = min(cells + 1, score + 1)
        score, move = _solve_kernel(p, o, a, b, st)
        if st.shallow.stats[ABORTED] or a < score < b or score <= -cells or score >= cells:
            return score, move


def new_state(
    board: Board,
    table: TranspositionTable,
    evaluation: Evaluation,
    stats: np.ndarray | None = None,
    deadline: float = 0.0,
) -> SolverState:
    """The state of a solve of ``board`` (and of any position below it): ``table``, move lists
    sized for its empties, ``stats`` (fresh if ``None``), ``deadline`` (a ``perf_counter``
    time, 0 for none) and the ordering ``evaluation``."""
    rows = board.num_empties + 2 + ESTIMATE_ROWS
    shallow = ShallowState(
        board.size,
        np.empty((rows, MAX_MOVES), dtype=np.int64),
        np.empty((rows, 2 * MAX_MOVES), dtype=np.int64),
        np.zeros(STATS_SIZE, dtype=np.int64) if stats is None else stats,
        evaluation.kind,
        evaluation.weights,
    )
    return SolverState(shallow, table.keys, table.payload, float(deadline))


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

    def play_result(self, board: Board) -> PlayResult:
        """The solve as a player's answer in ``board``: the best move with its exact score."""
        assert self.best_move is not None, "a finished game has no move to play"
        return PlayResult(
            self.best_move,
            score=Score(float(self.score), exact=True),
            info={
                "score": self.score,
                "depth": board.num_empties,
                "nodes": self.nodes,
                "seconds": self.seconds,
                "pv": self.pv_names(board.size),
                "solved": True,
            },
        )


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
    threads: int = 1,
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

    ``threads`` (1..``parallel_solve.MAX_THREADS``) above 1 splits each window of a
    full-window solve's pre-searches and exact search among that many threads on one shared
    table, along the principal variation (``parallel_solve.split_search``): the score is the same, the best move
    may be another of equal score, ``nodes`` counts every thread's and ``max_nodes`` holds for
    each thread. Every thread has stopped when ``solve`` returns.
    """
    threads = check_threads(threads)
    with contextlib.ExitStack() as linked:
        all_stats = [np.zeros(STATS_SIZE, dtype=np.int64) for _ in range(threads)]
        if stop is not None:
            for one in all_stats:
                linked.enter_context(stop.link(one, ABORTED))
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
            all_stats,
            stop,
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
    all_stats: list[np.ndarray],
    stop: Stop | None = None,
) -> SolveResult:
    n = board.size
    cells = n * n
    lo = max(-cells - 1, min(alpha, cells))
    hi = min(cells + 1, max(beta, -cells))
    if lo >= hi:
        raise ValueError(f"empty search window: alpha={alpha} >= beta={beta}")
    if table is None:
        table = TranspositionTable(max(10, min(22, 2 * board.num_empties)))
    stats = all_stats[0]
    for one in all_stats:
        one[NODE_LIMIT] = max_nodes or 0
    if time_limit is not None:
        ready_clock()
    t0 = time.perf_counter()
    deadline = t0 + time_limit if time_limit is not None else 0.0
    ev = evaluation or default_evaluation(n)
    ev.check_size(n)
    p, o = U64(board.player), U64(board.opponent)
    state = new_state(board, table, ev, stats, deadline)
    states = [state] + [new_state(board, table, ev, one, deadline) for one in all_stats[1:]]
    presearch_nodes = 0
    if lo > -cells or hi < cells or board.num_empties < ASPIRATION_MIN:
        score, move = _solve_kernel(p, o, lo, hi, state)
    else:
        if guess is None:
            # Called from Python, not from the kernel: numba's cache fails to reload a kernel
            # that calls the recursive ``estimate`` both directly and through the solver.
            e = estimate(p, o, -1.0e9, 1.0e9, GUESS_DEPTH, state.shallow)
            guess = max(-cells, min(cells, 2 * round(e / 2.0)))
        if presearch and n == 8 and board.num_empties >= PRESEARCH_MIN:
            guess = _presearch(p, o, guess, table, states, stop)
        presearch_nodes = sum(int(one[NODES]) for one in all_stats)
        if len(states) == 1:
            score, move = _aspiration(p, o, guess, state)
        elif not stats[ABORTED]:
            score, move = split_aspiration(p, o, guess, states, stop, _solve_kernel)
        else:
            score, move = 0, -1
    nodes = sum(int(one[NODES]) for one in all_stats)
    if stats[ABORTED]:
        raise SolveAborted(
            f"solve of {board.obf()} stopped after {nodes} nodes "
            f"({time.perf_counter() - t0:.2f} s) without a result"
        )
    score = int(score)
    exact = lo < score < hi
    line: list[int] = []
    if move >= 0:
        line.append(int(move))
    if pv and exact and move >= 0:
        line = _principal_variation(board, score, state)
        if stats[ABORTED]:
            line = [int(move)]
    best = None if board.is_game_over() else int(move)
    return SolveResult(
        score,
        best,
        tuple(line),
        sum(int(one[NODES]) for one in all_stats),
        time.perf_counter() - t0,
        exact,
        sum(int(one[SHALLOW_NODES]) for one in all_stats),
        presearch_nodes,
    )


_WARM_UP_POSITION = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
"""FFO #1 (14 empties, black to move, +18 by G8): solved in milliseconds, and far enough from
the end to run every kernel a solve uses (the guess, the narrow windows, the PV walk)."""


def warm_up() -> SolveResult:
    """Compile the solver's kernels, or load them from Numba's disk cache, by solving FFO #1.

    A first compile takes about 40 s; a server or a long job calls this at start-up (in a
    thread, say) so that its first endgame does not pay for it in the middle of a game. A
    second solve on two threads compiles the kernels that split a window among threads
    (``parallel_solve``: 2 s more, which a first threaded solve paid in its move)."""
    board = Board.from_obf(_WARM_UP_POSITION)
    solve(board, threads=2)
    return solve(board)


def _presearch(
    p: int,
    o: int,
    guess: int,
    table: TranspositionTable,
    states: list[SolverState],
    stop: Stop | None,
) -> int:
    """Run the selective pre-searches (``PRESEARCH_MARGINS``) and return the last one's score as
    the exact search's guess; with several states, each window is split among their threads
    (``parallel_solve.split_search``). Afterwards the pre-search bounds are dropped from the table, so that a later,
    less selective search does not trust them (no thread runs meanwhile)."""
    stats = states[0].shallow.stats
    for margin in PRESEARCH_MARGINS:
        for st in states:
            st.shallow.stats[SELECT] = margin
        if len(states) == 1:
            guess = _presearch_series(p, o, guess, states[0])
        else:
            split = partial(split_search, p, o, states=states, stop=stop, kernel=_solve_kernel)
            guess = _presearch_series(p, o, guess, states[0], split)
        drop_selective(table)
        if stats[ABORTED]:
            break  # out of time or stopped: the rest would return at once, after a table sweep each
    for st in states:
        st.shallow.stats[SELECT] = 0
    return guess


def _presearch_series(
    p: int,
    o: int,
    guess: int,
    state: SolverState,
    window: Callable[[int, int], tuple[int, int]] | None = None,
) -> int:
    """One pre-search (the margin in ``stats[SELECT]``): narrow windows from ``guess`` like
    ``_aspiration``, but its scores are not exact and may contradict each other, so it stops at
    the first window that turns back (at most 8); returns its score, made even. ``window(a,
    b)`` searches one window (default: ``_solve_kernel`` on ``state``)."""
    cells = state.shallow.n * state.shallow.n
    stats = state.shallow.stats
    direction = 0
    for _ in range(8):
        a, b = max(-cells - 1, guess - 1), min(cells + 1, guess + 1)
        s, _move = window(a, b) if window else _solve_kernel(p, o, a, b, state)
        if stats[ABORTED] or a < s < b or s <= -cells or s >= cells:
            guess = s
            break
        step = 1 if s >= b else -1
        guess = s + (s & 1) * step  # a probable cut fails soft to an odd bound
        if direction == -step:
            break
        direction = step
    return max(-cells, min(cells, guess + (guess & 1)))


def _principal_variation(board: Board, score: int, state: SolverState) -> list[int]:
    """Walk the PV: at each position, a narrow re-solve around the known score names the move."""
    line: list[int] = []
    while not board.is_game_over():
        s, move = _solve_kernel(U64(board.player), U64(board.opponent), score - 1, score + 1, state)
        if state.shallow.stats[ABORTED] or s != score or move < 0:
            break
        line.append(int(move))
        board = board.play(int(move))
        score = -score
    return line
