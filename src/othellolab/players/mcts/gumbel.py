"""The root of Gumbel AlphaZero (Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022), as small numpy functions over one root's actions.

At the root, ``m`` actions are drawn without replacement by the Gumbel-top-k trick (the top
``m`` of ``g + logits`` with ``g`` standard Gumbel noise), and the simulations are shared
between them by sequential halving: each phase visits the remaining actions equally, then
keeps the better half by ``g + logits + sigma(completed Q)``. The action played is the one
left (the best of those visited most); the policy target is the improved policy
``softmax(logits + sigma(completed Q))`` over every legal action, where an unvisited action's
Q is completed by the mixed value estimate of the paper (its eq. 33). ``sigma`` is the
paper's monotone transform ``(c_visit + max_b N(b)) * c_scale * q``, with the completed Qs
first rescaled to [0, 1] by their minimum and maximum over the legal actions (values here lie
in [-1, 1]; the paper rescales the same way).

Below the root the search is PUCT (or UCT without priors) as in ``players.mcts``, not the
paper's deterministic non-root rule: the policy improvement the paper proves comes from the
root, and the shared tree kernels stay one. ``players.mcts.batch`` drives this root over the
trees of a ``Forest`` (self-play, grading and the ``mcts``/``alphazero`` players with
``root=gumbel``).

>>> [(k, v) for k, v in halving_phases(16, 32)]
[(16, 16), (8, 8), (4, 8)]
>>> sum(v for _, v in halving_phases(5, 50))
50
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "C_SCALE",
    "C_VISIT",
    "completed_q",
    "gumbel_top_k",
    "halving_phases",
    "improved_policy",
    "log_priors",
    "mixed_value",
    "sigma",
]

C_VISIT = 50.0
"""The paper's ``c_visit``."""
C_SCALE = 1.0
"""The paper's ``c_scale``."""

_TINY = 1e-30


def halving_phases(considered: int, simulations: int) -> list[tuple[int, int]]:
    """Sequential halving of ``simulations`` over ``considered`` actions, as ``(actions kept,
    visits in the phase)`` per phase: a phase visits its actions in turn, ``max(1,
    simulations // (ceil(log2 considered) * actions))`` times each, then halves them (never
    below 2); the last phase stops where the budget does, so the visits add up to
    ``simulations`` exactly."""
    if considered < 1 or simulations < 0:
        raise ValueError(
            f"need considered >= 1 and simulations >= 0, got {considered}, {simulations}"
        )
    if considered == 1:
        return [(1, simulations)] if simulations else []
    rounds = max(1, math.ceil(math.log2(considered)))
    phases = []
    kept, left = considered, simulations
    while left > 0:
        each = max(1, simulations // (rounds * kept))
        visits = min(each * kept, left)
        phases.append((kept, visits))
        left -= visits
        kept = max(2, kept // 2)
    return phases


def log_priors(priors: np.ndarray) -> np.ndarray:
    """Logits of a prior distribution (``log``, floored so that a zero prior stays finite)."""
    return np.log(np.maximum(np.asarray(priors, dtype=np.float64), _TINY))


def gumbel_top_k(
    logits: np.ndarray, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(chosen, g)``: the indices of the top ``count`` of ``g + logits`` (best first), a
    sample without replacement from ``softmax(logits)``, and the Gumbel noise ``g`` drawn."""
    g = rng.gumbel(size=len(logits))
    order = np.argsort(-(g + logits), kind="stable")
    return order[: min(count, len(logits))], g


def mixed_value(raw_value: float, q: np.ndarray, visits: np.ndarray, priors: np.ndarray) -> float:
    """The paper's value estimate for completing unvisited actions: the network's value at the
    root mixed with the prior-weighted Q of the visited actions, weighted by the visits."""
    visits = np.asarray(visits, dtype=np.float64)
    total = visits.sum()
    seen = visits > 0
    if total == 0 or not seen.any():
        return float(raw_value)
    weights = np.maximum(np.asarray(priors, dtype=np.float64)[seen], _TINY)
    weighted_q = float((weights * np.asarray(q, dtype=np.float64)[seen]).sum() / weights.sum())
    return float((raw_value + total * weighted_q) / (1.0 + total))


def completed_q(
    q: np.ndarray, visits: np.ndarray, priors: np.ndarray, raw_value: float
) -> np.ndarray:
    """Q of each action, the mixed value (``mixed_value``) where it was never visited."""
    q = np.asarray(q, dtype=np.float64)
    visits = np.asarray(visits)
    fill = mixed_value(raw_value, q, visits, priors)
    return np.where(visits > 0, np.nan_to_num(q, nan=fill), fill)


def sigma(
    completed: np.ndarray,
    visits: np.ndarray,
    *,
    c_visit: float = C_VISIT,
    c_scale: float = C_SCALE,
) -> np.ndarray:
    """The paper's monotone transform of completed Qs (of the legal actions only): rescaled to
    [0, 1] by their range, times ``(c_visit + max visits) * c_scale``."""
    completed = np.asarray(completed, dtype=np.float64)
    lo, hi = completed.min(initial=0.0), completed.max(initial=0.0)
    scaled = (completed - lo) / max(hi - lo, 1e-8)
    return (c_visit + float(np.max(visits, initial=0))) * c_scale * scaled


def improved_policy(
    logits: np.ndarray,
    q: np.ndarray,
    visits: np.ndarray,
    priors: np.ndarray,
    raw_value: float,
    *,
    c_visit: float = C_VISIT,
    c_scale: float = C_SCALE,
) -> np.ndarray:
    """``softmax(logits + sigma(completed Q))`` over the given (legal) actions: the policy
    target of Gumbel AlphaZero."""
    done = completed_q(q, visits, priors, raw_value)
    z = np.asarray(logits, dtype=np.float64) + sigma(done, visits, c_visit=c_visit, c_scale=c_scale)
    z -= z.max(initial=0.0)
    e = np.exp(z)
    return e / e.sum()
