"""A forest: many MCTS trees in one node array, searched together by the tree kernels
(``players.mcts.tree``); the batched form that self-play and batched grading use."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from othellolab.core.games import (
    Game,
    get_game,
    rules_child,
)
from othellolab.core.numba_kernel import kernel
from othellolab.players.evaluators import Evaluator
from othellolab.players.mcts.tree import (
    _F32,
    NODE_DTYPE,
    _child_buffers,
    _copy_node,
    _descend,
    _expand_backup_leaf,
    _extract_subtree,
    _new_node,
    _score_weight,
    evaluate_leaves,
    root_summary,
)

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
