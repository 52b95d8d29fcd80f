"""Monte Carlo tree search (UCT and AlphaZero's PUCT) over any ``Evaluator``.

The tree lives in one numpy structured array (one row per node, children of a node in a
contiguous block), walked by compiled kernels: ``select`` descends from the root to a batch of
leaves (with virtual loss, so that one batch spreads over different leaves), the evaluator
scores those leaves in one batched call, and ``expand_backup`` adds their children and backs the
values up. The tree code never looks inside the evaluator, so random rollouts and networks
search the same way. Finished games are never evaluated: a terminal node's value is the sign of
its final score, exactly (mixed with the score itself by ``score_weight``, for networks whose
value head predicts the disc difference, see ``core.games.rules_value``). A pass is an ordinary
edge (action ``size*size`` in Othello).

Exact values travel up the tree as bounds (score-bounded MCTS, Cazenave and Saffidine 2010,
after MCTS-Solver, Winands et al. 2008): every node holds a lower and an upper bound on its
minimax value for the side to move, ``[-1, 1]`` while nothing is known, both at
``terminal_value`` of the final score for a finished game, and for an expanded node the
negamax of its children's bounds. A node whose bounds meet is *proven*. A descent stops at a
proven node and backs up its exact value without an evaluation; selection clamps each child's
mean into its bounds (a proven child counts at its exact value) and, below the root, skips a
child that cannot beat what its parent is already sure of. So the last plies of a game are
searched as minimax, and a search can end on the exact best move (with values by results, as
soon as it proves a win).

Selection: with an evaluator whose priors are uniform (``has_priors`` False) the rule is UCT,
``Q + c * sqrt(ln N / n)`` with unvisited children first; with informative priors it is PUCT,
``Q + c * P * sqrt(N) / (1 + n)`` with ``Q = 0`` for unvisited children. ``Q`` is always from the
point of view of the side choosing.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from othellolab.core import Board, Limit, PlayResult, Score, Stop
from othellolab.core.games import (
    Game,
    get_game,
    position_game,
    position_state,
    rules_child,
    rules_children,
    rules_result,
    rules_value,
)
from othellolab.core.numba_kernel import kernel
from othellolab.players.base import Player
from othellolab.players.evaluators import Evaluator, RandomRolloutEvaluator
from othellolab.players.options import SEED, Option, checked_options

__all__ = [
    "MCTS",
    "NODE_DTYPE",
    "Forest",
    "MCTSPlayer",
    "SearchResult",
    "choose_action",
    "evaluate_leaves",
    "root_exact",
    "root_summary",
]

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
        ("tvalue", np.float32),  # final disc difference for the side to move when terminal
        ("action", np.int16),  # the action that led here from the parent
        ("nchild", np.int16),
        ("terminal", np.int8),
        ("proven", np.int8),  # lo == hi: the node's exact value is known
        ("lo", np.float32),  # bounds on the node's minimax value for its side to move
        ("hi", np.float32),
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
    rules: tuple,
    score_weight: float,
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
    nd.proven = 0
    nd.lo = -1.0
    nd.hi = 1.0
    nd.tvalue = 0.0
    finished, s = rules_result(rules, p, o)
    if finished:
        nd.terminal = 1
        nd.proven = 1
        nd.tvalue = s
        v = rules_value(rules, s, score_weight)
        nd.lo = v
        nd.hi = v
    return i


@kernel
def _best_child(nodes: np.ndarray, node: int, c: float, use_prior: bool, prune: bool) -> int:
    first = nodes[node].first
    total = nodes[node].n + nodes[node].vl
    scale = math.sqrt(total) if use_prior else math.log(max(total, 1))
    best = -np.inf
    arg = -1
    sure = nodes[node].lo
    for j in range(first, first + nodes[node].nchild):
        top = -nodes[j].lo  # the most this child can be worth to the side choosing
        if prune and top <= sure:
            continue
        nv = nodes[j].n + nodes[j].vl
        q = (nodes[j].w - nodes[j].vl) / nv if nv > 0 else 0.0
        q = min(max(q, -nodes[j].hi), top)
        if use_prior:
            s = q + c * nodes[j].prior * scale / (1 + nv)
        else:
            if nv == 0:
                return j
            s = q + c * math.sqrt(scale / nv)
        if s > best:
            best = s
            arg = j
    return arg if arg >= 0 else first


@kernel
def _descend(
    nodes: np.ndarray,
    root: int,
    forced: int,
    c: float,
    use_prior: bool,
) -> int:
    """Walk from ``root`` to a leaf (an unexpanded or proven node), adding a virtual loss to
    every node on the way; the first step goes to child ``forced`` when it is >= 0. Below the
    root, children that cannot beat their parent's lower bound are skipped."""
    node = root
    while True:
        nodes[node].vl += 1
        if nodes[node].proven or nodes[node].first < 0:
            return node
        if forced >= 0:
            node = forced
            forced = -1
        else:
            node = _best_child(nodes, node, c, use_prior, node != root)


