"""Fit multi-ProbCut (``players.search.probcut``): how well a shallow search predicts a deep one.

Positions are drawn from game records (WTHOR years other than the held-out one), spread over
the empties; each is searched at every depth from 1 to ``max_depth`` without ProbCut, with the
evaluation the engine plays with. For each depth ``d`` and its shallow depth ``d'``, and each
band of empties, a least-squares line ``v_d = a*v_d' + b`` and the deviation ``sigma`` of its
residuals make one row of the fit. The evaluation is a name (``patterns``: the default weights)
or pattern weights (a shipped set or a directory), whose fit belongs in the weights directory
as ``probcut.json`` (``players.search.probcut.weights_probcut``). The searches are saved every
20 seconds beside the output, so a killed fit resumes.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import Board, ConfigError
from othellolab.core import kernels as _k
from othellolab.core.files import atomic_writer, write_json
from othellolab.core.progress import StepProgress
from othellolab.players.search.probcut import MIN_DEPTH, shallow_depth

__all__ = ["ProbCutOptions", "fit_probcut", "fit_rows"]


@dataclass(frozen=True)
class ProbCutOptions:
    """Where the positions come from, how many, and how deep they are searched. Internal
    plumbing, not a config table: a user sets these keys in the engine config's ``[probcut]``
    (``fitting.engine.ProbCutConfig``, checked there), which builds this."""

    wthor_dir: str
    years: str = "2015-2022"
    positions: int = 1000
    max_depth: int = 10
    empties: tuple[int, int] = (14, 54)
    band: int = 10
    evaluation: str = "patterns"
    seed: int = 0
    progress: bool = True

    def __post_init__(self) -> None:
        if (
            isinstance(self.positions, bool)
            or not isinstance(self.positions, int)
            or not 20 <= self.positions <= 10**6
        ):
            raise ConfigError(
                f"positions must be 20..10**6, got {self.positions!r}", option="positions"
            )
        if (
            isinstance(self.max_depth, bool)
            or not isinstance(self.max_depth, int)
            or not MIN_DEPTH <= self.max_depth <= 20
        ):
            raise ConfigError(
                f"max_depth must be {MIN_DEPTH}..20, got {self.max_depth!r}", option="max_depth"
            )
        lo, hi = self.empties
        if not 1 <= lo <= hi <= 59:
            raise ConfigError(
                f"empties must be 1 <= lo <= hi <= 59, got {self.empties}", option="empties"
            )
        if (
            isinstance(self.band, bool)
            or not isinstance(self.band, int)
            or not 1 <= self.band <= 60
        ):
            raise ConfigError(f"band must be 1..60 empties, got {self.band!r}", option="band")
        from othellolab.players.search.evaluation import check_evaluation_source

        try:
            check_evaluation_source(self.evaluation)
        except ConfigError as e:
            raise ConfigError(e.what, option="evaluation", allowed=e.allowed) from None


def _sample(options: ProbCutOptions) -> tuple[np.ndarray, np.ndarray]:
    """``positions`` distinct positions with empties in range, as evenly spread as the data
    allows, drawn with the options' seed."""
    from othellolab.datasets.feeds import parse_years
    from othellolab.datasets.heldout import load_positions
    from othellolab.fitting.patterns import HELD_OUT_YEAR

    if HELD_OUT_YEAR in parse_years(options.years):
        raise ConfigError(f"years: {HELD_OUT_YEAR} is the held-out year", option="years")
    x = load_positions([Path(options.wthor_dir)], years=options.years, size=8)
    p, o = x.player.astype(np.uint64), x.opponent.astype(np.uint64)
    empties = 64 - _k.popcount_batch(p | o).astype(np.int64)
    has_move = _k.legal_mask_batch(p, o, 8) != 0
    lo, hi = options.empties
    rng = np.random.default_rng(options.seed)
    per = int(np.ceil(options.positions / (hi - lo + 1)))
    chosen: list[int] = []
    for e in range(lo, hi + 1):
        rows = np.flatnonzero((empties == e) & has_move)
        chosen += rng.choice(rows, size=min(per, len(rows)), replace=False).tolist()
    chosen = sorted(rng.choice(chosen, size=min(options.positions, len(chosen)), replace=False))
    return p[chosen], o[chosen]


