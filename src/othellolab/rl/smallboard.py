"""Tabular Q-learning, SARSA and Monte Carlo control on 4x4 Othello, whole batches of games in
one Numba kernel call.

The rules are those of the agents in ``qlearning``, ``sarsa`` and ``montecarlo``. Those agents
play about 3,500 4x4 games a second in the Gymnasium env, so the millions of games that 4x4
needs would take hours; here the games, the table (open addressing on the position seen from
the side to move) and the updates run compiled, a few hundred times faster
(``benchmarks/bench_rl.py``).

Two ways to play:

- ``opponent="self"``: self-play, one table for both colours. A move's target is the negated
  value of the position it leads to, seen by the side that moves there (negamax), or the
  final score when the game ends: Q-learning then converges to the exact scores whatever the
  exploration, since every transition of the game is deterministic.
- ``opponent="random" | "greedy" | "perfect"``: the agent plays Black and White in turn
  against a fixed player (``perfect`` picks at random among the optimal moves of the full
  solution); the opponent's reply is part of the environment, and a target bootstraps from
  the agent's own next position, as in the Gymnasium env.

Rewards are the final disc difference (empties to the winner) divided by 16, as the envs'
``reward="disc_diff"``, so a learnt ``Q * 16`` can be compared with the exact scores.

>>> learner = SmallBoardLearner("q-learning", opponent="self", seed=0)
>>> learner.train(2000).episodes
2000
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from othellolab.config import check_count, check_number
from othellolab.core import Board, ConfigError
from othellolab.core.kernels import (
    _FULL,
    _INNER,
    ONE,
    U64,
    ZERO,
    _flips,
    _legal,
    popcount,
    rng_below,
    rng_next,
    rng_seed,
)
from othellolab.players.search.exact4 import (
    CELLS,
    NO_MOVE,
    SIZE,
    Grade,
    Solution4,
    greedy_from_table,
)
from othellolab.rl.tabular import EpsilonSchedule

ALGORITHMS = {"q-learning": 0, "sarsa": 1, "monte-carlo": 2}
"""The learning rules the kernel runs, by the agents' names."""

OPPONENTS = {"self": 0, "random": 1, "greedy": 2, "perfect": 3}
"""Who the agent plays: itself, or a fixed player."""

TABLE_BITS = 17
"""The table holds ``2**17`` positions: twice the 58,533 reachable ones."""

_EMPTY = U64(0)  # no position has no disc, so key 0 marks a free slot
_INNER4 = U64(_INNER[SIZE])
_FULL4 = U64(_FULL[SIZE])


@numba.njit(cache=True)
def _slot(keys: np.ndarray, key: np.uint64, bits: int) -> int:
    """The slot of ``key``, or of the free slot where it would go (-1 when the table is full)."""
    mask = (1 << bits) - 1
    h = np.int64((key * U64(0x9E3779B97F4A7C15)) >> U64(64 - bits))
    for _ in range(1 << bits):
        k = keys[h]
        if k == key or k == _EMPTY:  # noqa: SIM109 - two scalar tests in a kernel
            return h
        h = (h + 1) & mask
    return -1


@numba.njit(cache=True)
def _random_legal(legal: np.uint64, rng: np.ndarray) -> int:
    k = rng_below(rng, popcount(legal))
    for _ in range(k):
        legal &= legal - ONE
    sq = 0
    while not (legal >> U64(sq)) & ONE:
        sq += 1
    return sq


@numba.njit(cache=True)
def _best_legal(q: np.ndarray, row: int, legal: np.uint64) -> int:
    """The legal move of highest value (the lowest among ties)."""
    best, best_v = -1, -np.inf
    for sq in range(CELLS):
        if (legal >> U64(sq)) & ONE and q[row, sq] > best_v:
            best, best_v = sq, q[row, sq]
    return best


@numba.njit(cache=True)
def _greedy_opponent(p: np.uint64, o: np.uint64, legal: np.uint64, rng: np.ndarray) -> int:
    """Most discs flipped, ties at random (the registry's ``greedy``)."""
    best, count = 0, 0
    chosen = -1
    for sq in range(CELLS):
        if (legal >> U64(sq)) & ONE:
            n = popcount(_flips(p, o, sq, SIZE))
            if n > best:
                best, count, chosen = n, 1, sq
            elif n == best:
                count += 1
                if rng_below(rng, count) == 0:  # reservoir: each tied move with chance 1/count
                    chosen = sq
    return chosen


@numba.njit(cache=True)
def _perfect_opponent(
    p: np.uint64, o: np.uint64, sol_keys: np.ndarray, sol_scores: np.ndarray,
    sol_values: np.ndarray, rng: np.ndarray,
) -> int:  # fmt: skip
    """A random one of the optimal moves, from the full solution."""
    key = p | (o << U64(16))
    i = np.searchsorted(sol_keys, key)
    count, chosen = 0, -1
    for sq in range(CELLS):
        if sol_scores[i, sq] != NO_MOVE and sol_scores[i, sq] == sol_values[i]:
            count += 1
            if rng_below(rng, count) == 0:
                chosen = sq
    return chosen


