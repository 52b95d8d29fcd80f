"""Ratings: the Davidson maximum-likelihood fit against closed forms, against a naive
per-game likelihood maximised by another optimiser, and against known truth in simulation."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from othellolab.arena.ratings import (
    RatingError,
    fit_ratings,
    games_from_records,
    generation_of,
    write_report,
)

ELO = 400 / math.log(10)


def two_player(w: int, d: int, lo: int) -> list[tuple[str, str, int]]:
    """``a`` wins ``w``, draws ``d`` and loses ``lo`` against ``b``, colours alternating."""
    games = [("a", "b", 2)] * w + [("a", "b", 0)] * d + [("a", "b", -2)] * lo
    return [(b, a, -s) if i % 2 else (a, b, s) for i, (a, b, s) in enumerate(games)]


@pytest.mark.parametrize(("w", "d", "lo"), [(3, 1, 1), (10, 0, 2), (7, 5, 7), (30, 12, 9)])
def test_two_players_match_the_closed_form(w: int, d: int, lo: int) -> None:
    """Two players without a colour term make the Davidson model saturated (two parameters,
    three outcome frequencies), so its MLE reproduces the frequencies (Davidson 1970):
    Elo gap = 400 log10(W / L), nu = D / sqrt(W L); the curvature's standard error of the gap
    is then the delta method's 400/ln(10) * sqrt(1/W + 1/L)."""
    r = fit_ratings(two_player(w, d, lo), anchor="b", prior=0, colour=False)
    gap = r["a"].rating - r["b"].rating
    assert gap == pytest.approx(400 * math.log10(w / lo), abs=1e-3)
    assert r.nu == pytest.approx(d / math.sqrt(w * lo), rel=1e-4) if d else r.nu == 0
    se = ELO * math.sqrt(1 / w + 1 / lo)
    assert r["a"].high - r["a"].rating == pytest.approx(1.959964 * se, rel=1e-3)
    assert (r["a"].wins, r["a"].draws, r["a"].losses) == (w, d, lo)


def test_prior_keeps_a_perfect_score_finite_with_its_closed_form() -> None:
    """Without draws the prior's p virtual games (half won by each side) make the logistic MLE
    400 log10((W + p/2) / (L + p/2))."""
    for p in (1.0, 2.0, 4.0):
        r = fit_ratings(two_player(10, 0, 0), anchor="b", prior=p, colour=False)
        assert r["a"].rating == pytest.approx(400 * math.log10((10 + p / 2) / (p / 2)), abs=1e-3)
    with pytest.raises(RatingError, match="diverge"):
        fit_ratings(two_player(10, 0, 0), anchor="b", prior=0, colour=False)


def naive_nll(params: np.ndarray, games: list[tuple[str, str, int]], labels: list[str]) -> float:
    """The Davidson likelihood written game by game, straight from its definition."""
    r = dict(zip(labels, [0.0, *params[: len(labels) - 1]], strict=True))
    adv, nu = params[len(labels) - 1], math.exp(params[len(labels)])
    total = 0.0
    for b, w, s in games:
        pb, pw = 10 ** ((r[b] + adv) / 400), 10 ** (r[w] / 400)
        z = pb + pw + nu * math.sqrt(pb * pw)
        p = pb / z if s > 0 else pw / z if s < 0 else nu * math.sqrt(pb * pw) / z
        total -= math.log(p)
    return total


