"""Forced playouts and policy-target pruning (KataGo, Wu 2019, section 3.1): a forced search
gives every root child its ``sqrt(k P N)`` visits where PUCT alone would not; pruning keeps the
best child's visits, never leaves a reduced child with a PUCT value above the best's, and drops
children left with one visit; a pruned search's target is its pruned visits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab.core.games import get_game
from othellolab.players.mcts.batch import BatchSearch, SearchConfig, SearchOutcome
from othellolab.players.mcts.forced import forced_counts, pruned_visits

SIX = get_game("othello", 6)
START = SIX.start()
FAVOURED = SIX.legal_actions(*START)[0]
SKEW = 0.7
"""The prior of the favoured first move; the other three share the rest."""
C = 0.5
"""The searches' exploration constant (small: PUCT alone leaves the poor moves one visit)."""


class Favouring:
    """Priors that favour one move of the 6x6 start (``SKEW``), and values that make the other
    three moves look lost for the side that plays them (the child positions evaluate to 0.9 for
    their side to move, the opponent); every other position is worth 0. So PUCT alone gives the
    three moves about one visit each."""

    has_priors = True

    def __init__(self) -> None:
        legal = SIX.legal_actions(*START)
        self.bad = {SIX.step(*START, a) for a in legal if a != FAVOURED}

    def evaluate(self, player, opponent, game):  # type: ignore[no-untyped-def]
        priors = game.legal_priors(player, opponent)
        values = np.zeros(len(player), dtype=np.float32)
        for i, (p, o) in enumerate(zip(player.tolist(), opponent.tolist(), strict=True)):
            if (p, o) == START:
                priors[i] = 0.0
                others = (1 - SKEW) / 3
                for a in SIX.legal_actions(p, o):
                    priors[i, a] = SKEW if a == FAVOURED else others
            elif (p, o) in self.bad:
                values[i] = 0.9
        return priors, values


def search_start(
    k: float | None, prune: bool = False, simulations: int = 200, leaves: int = 8
) -> tuple[np.ndarray, SearchOutcome]:
    """A PUCT search of the 6x6 start with ``Favouring``: its root's children (a copy) and its
    outcome; ``k`` None: ``start`` called without the forced-playout options."""
    config = SearchConfig(simulations=simulations, leaves=leaves, seed=0, c_puct=C)
    search = BatchSearch(Favouring(), SIX, 1, config, np.random.default_rng(0))
    player, opponent = np.array([START[0]], np.uint64), np.array([START[1]], np.uint64)
    search.forest.plant(np.array([0]), player, opponent)
    if k is None:
        search.start(0, simulations, noise=False)
    else:
        search.start(0, simulations, noise=False, forced_k=k, prune=prune)
    while search.active():
        search.step()
    children = search.forest.root_children(0).copy()
    return children, search.outcome(0)


@pytest.mark.parametrize("leaves", [1, 8])
def test_forced_playouts_give_each_child_its_count(leaves: int) -> None:
    k = 2.0
    children, _ = search_start(k, leaves=leaves)
    n, prior = children["n"].astype(np.int64), children["prior"]
    total = int(n.sum())
    # A child is forced while n < sqrt(k P N) at the visit count N of each descent, the last
    # descent seeing N = total - 1.
    want = np.ceil(forced_counts(prior, total - 1, k))
    assert (n >= want).all(), (n.tolist(), want.tolist())
    # The test can fail: PUCT alone leaves the three poor moves one visit each.
    plain, _ = search_start(0.0, leaves=leaves)
    assert (plain["n"] < want).sum() >= 3


def test_forced_playouts_only_with_k_and_not_on_gumbel() -> None:
    a, out_a = search_start(0.0, prune=True)
    b, out_b = search_start(None)
    assert (a["n"] == b["n"]).all() and (out_a.target == out_b.target).all()
    gumbel = BatchSearch(
        Favouring(), SIX, 1, SearchConfig(variant="gumbel"), np.random.default_rng(0)
    )
    with pytest.raises(ValueError, match="PUCT"):
        gumbel.start(0, 16, noise=True, forced_k=2.0)


