"""Ratings from game results: maximum-likelihood Elo under the Davidson model (Bradley-Terry
with draws), with a first-move (colour) advantage, anchored on one player, with confidence
intervals from the likelihood's curvature or from a bootstrap over games.

The model: a game between black ``i`` and white ``j`` has ``x = k (r_i - r_j + a)`` with
``k = ln(10) / 400`` (so a 400-point gap means odds of 10 to 1) and ``a`` black's advantage;
black wins with probability ``e^(x/2) / Z``, draws with ``nu / Z`` and loses with
``e^(-x/2) / Z``, where ``Z = e^(x/2) + e^(-x/2) + nu``. Without draws this is the logistic Elo
model. The fit maximises the likelihood with ``scipy.optimize`` (a trust-region Newton method
on the exact gradient and Hessian); ``prior`` adds that many virtual games to every pairing that
was played, half won and half lost by each side, which keeps the ratings of a player that won or
lost every game finite (as BayesElo's virtual draws do).

>>> games = [("a", "b", 10)] * 3 + [("b", "a", 0)] + [("a", "b", -6)]
>>> r = fit_ratings(games, anchor="b", prior=0, colour=False)
>>> round(r["a"].rating - r["b"].rating, 1)  # 400 log10(3 wins / 1 loss) with one draw
190.8
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import OthelloError

__all__ = [
    "Rating",
    "RatingError",
    "Ratings",
    "fit_ratings",
    "games_from_records",
    "generation_of",
    "write_report",
]

K = math.log(10) / 400
"""Natural-log odds per Elo point."""


class RatingError(OthelloError):
    """Results that cannot be rated: no games, an unknown anchor, or players whose games do not
    connect them to the anchor."""


@dataclass(frozen=True)
class Rating:
    """One player's rating (Elo, relative to the anchor) with its confidence interval, and its
    results: points per game (win 1, draw 1/2) and the counts of wins, draws and losses."""

    label: str
    rating: float
    low: float
    high: float
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def error(self) -> float:
        """Half the width of the confidence interval."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings, strongest first, with the model's draw and colour parameters: ``nu``
    (the draw rate between equals is ``nu / (2 + nu)``) and ``advantage`` (black's, in Elo)."""

    rows: tuple[Rating, ...]
    anchor: str
    anchor_rating: float
    nu: float
    advantage: float
    confidence: float
    method: str
    prior: float
    games: int
    covariance: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __getitem__(self, label: str) -> Rating:
        for row in self.rows:
            if row.label == label:
                return row
        raise KeyError(label)

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.rows]

    def table(self, *, specs: Mapping[str, str] | None = None) -> str:
        """A Markdown table: rank, player, Elo with its interval, games, score and W-D-L."""
        pct = round(100 * self.confidence)
        head = f"| # | player | Elo | {pct}% interval | games | score | +win =draw -loss |"
        lines = [head, "|---|---|---:|---|---:|---:|---|"]
        for rank, r in enumerate(self.rows, 1):
            name = f"`{specs[r.label]}`" if specs and r.label in specs else r.label
            if specs and r.label in specs and specs[r.label] != r.label:
                name = f"{r.label} (`{specs[r.label]}`)"
            interval = "anchor" if r.label == self.anchor else f"{r.low:.0f} to {r.high:.0f}"
            lines.append(
                f"| {rank} | {name} | {r.rating:.0f} | {interval} | {r.games} | "
                f"{100 * r.score:.1f}% | +{r.wins} ={r.draws} -{r.losses} |"
            )
        return "\n".join(lines)

    def summary(self) -> str:
        """One line on the model: games, anchor, draw rate between equals, colour advantage."""
        return (
            f"{self.games} games; {self.anchor} = {self.anchor_rating:g}; draw rate between "
            f"equals {100 * self.nu / (2 + self.nu):.1f}%; black's advantage "
            f"{round(self.advantage) + 0:+d} Elo; {round(100 * self.confidence)}% intervals by "
            f"{self.method}; prior {self.prior:g} virtual games per pairing"
        )