@kernel
def _update_bounds(nodes: np.ndarray, node: int) -> bool:
    """Recompute the bounds of expanded ``node`` from its children's (negamax); marks it
    proven when they meet. Returns whether they changed."""
    first = nodes[node].first
    if first < 0 or nodes[node].proven:
        return False
    lo = -np.inf
    hi = -np.inf
    for j in range(first, first + nodes[node].nchild):
        lo = max(lo, -nodes[j].hi)
        hi = max(hi, -nodes[j].lo)
    if lo == nodes[node].lo and hi == nodes[node].hi:
        return False
    nodes[node].lo = lo
    nodes[node].hi = hi
    if lo >= hi:
        nodes[node].hi = lo
        nodes[node].proven = 1
    return True


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

    A leaf is an unexpanded or proven node; ``leaves`` holds ``-1 - node`` for a proven one
    (it needs no evaluation). The positions of the others go, in order, to the front of
    ``player``/``opponent``; returns how many there are. The same leaf may come back twice in
    one batch when nothing else is worth visiting.
    """
    n_open = 0
    for b in range(leaves.shape[0]):
        node = _descend(nodes, root, -1, c, use_prior)
        if nodes[node].proven:
            leaves[b] = -1 - node
        else:
            leaves[b] = node
            player[n_open] = nodes[node].p
            opponent[n_open] = nodes[node].o
            n_open += 1
    return n_open


@kernel
def _child_buffers(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Room for one node's ``n`` children at most (actions and positions), allocated once per
    batch."""
    return (
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.uint64),
        np.empty(n, dtype=np.uint64),
    )


