"""Fitting the pattern evaluation: the solver on synthetic data, a small real run that resumes,
and the shipped weights against the hand-written heuristic on held-out WTHOR 2023."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from othellolab import Board
from othellolab.core import ConfigError
from othellolab.core.kernels import U64, popcount_batch
from othellolab.datasets.heldout import load_positions
from othellolab.fitting.patterns import (
    PatternTrainOptions,
    Positions,
    exact_errors,
    held_out_errors,
    read_positions,
    solve_phase,
    train_patterns,
)
from othellolab.players.search.evaluation import (
    EVAL_PATTERN_TERMS,
    Evaluation,
    evaluate,
    weights_evaluation,
)
from othellolab.players.search.patterns import (
    CLASS_OFFSETS,
    TERMS,
    compact_to_full,
    full_to_compact,
    load_pattern_weights,
    pattern_indices_batch,
    term_columns,
)
from othellolab.testing import random_game

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


def _boards(seeds: range) -> tuple[np.ndarray, np.ndarray]:
    boards = [b for g in seeds for b in random_game(8, seed=g)]
    p = np.array([b.player for b in boards], dtype=np.uint64)
    o = np.array([b.opponent for b in boards], dtype=np.uint64)
    return p, o


def test_fit_recovers_a_planted_evaluation_with_terms(tmp_path: Path) -> None:
    """Random weights in a layout with terms (3 phases of 20 empties) on the two smallest
    pattern classes and every term label random positions; the fit from those ``Positions``
    predicts fresh positions as the planted evaluation does, and finds its terms' tables (up
    to the constant each table shares with the others)."""
    n = full_to_compact()[1]
    width, phases = 20, 3
    rng = np.random.default_rng(7)
    compact = np.zeros((phases, n + term_columns(TERMS)))
    small = full_to_compact()[0][CLASS_OFFSETS[-2] :]  # diag_5 and diag_4 configurations
    compact[:, np.unique(small)] = rng.normal(0, 0.7, size=(phases, len(np.unique(small))))
    compact[:, n:] = rng.normal(0, 1.0, size=(phases, term_columns(TERMS)))
    planted = Evaluation(
        EVAL_PATTERN_TERMS, compact_to_full(compact, terms=TERMS, phase_width=width)
    )

    def label(p: np.ndarray, o: np.ndarray) -> np.ndarray:
        return np.array(
            [
                evaluate(EVAL_PATTERN_TERMS, planted.weights, U64(a), U64(b), 8)
                for a, b in zip(p, o, strict=True)
            ]
        )

    p, o = _boards(range(1200))
    options = PatternTrainOptions(
        phase_width=width, terms=TERMS, overlap=0, l2=0.01, iterations=150, progress=False
    )
    train_patterns(tmp_path, options, positions=Positions.of(p, o, label(p, o)))
    fitted = load_pattern_weights(tmp_path)
    assert fitted.terms == TERMS and fitted.phase_width == width and not fitted.plain
    fp, fo = _boards(range(1000, 1100))
    truth = label(fp, fo)
    ev = weights_evaluation(str(tmp_path))
    got = np.array([ev(Board.from_bitboards(int(a), int(b))) for a, b in zip(fp, fo, strict=True)])
    spread = np.abs(truth - truth.mean()).mean()
    assert np.abs(got - truth).mean() < 0.02 * spread
    # the parity table of the middle phase, up to its constant: odd quadrants 0..4 are common
    start = n + term_columns(("mobility", "potential_mobility"))
    par = slice(start, start + term_columns(("parity",)))
    diff = fitted.compact[1, par] - compact[1, par]
    assert np.abs(diff - diff.mean()).max() < 0.05


def test_options_are_checked(tmp_path: Path) -> None:
    p, o = _boards(range(3))
    data = Positions.of(p, o, np.zeros(len(p)))
    for bad, match in (
        ({"phase_width": 0}, "phase_width"),
        ({"terms": ("mobility", "corners")}, "unknown term"),
        ({"terms": ("parity", "mobility")}, "order"),
        ({"l2": float("nan")}, "l2"),
        ({"iterations": 0}, "iterations"),
        ({"phases": 65}, "phases"),
    ):
        with pytest.raises(ConfigError, match=match):
            train_patterns(tmp_path, PatternTrainOptions(progress=False, **bad), positions=data)


def test_positions_files_are_read_and_checked(tmp_path: Path) -> None:
    p, o = _boards(range(2))
    np.savez(tmp_path / "good.npz", player=p, opponent=o, score=np.arange(len(p)) % 9 - 4)
    got = read_positions(tmp_path / "good.npz")
    assert len(got) == len(p) and got.empties[0] == 60 and got.score[5] == 1.0
    np.savez(tmp_path / "keys.npz", player=p, opponent=o)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    np.savez(tmp_path / "both.npz", player=p, opponent=p, score=np.zeros(len(p)))
    np.savez(tmp_path / "big.npz", player=p, opponent=o, score=np.full(len(p), 65))
    for name, match in (
        ("keys", "holds arrays player, opponent"),
        ("junk", "not a readable"),
        ("both", "both sides"),
        ("big", "-64..64"),
        ("absent", "no such"),
    ):
        with pytest.raises(ConfigError, match=match) as info:
            read_positions(tmp_path / f"{name}.npz")
        assert f"{name}.npz" in str(info.value)


def test_resuming_another_layout_is_refused(tmp_path: Path) -> None:
    p, o = _boards(range(20))
    data = Positions.of(p, o, np.zeros(len(p)))
    base = {"phase_width": 30, "iterations": 2, "progress": False}
    train_patterns(tmp_path, PatternTrainOptions(**base), positions=data)
    with pytest.raises(ConfigError, match="phases fitted with"):
        train_patterns(tmp_path, PatternTrainOptions(terms=("parity",), **base), positions=data)


def test_exact_errors_by_empties() -> None:
    """Exact scores from the solver (independent of any evaluation): each row's MAE is the
    mean of |evaluation - exact| over its positions, computed here directly."""
    from othellolab.players.search import solve

    boards = [b for g in range(6) for b in list(random_game(8, seed=g))[-12:-9]]
    exact = [solve(b, pv=False).score for b in boards]
    positions = Positions.of(
        np.array([b.player for b in boards], dtype=np.uint64),
        np.array([b.opponent for b in boards], dtype=np.uint64),
        np.array(exact),
    )
    rows = exact_errors(positions, ["patterns-wthor"])
    ev = weights_evaluation("patterns-wthor")
    direct = np.abs(np.array([ev(b) for b in boards]) - np.array(exact))
    assert rows[-1]["empties"] == "all" and rows[-1]["positions"] == len(boards)
    assert rows[-1]["mae"]["patterns-wthor"] == pytest.approx(direct.mean(), abs=1e-3)
    assert sum(r["positions"] for r in rows[:-1]) == len(boards)
    with pytest.raises(ConfigError, match="shipped: .*patterns-wthor"):
        exact_errors(positions, ["no-such-set"])


def test_a_weighted_row_counts_as_that_many_copies() -> None:
    """Weight 3 on a row gives the fit of the data with that row written three times (the
    normal equations are the same), and weights leave the unweighted fit alone."""
    index, n = full_to_compact()
    p, o = _boards(range(40))
    x = index[pattern_indices_batch(p, o)]
    y = np.random.default_rng(1).normal(0, 10, size=len(x))
    weight = np.ones(len(x))
    weight[::7] = 3.0
    copies = np.concatenate([np.arange(len(x))] + [np.arange(0, len(x), 7)] * 2)

    def fitted(rows: np.ndarray, targets: np.ndarray, **kw: object) -> np.ndarray:
        w, _ = solve_phase(rows, targets, n, l2=1.0, iterations=300, **kw)
        return w[x].sum(1)  # the fit's values on the original rows

    weighted = fitted(x, y, weight=weight)
    np.testing.assert_allclose(weighted, fitted(x[copies], y[copies]), atol=0.02)
    plain = fitted(x, y)
    np.testing.assert_allclose(plain, fitted(x, y, weight=np.ones(len(x))), atol=1e-9)
    assert np.abs(plain - weighted).max() > 0.5


def test_wthor_theoretical_targets_are_exact_at_their_depth() -> None:
    """Positions at the file's depth (24 empties) get WTHOR's theoretical score, which our
    exact solver confirms (the independent check); earlier positions of the game get the same
    score from their side to move, later ones the game's recorded result."""
    from othellolab.fitting.patterns import wthor_positions
    from othellolab.players.search import solve

    wthor = shared_file("wthor/WTH_2022.wtb").parent
    data = wthor_positions(wthor, [2022], max_games=12)
    final = load_positions([wthor], years="2022", max_games=12, size=8)
    assert len(data) == len(final.score)
    np.testing.assert_array_equal(data.p, final.player)
    late = data.empties < 24
    np.testing.assert_array_equal(data.score[late], final.score[late])
    assert (data.score[~late] != final.score[~late]).mean() > 0.5  # human endgames err
    game = final.game
    for g in (9, 11):  # two games of the file whose 24-empties solve takes about a second
        at = np.flatnonzero((game == g) & (data.empties == 24))[0]
        board = Board.from_bitboards(int(data.p[at]), int(data.o[at]))
        assert solve(board).score == data.score[at], f"game {g + 1}"
        early = (game == g) & (data.empties > 24)
        assert set(np.abs(data.score[early])) == {abs(data.score[at])}


