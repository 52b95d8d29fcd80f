"""Fit the pattern evaluation of ``players.patterns`` to game results, phase by phase.

Games are replayed with the datasets' replay kernel; every position's target is the game's
final disc difference from the side to move (empties to the winner). Each phase's weights
solve a ridge least-squares problem, ``min |Xw - y|^2 + l2 |w|^2`` over the tied (compact)
pattern configurations, by Jacobi-preconditioned conjugate gradient in Numba: a configuration
seen a few times only is pulled towards zero by the ``l2`` pseudo-count. A phase's solution is
saved as soon as it is found, so a killed run resumes at the next phase.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np

from othellolab.core import ConfigError
from othellolab.core.files import save_array
from othellolab.core.kernels import popcount_batch
from othellolab.core.progress import StepProgress
from othellolab.players.search.evaluation import EVAL_HEURISTIC, EVAL_PATTERNS, evaluate
from othellolab.players.search.heuristic import DEFAULT_WEIGHTS
from othellolab.players.search.patterns import (
    N_PHASES,
    PHASE_WIDTH,
    full_to_compact,
    load_pattern_weights,
    pattern_indices_batch,
    save_pattern_weights,
)
from othellolab.training.heldout import load_positions

__all__ = [
    "HELD_OUT_YEAR",
    "PatternTrainOptions",
    "held_out_errors",
    "load_training_positions",
    "solve_phase",
    "train_patterns",
]

HELD_OUT_YEAR = 2023
"""The WTHOR year kept out of training and used to measure the fit."""

EMPTIES_BUCKETS = ((1, 14), (15, 19), (20, 24), (25, 29), (30, 35), (36, 60))
"""Empty-square ranges of the held-out report; 15-35 is the endgame solver's range."""


@dataclass(frozen=True)
class PatternTrainOptions:
    """What ``train_patterns`` reads and how hard it fits."""

    wthor_dir: Path | None = None
    years: str = "1977-2022"
    extra_sources: tuple[Path, ...] = ()
    held_out: Path | None = None
    phases: int = N_PHASES
    l2: float = 5.0
    overlap: int = 2
    iterations: int = 60
    max_games: int = 0
    progress: bool = True
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Positions:
    """Positions with their targets: bitboards, empties, final disc difference (side to move)."""

    p: np.ndarray
    o: np.ndarray
    empties: np.ndarray
    score: np.ndarray

    @classmethod
    def of(cls, player: np.ndarray, opponent: np.ndarray, score: np.ndarray) -> Positions:
        """Positions from bitboards and final scores, in the dtypes the kernels take."""
        p = np.asarray(player).astype(np.uint64)
        o = np.asarray(opponent).astype(np.uint64)
        empties = 64 - popcount_batch(p | o).astype(np.int64)
        return cls(p, o, empties, np.asarray(score).astype(np.float64))


def load_training_positions(
    wthor_dir: Path | None, years: str, extra: Sequence[Path], *, max_games: int = 0
) -> tuple[Positions, list[str]]:
    """Replay the WTHOR ``years`` and the ``extra`` record files into positions; the held-out
    year is refused, so a model is never fitted on its test games."""
    from othellolab.training.data import parse_years

    described: list[str] = []
    parts = []
    if wthor_dir is not None:
        ys = parse_years(years)
        if HELD_OUT_YEAR in ys:
            raise ConfigError(f"years: {HELD_OUT_YEAR} is the held-out year; train on others")
        parts.append(load_positions([wthor_dir], years=years, max_games=max_games, size=8))
        described.append(f"WTHOR {years}")
    for path in extra:
        parts.append(load_positions([path], max_games=max_games, size=8))
        described.append(Path(path).name)
    if not parts:
        raise ConfigError("no training data: give a WTHOR folder or record files")
    positions = Positions.of(
        np.concatenate([x.player for x in parts]),
        np.concatenate([x.opponent for x in parts]),
        np.concatenate([x.score for x in parts]),
    )
    return positions, described