@numba.njit(cache=True)
def _train_kernel(
    keys: np.ndarray, q: np.ndarray, visits: np.ndarray, bits: int, algo: int, opponent: int,
    first: int, episodes: int, eps_start: float, eps_decay: float, eps_min: float, eta: float,
    gamma: float, rng: np.ndarray, start_p: np.uint64, start_o: np.uint64, sol_keys: np.ndarray,
    sol_scores: np.ndarray, sol_values: np.ndarray, stats: np.ndarray,
) -> int:  # fmt: skip
    """Play and learn ``episodes`` games (numbered from ``first``); returns -1 if the table
    filled up, else 0. ``stats`` gains the agent's wins, draws, losses and score sum (its first
    colour's in self-play)."""
    traj_row = np.empty(64, dtype=np.int64)
    traj_act = np.empty(64, dtype=np.int64)
    traj_side = np.empty(64, dtype=np.int64)
    for e in range(first, first + episodes):
        eps = max(eps_min, eps_start * eps_decay**e)
        agent = e % 2  # the colour the agent plays against a fixed opponent (0 black)
        p, o = U64(start_p), U64(start_o)
        mover = 0
        pend_row, pend_act, pend_side = -1, -1, -1
        n_traj = 0
        while True:
            legal = _legal(p, o, SIZE, _INNER4, _FULL4)
            if legal == ZERO:
                if _legal(o, p, SIZE, _INNER4, _FULL4) == ZERO:
                    break
                p, o = o, p  # a forced pass
                mover ^= 1
                continue
            if opponent != 0 and mover != agent:
                if opponent == 1:
                    a = _random_legal(legal, rng)
                elif opponent == 2:
                    a = _greedy_opponent(p, o, legal, rng)
                else:
                    a = _perfect_opponent(p, o, sol_keys, sol_scores, sol_values, rng)
            else:
                key = p | (o << U64(16))
                row = _slot(keys, key, bits)
                if row < 0:
                    return -1
                keys[row] = key
                visits[row] += 1
                if (rng_next(rng) >> U64(11)) * (1.0 / 9007199254740992.0) < eps:
                    a = _random_legal(legal, rng)
                else:
                    a = _best_legal(q, row, legal)
                if pend_row >= 0 and algo != 2:
                    sign = 1.0 if pend_side == mover else -1.0
                    nxt = q[row, a] if algo == 1 else q[row, _best_legal(q, row, legal)]
                    q[pend_row, pend_act] += eta * (sign * gamma * nxt - q[pend_row, pend_act])
                pend_row, pend_act, pend_side = row, a, mover
                traj_row[n_traj], traj_act[n_traj], traj_side[n_traj] = row, a, mover
                n_traj += 1
            f = _flips(p, o, a, SIZE)
            p, o = o & ~f, p | f | (ONE << U64(a))
            mover ^= 1
        # the game is over: the score for the side to move (``mover``), empties to the winner
        mine, theirs = popcount(p), popcount(o)
        diff = mine - theirs
        empties = CELLS - mine - theirs
        score = diff + empties if diff > 0 else diff - empties if diff < 0 else 0
        black = score if mover == 0 else -score
        if algo == 2:
            # each side's return: its final reward, discounted once per later move of its own
            g0, g1 = black / CELLS, -black / CELLS
            seen0, seen1 = False, False
            for t in range(n_traj - 1, -1, -1):
                if traj_side[t] == 0:
                    g0 = g0 * gamma if seen0 else g0
                    seen0 = True
                    g = g0
                else:
                    g1 = g1 * gamma if seen1 else g1
                    seen1 = True
                    g = g1
                r, a = traj_row[t], traj_act[t]
                q[r, a] += eta * (g - q[r, a])
        elif pend_row >= 0:
            reward = (black if pend_side == 0 else -black) / CELLS
            q[pend_row, pend_act] += eta * (reward - q[pend_row, pend_act])
        mine_score = black if (opponent == 0 or agent == 0) else -black
        if mine_score > 0:
            stats[0] += 1
        elif mine_score == 0:
            stats[1] += 1
        else:
            stats[2] += 1
        stats[3] += mine_score
    return 0


@numba.njit(cache=True)
def _lookup_kernel(
    keys: np.ndarray, q: np.ndarray, bits: int, player: np.ndarray, opponent: np.ndarray,
    out: np.ndarray, found: np.ndarray,
) -> None:  # fmt: skip
    for i in range(player.size):
        key = U64(player[i]) | (U64(opponent[i]) << U64(16))
        row = _slot(keys, key, bits)
        if row >= 0 and keys[row] == key:
            out[i] = q[row]
            found[i] = True


@dataclass(frozen=True)
class TrainStats:
    """What a ``train`` call played: ``episodes``, the agent's wins, draws and losses (in
    self-play, Black's), its mean final score, and the CPU seconds it took."""

    episodes: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    cpu_seconds: float

    @property
    def episodes_per_second(self) -> float:
        """Training speed."""
        return self.episodes / self.cpu_seconds if self.cpu_seconds > 0 else math.inf