@kernel
def _expand(
    nodes: np.ndarray,
    meta: np.ndarray,
    leaf: int,
    prior: np.ndarray,
    rules: tuple,
    score_weight: float,
    buffers: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    actions, cp, co = buffers
    count = rules_children(rules, nodes[leaf].p, nodes[leaf].o, actions, cp, co)
    first = meta[0]
    total = 0.0
    for i in range(count):
        total += prior[actions[i]]
    for i in range(count):
        pr = prior[actions[i]] / total if total > 0 else 1.0 / count
        _new_node(nodes, meta, cp[i], co[i], leaf, actions[i], pr, rules, score_weight)
    nodes[leaf].first = first
    nodes[leaf].nchild = count


def _score_weight(w: float) -> float:
    if not 0 <= w <= 1:
        raise ValueError(f"score_weight must be in 0..1, got {w!r}")
    return float(w)


@kernel
def _expand_backup_leaf(
    nodes: np.ndarray,
    meta: np.ndarray,
    leaf: int,
    priors: np.ndarray,
    values: np.ndarray,
    k: int,
    rules: tuple,
    score_weight: float,
    solved: np.ndarray,
    buffers: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """Expand ``leaf`` with row ``k`` of ``priors``/``values`` (unless it is ``-1 - node``, a
    node proven when it was selected, which counts at its exact value), back its value up to
    the root removing the virtual losses, and carry the bounds up as far as they change;
    returns the next row to use. Where ``solved[k]`` is true (an exact solver's value) the
    leaf is proven at ``values[k]`` instead of expanded. (A leaf selected twice in a batch may
    be proven by its first expansion: it still takes its row, as selection counted it.)"""
    if leaf < 0:
        leaf = -1 - leaf
        v = np.float64(nodes[leaf].lo)
    else:
        v = np.float64(values[k])
        if k < solved.shape[0] and solved[k] and nodes[leaf].first < 0:
            nodes[leaf].proven = 1
            nodes[leaf].lo = v
            nodes[leaf].hi = v
        elif nodes[leaf].first < 0:
            _expand(nodes, meta, leaf, priors[k], rules, score_weight, buffers)
        k += 1
    changed = _update_bounds(nodes, leaf)
    node = leaf
    while node >= 0:
        nodes[node].vl -= 1
        nodes[node].n += 1
        nodes[node].w -= v
        v = -v
        if changed and node != leaf:
            changed = _update_bounds(nodes, node)
        node = nodes[node].parent
    return k


@kernel
def expand_backup(
    nodes: np.ndarray,
    meta: np.ndarray,
    leaves: np.ndarray,
    priors: np.ndarray,
    values: np.ndarray,
    rules: tuple,
    score_weight: float = 0.0,
) -> None:
    """Expand each evaluated leaf and back its value up to the root, removing virtual losses.

    ``priors`` and ``values`` hold one row per non-terminal leaf, in order (as
    ``select_leaves`` listed them); values are from the view of the side to move at the leaf.
    Proven leaves take their exact value.
    """
    k = 0
    none = np.zeros(0, dtype=np.bool_)
    buffers = _child_buffers(rules[4])
    for b in range(leaves.shape[0]):
        k = _expand_backup_leaf(
            nodes, meta, leaves[b], priors, values, k, rules, score_weight, none, buffers
        )


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
    a.proven = b.proven
    a.lo = b.lo
    a.hi = b.hi


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


# ----------------------------------------------------------------------------------------------
# A forest: many trees in one node array. Tree ``t`` owns the rows ``t*capacity`` up to
# ``(t+1)*capacity``, root first, and counts its rows in ``counters[t]``; its node indices are
# relative to its first row, so each tree is an ordinary tree for the kernels above.


@kernel
def select_forest(
    nodes: np.ndarray,
    capacity: int,
    trees: np.ndarray,
    counts: np.ndarray,
    forced: np.ndarray,
    leaves: np.ndarray,
    player: np.ndarray,
    opponent: np.ndarray,
    n_open: np.ndarray,
    c: float,
    use_prior: bool,
) -> int:
    """``select_leaves`` in many trees at once: ``counts[i]`` descents in tree ``trees[i]``
    (virtual loss inside the tree), the ``j``-th one starting with root child
    ``forced[i, j]`` when that is >= 0. Leaves go to ``leaves[i, j]`` (``-1 - node`` for a
    proven one); the positions of the others to ``player``/``opponent``, tree after tree,
    ``n_open[i]`` of them for tree ``i``. Returns how many positions there are in all."""
    total = 0
    for i in range(trees.shape[0]):
        base = trees[i] * capacity
        region = nodes[base : base + capacity]
        opened = 0
        for j in range(counts[i]):
            leaf = _descend(region, 0, forced[i, j], c, use_prior)
            if region[leaf].proven:
                leaves[i, j] = -1 - leaf
            else:
                leaves[i, j] = leaf
                player[total] = region[leaf].p
                opponent[total] = region[leaf].o
                total += 1
                opened += 1
        n_open[i] = opened
    return total


@kernel
def expand_backup_forest(
    nodes: np.ndarray,
    capacity: int,
    counters: np.ndarray,
    trees: np.ndarray,
    counts: np.ndarray,
    leaves: np.ndarray,
    priors: np.ndarray,
    values: np.ndarray,
    rules: tuple,
    score_weight: float,
    solved: np.ndarray,
) -> None:
    """``expand_backup`` in many trees at once, for the leaves ``select_forest`` listed (one
    row of ``priors``/``values`` per unproven leaf, in its order; ``solved`` marks rows whose
    value is exact, as ``_expand_backup_leaf`` says)."""
    k = 0
    buffers = _child_buffers(rules[4])
    for i in range(trees.shape[0]):
        t = trees[i]
        region = nodes[t * capacity : (t + 1) * capacity]
        meta = counters[t : t + 1]
        for j in range(counts[i]):
            k = _expand_backup_leaf(
                region, meta, leaves[i, j], priors, values, k, rules, score_weight, solved, buffers
            )


@kernel
def plant_forest(
    nodes: np.ndarray,
    capacity: int,
    counters: np.ndarray,
    trees: np.ndarray,
    player: np.ndarray,
    opponent: np.ndarray,
    rules: tuple,
    score_weight: float,
) -> None:
    """Give each tree ``trees[i]`` a fresh root, the position ``(player[i], opponent[i])``."""
    for i in range(trees.shape[0]):
        t = trees[i]
        region = nodes[t * capacity : (t + 1) * capacity]
        meta = counters[t : t + 1]
        meta[0] = 0
        _new_node(region, meta, player[i], opponent[i], -1, -1, 1.0, rules, score_weight)


@kernel
def advance_forest(
    nodes: np.ndarray,
    capacity: int,
    counters: np.ndarray,
    trees: np.ndarray,
    actions: np.ndarray,
    scratch: np.ndarray,
    rules: tuple,
    score_weight: float,
) -> None:
    """Play ``actions[i]`` at the root of tree ``trees[i]``: the child's subtree becomes the
    tree (moved to the front of its rows), or a fresh root when the root has no such child
    yet. The action must be legal at the root."""
    buffers = _child_buffers(rules[4])
    for i in range(trees.shape[0]):
        t = trees[i]
        region = nodes[t * capacity : (t + 1) * capacity]
        meta = counters[t : t + 1]
        a = actions[i]
        child = -1
        first = region[0].first
        if first >= 0:
            for j in range(first, first + region[0].nchild):
                if region[j].action == a:
                    child = j
                    break
        if child >= 0:
            count = _extract_subtree(region, child, scratch)
            for j in range(count):
                _copy_node(region, j, scratch, j, scratch[j].parent)
                region[j].first = scratch[j].first
            meta[0] = count
            region[0].action = -1
            region[0].prior = 1.0
        else:
            np_, no_ = rules_child(rules, region[0].p, region[0].o, a, *buffers)
            meta[0] = 0
            _new_node(region, meta, np_, no_, -1, -1, 1.0, rules, score_weight)


def evaluate_leaves(
    evaluator: Evaluator,
    player: np.ndarray,
    opponent: np.ndarray,
    n_open: int,
    game: Game,
    *,
    dedupe: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The evaluator's ``(priors, values)`` for the first ``n_open`` positions of the buffers,
    float32 and C-contiguous, shapes checked (a ``ValueError`` names a wrong evaluator).
    With ``dedupe`` a position listed several times is evaluated once."""
    n_actions = game.n_actions
    if n_open == 0:
        return np.zeros((0, n_actions), dtype=_F32), np.zeros(0, dtype=_F32)
    p = player if n_open == player.shape[0] else player[:n_open].copy()
    o = opponent if n_open == opponent.shape[0] else opponent[:n_open].copy()
    inverse = None
    if dedupe and n_open > 1:
        keys = np.empty((n_open, 2), dtype=np.uint64)
        keys[:, 0], keys[:, 1] = p, o
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        if unique.shape[0] == n_open:
            inverse = None
        else:
            p, o = np.ascontiguousarray(unique[:, 0]), np.ascontiguousarray(unique[:, 1])
    priors, values = _checked(evaluator, *evaluator.evaluate(p, o, game), p.shape[0], game)
    if inverse is not None:
        inverse = inverse.reshape(-1)
        priors, values = priors[inverse], values[inverse]
    return priors, values


def _checked(
    evaluator: Evaluator, priors: np.ndarray, values: np.ndarray, n: int, game: Game
) -> tuple[np.ndarray, np.ndarray]:
    """An evaluator's output for ``n`` positions as float32, C-contiguous arrays of the right
    shapes, or a ``ValueError`` that names the evaluator."""
    n_actions = game.n_actions
    if priors.dtype != _F32 or values.dtype != _F32 or not priors.flags.c_contiguous:
        priors = np.ascontiguousarray(priors, dtype=_F32)
        values = np.ascontiguousarray(values, dtype=_F32)
    if priors.shape != (n, n_actions) or values.shape != (n,):
        raise ValueError(
            f"MCTS: {evaluator!r} returned priors of shape {priors.shape} and values of "
            f"shape {values.shape} for {n} positions of {game.key}; expected "
            f"({n}, {n_actions}) and ({n},)"
        )
    return priors, values


def root_summary(
    nodes: np.ndarray, n_actions: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """``(legal, visits, q, priors, value)`` at the root (row 0) of a tree, indexed by action,
    from the side to move's view: ``q`` NaN where unvisited, ``value`` the visit-weighted
    mean of the children's values (0 before any visit), each clamped into its node's bounds
    (so exact where proven)."""
    root = nodes[0]
    first, k = int(root["first"]), int(root["nchild"])
    children = nodes[first : first + k] if first >= 0 else nodes[:0]
    actions = children["action"].astype(np.int64)
    legal = np.zeros(n_actions, dtype=bool)
    legal[actions] = True
    visits = np.zeros(n_actions, dtype=np.int64)
    visits[actions] = children["n"]
    q = np.full(n_actions, np.nan)
    seen = children["n"] > 0
    q[actions[seen]] = np.clip(
        children["w"][seen] / children["n"][seen], -children["hi"][seen], -children["lo"][seen]
    )
    priors = np.zeros(n_actions, dtype=np.float32)
    priors[actions] = children["prior"]
    total = int(children["n"].sum())
    value = float(children["w"].sum() / total) if total else 0.0
    value = float(np.clip(value, root["lo"], root["hi"]))
    return legal, visits, q, priors, value


def root_exact(nodes: np.ndarray, n_actions: int) -> np.ndarray:
    """The exact value of each root action whose child is proven, from the side to move's view
    (NaN where not proven), indexed by action."""
    exact = np.full(n_actions, np.nan)
    root = nodes[0]
    first, k = int(root["first"]), int(root["nchild"])
    if first >= 0:
        children = nodes[first : first + k]
        proven = children["proven"] != 0
        exact[children["action"][proven].astype(np.int64)] = -children["lo"][proven]
    return exact


def choose_action(
    legal: np.ndarray, visits: np.ndarray, q: np.ndarray, exact: np.ndarray, nodes: np.ndarray
) -> int:
    """The move a finished search plays. A solved root: the proven action of best value
    (ties: the most visited). Otherwise the most visited action (ties: the higher ``q``),
    unless a proven action is sure to do better than that action's mean."""
    visits = np.where(legal, visits, -1)
    if nodes[0]["proven"] and not np.isnan(exact).all():
        best = np.flatnonzero(exact == np.nanmax(exact))
        return int(best[np.argmax(visits[best])])
    order = np.lexsort((-np.nan_to_num(q, nan=-np.inf), -visits))
    move = int(order[0])
    if not np.isnan(exact).all():
        proven = int(np.nanargmax(exact))
        if not np.isnan(q[move]) and exact[proven] > q[move] and np.isnan(exact[move]):
            return proven
    return move


@dataclass(frozen=True)
class SearchResult:
    """What one search found at the root, from the point of view of the side to move there.

    ``visits``, ``q`` and ``priors`` are indexed by action (``size*size + 1``, pass last);
    ``q`` is NaN for actions never visited; ``value`` is the visit-weighted root value;
    ``legal`` marks the root's actions; ``exact`` is the exact value of the actions the
    search proved (NaN elsewhere), and ``solved`` whether it proved the root's value.
    ``move`` is the action the search plays (``choose_action``).
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
    exact: np.ndarray | None = None
    solved: bool = False
    move: int = -1

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
        """The action the search plays (``choose_action``); without it, the most visited
        action, ties broken by the higher ``q``."""
        if self.move >= 0:
            return self.move
        q = np.nan_to_num(self.q, nan=-np.inf)
        visits = np.where(self.legal, self.visits, -1)
        order = np.lexsort((-q, -visits))
        return int(order[0])


class MCTS:
    """A search tree for one game that can be searched, and kept between moves: any game of
    ``core.games`` (``board`` an Othello ``Board`` or another game's position, with an
    evaluator of that game).

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
        score_weight: float = 0.0,
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
        self.score_weight = _score_weight(score_weight)
        self.rng = np.random.default_rng(seeds[1])
        self._nodes = np.zeros(0, dtype=NODE_DTYPE)
        self._meta = np.zeros(1, dtype=np.int64)
        self._game: Game | None = None
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
        self._game = None

    def _ensure_capacity(self, extra: int) -> None:
        need = int(self._meta[0]) + extra
        if need > len(self._nodes):
            grown = np.zeros(max(need, 2 * len(self._nodes), 4096), dtype=NODE_DTYPE)
            grown[: self._meta[0]] = self._nodes[: self._meta[0]]
            self._nodes = grown

    def _set_root(self, board: Any) -> bool:
        """Make ``board`` (any game's position) the root, keeping its subtree when it is
        known; True if reused."""
        game = position_game(board)
        p, o = position_state(board)
        if self.reuse and self._game == game and self._meta[0] > 0:
            found = _find_position(self._nodes, 0, p, o, 2)
            if found == 0:
                return True
            if found > 0:
                out = np.zeros(max(len(self._nodes), 4096), dtype=NODE_DTYPE)
                self._meta[0] = _extract_subtree(self._nodes, found, out)
                self._nodes = out
                return True
        self._game = game
        self._meta[0] = 0
        self._ensure_capacity(4096)
        _new_node(
            self._nodes,
            self._meta,
            p,
            o,
            -1,
            -1,
            1.0,
            game.rules,
            self.score_weight,
        )
        return False

    def _run(self, count: int) -> None:
        game = self._game
        assert game is not None
        self._ensure_capacity(count * game.n_actions)
        buffers = self._buffers.get(count)
        if buffers is None:
            buffers = self._buffers[count] = (
                np.empty(count, dtype=np.int64),
                np.empty(count, dtype=np.uint64),
                np.empty(count, dtype=np.uint64),
            )
        leaves, player, opponent = buffers
        n_open = select_leaves(
            self._nodes,
            0,
            leaves,
            player,
            opponent,
            self.c,
            self.use_prior,
        )
        if n_open == count:  # the common case, without the helper's call and copies
            priors, values = self.evaluator.evaluate(player, opponent, game)
            if (
                priors.dtype != _F32
                or values.dtype != _F32
                or not priors.flags.c_contiguous
                or priors.shape != (count, game.n_actions)
                or values.shape != (count,)
            ):
                priors, values = _checked(self.evaluator, priors, values, count, game)
        else:
            priors, values = evaluate_leaves(self.evaluator, player, opponent, n_open, game)
        expand_backup(
            self._nodes, self._meta, leaves, priors, values, game.rules, self.score_weight
        )

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
        board: Any,
        *,
        simulations: int | None = None,
        time: float | None = None,
        stop: Stop | None = None,
    ) -> SearchResult:
        """Run ``simulations`` new simulations (default 1000), or search for ``time`` seconds,
        whichever ends first when both are given; ``stop`` ends the search early from another
        thread (after the batch in flight)."""
        if board.is_game_over():
            raise ValueError(f"MCTS: the game is over at {board}, nothing to search")
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
        while not self._nodes[0]["proven"]:
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
        n_actions = self._game.n_actions if self._game is not None else 0
        legal, visits, q, priors, value = root_summary(self._nodes, n_actions)
        exact = root_exact(self._nodes, n_actions)
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
            exact=exact,
            solved=bool(self._nodes[0]["proven"]),
            move=choose_action(legal, visits, q, exact, self._nodes),
        )


class Forest:
    """Search trees for many positions in one node array, searched together: the batched form
    of ``MCTS`` that self-play and batched grading use.

    Tree ``t`` owns the rows ``t*capacity`` to ``(t+1)*capacity - 1`` of ``nodes``, its root
    first; ``counters[t]`` counts its rows, and its node indices are relative to its first
    row, so each tree is an ordinary ``MCTS`` tree walked by the same kernels. ``step``
    selects up to ``counts[i]`` leaves in each tree ``trees[i]`` with one compiled call
    (virtual loss inside a tree), scores all of them with one evaluator call and expands and
    backs them up with one compiled call. The capacity doubles whenever a step could fill a
    tree; ``advance`` moves a root to a child and keeps that subtree, packed.
    """

    def __init__(
        self,
        trees: int,
        game: Game | str,
        *,
        capacity: int = 2048,
        score_weight: float = 0.0,
    ) -> None:
        if isinstance(trees, bool) or not isinstance(trees, int | np.integer) or trees < 1:
            raise ValueError(f"Forest: trees must be a positive integer, got {trees!r}")
        trees = int(trees)
        self.game = get_game(game)
        self.trees = trees
        self.rules = self.game.rules
        self.n_actions = self.game.n_actions
        self.capacity = max(int(capacity), 2 * self.n_actions)
        self.score_weight = _score_weight(score_weight)
        self.nodes = np.zeros(trees * self.capacity, dtype=NODE_DTYPE)
        self.counters = np.zeros(trees, dtype=np.int64)
        self._scratch = np.zeros(self.capacity, dtype=NODE_DTYPE)

    def tree(self, t: int) -> np.ndarray:
        """The rows tree ``t`` uses (a read-only view; its root is row 0)."""
        base = t * self.capacity
        view = self.nodes[base : base + int(self.counters[t])]
        view.flags.writeable = False
        return view

    def plant(self, trees: np.ndarray, player: np.ndarray, opponent: np.ndarray) -> None:
        """Start each tree ``trees[i]`` afresh at the position ``(player[i], opponent[i])``."""
        plant_forest(
            self.nodes,
            self.capacity,
            self.counters,
            np.ascontiguousarray(trees, dtype=np.int64),
            np.ascontiguousarray(player, dtype=np.uint64),
            np.ascontiguousarray(opponent, dtype=np.uint64),
            self.rules,
            self.score_weight,
        )

    def advance(self, trees: np.ndarray, actions: np.ndarray) -> None:
        """Play ``actions[i]`` (legal) at the root of tree ``trees[i]``, keeping the subtree
        below it when the search has expanded it."""
        advance_forest(
            self.nodes,
            self.capacity,
            self.counters,
            np.ascontiguousarray(trees, dtype=np.int64),
            np.ascontiguousarray(actions, dtype=np.int64),
            self._scratch,
            self.rules,
            self.score_weight,
        )

    def root(self, t: int) -> np.void:
        """The root node of tree ``t``."""
        return self.nodes[t * self.capacity]

    def root_children(self, t: int) -> np.ndarray:
        """The rows of the root's children of tree ``t`` (a writable view: empty before the
        root is expanded)."""
        base = t * self.capacity
        first = int(self.nodes[base]["first"])
        if first < 0:
            return self.nodes[base:base]
        return self.nodes[base + first : base + first + int(self.nodes[base]["nchild"])]

    def summary(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        """``root_summary`` of tree ``t``: legal actions, visits, Q, priors and value."""
        return root_summary(self.tree(t), self.n_actions)

    def _reserve(self, trees: np.ndarray, counts: np.ndarray) -> None:
        need = int((self.counters[trees] + counts * self.n_actions).max(initial=0))
        if need <= self.capacity:
            return
        capacity = self.capacity
        while capacity < need:
            capacity *= 2
        grown = np.zeros((self.trees, capacity), dtype=NODE_DTYPE)
        grown[:, : self.capacity] = self.nodes.reshape(self.trees, self.capacity)
        self.nodes = grown.reshape(-1)
        self.capacity = capacity
        self._scratch = np.zeros(capacity, dtype=NODE_DTYPE)

    def step(
        self,
        evaluator: Evaluator,
        trees: np.ndarray,
        counts: np.ndarray,
        *,
        c: float,
        use_prior: bool,
        forced: np.ndarray | None = None,
        dedupe: bool = True,
        exact: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> int:
        """One batched step: ``counts[i]`` simulations in tree ``trees[i]`` (the ``j``-th
        starting with root child row ``forced[i, j]`` when given and >= 0), their leaves
        scored in one evaluator call (``dedupe``: each distinct position once), expanded and
        backed up. ``exact(player, opponent) -> (solved, values)`` may value some leaves
        exactly instead (an endgame solver): those are proven, not evaluated nor expanded.
        Returns the number of positions the evaluator scored."""
        trees = np.ascontiguousarray(trees, dtype=np.int64)
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        width = int(counts.max(initial=0))
        if width == 0:
            return 0
        if forced is None:
            forced = np.full((trees.shape[0], width), -1, dtype=np.int64)
        else:
            forced = np.ascontiguousarray(forced, dtype=np.int64)
        self._reserve(trees, counts)
        total = int(counts.sum())
        leaves = np.empty((trees.shape[0], forced.shape[1]), dtype=np.int64)
        player = np.empty(total, dtype=np.uint64)
        opponent = np.empty(total, dtype=np.uint64)
        n_open = np.empty(trees.shape[0], dtype=np.int64)
        opened = select_forest(
            self.nodes,
            self.capacity,
            trees,
            counts,
            forced,
            leaves,
            player,
            opponent,
            n_open,
            float(c),
            bool(use_prior),
        )
        solved = np.zeros(opened, dtype=np.bool_)
        if exact is not None and opened:
            solved, exact_values = exact(player[:opened], opponent[:opened])
        if solved.any():
            rest = np.flatnonzero(~solved)
            part_p, part_v = evaluate_leaves(
                evaluator, player[rest], opponent[rest], rest.size, self.game, dedupe=dedupe
            )
            priors = np.zeros((opened, self.n_actions), dtype=_F32)
            values = np.asarray(exact_values, dtype=_F32).copy()
            priors[rest], values[rest] = part_p, part_v
            opened = rest.size
        else:
            priors, values = evaluate_leaves(
                evaluator, player, opponent, opened, self.game, dedupe=dedupe
            )
        expand_backup_forest(
            self.nodes,
            self.capacity,
            self.counters,
            trees,
            counts,
            leaves,
            priors,
            values,
            self.rules,
            self.score_weight,
            solved,
        )
        return opened


class MCTSPlayer(Player):
    """MCTS behind the ``Player`` interface: random-rollout UCT unless given an evaluator.

    ``sims`` new simulations per move (or ``time`` seconds when set; a ``Limit`` overrides
    both), ``c`` the exploration constant (UCT 1.0, PUCT 1.5 by default), ``playouts`` random
    games per leaf for the default evaluator, ``batch`` leaves per evaluator call,
    ``temperature`` 0 to play the most visited move or > 0 to sample from visits^(1/T),
    ``dirichlet`` the root-noise alpha (0 = off), ``reuse`` to keep the tree between moves.
    It plays the games its evaluator plays (an evaluator's ``games``; rollouts: Othello's).
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
        self.games = getattr(evaluator, "games", None)  # None: the tree plays any game
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
            raise ValueError(f"mcts: no legal move, the game is over at {board}")
        if len(actions) == 1:
            policy = np.zeros(board.n_actions, dtype=np.float32)
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
