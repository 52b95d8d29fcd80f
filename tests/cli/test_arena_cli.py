"""``othellolab arena match|tournament|ratings`` and ``othellolab nboard`` through typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.core import ConfigError

runner = CliRunner()


def test_match_writes_results_and_a_report_then_resumes(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["arena", "match", "greedy:seed=1", "random:seed=2", "--games", "6", "--size", "4",
            "--openings", "random:2", "--out", str(out), "--quiet"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "6 games played" in result.output and "greedy:seed=1 vs random:seed=2" in result.output
    assert "| `random:seed=2` | 0 | anchor |" in result.output
    assert (out / "report.md").read_text().count("|") > 10 and (out / "ratings.png").exists()
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "0 games played" in again.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 6


def test_tournament_from_a_config_and_ratings_with_bootstrap(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "tiny"\ngames = 4\nsize = 4\nopenings = "random:2"\n'
        '[players]\nrandom = "random:seed=1"\ngreedy = "greedy:seed=2"\n'
        '"mc.4" = "montecarlo:playouts=4,seed=3"\n'
    )
    out = tmp_path / "t"
    result = runner.invoke(app, ["arena", "tournament", str(config), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert "12 games played" in result.output
    assert json.loads((out / "tournament.json").read_text())["name"] == "tiny"
    args = ["arena", "ratings", str(out / "results.jsonl"), "--bootstrap", "20", "--anchor",
            "greedy", "--anchor-rating", "1000", "--out", str(tmp_path / "r")]  # fmt: skip
    rated = runner.invoke(app, args)
    assert rated.exit_code == 0, rated.output
    assert "| greedy (`greedy:seed=2`) | 1000 | anchor |" in rated.output
    assert "bootstrap (20 refits)" in (tmp_path / "r" / "report.md").read_text()


def test_bad_input_is_a_message_naming_the_option_not_a_traceback(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["arena", "match", "greedy", "random", "--games", "3", "-o", str(tmp_path)]
    )
    assert result.exit_code == 1 and "option games" in result.output
    result = runner.invoke(
        app, ["arena", "match", "greedy", "random", "--time", "-1", "-o", str(tmp_path)]
    )
    assert result.exit_code == 1 and "option limit.time" in result.output
    result = runner.invoke(app, ["arena", "match", "greedy", "nope", "-o", str(tmp_path)])
    assert result.exit_code == 1 and "unknown player 'nope'" in result.output
    result = runner.invoke(app, ["nboard", "--player", "greedy", "--time", "nan"], input="")
    assert result.exit_code == 1 and "option --time" in result.output
    result = runner.invoke(app, ["--debug", "nboard", "--player", "greedy", "--time", "nan"])
    assert isinstance(result.exception, ConfigError) and result.exception.option == "--time"


@pytest.mark.parametrize("time_option", [[], ["--time", "0.05"]])
def test_nboard_command_serves_a_player_on_stdin_and_stdout(time_option: list[str]) -> None:
    lines = ["nboard 2", "set depth 2", "set game (;GM[Othello]BO[4 ---- -O*- -*O- ---- *];)",
             "ping 1", "go", "hint 2", "bogus", "ping 2", "quit", "go"]  # fmt: skip
    result = runner.invoke(
        app,
        ["nboard", "--player", "alphabeta:evaluation=heuristic,depth=2,endgame=4", *time_option],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert out[0] == "set myname othellolab alphabeta"
    assert "pong 1" in out and out[-1] == "pong 2"  # nothing after quit
    assert any(line.startswith("=== ") for line in out)
    assert sum(line.startswith("search ") for line in out) >= 3  # go's line and two hints
    assert "error unknown command 'bogus'" in out


def test_animal_shogi_match_then_ratings(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["arena", "match", "random:seed=1", "shogi-alphabeta:depth=1,seed=2", "--game",
            "animal-shogi", "--games", "6", "--openings", "random:2", "--out", str(out), "-q"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "6 games played" in result.output and "| `random:seed=1` | 0 | anchor |" in result.output
    assert "disc difference" not in result.output
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 6 and {r["game"] for r in records} == {"animal-shogi"}
    assert not (out / "games.ggf").exists() and (out / "report.md").exists()
    rated = runner.invoke(app, ["arena", "ratings", str(out), "--out", str(tmp_path / "r")])
    assert rated.exit_code == 0, rated.output
    assert "| `shogi-alphabeta:depth=1,seed=2` |" in rated.output
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "0 games played" in again.output
    othello = runner.invoke(
        app, ["arena", "match", "random", "greedy", "--games", "2", "-o", str(out)]
    )
    assert (
        othello.exit_code == 1 and "played animal-shogi, the config plays othello" in othello.output
    )


def test_animal_shogi_tournament_from_a_config_resumes(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "shogi"\ngame = "animal-shogi"\ngames = 4\nopenings = "random:2"\n'
        '[players]\nrandom = "random:seed=1"\nab1 = "shogi-alphabeta:depth=1,seed=2"\n'
        'ab2 = "shogi-alphabeta:depth=2,seed=3"\n'
    )
    out = tmp_path / "t"
    args = ["arena", "tournament", str(config), "-o", str(out), "-q"]
    first = runner.invoke(app, [*args, "--max-games", "5"])
    assert first.exit_code == 0, first.output
    assert "5 games played" in first.output and "not finished" in first.output
    rest = runner.invoke(app, args)
    assert rest.exit_code == 0, rest.output
    assert "7 games played" in rest.output and "12 in" in rest.output
    assert "| random (`random:seed=1`) | 0 | anchor |" in rest.output
    lines = (out / "results.jsonl").read_text().splitlines()
    keys = [
        (r["pairing"][0], r["pairing"][1], r["round"], r["black"]) for r in map(json.loads, lines)
    ]
    assert len(keys) == 12 == len(set(keys))  # no game lost, none counted twice


def test_animal_shogi_bad_input_names_the_option_or_player(tmp_path: Path) -> None:
    base = ["arena", "match", "random", "shogi-alphabeta", "-o", str(tmp_path / "x")]
    result = runner.invoke(app, [*base, "--game", "chess"])
    assert result.exit_code == 1 and "option game: unknown game 'chess'" in result.output
    result = runner.invoke(app, [*base, "--game", "animal-shogi", "--size", "6"])
    assert result.exit_code == 1 and "option size" in result.output
    result = runner.invoke(app, [*base, "--game", "animal-shogi", "--openings", str(tmp_path)])
    assert result.exit_code == 1 and "random:N or none" in result.output
    result = runner.invoke(app, [*base])  # shogi-alphabeta does not play Othello
    assert result.exit_code == 1 and "plays animal-shogi, not othello" in result.output
    assert "player 'shogi-alphabeta'" in result.output
    assert not (tmp_path / "x").exists()