def puct(q: float, prior: float, n: int, parent: int, c: float) -> float:
    return q + c * prior * math.sqrt(parent) / (1 + n)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 60), min_size=2, max_size=12),
    st.data(),
    st.floats(0.1, 4.0),
    st.floats(0.25, 3.0),
)
def test_pruning_keeps_the_best_and_never_lifts_a_child_above_it(
    visits: list[int], data: st.DataObject, k: float, c: float
) -> None:
    n = np.array(visits, dtype=np.int64)
    size = n.size
    q = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=size, max_size=size)))
    raw = np.array(data.draw(st.lists(st.floats(0.01, 1), min_size=size, max_size=size)))
    prior = raw / raw.sum()
    parent = int(n.sum()) + 1
    out = pruned_visits(n, q, prior, parent, c, k)
    if n.max() == 0:
        assert (out == n).all()
        return
    best = int(np.lexsort((-q, -n))[0])
    assert out[best] == n[best]
    top = puct(q[best], prior[best], int(n[best]), parent, c)
    cap = np.floor(np.sqrt(k * prior * n.sum()))
    for i in range(size):
        if i == best:
            continue
        assert 0 <= out[i] <= n[i]
        assert out[i] != 1  # a child left with one visit is dropped
        if 0 < out[i] < n[i]:  # reduced and kept: its PUCT value stays at most the best's
            assert puct(q[i], prior[i], int(out[i]), parent, c) <= top + 1e-12
            assert n[i] - out[i] <= cap[i]
            # and one visit fewer would lift it above the best, or exceed the forced count
            fewer = puct(q[i], prior[i], int(out[i]) - 1, parent, c)
            assert fewer > top or n[i] - out[i] + 1 > cap[i]


def test_pruning_drops_a_child_left_with_one_visit() -> None:
    # Independent arithmetic: 54 visits, k = 2: the second child's forced count is
    # floor(sqrt(2 * 0.1 * 54)) = 3, so 4 visits fall to 1, where its PUCT value
    # -0.5 + 1.5 * 0.1 * sqrt(55) / 2 = 0.056 is below the best's
    # 0.5 + 1.5 * 0.5 * sqrt(55) / 51 = 0.609: it is dropped.
    out = pruned_visits(np.array([50, 4]), np.array([0.5, -0.5]), np.array([0.5, 0.1]), 55, 1.5, 2)
    assert out.tolist() == [50, 0]
    # A good second move (Q 0.45) keeps visits PUCT wanted: 0.45 + 1.5 * 0.4 * sqrt(71) / (1 + n)
    # <= 0.624 needs n >= 28, more than its 20: nothing is taken.
    kept = pruned_visits(
        np.array([50, 20]), np.array([0.5, 0.45]), np.array([0.5, 0.4]), 71, 1.5, 2
    )
    assert kept.tolist() == [50, 20]


def test_pruned_search_target() -> None:
    k = 2.0
    children, out = search_start(k, prune=True)
    n = children["n"].astype(np.int64)
    q = np.where(n > 0, children["w"] / np.maximum(n, 1), 0.0)
    q = np.minimum(np.maximum(q, -children["hi"]), -children["lo"])
    root_n = int(n.sum()) + 1  # the root's own evaluation
    kept = pruned_visits(n, q, children["prior"], root_n, C, k)
    expected = np.zeros(SIX.n_actions)
    expected[children["action"].astype(np.int64)] = kept / kept.sum()
    assert np.allclose(out.target, expected)
    # the forced visits of the poor moves are taken back: the favoured move's share grows
    _, unpruned = search_start(k)
    assert out.target[FAVOURED] > unpruned.target[FAVOURED]
    assert (kept < n).sum() == 3 and kept.max() == n.max()
    assert out.move == unpruned.move == FAVOURED
    assert (out.visits == unpruned.visits).all()  # the visits themselves are the search's