def games_from_records(records: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, int]]:
    """(black, white, black's disc difference) of each results record."""
    return [(r["black"], r["white"], int(r["score"])) for r in records]


def fit_ratings(
    games: Sequence[tuple[str, str, float]],
    *,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    prior: float = 2.0,
    colour: bool = True,
    confidence: float = 0.95,
    bootstrap: int = 0,
    seed: int = 0,
) -> Ratings:
    """Maximum-likelihood ratings of ``games`` (black, white, black's score: its sign decides).

    ``anchor`` (default: ``random`` if it played, else the first player seen) is fixed at
    ``anchor_rating``; intervals cover ``confidence`` and come from the inverse Hessian of the
    log-likelihood, or, with ``bootstrap=B``, from the percentiles of B refits on games drawn
    with replacement. ``colour=False`` drops the colour advantage from the model.
    """
    if not games:
        raise RatingError("no games to rate")
    if not (math.isfinite(prior) and 0 <= prior <= 1000):
        raise RatingError(f"prior must be a finite number in [0, 1000], got {prior!r}")
    if not 0 < confidence < 1:
        raise RatingError(f"confidence must be in (0, 1), got {confidence!r}")
    if not 0 <= bootstrap <= 100_000:
        raise RatingError(f"bootstrap must be in [0, 100000] refits, got {bootstrap!r}")
    labels: list[str] = []
    index: dict[str, int] = {}
    for b, w, _ in games:
        for name in (b, w):
            if name not in index:
                index[name] = len(labels)
                labels.append(name)
    if anchor is None:
        anchor = "random" if "random" in index else labels[0]
    if anchor not in index:
        raise RatingError(f"anchor {anchor!r} played no game; players: {', '.join(labels)}")
    black = np.array([index[b] for b, _, _ in games])
    white = np.array([index[w] for _, w, _ in games])
    outcome = np.sign(np.array([s for _, _, s in games], dtype=np.float64)).astype(np.int64)
    _check_connected(labels, black, white, anchor)
    if prior == 0:
        _check_finite(labels, black, white, outcome)
    model = _Model(len(labels), index[anchor], colour=colour)
    theta, draws = model.fit(black, white, outcome, prior)
    nu, advantage = model.nu(theta, draws), model.advantage(theta, draws)
    z = _normal_quantile((1 + confidence) / 2)
    ratings = model.ratings(theta)
    if bootstrap:
        rng = np.random.default_rng(seed)
        samples = np.empty((bootstrap, len(labels)))
        for b in range(bootstrap):
            pick = rng.integers(len(games), size=len(games))
            refit, _ = model.fit(black[pick], white[pick], outcome[pick], prior, start=theta)
            samples[b] = model.ratings(refit)
        tail = (1 - confidence) / 2
        low = np.quantile(samples, tail, axis=0)
        high = np.quantile(samples, 1 - tail, axis=0)
        covariance = np.cov(samples, rowvar=False)
        method = f"bootstrap ({bootstrap} refits)"
    else:
        covariance = model.rating_covariance(theta, black, white, outcome, prior)
        se = np.sqrt(np.maximum(np.diag(covariance), 0.0))
        low, high = ratings - z * se, ratings + z * se
        method = "the likelihood's curvature"
    rows = []
    for i, label in enumerate(labels):
        as_black = black == i
        as_white = white == i
        won = int(np.sum(as_black & (outcome > 0)) + np.sum(as_white & (outcome < 0)))
        lost = int(np.sum(as_black & (outcome < 0)) + np.sum(as_white & (outcome > 0)))
        drawn = int(np.sum((as_black | as_white) & (outcome == 0)))
        rows.append(
            Rating(
                label,
                float(ratings[i] + anchor_rating),
                float(low[i] + anchor_rating),
                float(high[i] + anchor_rating),
                won + drawn + lost,
                won,
                drawn,
                lost,
            )
        )
    rows.sort(key=lambda r: (-r.rating, r.label))
    return Ratings(
        tuple(rows),
        anchor,
        anchor_rating,
        nu,
        advantage,
        confidence,
        method,
        prior,
        len(games),
        covariance,
    )


