"""Fitting the pattern evaluation: the solver on synthetic data, a small real run that resumes,
and the shipped weights against the hand-written heuristic on held-out WTHOR 2023."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from othellolab.core.kernels import popcount_batch
from othellolab.players.search.patterns import (
    full_to_compact,
    load_pattern_weights,
    pattern_indices_batch,
)
from othellolab.testing import random_game
from othellolab.training.heldout import load_positions
from othellolab.training.patterns import (
    PatternTrainOptions,
    Positions,
    held_out_errors,
    solve_phase,
    train_patterns,
)

from helpers import shared_file


def test_solver_recovers_a_planted_model() -> None:
    """Targets made by known weights plus noise: the fit's error falls to the noise level."""
    index, n = full_to_compact()
    boards = [b for g in range(300) for b in random_game(8, seed=g)]
    p = np.array([b.player for b in boards], dtype=np.uint64)
    o = np.array([b.opponent for b in boards], dtype=np.uint64)
    x = index[pattern_indices_batch(p, o)]
    rng = np.random.default_rng(0)
    truth = np.zeros(n)
    used = np.unique(x)
    truth[used] = rng.normal(0, 1.0, size=len(used))
    y = truth[x].sum(1) + rng.normal(0, 0.5, size=len(x))
    w, mae = solve_phase(x, y, n, l2=0.1, iterations=60)
    baseline = float(np.abs(y - y.mean()).mean())
    assert mae < 0.5 * baseline
    assert w.shape == (n,)


def test_train_on_a_small_subset_reduces_error_and_resumes(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2005.wtb").parent
    options = PatternTrainOptions(
        wthor_dir=wthor, years="2005", max_games=400, phases=3, iterations=20, progress=False
    )
    config = train_patterns(tmp_path, options)
    assert (tmp_path / "weights.safetensors").is_file()
    assert len(list((tmp_path / "phases").glob("phase_*.npy"))) == 3
    for fit in config["train_fit"]:
        assert fit["mae"] < 15.0
    again = train_patterns(tmp_path, options)
    assert again["train_fit"] == []
    loaded = load_pattern_weights(tmp_path)
    assert loaded.compact.shape[0] == 3


def test_held_out_year_is_refused(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2023.wtb").parent
    with pytest.raises(ValueError, match="held-out"):
        train_patterns(tmp_path, PatternTrainOptions(wthor_dir=wthor, years="2020-2023"))
    assert not (tmp_path / "phases").exists()


def test_shipped_weights_beat_the_heuristic_on_wthor_2023() -> None:
    """Mean absolute error against the final result, 15-35 empties, held-out games."""
    path = shared_file("wthor/WTH_2023.wtb")
    held = load_positions([path], max_games=800, size=8)
    p = held.player.astype(np.uint64)
    o = held.opponent.astype(np.uint64)
    empties = 64 - popcount_batch(p | o).astype(np.int64)
    positions = Positions(p, o, empties, held.score.astype(np.float64))
    rows = {r["empties"]: r for r in held_out_errors(positions, load_pattern_weights().table)}
    mid = rows["15-35"]
    assert mid["positions"] > 10_000
    assert mid["patterns_mae"] < 0.8 * mid["heuristic_mae"]
    for bucket in ("15-19", "20-24", "25-29", "30-35"):
        assert rows[bucket]["patterns_mae"] < rows[bucket]["heuristic_mae"]
