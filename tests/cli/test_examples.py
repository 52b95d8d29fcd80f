"""Every command's help ends with examples that work: each is parsed by the command's real
parser (a wrong option or value fails here), and the cheap ones run."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from othellolab.cli import app

from helpers import parse_cli

REPO = Path(__file__).resolve().parents[2]

runner = CliRunner()


def _leaves(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    subs = getattr(command, "commands", None)
    if subs:
        for name, sub in subs.items():
            yield from _leaves(sub, [*path, name])
    else:
        yield path, command


def _examples(command: Any) -> list[str]:
    lines = (command.epilog or "").splitlines()
    assert lines and lines[0] == "Examples:", command.epilog
    return [line.strip() for line in lines[1:] if line.strip()]


LEAVES = list(_leaves(typer.main.get_command(app), []))
EXAMPLES = [(path, line) for path, command in LEAVES for line in _examples(command)]

CHEAP = {
    "othellolab perft 6",
    'othellolab solve -- "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"',
    "othellolab solve --file tests/data/fforum-1-19.obf --lines 1-3",
    "othellolab solve --file tests/data/fforum-1-19.obf --lines 1-3 --threads 2",
    "othellolab records stats tests/data/fforum-1-19.obf",
    "othellolab arena match random greedy --games 2 --out runs/arena-smoke --quiet",
    "othellolab players",
}
"""Examples that run in a second or two here (in a scratch folder that sees the repository's
tests/ and configs/)."""


def test_every_command_has_one_to_three_examples() -> None:
    assert len(LEAVES) > 30
    for path, command in LEAVES:
        assert 1 <= len(_examples(command)) <= 3, path


@pytest.mark.parametrize(("path", "line"), EXAMPLES, ids=[line for _, line in EXAMPLES])
def test_example_parses(path: list[str], line: str) -> None:
    words = shlex.split(line)
    assert words[: 1 + len(path)] == ["othellolab", *path], "the example names its command"
    assert parse_cli(words) is not None


def test_a_wrong_option_in_an_example_would_fail() -> None:
    command = typer.main.get_command(app).commands["train"].commands["selfplay"]
    with pytest.raises(Exception, match="No such option: --config"):
        command.make_context("train selfplay", ["configs/alphazero-6x6.toml", "--config", "x"])


@pytest.mark.parametrize("line", sorted(CHEAP))
def test_cheap_example_runs(line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert any(line == example for _, example in EXAMPLES), "still an example of a command"
    for name in ("tests", "configs"):
        (tmp_path / name).symlink_to(REPO / name)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, shlex.split(line)[1:])
    assert result.exit_code == 0, result.output
    assert result.output.strip()
