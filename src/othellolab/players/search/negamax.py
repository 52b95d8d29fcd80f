"""Alpha-beta for any game of the protocol (``core.games``): iterative-deepening negamax over
the game's rules kernels (``Game.rules``), scored by the heuristic and ordered by the key the
game provides (``Game.search_kernels``; without them: 0 until the end, the rules' order).
The kernels arrive as addresses, so one compiled search serves every game, a game defined in
a test included. ``players.negamax`` is its player. Othello's own engine (``midgame``,
``endgame``) is specialised and separate.

Scores are integers from the side to move: the game's heuristic at the horizon (clamped to
``core.games.HEURISTIC_BOUND``), ``WIN - plies`` for a game won ``plies`` plies below the root
(so faster wins score higher), ``-(WIN - plies)`` for a loss, 0 for a draw; the size of a final
score is not seen (a win is a win). Rules outside the kernels (animal shogi's optional
repetition draw) are not seen either.

>>> from othellolab.core.animal_shogi import AnimalShogi
>>> pos = AnimalShogi.from_sfen("1l1/1G1/3/1L1 b - 1")  # the giraffe takes the lion
>>> result = search(pos, depth=1)
>>> pos.move_name(result.best_moves[0]), result.score == WIN - 1
('b2b1', True)
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from othellolab.core import Stop
from othellolab.core.games import (
    HEURISTIC_BOUND,
    heuristic_at,
    order_at,
    position_game,
    position_state,
    rules_children,
    rules_result,
)
from othellolab.players.search.state import (
    ABORTED,
    NODE_LIMIT,
    NODES,
    STATS_SIZE,
    count_node,
    ready_clock,
)

__all__ = ["MAX_DEPTH", "WIN", "SearchResult", "is_win_score", "search"]

WIN = 10_000
"""The score of a won game at the root; a win ``k`` plies below it scores ``WIN - k``."""

MAX_DEPTH = 64
"""Deepest iteration the search runs."""

_INF = 1 << 30


def is_win_score(score: int) -> bool:
    """Whether a search score is a proven win or loss (not a heuristic estimate)."""
    return abs(score) > WIN - 1000


@numba.njit(cache=True, nogil=True)
def _order(rules, order, p, o, actions, cp, co, keys, n):  # type: ignore[no-untyped-def]
    """Sort the ``n`` children in place by decreasing key of the game's ``order`` kernel,
    stable (equal keys keep the rules' order)."""
    for i in range(n):
        keys[i] = order_at(order)(rules[2], p, o, actions[i])
    for i in range(1, n):  # insertion sort: the lists are short
        a, q, r, key = actions[i], cp[i], co[i], keys[i]
        j = i - 1
        while j >= 0 and keys[j] < key:
            actions[j + 1], cp[j + 1], co[j + 1], keys[j + 1] = actions[j], cp[j], co[j], keys[j]
            j -= 1
        actions[j + 1], cp[j + 1], co[j + 1], keys[j + 1] = a, q, r, key


@numba.njit(cache=True, nogil=True)
def _negamax(  # type: ignore[no-untyped-def]
    rules, heuristic, order, p, o, depth, alpha, beta, ply, root_p, root_o, root_scores,
    actions, cp, co, keys, stats, deadline,
):  # fmt: skip
    """Fail-soft alpha-beta to ``depth`` plies; ``ply`` is the distance from the root.

    At the root (``ply == 0``) the children are ``root_p``/``root_o`` in that order, and each
    one's score goes to ``root_scores``: exact for every move at least as good as the best, an
    upper bound below the best for the others (window ``(best - 1, beta)``, so that all equally
    good moves are found). The root is a branch of this one function, with a single recursive
    call: Numba's cache crashed loading a search that called itself from two places, or that
    was called by another compiled function (numba 0.68.1)."""
    if count_node(stats, deadline):
        return 0
    root = ply == 0
    if root:
        n = root_p.shape[0]
    else:
        finished, r = rules_result(rules, p, o)
        if finished:
            if r > 0:
                return WIN - ply
            if r < 0:
                return ply - WIN
            return 0
        if depth <= 0:
            if heuristic == 0:
                return 0
            h = heuristic_at(heuristic)(rules[2], p, o)
            return min(max(h, -HEURISTIC_BOUND), HEURISTIC_BOUND)
        n = rules_children(rules, p, o, actions[ply], cp[ply], co[ply])
        if n == 0:  # not finished yet without a move: the protocol says it cannot happen
            return 0
        if order != 0:
            _order(rules, order, p, o, actions[ply], cp[ply], co[ply], keys[ply], n)
    best = -_INF
    for i in range(n):
        q, o2 = (root_p[i], root_o[i]) if root else (cp[ply, i], co[ply, i])
        low = best - 1 if root else max(alpha, best)
        s = -_negamax(rules, heuristic, order, q, o2, depth - 1, -beta, -low, ply + 1, root_p,
                      root_o, root_scores, actions, cp, co, keys, stats, deadline)  # fmt: skip
        if stats[ABORTED]:
            return 0
        if root:
            root_scores[i] = s
        if s > best:
            best = s
            if best >= beta:
                break
    return best


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found: the ``score`` of the best moves for the side to move (see the
    module docstring), every move with that score (``best_moves``, in the search's order),
    the depth of the last finished iteration, nodes and seconds."""

    score: int
    best_moves: tuple[int, ...]
    depth: int
    nodes: int
    seconds: float

    @property
    def mate_in(self) -> int | None:
        """Plies to the end of a proven win (positive) or loss (negative); ``None`` otherwise."""
        if not is_win_score(self.score):
            return None
        return WIN - self.score if self.score > 0 else -(WIN + self.score)


def search(
    position: Any,
    *,
    depth: int | None = None,
    time_limit: float | None = None,
    max_nodes: int | None = None,
    stop: Stop | None = None,
) -> SearchResult:
    """Iterative-deepening negamax of a people's ``position`` of any registered game to
    ``depth`` plies (``MAX_DEPTH`` at most; 4 when no limit is given), within ``time_limit``
    seconds and ``max_nodes`` nodes.

    The first iteration (one ply) always finishes; a later one is not started when it would
    likely overrun the time, and one that passes the deadline, the node limit or ``stop``
    (set from another thread) is dropped: the result is the deepest finished iteration's. Each
    iteration searches the root moves best first by the previous one's scores, and the search
    ends early once the best move is a proven win or every move a proven loss.
    """
    game = position_game(position)
    p, o = (np.uint64(x) for x in position_state(position))
    moves, root_p, root_o = game.children(int(p), int(o))
    if not len(moves):
        raise ValueError(f"no legal move: the game is over\n{position}")
    if depth is None and time_limit is None and max_nodes is None:
        depth = 4
    max_depth = max(1, min(depth if depth is not None else MAX_DEPTH, MAX_DEPTH))
    rules = game.rules
    heuristic, order = game.search_kernels
    scores = np.zeros(len(moves), dtype=np.int64)
    actions = np.zeros((MAX_DEPTH + 2, game.max_children), dtype=np.int64)
    cp = np.zeros((MAX_DEPTH + 2, game.max_children), dtype=np.uint64)
    co = np.zeros_like(cp)
    keys = np.zeros_like(actions)
    if time_limit is not None:
        ready_clock()
    t0 = time.perf_counter()
    deadline = t0 + time_limit if time_limit is not None else 0.0
    nodes = 0
    best: tuple[int, tuple[int, ...], int] = (0, (int(moves[0]),), 0)
    last_iteration = 0.0
    with contextlib.ExitStack() as linked:
        stats = np.zeros(STATS_SIZE, dtype=np.int64)
        for d in range(1, max_depth + 1):
            if d == 2:  # limits apply from the second iteration on
                stats = np.zeros(STATS_SIZE, dtype=np.int64)
                if max_nodes is not None:
                    stats[NODE_LIMIT] = max(1, max_nodes - nodes)
                if stop is not None:
                    linked.enter_context(stop.link(stats, ABORTED))
            if d > 1 and time_limit is not None:
                elapsed = time.perf_counter() - t0
                if elapsed + 4.0 * last_iteration > time_limit:
                    break
            before = int(stats[NODES])
            t_it = time.perf_counter()
            score = _negamax(rules, heuristic, order, p, o, d, -_INF, _INF, 0, root_p, root_o,
                             scores, actions, cp, co, keys, stats,
                             deadline if d > 1 else 0.0)  # fmt: skip
            last_iteration = time.perf_counter() - t_it
            nodes += int(stats[NODES]) - before
            if stats[ABORTED]:
                break
            ranked = np.argsort(-scores, kind="stable")
            moves, root_p, root_o, scores = (
                moves[ranked], root_p[ranked], root_o[ranked], scores[ranked],
            )  # fmt: skip
            best = (int(score), tuple(int(a) for a in moves[scores == score]), d)
            if is_win_score(int(score)):
                # Proven within the horizon: no deeper search finds a faster win or a longer
                # defence.
                break
    score, best_moves, reached = best
    return SearchResult(score, best_moves, reached, nodes, time.perf_counter() - t0)
