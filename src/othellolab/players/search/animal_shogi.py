"""Material alpha-beta for animal shogi: iterative-deepening negamax over the rules' kernels
(``core.animal_shogi``), compiled with Numba; ``players.shogi_alphabeta`` is its player.

Scores are integers from the side to move: the material balance (``MATERIAL``, hands
included) at the leaves, ``WIN - plies`` for a game won ``plies`` plies below the root (so
faster wins score higher), ``-(WIN - plies)`` for a loss, 0 for a draw (the 300-ply rule). The
repetition rule (optional, Python level only) is not seen by the search.

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

import numba
import numpy as np

from othellolab.core import Stop
from othellolab.core import animal_shogi as _rules
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.players.search.state import ABORTED, NODE_LIMIT, NODES, STATS_SIZE, count_node

__all__ = [
    "MATERIAL",
    "MAX_DEPTH",
    "WIN",
    "ShogiSearchResult",
    "evaluate",
    "is_win_score",
    "search",
]

MATERIAL = {"chick": 1, "elephant": 3, "giraffe": 4, "hen": 5}
"""Piece values in chicks, on the board or in hand alike (the lion is priceless: its capture
ends the game). The elephant and the giraffe both step one square in four directions, but the
giraffe's orthogonal steps reach more squares of the 3 x 4 board (2.8 on average, against the
elephant's 2.0) and are not bound to one colour of squares; the hen steps in six directions,
and when captured it goes to hand as a mere chick, so taking one swings 5 + 1, less than a
giraffe's 4 + 4."""

WIN = 10_000
"""The score of a won game at the root; a win ``k`` plies below it scores ``WIN - k``."""

MAX_DEPTH = 64
"""Deepest iteration the search runs (the player's own ``depth`` option stops at 12)."""

_INF = 1 << 30
_U64 = np.uint64
_NIBBLE = _U64(15)

# _VALUE[code]: a piece code's material from the side to move (codes 1..5 own, 9..13 the
# opponent's: chick, elephant, giraffe, lion, hen); the lion counts 0.
_VALUE = np.zeros(16, dtype=np.int64)
for _code, _name in ((1, "chick"), (2, "elephant"), (3, "giraffe"), (5, "hen")):
    _VALUE[_code] = MATERIAL[_name]
    _VALUE[_code + 8] = -MATERIAL[_name]
# _HAND[i]: value of one piece of the i-th 2-bit hand counter (own chick, elephant, giraffe,
# then the opponent's).
_HAND = np.array(
    [MATERIAL[n] for n in ("chick", "elephant", "giraffe")]
    + [-MATERIAL[n] for n in ("chick", "elephant", "giraffe")],
    dtype=np.int64,
)
# Move-ordering key of a capture of each opponent piece code: the lion first, then by value.
_VICTIM = np.zeros(16, dtype=np.int64)
for _code, _key in ((9, 10), (10, 30), (11, 40), (12, 1000), (13, 50)):
    _VICTIM[_code] = _key


def is_win_score(score: int) -> bool:
    """Whether a search score is a proven win or loss (not material)."""
    return abs(score) > WIN - 1000


@numba.njit(cache=True, nogil=True)
def _evaluate(p: np.uint64) -> int:
    """Material from the side to move: its pieces on the board and in hand, less the
    opponent's."""
    total = 0
    for sq in range(12):
        total += _VALUE[(p >> _U64(4 * sq)) & _NIBBLE]
    for h in range(6):
        total += _HAND[h] * np.int64((p >> _U64(48 + 2 * h)) & _U64(3))
    return total


def evaluate(position: AnimalShogi) -> int:
    """The material balance of ``position`` for its side to move (``MATERIAL``)."""
    return int(_evaluate(_U64(position.state[0])))


@numba.njit(cache=True, nogil=True)
def _order(p: np.uint64, actions: np.ndarray, keys: np.ndarray, n: int) -> None:
    """Sort ``actions[:n]`` in place, captures first (the lion's, then by the victim's value),
    promotions next, then the rest in their generated order."""
    for i in range(n):
        a = actions[i]
        dest = a // 11
        k = a % 11
        key = 0
        if k < 8:
            key = _VICTIM[(p >> _U64(4 * dest)) & _NIBBLE] * 4
            if k == 0 and dest < 3 and (p >> _U64(4 * dest + 12)) & _NIBBLE == _U64(1):
                key += 20  # a chick moving up onto the farthest row promotes
        keys[i] = key
    for i in range(1, n):  # insertion sort, stable, descending keys
        a = actions[i]
        key = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < key:
            actions[j + 1] = actions[j]
            keys[j + 1] = keys[j]
            j -= 1
        actions[j + 1] = a
        keys[j + 1] = key


