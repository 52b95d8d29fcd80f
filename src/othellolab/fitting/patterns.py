"""Fit the pattern evaluation of ``players.patterns`` to game results, phase by phase.

Games are replayed with the datasets' replay kernel; every position's target is the game's
final disc difference from the side to move (empties to the winner). Positions may also come
from ``.npz`` files or a Python ``Positions`` (search-labelled data, exact scores). Each phase's
weights solve a ridge least-squares problem, ``min |Xw - y|^2 + l2 |w|^2`` over the tied
(compact) pattern configurations and the entries of the declared terms' tables (each a 0/1
column, like a configuration), by Jacobi-preconditioned conjugate gradient in Numba: a
configuration seen a few times only is pulled towards zero by the ``l2`` pseudo-count. A
phase's solution is saved as soon as it is found, so a killed run resumes at the next phase.

Neighbouring phases are smoothed by their data: phase ``k`` is fitted on the positions within
``overlap`` empties of its range, so with 60 phases of one empty and an overlap of 2 each phase
sees five empties' positions, as many as a phase of the 12-phase layout sees of its own. A
window keeps the phases independent (one solve each, resumable, the same solver) where a
penalty tying neighbouring phases would couple all of them into one system of 60 times the
columns.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numba
import numpy as np

from othellolab.core import ConfigError
from othellolab.core.files import save_array, write_json
from othellolab.core.kernels import popcount_batch
from othellolab.core.progress import StepProgress
from othellolab.datasets.heldout import load_positions
from othellolab.fitting.positions import Positions, read_positions
from othellolab.players.search.evaluation import (
    EVAL_HEURISTIC,
    EVAL_PATTERN_TERMS,
    EVAL_PATTERNS,
    Evaluation,
    evaluate,
    weights_evaluation,
)
from othellolab.players.search.heuristic import DEFAULT_WEIGHTS
from othellolab.players.search.patterns import (
    MAX_PHASES,
    N_FEATURES,
    PHASE_WIDTH,
    check_phase_width,
    check_terms,
    full_to_compact,
    pattern_indices_batch,
    save_pattern_weights,
    term_columns,
    term_indices_batch,
)

__all__ = [
    "HELD_OUT_YEAR",
    "PatternTrainOptions",
    "Positions",
    "exact_errors",
    "held_out_errors",
    "load_training_positions",
    "read_positions",
    "solve_phase",
    "train_patterns",
]

HELD_OUT_YEAR = 2023
"""The WTHOR year kept out of training and used to measure the fit."""

WTHOR_TARGETS = ("theoretical", "final")
"""Targets of WTHOR positions: the solved score where the file gives one, or the game's end."""

EMPTIES_BUCKETS = ((1, 14), (15, 19), (20, 24), (25, 29), (30, 35), (36, 60))
"""Empty-square ranges of the held-out report; 15-35 is the endgame solver's range."""


