"""What every subcommand shares (``cli._common``): errors located at the command the user
typed, and help text reflowed from docstrings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.cli._common import as_command, help_text
from othellolab.core import ConfigError

runner = CliRunner()


def _commands(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, [*path, name])


COMMANDS = list(_commands(typer.main.get_command(app), []))


def test_every_command_is_walked() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "solve", "arena match", "rl maze", "records stats", "train selfplay"} <= names
    assert len(names) > 30


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "root")
def test_help_has_no_double_backquotes(path: list[str]) -> None:
    """Before, ``solve --help`` showed ``MOVE:SCORE`` with its reST backquotes, and the root
    listing showed warm-up's ``make setup``."""
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "``" not in result.output


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=lambda x: None)
def test_help_paragraphs_have_no_hard_line_breaks(path: list[str], command: Any) -> None:
    """typer keeps a docstring's line breaks, so in a narrow terminal each source line broke
    mid-line; every paragraph is now one line that the terminal wraps."""
    texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
    for text in texts:
        for paragraph in text.split("\n\n"):
            assert "\n" not in paragraph, (path, paragraph)


def test_wide_terminal_shows_a_paragraph_on_one_line() -> None:
    result = runner.invoke(app, ["solve", "--help"], env={"COLUMNS": "250"})
    assert (
        "With --file, each line's result is compared with the scores listed on it ('MOVE:SCORE' "
        "items, best first); the exit code is 1 if any line disagrees." in result.output
    )


def test_help_text() -> None:
    doc = """First line
    goes on.

    Second ``x=1`` paragraph
    here.
    - an item
    - another
    """
    assert help_text(doc) == (
        "First line goes on.\n\nSecond 'x=1' paragraph here.\n- an item\n- another"
    )
    assert help_text(None) == ""


@pytest.mark.parametrize(
    ("args", "expected", "internal"),
    [
        (
            ["arena", "match", "random", "greedy", "--games", "3"],
            "arena match: option games: 3 is odd",
            "tournament",
        ),
        (
            ["arena", "match", "random", "rnd"],
            "arena match, player 'rnd'",
            "tournament",
        ),
        (
            ["rl", "maze", "--episodes", "0"],
            "rl maze: option episodes: must be a whole number >= 1, got 0",
            "train_agent",
        ),
        (
            ["rl", "maze", "--epsilon-decay", "2"],
            "rl maze: option epsilon_decay:",
            "epsilon schedule",
        ),
        (["rl", "maze", "--agent", "foo"], "rl maze: option agent: unknown agent", "rl:"),
        (["rl", "othello4", "--eta", "3"], "rl othello4: option eta:", "smallboard"),
    ],
)
def test_errors_name_the_command_typed(
    args: list[str], expected: str, internal: str, tmp_path
) -> None:
    """Before: "tournament 'random-vs-greedy': option games" for an arena match, and
    "train_agent: option episodes" for rl maze."""
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    assert expected in result.output
    assert internal not in result.output


def test_as_command_leaves_other_errors_alone() -> None:
    with pytest.raises(ConfigError) as info, as_command("rl maze", "train_agent"):
        raise ConfigError("bad", where="model config", option="x")
    assert str(info.value) == "model config: option x: bad"
    with pytest.raises(ConfigError) as info, as_command("rl maze", "train_agent"):
        raise ConfigError("bad", where="train_agent", option="x")
    assert str(info.value) == "rl maze: option x: bad" and info.value.option == "x"