@numba.njit(cache=True, nogil=True)
def _negamax(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    root_moves: np.ndarray,
    root_scores: np.ndarray,
    actions: np.ndarray,
    keys: np.ndarray,
    stats: np.ndarray,
    deadline: float,
) -> int:
    """Fail-soft alpha-beta to ``depth`` plies; ``ply`` is the distance from the root.

    At the root (``ply == 0``) the moves are ``root_moves`` in that order, and each one's score
    goes to ``root_scores``: exact for every move at least as good as the best, an upper bound
    below the best for the others (window ``(best - 1, beta)``, so that all equally good moves
    are found). The root is a branch of this one function, with a single recursive call:
    Numba's cache crashed loading a search that called itself from two places, or that was
    called by another compiled function (numba 0.68.1)."""
    if count_node(stats, deadline):
        return 0
    root = ply == 0
    if root:
        n = root_moves.shape[0]
    else:
        r = _rules.result(p, o)
        if r == 1:
            return WIN - ply
        if r == -1:
            return ply - WIN
        if r == 0:
            return 0
        if depth <= 0:
            return _evaluate(p)
        n = _rules.legal_actions(p, o, actions[ply])
        _order(p, actions[ply], keys[ply], n)
    best = -_INF
    for i in range(n):
        a = root_moves[i] if root else actions[ply, i]
        low = best - 1 if root else max(alpha, best)
        q, o2 = _rules.step(p, o, a)
        s = -_negamax(q, o2, depth - 1, -beta, -low, ply + 1, root_moves, root_scores, actions,
                      keys, stats, deadline)  # fmt: skip
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
class ShogiSearchResult:
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
    position: AnimalShogi,
    *,
    depth: int | None = None,
    time_limit: float | None = None,
    max_nodes: int | None = None,
    stop: Stop | None = None,
) -> ShogiSearchResult:
    """Iterative-deepening negamax of ``position`` to ``depth`` plies (``MAX_DEPTH`` at most;
    4 when no limit is given), within ``time_limit`` seconds and ``max_nodes`` nodes.

    The first iteration (one ply) always finishes; a later one is not started when it would
    likely overrun the time, and one that passes the deadline, the node limit or ``stop``
    (set from another thread) is dropped: the result is the deepest finished iteration's. Each
    iteration searches the root moves best first by the previous one's scores, and the search
    ends early once the best move is a proven win or every move a proven loss.
    """
    legal = position.legal_actions()
    if not legal:
        raise ValueError(f"no legal move: the game is over\n{position}")
    if depth is None and time_limit is None and max_nodes is None:
        depth = 4
    max_depth = max(1, min(depth if depth is not None else MAX_DEPTH, MAX_DEPTH))
    p, o = (_U64(x) for x in position.state)
    moves = np.array(legal, dtype=np.int64)
    scores = np.zeros(len(legal), dtype=np.int64)
    actions = np.zeros((MAX_DEPTH + 2, _rules.MAX_LEGAL_ACTIONS), dtype=np.int64)
    keys = np.zeros_like(actions)
    t0 = time.perf_counter()
    deadline = t0 + time_limit if time_limit is not None else 0.0
    nodes = 0
    best: tuple[int, tuple[int, ...], int] = (0, (legal[0],), 0)
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
            score = _negamax(p, o, d, -_INF, _INF, 0, moves, scores, actions, keys, stats,
                             deadline if d > 1 else 0.0)  # fmt: skip
            last_iteration = time.perf_counter() - t_it
            nodes += int(stats[NODES]) - before
            if stats[ABORTED]:
                break
            order = np.argsort(-scores, kind="stable")
            moves, scores = moves[order], scores[order]
            best = (int(score), tuple(int(a) for a in moves[scores == score]), d)
            if is_win_score(int(score)):
                # Proven within the horizon: no deeper search finds a faster win or a longer
                # defence.
                break
    score, best_moves, reached = best
    return ShogiSearchResult(score, best_moves, reached, nodes, time.perf_counter() - t0)