def test_fit_agrees_with_a_naive_likelihood_maximised_by_nelder_mead() -> None:
    rng = np.random.default_rng(3)
    labels = ["p0", "p1", "p2", "p3"]
    games = []
    for _ in range(400):
        i, j = rng.choice(4, size=2, replace=False)
        games.append(
            (
                labels[i],
                labels[j],
                int(
                    rng.choice(
                        [-1, 0, 1], p=[0.3 - 0.05 * i + 0.05 * j, 0.2, 0.5 + 0.05 * i - 0.05 * j]
                    )
                ),
            )
        )
    fitted = fit_ratings(games, anchor="p0", prior=0)
    seen = list(dict.fromkeys(x for g in games for x in g[:2]))
    order = ["p0", *[x for x in seen if x != "p0"]]
    x0 = np.zeros(len(order) + 1)
    simplex = np.vstack([x0, x0 + np.diag([50.0] * (len(order) - 1) + [20.0, 0.5])])
    best = minimize(naive_nll, x0, args=(games, order), method="Nelder-Mead",
                    options={"initial_simplex": simplex, "xatol": 1e-3, "fatol": 1e-10,
                             "maxiter": 50000, "maxfev": 50000})  # fmt: skip
    assert best.success
    for label, value in zip(order[1:], best.x[: len(order) - 1], strict=True):
        assert fitted[label].rating == pytest.approx(value, abs=0.5)
    assert fitted.advantage == pytest.approx(best.x[len(order) - 1], abs=0.5)
    assert fitted.nu == pytest.approx(math.exp(best.x[len(order)]), rel=1e-3)


def simulate(truth: dict[str, float], adv: float, nu: float, n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    names = list(truth)
    games = []
    for _ in range(n):
        i, j = rng.choice(len(names), size=2, replace=False)
        b, w = names[i], names[j]
        s = math.log(10) / 400 * (truth[b] - truth[w] + adv) / 2
        z = math.exp(s) + math.exp(-s) + nu
        u = rng.random() * z
        games.append((b, w, 1 if u < math.exp(s) else 0 if u < math.exp(s) + nu else -1))
    return games


def test_simulated_ratings_are_recovered_within_their_intervals() -> None:
    truth = {"random": 0.0, "b": 150.0, "c": 300.0, "d": 500.0}
    games = simulate(truth, adv=40.0, nu=0.3, n=6000, seed=11)
    r = fit_ratings(games, prior=0)
    assert r.anchor == "random" and r["random"].rating == 0
    for label, value in truth.items():
        assert r[label].low <= value <= r[label].high, (label, r[label])
    assert r.advantage == pytest.approx(40, abs=25)
    assert r.nu == pytest.approx(0.3, abs=0.06)
    boot = fit_ratings(games, prior=0, bootstrap=60, seed=1)
    for label in ("b", "c", "d"):
        assert boot[label].error == pytest.approx(r[label].error, rel=0.35)
    shifted = fit_ratings(games, prior=0, anchor="d", anchor_rating=2000)
    assert shifted["random"].rating == pytest.approx(2000 - r["d"].rating, abs=1e-6)


def test_unrateable_results_are_errors() -> None:
    with pytest.raises(RatingError, match="no games"):
        fit_ratings([])
    with pytest.raises(RatingError, match="anchor 'zz' played no game"):
        fit_ratings(two_player(2, 0, 1), anchor="zz")
    with pytest.raises(RatingError, match="no chain of games links c, d to the anchor a"):
        fit_ratings([("a", "b", 1), ("c", "d", 1)], anchor="a")
    with pytest.raises(RatingError, match="prior"):
        fit_ratings(two_player(2, 0, 1), prior=float("nan"))


def test_report_with_table_plots_and_generations(tmp_path: Path) -> None:
    records = [
        {"black": b, "white": w, "score": s}
        for b, w, s in simulate({"random": 0, "run-gen1": 100, "run-gen2": 250}, 0, 0.1, 300, 2)
    ]
    r = fit_ratings(games_from_records(records))
    path = write_report(r, tmp_path, title="T", command="othellolab arena ratings x")
    text = path.read_text()
    assert text.startswith("# T") and "othellolab arena ratings x" in text
    assert "| 1 | run-gen2 |" in text and "![rating against generation](generations.png)" in text
    assert (tmp_path / "ratings.png").stat().st_size > 1000
    assert (tmp_path / "generations.png").stat().st_size > 1000
    assert generation_of("mcts-gen12") == 12 and generation_of("generic") is None
