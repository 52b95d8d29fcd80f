"""Monte Carlo tree search (UCT and AlphaZero's PUCT) over any ``Evaluator``.

The tree lives in one numpy structured array (one row per node, children of a node in a
contiguous block), walked by compiled kernels: ``select`` descends from the root to a batch of
leaves (with virtual loss, so that one batch spreads over different leaves), the evaluator
scores those leaves in one batched call, and ``expand_backup`` adds their children and backs the
values up. The tree code never looks inside the evaluator, so random rollouts and networks
search the same way. Finished games are never evaluated: a terminal node's value is the sign of
its final score, exactly. A pass is an ordinary edge (action ``size*size``).

Selection: with an evaluator whose priors are uniform (``has_priors`` False) the rule is UCT,
``Q + c * sqrt(ln N / n)`` with unvisited children first; with informative priors it is PUCT,
``Q + c * P * sqrt(N) / (1 + n)`` with ``Q = 0`` for unvisited children. ``Q`` is always from the
point of view of the side choosing.
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from othellolab.core import Board, Limit, PlayResult, Score, Stop
from othellolab.core import kernels as _k
from othellolab.core.numba_kernel import kernel
from othellolab.players.base import Player
from othellolab.players.evaluators import Evaluator, RandomRolloutEvaluator
from othellolab.players.options import SEED, Option, checked_options

__all__ = ["MCTS", "NODE_DTYPE", "MCTSPlayer", "SearchResult"]

_F32 = np.dtype(np.float32)

C_UCT = 1.0
"""Default exploration constant of UCT with values in [-1, 1]."""
C_PUCT = 1.5
"""Default exploration constant of PUCT (AlphaZero used values near 1.25-2.5)."""

NODE_DTYPE = np.dtype(
    [
        ("p", np.uint64),  # discs of the side to move at this node
        ("o", np.uint64),  # discs of its opponent
        ("w", np.float64),  # summed values, from the view of the side that moved into the node
        ("parent", np.int32),
        ("first", np.int32),  # index of the first child, -1 while unexpanded
        ("n", np.int32),  # visits
        ("vl", np.int32),  # virtual losses of simulations under way through this node
        ("prior", np.float32),
        ("tvalue", np.float32),  # exact value for the side to move when terminal
        ("action", np.int16),  # the action that led here from the parent
        ("nchild", np.int16),
        ("terminal", np.int8),
    ],
    align=True,
)
"""One tree node; the tree is a 1-D array of these with the root at index 0."""


@kernel
def _new_node(
    nodes: np.ndarray,
    meta: np.ndarray,
    p: int,
    o: int,
    parent: int,
    action: int,
    prior: float,
    size: int,
) -> int:
    i = meta[0]
    meta[0] = i + 1
    nd = nodes[i]
    nd.p = p
    nd.o = o
    nd.w = 0.0
    nd.parent = parent
    nd.first = -1
    nd.n = 0
    nd.vl = 0
    nd.prior = prior
    nd.action = action
    nd.nchild = 0
    nd.terminal = 0
    nd.tvalue = 0.0
    if _k.legal_mask(p, o, size) == np.uint64(0) and _k.legal_mask(o, p, size) == np.uint64(0):
        s = _k.final_score(p, o, size)
        nd.terminal = 1
        nd.tvalue = 1.0 if s > 0 else (-1.0 if s < 0 else 0.0)
    return i


@kernel
def _best_child(nodes: np.ndarray, node: int, c: float, use_prior: bool) -> int:
    first = nodes[node].first
    total = nodes[node].n + nodes[node].vl
    scale = math.sqrt(total) if use_prior else math.log(max(total, 1))
    best = -np.inf
    arg = first
    for j in range(first, first + nodes[node].nchild):
        nv = nodes[j].n + nodes[j].vl
        if use_prior:
            q = (nodes[j].w - nodes[j].vl) / nv if nv > 0 else 0.0
            s = q + c * nodes[j].prior * scale / (1 + nv)
        else:
            if nv == 0:
                return j
            s = (nodes[j].w - nodes[j].vl) / nv + c * math.sqrt(scale / nv)
        if s > best:
            best = s
            arg = j
    return arg


@kernel
def select_leaves(
    nodes: np.ndarray,
    root: int,
    leaves: np.ndarray,
    player: np.ndarray,
    opponent: np.ndarray,
    c: float,
    use_prior: bool,
) -> int:
    """Descend from ``root`` once per slot of ``leaves``, adding a virtual loss along each path.

    A leaf is an unexpanded or terminal node. The positions of the non-terminal leaves go, in
    order, to the front of ``player``/``opponent``; returns how many there are. The same leaf
    may come back twice in one batch when nothing else is worth visiting.
    """
    n_open = 0
    for b in range(leaves.shape[0]):
        node = root
        while True:
            nodes[node].vl += 1
            if nodes[node].terminal or nodes[node].first < 0:
                break
            node = _best_child(nodes, node, c, use_prior)
        leaves[b] = node
        if not nodes[node].terminal:
            player[n_open] = nodes[node].p
            opponent[n_open] = nodes[node].o
            n_open += 1
    return n_open


@kernel
def _expand(nodes: np.ndarray, meta: np.ndarray, leaf: int, prior: np.ndarray, size: int) -> None:
    p = nodes[leaf].p
    o = nodes[leaf].o
    moves = _k.legal_mask(p, o, size)
    first = meta[0]
    if moves == np.uint64(0):
        _new_node(nodes, meta, o, p, leaf, size * size, 1.0, size)
        count = 1
    else:
        total = 0.0
        count = 0
        for sq in range(size * size):
            if moves & (np.uint64(1) << np.uint64(sq)):
                total += prior[sq]
                count += 1
        for sq in range(size * size):
            bit = np.uint64(1) << np.uint64(sq)
            if moves & bit:
                pr = prior[sq] / total if total > 0 else 1.0 / count
                f = _k.flip_mask(p, o, sq, size)
                _new_node(nodes, meta, o & ~f, p | f | bit, leaf, sq, pr, size)
    nodes[leaf].first = first
    nodes[leaf].nchild = count


@kernel
def expand_backup(
    nodes: np.ndarray,
    meta: np.ndarray,
    leaves: np.ndarray,
    priors: np.ndarray,
    values: np.ndarray,
    size: int,
) -> None:
    """Expand each evaluated leaf and back its value up to the root, removing virtual losses.

    ``priors`` and ``values`` hold one row per non-terminal leaf, in order (as
    ``select_leaves`` listed them); values are from the view of the side to move at the leaf.
    Terminal leaves take their exact value.
    """
    k = 0
    for b in range(leaves.shape[0]):
        leaf = leaves[b]
        if nodes[leaf].terminal:
            v = np.float64(nodes[leaf].tvalue)
        else:
            v = np.float64(values[k])
            if nodes[leaf].first < 0:
                _expand(nodes, meta, leaf, priors[k], size)
            k += 1
        node = leaf
        while node >= 0:
            nodes[node].vl -= 1
            nodes[node].n += 1
            nodes[node].w -= v
            v = -v
            node = nodes[node].parent


@kernel
def _find_position(nodes: np.ndarray, root: int, p: int, o: int, depth: int) -> int:
    """Index of a node with position ``(p, o)`` at most ``depth`` plies below ``root``, or -1."""
    frontier = np.empty(1, dtype=np.int64)
    frontier[0] = root
    for d in range(depth + 1):
        for i in frontier:
            if nodes[i].p == p and nodes[i].o == o:
                return i
        if d == depth:
            break
        size = 0
        for i in frontier:
            if nodes[i].first >= 0:
                size += nodes[i].nchild
        nxt = np.empty(size, dtype=np.int64)
        k = 0
        for i in frontier:
            if nodes[i].first >= 0:
                for j in range(nodes[i].first, nodes[i].first + nodes[i].nchild):
                    nxt[k] = j
                    k += 1
        frontier = nxt
    return -1


@kernel
def _copy_node(dst: np.ndarray, j: int, src: np.ndarray, i: int, parent: int) -> None:
    a = dst[j]
    b = src[i]
    a.p = b.p
    a.o = b.o
    a.w = b.w
    a.parent = parent
    a.first = -1
    a.n = b.n
    a.vl = b.vl
    a.prior = b.prior
    a.tvalue = b.tvalue
    a.action = b.action
    a.nchild = b.nchild
    a.terminal = b.terminal


@kernel
def _extract_subtree(nodes: np.ndarray, root: int, out: np.ndarray) -> int:
    """Copy the subtree under ``root`` into ``out`` (root at 0, blocks kept); return its size."""
    src = np.empty(out.shape[0], dtype=np.int64)
    _copy_node(out, 0, nodes, root, -1)
    src[0] = root
    count = 1
    j = 0
    while j < count:
        old = src[j]
        first = nodes[old].first
        if first >= 0:
            out[j].first = count
            for t in range(nodes[old].nchild):
                _copy_node(out, count, nodes, first + t, j)
                src[count] = first + t
                count += 1
        j += 1
    return count


@dataclass(frozen=True)
class SearchResult:
    """What one search found at the root, from the point of view of the side to move there.

    ``visits``, ``q`` and ``priors`` are indexed by action (``size*size + 1``, pass last);
    ``q`` is NaN for actions never visited; ``value`` is the visit-weighted root value;
    ``legal`` marks the root's actions.
    """

    legal: np.ndarray
    visits: np.ndarray
    q: np.ndarray
    priors: np.ndarray
    value: float
    simulations: int
    nodes: int
    seconds: float
    info: dict[str, Any] = field(default_factory=dict)

    def policy(self, temperature: float = 1.0) -> np.ndarray:
        """Visit counts raised to ``1/temperature`` and normalised; ``0`` puts all on the best."""
        visits = self.visits.astype(np.float64)
        if visits.max() <= 0:
            return (self.legal / self.legal.sum()).astype(np.float32)
        if temperature <= 0:
            out = np.zeros_like(visits)
            out[self.best_action()] = 1.0
            return out.astype(np.float32)
        weights = (visits / visits.max()) ** (1.0 / temperature)
        return (weights / weights.sum()).astype(np.float32)

    def best_action(self) -> int:
        """The most visited action, ties broken by the higher ``q``."""
        q = np.nan_to_num(self.q, nan=-np.inf)
        visits = np.where(self.legal, self.visits, -1)
        order = np.lexsort((-q, -visits))
        return int(order[0])


class MCTS:
    """A search tree for one game that can be searched, and kept between moves.

    ``search(board)`` reuses the subtree of ``board`` when it lies at most two plies below the
    previous root (our move and the reply, or the same position again), so the visits already
    spent there count. ``batch`` leaves are evaluated per evaluator call with virtual loss;
    ``dirichlet_alpha > 0`` mixes Dirichlet noise into the root priors (for self-play).
    """

    def __init__(
        self,
        evaluator: Evaluator | None = None,
        *,
        c: float | None = None,
        batch: int = 1,
        dirichlet_alpha: float = 0.0,
        dirichlet_epsilon: float = 0.25,
        reuse: bool = True,
        seed: int | None = None,
    ) -> None:
        if not isinstance(batch, int) or batch < 1:
            raise ValueError(f"MCTS: batch must be a positive integer, got {batch!r}")
        if not (0 <= dirichlet_alpha < math.inf and 0 <= dirichlet_epsilon <= 1):
            raise ValueError(
                f"MCTS: need dirichlet_alpha >= 0 and 0 <= dirichlet_epsilon <= 1, got "
                f"{dirichlet_alpha} and {dirichlet_epsilon}"
            )
        seeds = np.random.SeedSequence(seed).spawn(2)
        if evaluator is None:
            evaluator = RandomRolloutEvaluator(seed=int(seeds[0].generate_state(1)[0]))
        if not isinstance(evaluator, Evaluator):
            raise TypeError(f"MCTS: {evaluator!r} is not an Evaluator (needs evaluate, has_priors)")
        self.evaluator = evaluator
        self.use_prior = bool(evaluator.has_priors)
        self.c = float(c if c is not None else (C_PUCT if self.use_prior else C_UCT))
        if not 0 <= self.c < math.inf:
            raise ValueError(f"MCTS: c must be a non-negative finite number, got {c}")
        self.batch = batch
        self.dirichlet_alpha = float(dirichlet_alpha)
        self.dirichlet_epsilon = float(dirichlet_epsilon)
        self.reuse = reuse
        self.rng = np.random.default_rng(seeds[1])
        self._nodes = np.zeros(0, dtype=NODE_DTYPE)
        self._meta = np.zeros(1, dtype=np.int64)
        self._size = 0
        self._buffers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------------------------------

    @property
    def nodes(self) -> np.ndarray:
        """The nodes of the current tree (a read-only view; the root is row 0)."""
        view = self._nodes[: self._meta[0]]
        view.flags.writeable = False
        return view

    def reset(self) -> None:
        """Forget the tree."""
        self._nodes = np.zeros(0, dtype=NODE_DTYPE)
        self._meta[0] = 0
        self._size = 0

    def _ensure_capacity(self, extra: int) -> None:
        need = int(self._meta[0]) + extra
        if need > len(self._nodes):
            grown = np.zeros(max(need, 2 * len(self._nodes), 4096), dtype=NODE_DTYPE)
            grown[: self._meta[0]] = self._nodes[: self._meta[0]]
            self._nodes = grown

    def _set_root(self, board: Board) -> bool:
        """Make ``board`` the root, keeping its subtree when it is known; True if reused."""
        if self.reuse and self._size == board.size and self._meta[0] > 0:
            found = _find_position(self._nodes, 0, board.player, board.opponent, 2)
            if found == 0:
                return True
            if found > 0:
                out = np.zeros(max(len(self._nodes), 4096), dtype=NODE_DTYPE)
                self._meta[0] = _extract_subtree(self._nodes, found, out)
                self._nodes = out
                return True
        self._size = board.size
        self._meta[0] = 0
        self._ensure_capacity(4096)
        _new_node(self._nodes, self._meta, board.player, board.opponent, -1, -1, 1.0, board.size)
        return False

    def _run(self, count: int) -> None:
        self._ensure_capacity(count * self._size * self._size)
        buffers = self._buffers.get(count)
        if buffers is None:
            buffers = self._buffers[count] = (
                np.empty(count, dtype=np.int64),
                np.empty(count, dtype=np.uint64),
                np.empty(count, dtype=np.uint64),
            )
        leaves, player, opponent = buffers
        n_open = select_leaves(self._nodes, 0, leaves, player, opponent, self.c, self.use_prior)
        if n_open == count:
            priors, values = self.evaluator.evaluate(player, opponent, self._size)
        elif n_open:
            priors, values = self.evaluator.evaluate(
                player[:n_open].copy(), opponent[:n_open].copy(), self._size
            )
        else:
            priors = np.zeros((0, self._size * self._size + 1), dtype=np.float32)
            values = np.zeros(0, dtype=np.float32)
        if priors.dtype != _F32 or values.dtype != _F32 or not priors.flags.c_contiguous:
            priors = np.ascontiguousarray(priors, dtype=_F32)
            values = np.ascontiguousarray(values, dtype=_F32)
        if priors.shape != (n_open, self._size * self._size + 1) or values.shape != (n_open,):
            raise ValueError(
                f"MCTS: {self.evaluator!r} returned priors of shape {priors.shape} and values of "
                f"shape {values.shape} for {n_open} positions of size {self._size}; expected "
                f"({n_open}, {self._size * self._size + 1}) and ({n_open},)"
            )
        expand_backup(self._nodes, self._meta, leaves, priors, values, self._size)

    def _add_noise(self) -> None:
        root = self._nodes[0]
        first, k = int(root["first"]), int(root["nchild"])
        if k < 2:
            return
        noise = self.rng.dirichlet(np.full(k, self.dirichlet_alpha))
        priors = self._nodes["prior"]
        mixed = (1 - self.dirichlet_epsilon) * priors[first : first + k]
        priors[first : first + k] = mixed + self.dirichlet_epsilon * noise

    def search(
        self,
        board: Board,
        *,
        simulations: int | None = None,
        time: float | None = None,
        stop: Stop | None = None,
    ) -> SearchResult:
        """Run ``simulations`` new simulations (default 1000), or search for ``time`` seconds,
        whichever ends first when both are given; ``stop`` ends the search early from another
        thread (after the batch in flight)."""
        if board.is_game_over():
            raise ValueError(f"MCTS: the game is over at {board.obf()}, nothing to search")
        if simulations is None and time is None:
            simulations = 1000
        t0 = _time.perf_counter()
        deadline = None if time is None else t0 + time
        target = simulations if simulations is not None else None
        reused = self._set_root(board)
        reused_visits = int(self._nodes[0]["n"])
        done = 0
        if self._nodes[0]["first"] < 0:
            self._run(1)
            done = 1
        if self.dirichlet_alpha > 0:
            self._add_noise()
        while True:
            if target is not None:
                left = target - done
                if left <= 0:
                    break
                step = min(self.batch, left)
            else:
                step = self.batch
            self._run(step)
            done += step
            if deadline is not None and _time.perf_counter() >= deadline:
                break
            if stop is not None and stop.is_set():
                break
        seconds = _time.perf_counter() - t0
        return self._result(done, seconds, {"reused": reused, "reused_visits": reused_visits})

    def _result(self, simulations: int, seconds: float, info: dict[str, Any]) -> SearchResult:
        n_actions = self._size * self._size + 1
        root = self._nodes[0]
        first, k = int(root["first"]), int(root["nchild"])
        children = self._nodes[first : first + k]
        actions = children["action"].astype(np.int64)
        legal = np.zeros(n_actions, dtype=bool)
        legal[actions] = True
        visits = np.zeros(n_actions, dtype=np.int64)
        visits[actions] = children["n"]
        q = np.full(n_actions, np.nan)
        seen = children["n"] > 0
        q[actions[seen]] = children["w"][seen] / children["n"][seen]
        priors = np.zeros(n_actions, dtype=np.float32)
        priors[actions] = children["prior"]
        total = int(children["n"].sum())
        value = float(children["w"].sum() / total) if total else 0.0
        return SearchResult(
            legal=legal,
            visits=visits,
            q=q,
            priors=priors,
            value=value,
            simulations=simulations,
            nodes=int(self._meta[0]),
            seconds=seconds,
            info=info,
        )


class MCTSPlayer(Player):
    """MCTS behind the ``Player`` interface: random-rollout UCT unless given an evaluator.

    ``sims`` new simulations per move (or ``time`` seconds when set; a ``Limit`` overrides
    both), ``c`` the exploration constant (UCT 1.0, PUCT 1.5 by default), ``playouts`` random
    games per leaf for the default evaluator, ``batch`` leaves per evaluator call,
    ``temperature`` 0 to play the most visited move or > 0 to sample from visits^(1/T),
    ``dirichlet`` the root-noise alpha (0 = off), ``reuse`` to keep the tree between moves.
    The policy returned is the visit distribution at the root (the AlphaZero training target);
    the score's ``value`` and ``win_prob`` are the chosen move's expected result in [-1, 1]
    and its mapping to [0, 1] (draws half), not a disc count.
    """

    name = "mcts"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "sims": Option(int, 1, 10_000_000, help="simulations per move"),
        "time": Option(float, 0.001, 3600, optional=True, unit="seconds", help="time per move"),
        "c": Option(float, 0, 100, optional=True, help="exploration constant"),
        "seed": SEED,
        "playouts": Option(int, 1, 10_000, help="random playouts per leaf (default evaluator)"),
        "batch": Option(int, 1, 4096, help="leaves per evaluator call"),
        "temperature": Option(float, 0, 100, help="0: most visited move; > 0: sample"),
        "dirichlet": Option(float, 0, 100, help="root-noise alpha (0 = off)"),
        "reuse": Option(bool, help="keep the tree between moves"),
        "evaluator": Option(object, optional=True, spec=False, help="an Evaluator (Python only)"),
    }

    @checked_options
    def __init__(
        self,
        *,
        sims: int = 1000,
        time: float | None = None,
        c: float | None = None,
        seed: int | None = None,
        playouts: int = 1,
        batch: int = 1,
        temperature: float = 0.0,
        dirichlet: float = 0.0,
        reuse: bool = True,
        evaluator: Evaluator | None = None,
    ) -> None:
        self.sims = int(sims)
        self.time = time
        self.temperature = float(temperature)
        self.seed = seed
        seeds = np.random.SeedSequence(seed).spawn(3)
        if evaluator is None:
            evaluator = RandomRolloutEvaluator(playouts, seed=int(seeds[0].generate_state(1)[0]))
        self.tree = MCTS(
            evaluator,
            c=c,
            batch=batch,
            dirichlet_alpha=dirichlet,
            reuse=reuse,
            seed=int(seeds[1].generate_state(1)[0]),
        )
        self.rng = np.random.default_rng(seeds[2])

    def reset(self) -> None:
        self.tree.reset()

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = board.legal_actions()
        if not actions:
            raise ValueError(f"mcts: no legal move, the game is over at {board.obf()}")
        if len(actions) == 1:
            policy = np.zeros(board.pass_action + 1, dtype=np.float32)
            policy[actions[0]] = 1.0
            return PlayResult(actions[0], policy=policy, info={"simulations": 0})
        limit = limit or Limit()
        sims: int | None = self.sims
        seconds = self.time
        if limit.simulations is not None:
            sims, seconds = max(int(limit.simulations), 1), None
        elif limit.time is not None:
            sims, seconds = None, limit.time
        elif seconds is not None:
            sims = None
        sims = limit.capped_nodes(sims)
        seconds = limit.capped_time(seconds)
        result = self.tree.search(
            board,
            simulations=None if sims is None else max(1, sims),
            time=seconds,
            stop=limit.stop,
        )
        if self.temperature > 0:
            move = int(self.rng.choice(len(result.visits), p=result.policy(self.temperature)))
        else:
            move = result.best_action()
        q = float(result.q[move]) if not math.isnan(result.q[move]) else result.value
        return PlayResult(
            move,
            policy=result.policy(1.0),
            score=Score(q, win_prob=(q + 1) / 2, unit="result"),
            info={
                "simulations": result.simulations,
                "visits": int(result.visits[move]),
                "root_visits": int(result.visits.sum()),
                "nodes": result.nodes,
                "seconds": result.seconds,
                "simulations_per_second": result.simulations / result.seconds
                if result.seconds > 0
                else float("inf"),
                "value": result.value,
                **result.info,
            },
        )