@dataclass(frozen=True)
class PatternTrainOptions:
    """What ``train_patterns`` reads and how it fits: WTHOR ``years``, other record files
    (``extra_sources``), ``.npz`` positions files (``positions_files``) and search-labelled
    run folders (``labelled``, their target ``label``, each position counted
    ``labelled_weight`` times in the fit, their first ``labelled_shards`` shards or all for 0:
    one count for every run, or a count per run);
    ``wthor_target`` is ``theoretical`` (WTHOR's solved
    score for the positions before its depth, the final result after) or ``final``;
    ``phase_width``
    empties per phase (``phases`` rows, 0 for enough to cover 60 empties), the extra ``terms``
    (of ``players.search.patterns.TERMS``), the ridge ``l2``, the phase window ``overlap`` and
    the conjugate-gradient ``iterations``. Internal plumbing, not a config table: a user sets
    these keys in ``[fit]`` and ``[sources]`` (``fitting.engine.FitConfig``,
    ``fitting.stages``), checked there, which build this."""

    wthor_dir: Path | None = None
    years: str = "1977-2022"
    extra_sources: tuple[Path, ...] = ()
    positions_files: tuple[Path, ...] = ()
    labelled: tuple[Path, ...] = ()
    label: str = "final"
    labelled_weight: float = 1.0
    labelled_shards: int | tuple[int, ...] = 0
    wthor_target: str = "theoretical"
    held_out: Path | None = None
    phase_width: int = PHASE_WIDTH
    phases: int = 0
    terms: tuple[str, ...] = ()
    l2: float = 5.0
    overlap: int = 2
    iterations: int = 60
    max_games: int = 0
    progress: bool = True
    notes: dict[str, Any] = field(default_factory=dict)

    def checked(self) -> PatternTrainOptions:
        """These options after checking every value (``ConfigError`` naming the option), with
        ``phases`` filled in."""

        def fail(option: str, what: str) -> ConfigError:
            return ConfigError(what, where="train engine-fit", option=option)

        try:
            width = check_phase_width(self.phase_width)
        except ValueError as e:
            raise fail("phase_width", str(e)) from None
        try:
            terms = check_terms(tuple(self.terms))
        except ValueError as e:
            raise fail("terms", str(e)) from None
        phases = self.phases or -(-60 // width)
        counts = self.labelled_shards
        if isinstance(counts, list | tuple):
            if len(counts) != len(self.labelled):
                raise fail(
                    "labelled_shards",
                    f"{len(counts)} shard counts for {len(self.labelled)} labelled runs",
                )
        else:
            counts = (counts,)
        for name, value, low, high in (
            ("phases", phases, 1, MAX_PHASES),
            ("overlap", self.overlap, 0, 60),
            ("iterations", self.iterations, 1, 100_000),
            ("max_games", self.max_games, 0, 10**9),
            *(("labelled_shards", count, 0, 10**9) for count in counts),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise fail(name, f"must be a whole number in {low}..{high}, got {value!r}")
        for name, value in (("l2", self.l2), ("labelled_weight", self.labelled_weight)):
            if isinstance(value, bool) or not (
                isinstance(value, int | float) and math.isfinite(value) and 0 < value <= 1e6
            ):
                raise fail(name, f"must be a finite number in (0, 1e6], got {value!r}")
        from othellolab.fitting.labelled.shards import LABELS

        if self.wthor_target not in WTHOR_TARGETS:
            raise fail(
                "wthor_target",
                f"must be one of {', '.join(WTHOR_TARGETS)}, got {self.wthor_target!r}",
            )
        if self.label not in LABELS:
            raise fail("label", f"must be one of {', '.join(LABELS)}, got {self.label!r}")
        if isinstance(self.labelled_shards, list | tuple):
            return replace(
                self,
                phase_width=width,
                phases=phases,
                terms=terms,
                labelled_shards=tuple(self.labelled_shards),
            )
        return replace(self, phase_width=width, phases=phases, terms=terms)


def _concat(parts: Sequence[Positions]) -> Positions:
    if len(parts) == 1:
        return parts[0]
    weight = None
    if any(x.weight is not None for x in parts):
        weight = np.concatenate([np.ones(len(x)) if x.weight is None else x.weight for x in parts])
    return Positions(
        *(np.concatenate([getattr(x, f) for x in parts]) for f in ("p", "o", "empties", "score")),
        weight=weight,
    )


def load_training_positions(
    wthor_dir: Path | None,
    years: str,
    extra: Sequence[Path],
    *,
    max_games: int = 0,
    positions_files: Sequence[Path] = (),
    positions: Positions | None = None,
    labelled: Sequence[Path] = (),
    label: str = "final",
    labelled_weight: float = 1.0,
    labelled_shards: int | Sequence[int] = 0,
    wthor_target: str = "theoretical",
) -> tuple[Positions, list[str]]:
    """Replay the WTHOR ``years`` and the ``extra`` record files into positions, add those of
    the ``positions_files``, of the ``labelled`` run folders (target ``label``, weight
    ``labelled_weight``, first ``labelled_shards`` shards: one count, or one per run) and
    ``positions``; the held-out year is refused, so a model is never
    fitted on its test games. WTHOR positions get ``wthor_target`` (see
    ``wthor_positions``)."""
    from othellolab.datasets.feeds import parse_years
    from othellolab.fitting.labelled.shards import list_shards, load_labelled, read_run

    described: list[str] = []
    ready: list[Positions] = []
    for path in positions_files:
        ready.append(read_positions(path))
        described.append(Path(path).name)
    counts = (
        list(labelled_shards)
        if isinstance(labelled_shards, Sequence)
        else [labelled_shards] * len(labelled)
    )
    for path, count in zip(labelled, counts, strict=True):
        part = load_labelled(path, label=label, shards=count)
        ready.append(part if labelled_weight == 1 else part.weighted(labelled_weight))
        weight = f", weight {labelled_weight:g}" if labelled_weight != 1 else ""
        n_shards = count or len(list_shards(path))
        run = read_run(path)["config_hash"][:12]
        described.append(
            f"{Path(path).name} ({label} labels, {len(part):,} positions of shards "
            f"0-{n_shards - 1}, config hash {run}{weight})"
        )
    if positions is not None:
        ready.append(positions)
        described.append("positions given")
    parts = []
    if wthor_dir is not None:
        ys = parse_years(years)
        if HELD_OUT_YEAR in ys:
            raise ConfigError(f"years: {HELD_OUT_YEAR} is the held-out year; train on others")
        if wthor_target == "theoretical":
            ready.append(wthor_positions(wthor_dir, ys, max_games=max_games))
            described.append(f"WTHOR {years} (theoretical scores before their depth)")
        else:
            parts.append(load_positions([wthor_dir], years=years, max_games=max_games, size=8))
            described.append(f"WTHOR {years}")
    for path in extra:
        parts.append(load_positions([path], max_games=max_games, size=8))
        described.append(Path(path).name)
    if not parts and not ready:
        raise ConfigError("no training data: give a WTHOR folder, record files or positions files")
    if parts:
        ready.insert(
            0,
            Positions.of(
                np.concatenate([x.player for x in parts]),
                np.concatenate([x.opponent for x in parts]),
                np.concatenate([x.score for x in parts]),
            ),
        )
    return _concat(ready), described


def wthor_positions(wthor_dir: Path, years: Sequence[int], *, max_games: int = 0) -> Positions:
    """The positions of the WTHOR ``years``, each with the best target the files give: a
    position with at least the file's theoretical depth (24) of empties gets the game's
    theoretical score (the human moves up to that depth, perfect play after: the human
    endgame's errors, 11.5 discs a game on average over 1977-2023, are gone), the others the
    game's final result; a game that never reaches the depth keeps its final result."""
    from othellolab.datasets.feeds import wthor_paths
    from othellolab.datasets.replay import positions_from_games
    from othellolab.datasets.sources import read_wtb_arrays, read_wtb_theoretical

    files = wthor_paths(wthor_dir, years)
    rows = positions_from_games((read_wtb_arrays(f) for f in files), max_games=max_games)
    theo, depth = [], []
    for f in files:
        scores, d = read_wtb_theoretical(f)
        theo.append(scores)
        depth.append(np.full(len(scores), d if 0 < d <= 60 else 99, dtype=np.int64))
    assert rows.game is not None and rows.color is not None and rows.score is not None
    game = rows.game.astype(np.int64)
    theo_black = np.concatenate(theo).astype(np.float64)[game]
    game_depth = np.concatenate(depth)[game]
    empties = 64 - popcount_batch(rows.player | rows.opponent).astype(np.int64)
    reaches = np.zeros(int(game.max(initial=-1)) + 1, dtype=bool)
    reaches[game[empties == game_depth]] = True
    use = reaches[game] & (empties >= game_depth)
    final = np.rint(rows.score.astype(np.float64) * 64)
    sign = 1.0 - 2.0 * rows.color.astype(np.float64)
    return Positions.of(rows.player, rows.opponent, np.where(use, sign * theo_black, final))


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
def _counts(x: np.ndarray, n: int, weight: np.ndarray) -> np.ndarray:
    c = np.zeros(n, dtype=np.float64)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            c[x[i, j]] += weight[i]
    return c


def solve_phase(
    x: np.ndarray,
    y: np.ndarray,
    n_features: int,
    *,
    l2: float,
    iterations: int,
    weight: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Ridge least squares over sparse 0/1 rows ``x`` (column numbers, one per instance), each
    row counted ``weight`` times (default once), by Jacobi-preconditioned conjugate gradient on
    the normal equations; returns the weights and the training mean absolute error (weighted)."""
    x = np.ascontiguousarray(x, dtype=np.int32)
    y = np.ascontiguousarray(y, dtype=np.float64)
    wt = np.ones(len(y)) if weight is None else np.ascontiguousarray(weight, dtype=np.float64)
    diag = _counts(x, n_features, wt) + l2
    w = np.zeros(n_features)
    pred = np.empty(len(y))
    g = np.empty(n_features)

    def normal(v: np.ndarray) -> np.ndarray:
        _matvec(x, v, pred)
        _rmatvec(x, pred * wt, g)
        return g + l2 * v

    _rmatvec(x, y * wt, g)
    r = g.copy()
    z = r / diag
    d = z.copy()
    rz = float(r @ z)
    for _ in range(iterations):
        if rz <= 0.0:  # solved exactly (all targets fitted, or all zero)
            break
        q = normal(d)
        alpha = rz / float(d @ q)
        w += alpha * d
        r -= alpha * q
        z = r / diag
        rz_new = float(r @ z)
        d = z + (rz_new / rz) * d
        rz = rz_new
    _matvec(x, w, pred)
    return w, float(np.average(np.abs(np.clip(pred, -64, 64) - y), weights=wt))


@numba.njit(cache=True)
def _evaluate_batch(kind: int, weights: np.ndarray, p: np.ndarray, o: np.ndarray) -> np.ndarray:
    out = np.empty(p.shape[0])
    for i in range(p.shape[0]):
        out[i] = evaluate(kind, weights, p[i], o[i], 8)
    return out


def _as_evaluation(evaluation: Evaluation | np.ndarray) -> Evaluation:
    """An ``Evaluation`` of pattern weights given as one or as a kernel table."""
    if isinstance(evaluation, Evaluation):
        return evaluation
    kind = EVAL_PATTERNS if evaluation.shape[1] == N_FEATURES else EVAL_PATTERN_TERMS
    return Evaluation(kind, evaluation)


def held_out_errors(
    positions: Positions, evaluation: Evaluation | np.ndarray
) -> list[dict[str, Any]]:
    """Mean absolute error against the final result, by empties bucket, of the pattern
    evaluation (an ``Evaluation`` or its kernel table) and of the hand-written heuristic, on
    the same positions."""
    ev = _as_evaluation(evaluation)
    pat = _evaluate_batch(ev.kind, ev.weights, positions.p, positions.o)
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


def exact_errors(
    positions: Positions, weights: Sequence[str | Path], *, buckets: Sequence[tuple[int, int]] = ()
) -> list[dict[str, Any]]:
    """Mean absolute error of each named pattern-weights set (a shipped name or a directory)
    against the exact scores of ``positions``, by empties: one row per empties count present
    (or per ``buckets`` range), then one for all; each row holds ``positions`` and
    ``mae[name]``."""
    evs = {str(w): weights_evaluation(str(w)) for w in weights}
    values = {
        n: _evaluate_batch(e.kind, e.weights, positions.p, positions.o) for n, e in evs.items()
    }
    ranges = list(buckets) or [(int(e), int(e)) for e in np.unique(positions.empties)]
    rows = []
    for lo, hi in (
        *ranges,
        (int(positions.empties.min(initial=0)), int(positions.empties.max(initial=0))),
    ):
        sel = (positions.empties >= lo) & (positions.empties <= hi)
        if not sel.any():
            continue
        y = positions.score[sel]
        rows.append(
            {
                "empties": f"{lo}-{hi}" if lo != hi else str(lo),
                "positions": int(sel.sum()),
                "mae": {n: round(float(np.abs(v[sel] - y).mean()), 3) for n, v in values.items()},
            }
        )
    rows[-1]["empties"] = "all"
    return rows


def phase_columns(p: np.ndarray, o: np.ndarray, terms: tuple[str, ...]) -> np.ndarray:
    """The compact columns each position sets to one: its pattern configurations, then the
    entries of the ``terms``' tables (after the pattern columns)."""
    index, n_compact = full_to_compact()
    x = index[pattern_indices_batch(p, o)]
    if terms:
        x = np.concatenate([x, n_compact + term_indices_batch(p, o, terms)], axis=1)
    return np.ascontiguousarray(x, dtype=np.int32)


def _check_layout(parts: Path, options: PatternTrainOptions) -> None:
    """Refuse to resume phases fitted for another layout (width, phases, terms, window, fit);
    phases of a run from before layouts were recorded resume only for the plain layout."""
    terms = list(options.terms)
    layout = {
        "phase_width": options.phase_width,
        "phases": options.phases,
        "terms": terms,
        "overlap": options.overlap,
        "l2": options.l2,
        "iterations": options.iterations,
    }
    if options.wthor_dir is not None and options.wthor_target != "final":
        layout["wthor_target"] = options.wthor_target
    if options.labelled:
        layout.update(label=options.label, labelled_weight=options.labelled_weight)
        if isinstance(options.labelled_shards, tuple):
            layout["labelled_shards"] = list(options.labelled_shards)
        elif options.labelled_shards:
            layout["labelled_shards"] = options.labelled_shards
    path = parts / "layout.json"
    if path.is_file():
        before = json.loads(path.read_text())
        if before != layout:
            raise ConfigError(
                f"{parts}: phases fitted with {before}, not {layout}; use another --out or "
                "remove that folder"
            )
    elif any(parts.glob("phase_*.npy")) and (layout["phase_width"] != PHASE_WIDTH or terms):
        raise ConfigError(f"{parts}: phases of an unknown layout; remove them or use another --out")
    write_json(path, layout)


def train_patterns(
    out: str | Path, options: PatternTrainOptions, positions: Positions | None = None
) -> dict[str, Any]:
    """Fit all phases, then write ``weights.safetensors`` + ``config.json`` into ``out``.

    The data are the options' sources plus ``positions`` (any ``Positions``: search-labelled,
    exact). Each phase ``k`` is fitted on the positions whose empties are within ``overlap`` of
    its range (neighbouring phases share data, which smooths the step between them). Finished
    phases sit in ``out/phases/`` and are not fitted again.
    """
    options = options.checked()
    out = Path(out)
    t0 = time.perf_counter()
    data, described = load_training_positions(
        options.wthor_dir,
        options.years,
        options.extra_sources,
        max_games=options.max_games,
        positions_files=options.positions_files,
        positions=positions,
        labelled=options.labelled,
        label=options.label,
        labelled_weight=options.labelled_weight,
        labelled_shards=options.labelled_shards,
        wthor_target=options.wthor_target,
    )
    parts = out / "phases"
    parts.mkdir(parents=True, exist_ok=True)
    _check_layout(parts, options)
    t_load = time.perf_counter() - t0
    width, terms = options.phase_width, options.terms
    n_columns = full_to_compact()[1] + term_columns(terms)
    compact = np.zeros((options.phases, n_columns))
    fit: list[dict[str, Any]] = []
    bar = StepProgress(options.progress, total=options.phases, done=0, name="patterns")
    try:
        for k in range(options.phases):
            path = parts / f"phase_{k:02d}.npy"
            lo = 1 + width * k - options.overlap
            hi = width * (k + 1) + options.overlap
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
            x = phase_columns(data.p[sel], data.o[sel], terms)
            w, mae = solve_phase(
                x,
                data.score[sel],
                n_columns,
                l2=options.l2,
                iterations=options.iterations,
                weight=None if data.weight is None else data.weight[sel],
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
    layout = {"phase_width": width, "terms": terms}
    save_pattern_weights(out, compact, info, **layout)
    if options.held_out is not None:
        held = load_positions([options.held_out], years=str(HELD_OUT_YEAR), size=8)
        test = Positions.of(held.player, held.opponent, held.score)
        info["held_out"] = {
            "data": f"WTHOR {HELD_OUT_YEAR}",
            "mae_by_empties": held_out_errors(test, weights_evaluation(str(out))),
        }
        save_pattern_weights(out, compact, info, **layout)
    return json.loads((out / "config.json").read_text())
