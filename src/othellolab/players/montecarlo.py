"""Flat Monte Carlo: random playouts after each legal move, play the move with the best average.

The classic first Othello AI: for every legal move, play uniformly random games to the end and
keep the move whose playouts win most often. An epsilon-greedy schedule spends the budget
unevenly: after a short warm-up that gives every move the same few playouts, each further
playout goes to the move with the best win rate so far (probability ``1 - epsilon``) or to a
uniformly random move (probability ``epsilon``). ``epsilon=1`` is the plain uniform schedule.
The playouts of one decision run in compiled chunks of ``_CHUNK``, so that a deadline or a stop
request is seen within a few milliseconds; chunking does not change the schedule.
"""

from __future__ import annotations

import time as _time
from typing import ClassVar

import numpy as np

from othellolab.config.options import SEED, Option, checked_options
from othellolab.core import Board, Limit, PlayResult, Score
from othellolab.core import kernels as _k
from othellolab.core.numba_kernel import kernel
from othellolab.players.base import Player

_CHUNK = 256
"""Playouts per kernel call between two looks at the clock and the stop signal (a few ms on
8x8)."""


@kernel
def _uniform01(state: np.ndarray) -> float:
    return (_k.rng_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def montecarlo_playouts(
    p: int,
    o: int,
    actions: np.ndarray,
    counts: np.ndarray,
    wins: np.ndarray,
    discs: np.ndarray,
    budget: int,
    warmup: int,
    epsilon: float,
    state: np.ndarray,
    size: int = 8,
) -> None:
    """Add ``budget`` random playouts to the per-action statistics of position ``(p, o)``.

    ``counts``, ``wins`` (1 per win, 0.5 per draw) and ``discs`` (sum of final disc differences)
    are indexed like ``actions`` and are updated in place, from the point of view of the side
    to move in ``(p, o)``; calling again continues the same schedule.
    """
    p = np.uint64(p)
    o = np.uint64(o)
    n = actions.shape[0]
    npass = size * size
    cp = np.empty(n, dtype=np.uint64)
    co = np.empty(n, dtype=np.uint64)
    for i in range(n):
        a = actions[i]
        if a == npass:
            cp[i] = o
            co[i] = p
        else:
            f = _k.flip_mask(p, o, a, size)
            cp[i] = o & ~f
            co[i] = p | f | (np.uint64(1) << np.uint64(a))
    for _ in range(budget):
        arm = -1
        for j in range(n):
            if counts[j] < warmup:
                arm = j
                break
        if arm < 0:
            if _uniform01(state) < epsilon:
                arm = np.int64(_k.rng_below(state, n))
            else:
                best = -1.0
                for j in range(n):
                    rate = wins[j] / counts[j]
                    if rate > best:
                        best = rate
                        arm = j
        s = -_k.random_playout(cp[arm], co[arm], state, size)
        counts[arm] += 1
        discs[arm] += s
        if s > 0:
            wins[arm] += 1.0
        elif s == 0:
            wins[arm] += 0.5


class MonteCarloPlayer(Player):
    """Flat Monte Carlo with an epsilon-greedy playout schedule (``playouts`` per legal move).

    The move played has the best win rate (draws count half), ties broken by the mean final
    disc difference. The policy is each move's share of the playouts; the score is the chosen
    move's mean final disc difference and win rate, for the side to move. ``Limit.simulations``
    sets the total playout budget and ``Limit.time`` a thinking time instead.
    """

    name = "montecarlo"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "playouts": Option(int, 1, 1_000_000, help="playouts per legal move"),
        "epsilon": Option(float, 0.0, 1.0, help="share of playouts spent on random moves"),
        "seed": SEED,
    }

    @checked_options
    def __init__(self, *, playouts: int = 150, epsilon: float = 0.2, seed: int | None = None):
        self.playouts = int(playouts)
        self.epsilon = float(epsilon)
        self.seed = seed
        self._state = _k.rng_seed(int(np.random.default_rng(seed).integers(2**63)))

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = board.legal_actions()
        if not actions:
            raise ValueError(f"montecarlo: no legal move, the game is over at {board.obf()}")
        acts = np.array(actions, dtype=np.int64)
        n = len(actions)
        counts = np.zeros(n, dtype=np.int64)
        wins = np.zeros(n, dtype=np.float64)
        discs = np.zeros(n, dtype=np.float64)
        limit = limit or Limit()
        budget: int | None = self.playouts * n
        seconds = None
        if limit.simulations is not None:
            budget = max(int(limit.simulations), 1)
        elif limit.time is not None:
            budget, seconds = None, limit.time
        warmup = max(1, min(self.playouts, (budget or self.playouts * n) // n) // 10)
        budget = limit.capped_nodes(budget)
        budget = None if budget is None else max(1, budget)
        seconds = limit.capped_time(seconds)
        args = (board.player, board.opponent, acts, counts, wins, discs)
        t0 = _time.perf_counter()
        deadline = None if seconds is None else t0 + seconds
        done = 0
        while budget is None or done < budget:
            chunk = _CHUNK if budget is None else min(_CHUNK, budget - done)
            montecarlo_playouts(*args, chunk, warmup, self.epsilon, self._state, board.size)
            done += chunk
            if (deadline is not None and _time.perf_counter() >= deadline) or limit.stopped():
                break
        elapsed = _time.perf_counter() - t0
        seen = np.maximum(counts, 1)
        rate = wins / seen
        mean = discs / seen
        best = max(range(n), key=lambda i: (counts[i] > 0, rate[i], mean[i]))
        policy = np.zeros(board.pass_action + 1, dtype=np.float32)
        policy[acts] = counts / counts.sum()
        total = int(counts.sum())
        return PlayResult(
            actions[best],
            policy=policy,
            score=Score(float(mean[best]), win_prob=float(rate[best])),
            info={
                "playouts": total,
                "playouts_per_move": dict(zip(actions, counts.tolist(), strict=True)),
                "win_rates": dict(zip(actions, rate.tolist(), strict=True)),
                "seconds": elapsed,
                "playouts_per_second": total / elapsed if elapsed > 0 else float("inf"),
            },
        )