def _search_depths(
    p: np.ndarray,
    o: np.ndarray,
    options: ProbCutOptions,
    work: Path,
    log: Callable[[str], None] | None,
) -> np.ndarray:
    """``values[i, d]``: position ``i`` searched to ``d`` plies (NaN where the search reached the
    end before ``d``); resumed from and saved to ``work``."""
    from othellolab.players.search.evaluation import evaluation_or_weights
    from othellolab.players.search.midgame import search
    from othellolab.players.search.table import TranspositionTable

    n, top = len(p), options.max_depth
    values = np.full((n, top + 1), np.nan)
    done = np.zeros(n, bool)
    if work.is_file():
        with np.load(work, allow_pickle=False) as z:
            same = "evaluation" in z and str(z["evaluation"]) == options.evaluation
            if same and z["values"].shape == values.shape and np.array_equal(z["player"], p):
                values, done = z["values"].copy(), z["done"].copy()
    if log and done.any():
        log(f"resuming: {int(done.sum()):,} of {n:,} positions searched")
    evaluation = evaluation_or_weights(options.evaluation)
    table = TranspositionTable(20)
    bar = StepProgress(
        options.progress, total=n, done=int(done.sum()), name="probcut", unit="positions"
    )
    saved = time.monotonic()

    def save() -> None:
        with atomic_writer(work, binary=True) as f:
            np.savez(
                f, player=p, opponent=o, values=values, done=done, evaluation=options.evaluation
            )

    try:
        for i in np.flatnonzero(~done):
            board = Board.from_bitboards(int(p[i]), int(o[i]))
            table.clear()
            for d in range(1, min(top, board.num_empties - 1) + 1):
                values[i, d] = search(board, depth=d, evaluation=evaluation, table=table).score
            done[i] = True
            bar.advance(f"depth {top}")
            if time.monotonic() - saved > 20:
                save()
                saved = time.monotonic()
    finally:
        bar.close()
        save()
    return values


def fit_rows(
    values: np.ndarray, empties: np.ndarray, *, band: int, lo: int, hi: int
) -> list[dict[str, Any]]:
    """One row per depth and band of empties: the line from the shallow value to the deep one
    and the deviation of its residuals (bands with fewer than 20 positions are left out)."""
    rows = []
    for depth in range(MIN_DEPTH, values.shape[1]):
        shallow = shallow_depth(depth)
        for start in range(lo, hi + 1, band):
            end = min(hi, start + band - 1)
            sel = (empties >= start) & (empties <= end)
            x, y = values[sel, shallow], values[sel, depth]
            ok = np.isfinite(x) & np.isfinite(y)
            if ok.sum() < 20:
                continue
            x, y = x[ok], y[ok]
            a, b = np.polyfit(x, y, 1)
            resid = y - (a * x + b)
            sigma = float(np.sqrt(np.mean(resid**2)))
            if a <= 0 or sigma <= 0:
                continue
            rows.append({
                "depth": depth,
                "shallow": shallow,
                "empties": [start, end],
                "a": round(float(a), 5),
                "b": round(float(b), 5),
                "sigma": round(sigma, 5),
                "positions": int(ok.sum()),
            })  # fmt: skip
    return rows


def fit_probcut(
    out: str | Path, options: ProbCutOptions, *, log: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Sample, search and fit; write the fit to ``out`` (JSON) and return it."""
    out = Path(out)
    t0 = time.monotonic()
    p, o = _sample(options)
    if log:
        log(
            f"{len(p):,} positions at {options.empties[0]}-{options.empties[1]} empties, depths 1-{options.max_depth}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    work = out.with_name(out.name + ".work.npz")
    values = _search_depths(p, o, options, work, log)
    empties = 64 - _k.popcount_batch(p | o).astype(np.int64)
    rows = fit_rows(
        values, empties, band=options.band, lo=options.empties[0], hi=options.empties[1]
    )
    if not rows:
        raise ConfigError("no band of empties had 20 positions searched: raise positions")
    fit = {
        "format": "othellolab-probcut",
        "created": datetime.date.today().isoformat(),
        "options": {k: v for k, v in asdict(options).items() if k != "progress"},
        "seconds": round(time.monotonic() - t0, 1),
        "fits": rows,
    }
    write_json(out, fit)
    return fit