def _check_connected(labels: list[str], black: np.ndarray, white: np.ndarray, anchor: str) -> None:
    """Every player must be linked to the anchor by a chain of games, or its rating is free."""
    adjacency: dict[int, set[int]] = {i: set() for i in range(len(labels))}
    for b, w in zip(black.tolist(), white.tolist(), strict=True):
        adjacency[b].add(w)
        adjacency[w].add(b)
    start = labels.index(anchor)
    seen = {start}
    stack = [start]
    while stack:
        for j in adjacency[stack.pop()]:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    loose = [labels[i] for i in range(len(labels)) if i not in seen]
    if loose:
        raise RatingError(
            f"no chain of games links {', '.join(loose)} to the anchor {anchor}: their ratings "
            "are not determined"
        )


def _check_finite(
    labels: list[str], black: np.ndarray, white: np.ndarray, outcome: np.ndarray
) -> None:
    """Without a prior the likelihood has a maximum only if no group of players won (or lost)
    every game against the rest: the graph "i won or drew against j" is strongly connected."""
    n = len(labels)
    beat: dict[int, set[int]] = {i: set() for i in range(n)}
    for b, w, o in zip(black.tolist(), white.tolist(), outcome.tolist(), strict=True):
        if o >= 0:
            beat[b].add(w)
        if o <= 0:
            beat[w].add(b)
    beaten: dict[int, set[int]] = {i: set() for i in range(n)}
    for i, js in beat.items():
        for j in js:
            beaten[j].add(i)
    for graph in (beat, beaten):
        seen, stack = {0}, [0]
        while stack:
            for j in graph[stack.pop()]:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
        if len(seen) < n:
            raise RatingError(
                "the ratings diverge: some players won (or lost) every game against the others "
                f"({', '.join(labels[i] for i in range(n) if i not in seen)} on one side); use a "
                "prior > 0"
            )


def _normal_quantile(p: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(p))


