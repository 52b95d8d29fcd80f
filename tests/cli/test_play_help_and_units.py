"""``othellolab play``: its help names ``make play-terminal`` and the ``hint`` command, and every
evaluation the terminal shows says its unit (discs, or an expected result in [-1, 1])."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.core import Score
from othellolab.core.games import get_game
from othellolab.players import make_player
from othellolab.ui.terminal import evaluation_text, play_terminal

runner = CliRunner()


def test_play_help_names_make_play_terminal_and_the_commands() -> None:
    result = runner.invoke(app, ["play", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.replace("│", " ").split())
    assert "make play-terminal" in text
    assert all(word in text for word in ("hint", "undo", "help", "quit"))


def test_every_evaluation_says_its_unit() -> None:
    othello, shogi = get_game("othello"), get_game("animal-shogi")
    assert evaluation_text(othello, Score(1.26)) == "+1.3 discs"
    assert evaluation_text(othello, Score(-4.0, exact=True)) == "-4.0 discs, exact"
    assert evaluation_text(othello, Score(2.0, win_prob=0.615)) == "+2.0 discs, 62% win"
    assert evaluation_text(othello, Score(-0.0)) == "+0.0 discs"  # no "-0.0"
    assert evaluation_text(othello, Score(0.3, unit="result")) == "+0.30 expected result"
    # a game whose final score is a result: its "discs" scores are expected results too
    assert evaluation_text(shogi, Score(0.5, win_prob=0.75)) == "+0.50 expected result, 75% win"


def test_the_hint_in_a_game_shows_discs() -> None:
    outputs: list[str] = []
    answers = iter(["hint", "quit"])
    play_terminal(
        make_player("alphabeta:depth=2"),
        input_fn=lambda prompt: next(answers),
        print_fn=outputs.append,
    )
    hint = next(line for line in outputs if line.startswith("Hint:"))
    assert re.fullmatch(r"Hint: [a-h][1-8] \(evaluation for you: [+-]\d+\.\d discs\)", hint), hint
