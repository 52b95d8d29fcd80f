"""The tree of one MCTS search as a numpy structured array, and the compiled kernels that walk
it (selection with virtual loss, expansion through the game's ``rules``, backup with
score bounds), with the root's summary and the move a finished search plays."""

from __future__ import annotations

import math

import numpy as np

from othellolab.core.games import (
    Game,
    rules_children,
    rules_result,
    rules_value,
)
from othellolab.core.numba_kernel import kernel
from othellolab.players.evaluators import Evaluator

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
    children: int,
    result: int,
    param: int,
    scale: float,
    room: int,
    score_weight: float = 0.0,
) -> None:
    """Expand each evaluated leaf and back its value up to the root, removing virtual losses.

    ``priors`` and ``values`` hold one row per non-terminal leaf, in order (as
    ``select_leaves`` listed them); values are from the view of the side to move at the leaf.
    Proven leaves take their exact value. The game's ``rules`` come as their five numbers:
    Numba types a tuple argument on every call from Python, a cost as large as a small
    batch's expansion.
    """
    rules = (children, result, param, scale, room)
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