@numba.njit(cache=True)
def _matvec(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            s += w[x[i, j]]
        out[i] = s


@numba.njit(cache=True)
def _rmatvec(x: np.ndarray, r: np.ndarray, out: np.ndarray) -> None:
    out[:] = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[x[i, j]] += r[i]


@numba.njit(cache=True)
def _counts(x: np.ndarray, n: int) -> np.ndarray:
    c = np.zeros(n, dtype=np.float64)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            c[x[i, j]] += 1.0
    return c


def solve_phase(
    x: np.ndarray, y: np.ndarray, n_features: int, *, l2: float, iterations: int
) -> tuple[np.ndarray, float]:
    """Ridge least squares over sparse 0/1 rows ``x`` (column numbers, one per instance) by
    Jacobi-preconditioned conjugate gradient on the normal equations; returns the weights and
    the training mean absolute error."""
    x = np.ascontiguousarray(x, dtype=np.int32)
    y = np.ascontiguousarray(y, dtype=np.float64)
    diag = _counts(x, n_features) + l2
    w = np.zeros(n_features)
    pred = np.empty(len(y))
    g = np.empty(n_features)

    def normal(v: np.ndarray) -> np.ndarray:
        _matvec(x, v, pred)
        _rmatvec(x, pred, g)
        return g + l2 * v

    _rmatvec(x, y, g)
    r = g.copy()
    z = r / diag
    d = z.copy()
    rz = float(r @ z)
    for _ in range(iterations):
        q = normal(d)
        alpha = rz / float(d @ q)
        w += alpha * d
        r -= alpha * q
        z = r / diag
        rz_new = float(r @ z)
        d = z + (rz_new / rz) * d
        rz = rz_new
    _matvec(x, w, pred)
    return w, float(np.abs(np.clip(pred, -64, 64) - y).mean())


@numba.njit(cache=True)
def _evaluate_batch(kind: int, weights: np.ndarray, p: np.ndarray, o: np.ndarray) -> np.ndarray:
    out = np.empty(p.shape[0])
    for i in range(p.shape[0]):
        out[i] = evaluate(kind, weights, p[i], o[i], 8)
    return out


def held_out_errors(positions: Positions, table: np.ndarray) -> list[dict[str, Any]]:
    """Mean absolute error against the final result, by empties bucket, of the pattern
    evaluation (``table``) and of the hand-written heuristic, on the same positions."""
    pat = _evaluate_batch(EVAL_PATTERNS, table, positions.p, positions.o)
    heu = _evaluate_batch(EVAL_HEURISTIC, DEFAULT_WEIGHTS, positions.p, positions.o)
    rows = []
    for lo, hi in (*EMPTIES_BUCKETS, (15, 35)):
        sel = (positions.empties >= lo) & (positions.empties <= hi)
        y = positions.score[sel]
        rows.append(
            {
                "empties": f"{lo}-{hi}",
                "positions": int(sel.sum()),
                "patterns_mae": round(float(np.abs(pat[sel] - y).mean()), 3),
                "heuristic_mae": round(float(np.abs(heu[sel] - y).mean()), 3),
            }
        )
    return rows


def train_patterns(out: str | Path, options: PatternTrainOptions) -> dict[str, Any]:
    """Fit all phases, then write ``weights.safetensors`` + ``config.json`` into ``out``.

    Each phase ``k`` is fitted on the positions whose empties are within ``overlap`` of its
    range (neighbouring phases share data, which smooths the step between them). Finished
    phases sit in ``out/phases/`` and are not fitted again.
    """
    out = Path(out)
    t0 = time.perf_counter()
    data, described = load_training_positions(
        options.wthor_dir, options.years, options.extra_sources, max_games=options.max_games
    )
    parts = out / "phases"
    parts.mkdir(parents=True, exist_ok=True)
    t_load = time.perf_counter() - t0
    index, n_compact = full_to_compact()
    compact = np.zeros((options.phases, n_compact))
    fit: list[dict[str, Any]] = []
    bar = StepProgress(options.progress, total=options.phases, done=0, name="patterns")
    try:
        for k in range(options.phases):
            path = parts / f"phase_{k:02d}.npy"
            lo = 1 + PHASE_WIDTH * k - options.overlap
            hi = PHASE_WIDTH * (k + 1) + options.overlap
            if k == options.phases - 1:
                hi = 64
            if k == 0:
                lo = 0
            sel = np.flatnonzero((data.empties >= lo) & (data.empties <= hi))
            if path.exists():
                compact[k] = np.load(path, allow_pickle=False)
                bar.advance(f"phase {k} (done before)")
                continue
            if len(sel) == 0:
                raise ConfigError(f"phase {k} ({lo}-{hi} empties): no training positions")
            x = index[pattern_indices_batch(data.p[sel], data.o[sel])]
            w, mae = solve_phase(
                x, data.score[sel], n_compact, l2=options.l2, iterations=options.iterations
            )
            compact[k] = w
            save_array(path, w)
            fit.append({"phase": k, "empties": f"{lo}-{hi}", "positions": len(sel), "mae": mae})
            bar.advance(f"phase {k}: {len(sel):,} positions, train MAE {mae:.2f}")
    finally:
        bar.close()
    t_fit = time.perf_counter() - t0 - t_load
    info: dict[str, Any] = {
        "training_data": described,
        "positions": len(data.score),
        "l2": options.l2,
        "phase_overlap": options.overlap,
        "cg_iterations": options.iterations,
        "train_fit": fit,
        "seconds": {"load": round(t_load, 1), "fit": round(t_fit, 1)},
        **options.notes,
    }
    save_pattern_weights(out, compact, info)
    if options.held_out is not None:
        held = load_positions([options.held_out], years=str(HELD_OUT_YEAR), size=8)
        positions = Positions.of(held.player, held.opponent, held.score)
        info["held_out"] = {
            "data": f"WTHOR {HELD_OUT_YEAR}",
            "mae_by_empties": held_out_errors(positions, load_pattern_weights(out).table),
        }
        save_pattern_weights(out, compact, info)
    return json.loads((out / "config.json").read_text())
