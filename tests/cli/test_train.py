"""``othellolab train patterns``: a small real run through typer's test runner."""

from __future__ import annotations

from pathlib import Path

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
    assert load_pattern_weights(out).config["training_data"] == ["WTHOR 2005"]


def test_train_patterns_refuses_the_held_out_year(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2023.wtb").parent
    args = ["train", "patterns", "--wthor", str(wthor), "--years", "2023", "--out", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "held-out year" in result.output
