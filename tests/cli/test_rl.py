"""``othellolab rl maze`` and ``othellolab rl othello4``: short runs write their figures, bad
options are named."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from othellolab.cli import app

runner = CliRunner()


def test_rl_maze_writes_curve_value_map_and_gif(tmp_path) -> None:
    result = runner.invoke(
        app,
        [
            "rl",
            "maze",
            "--agent",
            "q-learning",
            "--runs",
            "2",
            "--episodes",
            "30",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "seed 0: shortest path (4 steps) first walked greedily after episode" in result.output
    for name, magic in (
        ("curve.png", b"\x89PNG"),
        ("values.png", b"\x89PNG"),
        ("values.gif", b"GIF8"),
    ):
        assert (tmp_path / name).read_bytes()[:4] == magic, name
    log = json.loads((tmp_path / "log.json").read_text())
    assert log["shortest"] == 4 and [r["seed"] for r in log["runs"]] == [0, 1]
    assert all(r["episode"] is not None for r in log["runs"])


def test_rl_maze_reads_a_map(tmp_path) -> None:
    (tmp_path / "m.txt").write_text("S . . G\n")
    result = runner.invoke(
        app,
        [
            "rl",
            "maze",
            "--map",
            str(tmp_path / "m.txt"),
            "--episodes",
            "20",
            "--no-gif",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "shortest path (3 steps)" in result.output


def test_rl_othello4_grades_against_exact_play(tmp_path) -> None:
    result = runner.invoke(
        app,
        [
            "rl",
            "othello4",
            "--eta",
            "1",
            "--episodes",
            "100000",
            "--grades",
            "3",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "positions with a choice; against perfect play" in result.output
    data = json.loads((tmp_path / "result.json").read_text())
    assert [p["episodes"] for p in data["points"]][-1] == 100_000
    assert data["points"][-1]["optimal_share"] > data["points"][0]["optimal_share"]
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["maze", "--agent", "dqn"], "option agent: unknown agent 'dqn'"),
        (["maze", "--eta", "nan"], "option eta: must be a finite number"),
        (["maze", "--runs", "0"], "option runs: must be a whole number >= 1"),
        (["othello4", "--opponent", "alphabeta"], "option opponent: 'alphabeta' is not one of"),
        (["othello4", "--epsilon", "1.5"], "option epsilon: must be a finite number in [0, 1]"),
    ],
)
def test_bad_options_are_named(args: list[str], words: str, tmp_path) -> None:
    result = runner.invoke(app, ["rl", *args, "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert words in result.output + str(result.exception)
