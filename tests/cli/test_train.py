"""``othellolab train engine-fit`` and ``engine-probcut``: small real runs through typer's test
runner, each from a TOML config with ``--set`` overrides."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.players.search.patterns import load_pattern_weights

from helpers import shared_file

runner = CliRunner()


FIT = """
[fit]
wthor = "{wthor}"
years = "2005"
terms = ""
iterations = 5

[sources]
max_games = 200
"""


def test_engine_fit_command(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2005.wtb").parent
    config = tmp_path / "fit.toml"
    config.write_text(FIT.format(wthor=wthor))
    out = tmp_path / "w"
    args = ["train", "engine-fit", str(config), "--set", f"sources.held_out={wthor}"]
    result = runner.invoke(app, [*args, "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "15-35 empties: patterns MAE" in result.output
    assert load_pattern_weights(out).config["training_data"] == [
        "WTHOR 2005 (theoretical scores before their depth)"
    ]


def test_engine_fit_refuses_the_held_out_year_set_by_an_override(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2023.wtb").parent
    config = tmp_path / "fit.toml"
    config.write_text(FIT.format(wthor=wthor))
    args = [
        "train",
        "engine-fit",
        str(config),
        "--set",
        "fit.years=2020-2023",
        "--out",
        str(tmp_path),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "held-out year" in result.output and "[fit]" in result.output
    assert "override of fit.years" in result.output


def test_engine_fit_from_positions_files_and_scored_on_exact(tmp_path: Path) -> None:
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
    config = tmp_path / "fit.toml"
    config.write_text(
        f'[fit]\nwthor = ""\nphase_width = 30\nterms = "parity"\niterations = 3\n'
        f'[sources]\npositions = "{tmp_path / "train.npz"}"\n'
        f'[measure]\nexact = "{tmp_path / "exact.npz"}"\ncompare = "patterns-wthor"\n'
    )
    result = runner.invoke(app, ["train", "engine-fit", str(config), "--out", str(out), "-q"])
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
        (["--set", 'measure.exact=""'], "--out DIR"),
        (["--set", "measure.compare=nope"], "no pattern weights named 'nope'"),
        (["--out", str(tmp_path / "x"), "--set", "fit.terms=x"], "unknown term"),
        (["--set", "sources.phases=-1"], "sources.phases"),
        (["--set", "fit.nope=1"], "nope"),
    ):
        result = runner.invoke(app, ["train", "engine-fit", str(config), *bad])
        assert result.exit_code != 0 and message in result.output, result.output
