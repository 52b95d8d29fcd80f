"""Forced playouts and policy-target pruning at a PUCT root (KataGo: Wu 2019, "Accelerating
Self-Play Learning in Go", section 3.1).

Forced playouts: while a root child with prior ``P`` has fewer visits than
``n_forced = sqrt(k * P * N)`` (``N`` the root children's visits so far), the next descent goes
to it, so that every move the noise lifts gets a few looks (``k = 2`` in the paper).

Policy-target pruning takes them back from the target: the most visited child ``c*`` keeps
its visits; every other child loses up to ``n_forced`` of them, as long as its PUCT value with
the visits left stays at most ``c*``'s (visits PUCT would have given it anyway stay); a child
left with one visit or none is dropped. The target then teaches what the search found, not
the exploration it was made to do.

``force_root`` picks the forced root child of each descent of a batched step (compiled, over
a ``Forest``'s rows); ``forced_counts`` and ``pruned_visits`` are numpy functions of one
root's children.

>>> forced_counts(np.array([0.5, 0.02]), 100, 2.0).round(2).tolist()
[10.0, 2.0]
"""

from __future__ import annotations

import math

import numpy as np

from othellolab.core.numba_kernel import kernel

__all__ = ["force_root", "forced_counts", "pruned_visits"]


def forced_counts(priors: np.ndarray, total: float, k: float) -> np.ndarray:
    """``sqrt(k * P * total)``: the visits each root child with prior ``P`` is forced to get
    once the root's children have ``total`` visits."""
    return np.sqrt(k * np.asarray(priors, dtype=np.float64) * float(total))


@kernel
def force_root(
    nodes: np.ndarray,
    capacity: int,
    trees: np.ndarray,
    counts: np.ndarray,
    ks: np.ndarray,
    forced: np.ndarray,
) -> None:
    """For the ``counts[i]`` descents of tree ``trees[i]`` in one batched step, write to
    ``forced[i, j]`` the root child row the ``j``-th descent must take, or -1 (PUCT chooses):
    the unproven child furthest below its ``sqrt(ks[i] * P * N)`` (ties: the first), ``N``
    counting the descents already assigned in this step. ``ks[i] <= 0``: none forced."""
    for i in range(trees.shape[0]):
        for j in range(counts[i]):
            forced[i, j] = -1
        k = ks[i]
        base = trees[i] * capacity
        first = nodes[base].first
        if k <= 0 or first < 0:
            continue
        lo = base + first
        hi = lo + nodes[base].nchild
        extra = np.zeros(hi - lo, dtype=np.int64)
        total = 0
        for r in range(lo, hi):
            total += nodes[r].n
        for j in range(counts[i]):
            best = -1
            gap = 0.0
            for r in range(lo, hi):
                if nodes[r].proven:
                    continue
                n = nodes[r].n + extra[r - lo]
                want = math.sqrt(k * nodes[r].prior * (total + j))
                if n < want and (best < 0 or want - n > gap):
                    best = r
                    gap = want - n
            if best >= 0:
                forced[i, j] = best - base
                extra[best - lo] += 1


def _explore(q: float, prior: float, n: int, total: float, c: float, use_prior: bool) -> float:
    """A root child's selection value, as ``tree._best_child`` computes it (PUCT with priors,
    UCT without; an unvisited child first under UCT)."""
    if use_prior:
        return q + c * prior * math.sqrt(total) / (1 + n)
    if n == 0:
        return math.inf
    return q + c * math.sqrt(math.log(max(total, 1)) / n)


def pruned_visits(
    visits: np.ndarray,
    q: np.ndarray,
    priors: np.ndarray,
    parent_visits: int,
    c: float,
    k: float,
    *,
    use_prior: bool = True,
) -> np.ndarray:
    """The root children's ``visits`` with forced playouts pruned (module docstring): ``q``
    their values for the side to move at the root (as selection clamps them), ``priors`` as
    selection saw them (noise included), ``parent_visits`` the root's visits (selection's
    ``N``), ``c`` the exploration constant, ``k`` the forced playouts' constant, ``use_prior``:
    selection is PUCT (else UCT). The most visited child (ties: the higher ``q``) keeps its
    visits."""
    visits = np.asarray(visits, dtype=np.int64)
    out = visits.copy()
    if visits.size < 2 or visits.max(initial=0) == 0:
        return out
    q = np.nan_to_num(np.asarray(q, dtype=np.float64), nan=0.0)
    priors = np.asarray(priors, dtype=np.float64)
    best = int(np.lexsort((-q, -visits))[0])

    def value(i: int, n: int) -> float:
        return _explore(q[i], priors[i], n, parent_visits, c, use_prior)

    top = value(best, int(visits[best]))
    cap = np.floor(forced_counts(priors, visits.sum(), k)).astype(np.int64)
    for i in range(visits.size):
        n = int(visits[i])
        if i == best or n == 0:
            continue
        floor = max(n - int(cap[i]), 0)
        if value(i, floor) > top:  # the value falls as visits grow: the fewest that keep it
            lo, hi = floor, n  # value(lo) > top; look for the least n' <= n with value <= top
            while lo + 1 < hi:
                mid = (lo + hi) // 2
                if value(i, mid) > top:
                    lo = mid
                else:
                    hi = mid
            floor = hi
        out[i] = 0 if floor <= 1 else floor
    return out
