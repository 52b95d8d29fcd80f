"""``othellolab play --game animal-shogi`` and the players listing's games, through typer's test
runner with a fake stdin."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.core.games import get_game
from othellolab.players import make_player
from othellolab.ui.terminal import help_text, play_terminal

runner = CliRunner()

START_MOVES = "b3b2, b4a3, c4c3, b4c3"


def play(*args: str, input: str) -> str:
    result = runner.invoke(app, ["play", "--game", "animal-shogi", *args], input=input)
    assert result.exit_code == 0, result.output
    return result.output


def test_typos_illegal_moves_help_and_quit_are_answered() -> None:
    out = play(
        "--opponent", "shogi-alphabeta:depth=2,seed=1",
        input="help\nzz\nb3b1\nC*b2\nb4b3\nb3b2\nquit\n",
    )  # fmt: skip
    assert out.startswith("You play first (sente) against shogi-alphabeta.")
    assert help_text(get_game("animal-shogi")) in out.split("\n", 1)[1]  # help, once more
    assert f"sente to move ({START_MOVES}) > " in out
    assert (
        "Not a move: invalid move 'zz': expected a move like 'b3b2' (or 'b2b1+') or a drop "
        f"like 'C*b2'. Legal moves: {START_MOVES}." in out
    )
    assert "Not a move: invalid move 'b3b1': every piece moves one square" in out
    assert (
        f"Illegal: illegal move C*b2 for sente: b2 is occupied; legal moves: {START_MOVES}" in out
    )
    assert "Illegal: illegal move b4b3 for sente: b3 holds sente's own chick" in out
    # b3b2 takes the chick: the board and both hands, then the reply (which takes back).
    after = AnimalShogi().play("b3b2")
    assert str(after) in out and "sente hand: C" in out
    reply = re.search(
        r"shogi-alphabeta plays (\S+) \(its evaluation for you: [+-]\d\.\d\d expected result, \d+% win\)",
        out,
    )
    assert reply is not None and str(after.play(reply[1])) in out
    assert out.rstrip().endswith("Bye.")


def test_playing_second_the_opponent_opens() -> None:
    out = play("--color", "second", "--opponent", "random:seed=3", input="quit\n")
    assert out.startswith("You play second (gote) against random.")
    opening = re.search(r"random plays (\S+)\n", out)
    assert opening is not None and opening[1] in AnimalShogi().legal_moves()
    assert "gote to move (" in out and "Bye." in out
    out = play("--color", "white", input="")  # white is the second player too; stdin closes
    assert out.startswith("You play second (gote) against alphazero.")  # its default player
    assert out.rstrip().endswith("Input closed; leaving the game.")


def test_a_whole_game_ends_with_the_result() -> None:
    outputs: list[str] = []

    def first_legal(prompt: str) -> str:
        return prompt.split("(")[1].split(",")[0].rstrip(") >")

    final = play_terminal(
        make_player("shogi-alphabeta:depth=2,seed=0"),
        game="animal-shogi",
        input_fn=first_legal,
        print_fn=outputs.append,
    )
    assert final.is_game_over()
    assert outputs[-2].startswith(str(final)) and "C chick, E elephant" in outputs[-2]
    verdict = {None: "A draw.", 0: "You win!", 1: "You lose."}[final.winner]
    assert outputs[-1] == f"Game over: {final.termination()}. {verdict}"


def test_a_player_of_another_game_is_refused_by_name() -> None:
    result = runner.invoke(app, ["play", "--game", "animal-shogi", "--opponent", "greedy"])
    assert result.exit_code == 2
    text = " ".join(result.output.replace("│", " ").split())
    assert "Invalid value for --opponent: player 'greedy' plays othello, not animal-shogi;" in text
    assert "players of animal-shogi:" in text and "shogi-alphabeta" in text
    result = runner.invoke(app, ["play", "--opponent", "shogi-alphabeta"], input="quit\n")
    assert result.exit_code == 2
    text = " ".join(result.output.replace("│", " ").split())
    assert "player 'shogi-alphabeta' plays animal-shogi, not othello" in text


def test_bad_game_colour_and_size() -> None:
    for args, message in (
        (["--game", "chess"], "expected othello or animal-shogi"),
        (["--game", "animal-shogi", "--color", "purple"], "expected first, second or random"),
        (["--game", "animal-shogi", "--size", "6"], "animal shogi has one board"),
        (["--color", "first"], "expected black, white or random"),
    ):
        result = runner.invoke(app, ["play", *args], input="quit\n")
        assert result.exit_code == 2, args
        assert message in " ".join(result.output.replace("│", " ").split()), args


def test_players_lists_the_games_of_each_player() -> None:
    result = runner.invoke(app, ["players"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    greedy = lines.index(next(x for x in lines if x.startswith("greedy ")))
    assert lines[greedy + 1] == "    games: othello"
    assert lines[greedy + 2].split()[0] == "seed"  # then its options, as before
    random_ = lines.index(next(x for x in lines if x.startswith("random ")))
    assert lines[random_ + 1] == "    games: othello, animal-shogi"
    shogi = lines.index(next(x for x in lines if x.startswith("shogi-alphabeta ")))
    assert lines[shogi + 1] == "    games: animal-shogi"
    assert "depth          int 1..12 (default 4)" in lines[shogi + 2]


def test_hint_gives_the_move_and_its_evaluation_and_undo_goes_back() -> None:
    out = play(
        "--opponent", "shogi-alphabeta:depth=2,seed=1", input="hint\nb3b2\nundo\nquit\n"
    )  # fmt: skip
    hint = re.search(
        r"Hint: (\S+) \(evaluation for you: [+-]\d\.\d\d expected result, \d+% win\)", out
    )
    assert hint is not None and hint[1] in START_MOVES.split(", ")
    assert "L lion" in out  # the board's legend
    assert out.count(f"sente to move ({START_MOVES}) > ") == 3  # start, after hint, after undo
