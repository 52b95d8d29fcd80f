"""The othellolab command: perft and terminal play, through typer's test runner."""

from __future__ import annotations

from typer.testing import CliRunner

from othellolab.cli import app

runner = CliRunner()


def test_perft_command_prints_published_count() -> None:
    result = runner.invoke(app, ["perft", "6"])
    assert result.exit_code == 0, result.output
    assert "perft(6) size 8: 8200 leaves" in result.output  # Aart Bik's count
    result = runner.invoke(
        app, ["perft", "3", "--position", "-" * 27 + "OX------XO" + "-" * 27 + " X"]
    )
    assert "56 leaves" in result.output


def test_perft_command_rejects_bad_position() -> None:
    result = runner.invoke(app, ["perft", "3", "--position", "nonsense X"])
    assert result.exit_code != 0
    assert "expected 64, 36 or 16 cells" in result.output


def test_play_command_handles_typos_illegal_moves_and_quit() -> None:
    result = runner.invoke(app, ["play", "--opponent", "greedy:seed=1"], input="f5\nzz\na1\nquit\n")
    assert result.exit_code == 0, result.output
    assert "greedy plays" in result.output
    assert "Not a move: invalid square name 'zz'" in result.output
    assert "Illegal: illegal move a1 for black" in result.output
    assert "Bye." in result.output


def test_play_command_full_game_on_4x4() -> None:
    """Play a whole 4x4 game by always typing the first legal move (or pass)."""
    from othellolab import Board
    from othellolab.players import make_player
    from othellolab.ui.terminal import play_terminal

    outputs: list[str] = []
    state = {"board": Board(size=4)}

    def answer(prompt: str) -> str:
        return "pass" if "type 'pass'" in prompt else prompt.split("(")[1].split(",")[0].rstrip(")")

    final = play_terminal(
        make_player("random:seed=2"), size=4, input_fn=answer, print_fn=outputs.append
    )
    assert final.is_game_over()
    assert any(line.startswith("Game over") for line in outputs)
    del state


def test_players_command_lists_registry() -> None:
    result = runner.invoke(app, ["players"])
    assert "greedy" in result.output and "random" in result.output
