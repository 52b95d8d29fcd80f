"""Gumbel AlphaZero's root: the halving spends the budget exactly, the improved policy is a
distribution ranked by completed Q, the Gumbel-top-k trick samples from the prior."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from othellolab.players.mcts.gumbel import (
    completed_q,
    gumbel_top_k,
    halving_phases,
    improved_policy,
    log_priors,
    mixed_value,
    sigma,
)


@given(st.integers(1, 64), st.integers(0, 2000))
def test_sequential_halving_spends_exactly_the_budget(considered: int, simulations: int) -> None:
    phases = halving_phases(considered, simulations)
    assert sum(v for _, v in phases) == simulations
    kept = [k for k, _ in phases]
    assert all(a >= b for a, b in itertools.pairwise(kept))  # never grows
    if phases:
        assert kept[0] == considered
        assert all(v <= k * max(1, simulations // k) for k, v in phases)
    # Halving reaches two actions (or one) when the budget allows a visit for each.
    if considered >= 2 and simulations >= 2 * considered * math.ceil(math.log2(considered)):
        assert kept[-1] == 2


def test_halving_phase_sizes_follow_the_paper() -> None:
    # 16 actions, 200 simulations: log2(16) = 4 phases of 200 // (4 * kept) visits each, then
    # the 6 left over go to the last two.
    assert halving_phases(16, 200) == [(16, 48), (8, 48), (4, 48), (2, 50), (2, 6)]
    assert halving_phases(1, 7) == [(1, 7)]
    assert halving_phases(4, 3) == [(4, 3)]  # fewer simulations than actions: one visit each


def test_improved_policy_ranks_by_completed_q() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        k = int(rng.integers(2, 12))
        priors = np.full(k, 1.0 / k)
        visits = rng.integers(0, 20, size=k)
        visits[0] = max(visits[0], 1)
        q = np.where(visits > 0, rng.uniform(-1, 1, size=k), np.nan)
        raw = float(rng.uniform(-1, 1))
        pi = improved_policy(log_priors(priors), q, visits, priors, raw)
        assert pi.sum() == pytest.approx(1.0) and (pi > 0).all()
        done = completed_q(q, visits, priors, raw)
        order = np.argsort(-done, kind="stable")
        assert (np.diff(pi[order]) <= 1e-12).all()  # same ranking as the completed Q
        assert done[visits == 0] == pytest.approx(mixed_value(raw, q, visits, priors))


def test_mixed_value_and_sigma() -> None:
    # No visit: the network's value. Visits: the paper's weighted mix.
    assert mixed_value(0.3, np.full(3, np.nan), np.zeros(3), np.full(3, 1 / 3)) == 0.3
    q = np.array([0.5, np.nan, -0.5])
    visits = np.array([3, 0, 1])
    priors = np.array([0.2, 0.5, 0.3])
    weighted = (0.2 * 0.5 + 0.3 * -0.5) / 0.5
    assert mixed_value(0.1, q, visits, priors) == pytest.approx((0.1 + 4 * weighted) / 5)
    s = sigma(np.array([-1.0, 0.0, 1.0]), np.array([10, 0, 2]), c_visit=50, c_scale=1)
    assert s.tolist() == pytest.approx([0.0, 30.0, 60.0])
    # Sharper with more visits: the improved policy concentrates on the best action.
    logits = np.zeros(3)
    flat = improved_policy(
        logits, np.array([0.1, 0.0, -0.1]), np.array([1, 1, 1]), np.ones(3) / 3, 0.0
    )
    sharp = improved_policy(
        logits, np.array([0.1, 0.0, -0.1]), np.array([500, 500, 500]), np.ones(3) / 3, 0.0
    )
    assert sharp[0] > flat[0] > 1 / 3


def test_gumbel_top_k_samples_without_replacement_from_the_prior() -> None:
    rng = np.random.default_rng(1)
    priors = np.array([0.6, 0.3, 0.1])
    firsts = np.zeros(3)
    for _ in range(4000):
        chosen, g = gumbel_top_k(log_priors(priors), 2, rng)
        assert len(chosen) == 2 and chosen[0] != chosen[1] and g.shape == (3,)
        firsts[chosen[0]] += 1
    assert np.allclose(firsts / 4000, priors, atol=0.03)