class _Model:
    """The Davidson likelihood over free parameters ``theta``: the ratings of every player but
    the anchor (Elo), then black's advantage (Elo, when ``colour``), then ``log nu`` (when the
    games hold draws)."""

    def __init__(self, n: int, anchor: int, *, colour: bool) -> None:
        self.n = n
        self.anchor = anchor
        self.colour = colour
        self.free = [i for i in range(n) if i != anchor]

    def _layout(self, draws: bool) -> tuple[int, int | None, int | None]:
        size = self.n - 1
        a = size if self.colour else None
        size += self.colour
        d = size if draws else None
        return size + draws, a, d

    def _cells(
        self, black: np.ndarray, white: np.ndarray, outcome: np.ndarray, prior: float
    ) -> dict[str, Any]:
        """Games summed by (black, white): counts of black wins, draws, white wins; and the
        virtual games of the prior, by unordered pairing."""
        n = self.n
        cell = black * n + white
        w = np.bincount(cell[outcome > 0], minlength=n * n).astype(np.float64)
        d = np.bincount(cell[outcome == 0], minlength=n * n).astype(np.float64)
        lo = np.bincount(cell[outcome < 0], minlength=n * n).astype(np.float64)
        played = np.flatnonzero(w + d + lo)
        pairs = np.zeros(n * n, dtype=bool)
        pairs[np.minimum(black, white) * n + np.maximum(black, white)] = True
        virtual = np.flatnonzero(pairs) if prior > 0 else np.zeros(0, dtype=np.int64)
        draws = bool(d.sum() > 0)
        size, a, di = self._layout(draws)
        return {
            "real": self._design(played // n, played % n, size, a),
            "virtual": self._design(virtual // n, virtual % n, size, None),
            "w": w[played],
            "d": d[played],
            "l": lo[played],
            "prior": prior,
            "draws": draws,
            "size": size,
            "draw_index": di,
        }

    def _design(self, i: np.ndarray, j: np.ndarray, size: int, a: int | None) -> np.ndarray:
        """Rows of ``x / k`` in terms of theta: +1 for black's rating, -1 for white's, +1 for
        the advantage (the anchor's rating is fixed at 0)."""
        x = np.zeros((len(i), size))
        col = {p: c for c, p in enumerate(self.free)}
        for row, (bi, wj) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
            if bi in col:
                x[row, col[bi]] += 1.0
            if wj in col:
                x[row, col[wj]] -= 1.0
            if a is not None:
                x[row, a] = 1.0
        return x

    def objective(
        self, theta: np.ndarray, cells: dict[str, Any]
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """Negative log-likelihood (with the prior), its gradient and its Hessian."""
        real, virtual, d = cells["real"], cells["virtual"], cells["draw_index"]
        w, dr, lo = cells["w"], cells["d"], cells["l"]
        total = w + dr + lo
        s = 0.5 * K * (real @ theta)
        es, ems = np.exp(s), np.exp(-s)
        nu = math.exp(theta[d]) if d is not None else 0.0
        z = es + ems + nu
        value = float(np.sum(-(w - lo) * s + total * np.log(z)))
        f_s = -(w - lo) + total * (es - ems) / z
        f_ss = total * ((es + ems) * z - (es - ems) ** 2) / z**2
        js = 0.5 * K * real
        grad = js.T @ f_s
        hess = (js * f_ss[:, None]).T @ js
        if d is not None:
            value -= float(dr.sum()) * theta[d]
            grad[d] += float(np.sum(-dr + total * nu / z))
            f_sd = -total * (es - ems) * nu / z**2
            cross = js.T @ f_sd
            hess[:, d] += cross
            hess[d, :] += cross
            hess[d, d] += float(np.sum(total * nu * (es + ems) / z**2))
        p = cells["prior"]
        if p > 0 and len(virtual):
            t = K * (virtual @ theta)  # the virtual games' logit, colour-free
            sig = 1.0 / (1.0 + np.exp(-t))
            value += float(np.sum(-0.5 * p * (np.log(sig) + np.log1p(-sig))))
            g_t = 0.5 * p * (2 * sig - 1)  # d/dt of -(p/2)(log sig(t) + log sig(-t))
            h_t = p * sig * (1 - sig)
            jt = K * virtual
            grad += jt.T @ g_t
            hess += (jt * h_t[:, None]).T @ jt
        return value, grad, hess

    def fit(
        self,
        black: np.ndarray,
        white: np.ndarray,
        outcome: np.ndarray,
        prior: float,
        *,
        start: np.ndarray | None = None,
    ) -> tuple[np.ndarray, bool]:
        """The maximum-likelihood theta, and whether the games held draws (theta's layout)."""
        from scipy.optimize import minimize

        cells = self._cells(black, white, outcome, prior)
        size, d = cells["size"], cells["draw_index"]
        x0 = np.zeros(size)
        if start is not None and len(start) == size:
            x0 = start.copy()
        elif d is not None:
            x0[d] = math.log(max(cells["d"].sum(), 0.5) / max(len(outcome), 1))
        result = minimize(
            lambda t: self.objective(t, cells)[:2],
            x0,
            jac=True,
            hess=lambda t: self.objective(t, cells)[2],
            method="trust-exact",
            options={"gtol": 1e-8, "maxiter": 500},
        )
        theta = np.asarray(result.x, dtype=np.float64)
        if not np.all(np.isfinite(theta)) or np.max(np.abs(theta[: self.n - 1]), initial=0) > 1e5:
            raise RatingError(
                "the ratings diverge (a player won or lost every game and prior = 0): use a "
                "prior > 0"
            )
        return theta, cells["draws"]

    def ratings(self, theta: np.ndarray) -> np.ndarray:
        out = np.zeros(self.n)
        out[self.free] = theta[: self.n - 1]
        return out

    def nu(self, theta: np.ndarray, draws: bool) -> float:
        _, _, d = self._layout(draws)
        return math.exp(theta[d]) if d is not None else 0.0

    def advantage(self, theta: np.ndarray, draws: bool) -> float:
        _, a, _ = self._layout(draws)
        return float(theta[a]) if a is not None else 0.0

    def rating_covariance(
        self,
        theta: np.ndarray,
        black: np.ndarray,
        white: np.ndarray,
        outcome: np.ndarray,
        prior: float,
    ) -> np.ndarray:
        """Covariance of all players' ratings (the anchor's row and column are zero): the
        inverse of the Hessian of the negative log-likelihood at the optimum."""
        cells = self._cells(black, white, outcome, prior)
        hess = self.objective(theta, cells)[2]
        inv = np.linalg.pinv(hess)
        out = np.zeros((self.n, self.n))
        f = self.free
        out[np.ix_(f, f)] = inv[: self.n - 1, : self.n - 1]
        return out


# ----------------------------------------------------------------------------------------------
# Reports

_GENERATION = re.compile(r"(?:^|[^a-z])(?:gen|generation)[-_ ]?(\d+)$", re.IGNORECASE)


def generation_of(label: str) -> int | None:
    """The self-play generation a label names (``model-gen12`` -> 12), else ``None``."""
    m = _GENERATION.search(label)
    return int(m.group(1)) if m else None


def write_report(
    ratings: Ratings,
    folder: str | Path,
    *,
    title: str = "Ratings",
    specs: Mapping[str, str] | None = None,
    generations: Mapping[str, int] | None = None,
    command: str | None = None,
    notes: str = "",
) -> Path:
    """Write ``report.md`` (the table and the model's parameters) with ``ratings.png`` (ratings
    with their intervals) and, when two or more players carry a self-play generation (given,
    or read from labels like ``gen12``), ``generations.png`` (rating against generation)."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    gens = dict(generations or {})
    for label in ratings.labels:
        g = generation_of(label)
        if label not in gens and g is not None:
            gens[label] = g
    images = _plots(ratings, out, gens if len(gens) >= 2 else {})
    lines = [f"# {title}", ""]
    if command:
        lines += ["Reproduce with:", "", "```sh", command, "```", ""]
    lines += [ratings.table(specs=specs), "", ratings.summary() + ".", ""]
    if notes:
        lines += [notes.strip(), ""]
    for name, caption in images:
        lines += [f"![{caption}]({name})", ""]
    if not images:
        lines += ["(No plots: matplotlib is not installed; `pip install othellolab[plot]`.)", ""]
    path = out / "report.md"
    from othellolab.core.files import atomic_writer

    with atomic_writer(path) as f:
        f.write("\n".join(lines))
    return path


def _plots(ratings: Ratings, out: Path, gens: Mapping[str, int]) -> list[tuple[str, str]]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    rows = list(reversed(ratings.rows))
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.2))
    y = np.arange(len(rows))
    values = np.array([r.rating for r in rows])
    err = np.array([[r.rating - r.low for r in rows], [r.high - r.rating for r in rows]])
    ax.errorbar(values, y, xerr=err, fmt="o", color="#1f5f3f", ecolor="#6a9f7f", capsize=3)
    ax.set_yticks(y, [r.label for r in rows])
    ax.set_xlabel(f"Elo ({ratings.anchor} = {ratings.anchor_rating:g})")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"Ratings with {round(100 * ratings.confidence)}% intervals")
    fig.tight_layout()
    fig.savefig(out / "ratings.png", dpi=110)
    plt.close(fig)
    images = [("ratings.png", "ratings with intervals")]
    if gens:
        points = sorted((gens[r.label], r) for r in ratings.rows if r.label in gens)
        fig, ax = plt.subplots(figsize=(7, 4))
        xs = [g for g, _ in points]
        ax.errorbar(
            xs,
            [r.rating for _, r in points],
            yerr=[[r.rating - r.low for _, r in points], [r.high - r.rating for _, r in points]],
            fmt="o-",
            capsize=3,
        )
        ax.set_xlabel("generation")
        ax.set_ylabel("Elo")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "generations.png", dpi=110)
        plt.close(fig)
        images.append(("generations.png", "rating against generation"))
    return images