class SmallBoardLearner:
    """A tabular learner for 4x4 Othello: ``algorithm`` (``q-learning``, ``sarsa``,
    ``monte-carlo``) against ``opponent`` (``self``, ``random``, ``greedy``, ``perfect``), with
    step ``eta``, discount ``gamma`` (1: the game is finite, and a discount would make the
    winner hurry and the loser stall) and an ε-greedy schedule per episode. ``start`` replaces
    the start position (a 4x4 board), to study an endgame."""

    def __init__(
        self,
        algorithm: str = "q-learning",
        *,
        opponent: str = "self",
        eta: float = 0.1,
        gamma: float = 1.0,
        epsilon: EpsilonSchedule | None = None,
        seed: int = 0,
        start: Board | None = None,
        solution: Solution4 | None = None,
    ) -> None:
        where = "smallboard learner"
        if algorithm not in ALGORITHMS:
            raise ConfigError(
                f"{algorithm!r} is not one of {', '.join(ALGORITHMS)}", where=where, option="agent"
            )
        if opponent not in OPPONENTS:
            raise ConfigError(
                f"{opponent!r} is not one of {', '.join(OPPONENTS)}", where=where, option="opponent"
            )
        self.algorithm, self.opponent = algorithm, opponent
        self.eta = check_number(eta, "eta", where=where, low=0.0, high=1.0, low_open=True)
        self.gamma = check_number(gamma, "gamma", where=where, low=0.0, high=1.0)
        self.epsilon = epsilon if epsilon is not None else EpsilonSchedule(0.5, 1.0, 0.5)
        self.seed = check_count(seed, "seed", where=where, low=0)
        start = start if start is not None else Board(size=SIZE)
        if start.size != SIZE:
            raise ConfigError(
                f"must be a 4x4 board, got {start.size}x{start.size}", where=where, option="start"
            )
        self.start = start
        self._solution = solution
        self.keys = np.zeros(1 << TABLE_BITS, dtype=np.uint64)
        self.q = np.zeros((1 << TABLE_BITS, CELLS), dtype=np.float64)
        self.visits = np.zeros(1 << TABLE_BITS, dtype=np.int64)
        self.episodes = 0
        self._rng = rng_seed(self.seed)

    @property
    def solution(self) -> Solution4:
        """The full 4x4 solution (built on first use: about a second)."""
        if self._solution is None:
            self._solution = Solution4.build()
        return self._solution

    def __len__(self) -> int:
        """Positions in the table."""
        return int((self.keys != _EMPTY).sum())

    def train(self, episodes: int) -> TrainStats:
        """Play and learn ``episodes`` more games."""
        episodes = check_count(episodes, "episodes", where="smallboard learner", low=0)
        if self.opponent == "perfect":
            sol = self.solution
            sol_keys, sol_scores, sol_values = sol.keys, sol.move_scores, sol.values
        else:
            sol_keys = np.zeros(1, dtype=np.uint64)
            sol_scores = np.zeros((1, CELLS), dtype=np.int8)
            sol_values = np.zeros(1, dtype=np.int8)
        stats = np.zeros(4, dtype=np.int64)
        eps = self.epsilon
        t0 = time.process_time()
        status = _train_kernel(
            self.keys, self.q, self.visits, TABLE_BITS, ALGORITHMS[self.algorithm],
            OPPONENTS[self.opponent], self.episodes, episodes, eps.start, eps.decay, eps.minimum,
            self.eta, self.gamma, self._rng, U64(self.start.player), U64(self.start.opponent),
            sol_keys, sol_scores, sol_values, stats,
        )  # fmt: skip
        seconds = time.process_time() - t0
        if status < 0:  # pragma: no cover - the table has room for every reachable position
            raise RuntimeError("the position table is full")
        self.episodes += episodes
        return TrainStats(
            episodes,
            int(stats[0]),
            int(stats[1]),
            int(stats[2]),
            float(stats[3]) / max(episodes, 1),
            seconds,
        )

    def lookup(self, player: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(Q rows (n, 16), found (n,))`` of positions given by arrays of bitboards."""
        player = np.ascontiguousarray(player, dtype=np.uint64)
        opponent = np.ascontiguousarray(opponent, dtype=np.uint64)
        out = np.zeros((player.size, CELLS), dtype=np.float64)
        found = np.zeros(player.size, dtype=np.bool_)
        _lookup_kernel(self.keys, self.q, TABLE_BITS, player, opponent, out, found)
        return out, found

    def q_values(self, board: Board) -> np.ndarray | None:
        """The learnt values of the 16 squares in ``board`` (``None`` if never visited)."""
        q, found = self.lookup(np.array([board.player]), np.array([board.opponent]))
        return q[0] if found[0] else None

    def choose(self) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The greedy policy over arrays of positions, as ``Solution4.grade`` takes it."""
        return greedy_from_table(self.lookup)

    def grade(self) -> Grade:
        """The greedy policy graded against the exact 4x4 solution."""
        return self.solution.grade(self.choose())