def test_labelled_runs_join_the_fit_with_their_weight(tmp_path: Path) -> None:
    """A patterns-data run folder is read with the label asked for; its weight reaches the
    fit (the training error is a weighted mean) and the layout records it."""
    sample = Path(__file__).parent.parent / "data" / "labelled-sample"
    p, o = _boards(range(30))
    base = Positions.of(p, o, np.zeros(len(p)))
    options = PatternTrainOptions(
        labelled=(sample,), label="exact", labelled_weight=4.0, phase_width=30,
        iterations=5, progress=False,
    )  # fmt: skip
    config = train_patterns(tmp_path, options, positions=base)
    assert any("labelled-sample (exact labels" in d for d in config["training_data"])
    assert "weight 4" in " ".join(config["training_data"])
    layout = (tmp_path / "phases" / "layout.json").read_text()
    assert '"label": "exact"' in layout and '"labelled_weight": 4.0' in layout
    for bad, match in (
        ({"label": "best"}, "label"),
        ({"labelled_weight": 0.0}, "labelled_weight"),
        ({"labelled_weight": float("inf")}, "labelled_weight"),
        ({"wthor_target": "human"}, "wthor_target"),
    ):
        with pytest.raises(ConfigError, match=match):
            train_patterns(tmp_path / "bad", PatternTrainOptions(progress=False, **bad), base)
