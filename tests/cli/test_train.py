"""``othellolab train patterns``: a small real run through typer's test runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.players.search.patterns import load_pattern_weights

from helpers import shared_file

runner = CliRunner()


def test_train_patterns_command(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2005.wtb").parent
    out = tmp_path / "w"
    args = ["train", "patterns", "--wthor", str(wthor), "--years", "2005", "--max-games", "200"]
    args += ["--iterations", "5", "--held-out", str(wthor), "--out", str(out), "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "15-35 empties: patterns MAE" in result.output
    assert load_pattern_weights(out).config["training_data"] == [
        "WTHOR 2005 (theoretical scores before their depth)"
    ]


def test_train_patterns_refuses_the_held_out_year(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2023.wtb").parent
    args = ["train", "patterns", "--wthor", str(wthor), "--years", "2023", "--out", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "held-out year" in result.output


def test_train_patterns_from_positions_files_and_scored_on_exact(tmp_path: Path) -> None:
    """Fit a 2-phase layout with parity from a positions file, then score it and the shipped
    set against exact scores (from the solver) in the same command; the figures are those of
    ``exact_errors``."""
    import numpy as np

    from othellolab.fitting.patterns import exact_errors, read_positions
    from othellolab.players.search import solve
    from othellolab.testing import random_game

    boards = [b for g in range(40) for b in random_game(8, seed=g)]
    p = np.array([b.player for b in boards], dtype=np.uint64)
    o = np.array([b.opponent for b in boards], dtype=np.uint64)
    np.savez(tmp_path / "train.npz", player=p, opponent=o, score=np.arange(len(p)) % 7 - 3)
    late = [list(random_game(8, seed=100 + g))[-11] for g in range(5)]
    np.savez(
        tmp_path / "exact.npz",
        player=np.array([b.player for b in late], dtype=np.uint64),
        opponent=np.array([b.opponent for b in late], dtype=np.uint64),
        exact=np.array([solve(b, pv=False).score for b in late]),
    )
    out = tmp_path / "w"
    args = ["train", "patterns", "--positions", str(tmp_path / "train.npz"), "--quiet"]
    args += ["--phase-width", "30", "--terms", "parity", "--iterations", "3", "--out", str(out)]
    args += ["--exact", str(tmp_path / "exact.npz"), "--weights", "patterns-wthor"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    weights = load_pattern_weights(out)
    assert weights.terms == ("parity",) and weights.compact.shape[0] == 2
    rows = exact_errors(read_positions(tmp_path / "exact.npz"), ["patterns-wthor", str(out)])
    last = result.output.strip().splitlines()[-1].split()
    assert last[:2] == ["all", "5"]
    assert [float(x) for x in last[2:]] == [
        pytest.approx(rows[-1]["mae"][n], abs=0.006) for n in ("patterns-wthor", str(out))
    ]
    for bad, message in (
        (["--weights", "patterns-wthor"], "--exact"),
        ([], "--out DIR"),
        (
            ["--exact", str(tmp_path / "train.npz"), "--weights", "nope"],
            "no pattern weights named 'nope'",
        ),
        (
            [
                "--out",
                str(tmp_path / "x"),
                "--positions",
                str(tmp_path / "train.npz"),
                "--terms",
                "x",
            ],
            "unknown term",
        ),
    ):
        result = runner.invoke(app, ["train", "patterns", *bad])
        assert result.exit_code != 0 and message in result.output, result.output
