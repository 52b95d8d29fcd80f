"""The command line's numeric and free-text arguments from a careless user: every invocation
ends with a message and an exit status (0, 1 or 2), never a traceback; bad input is caught once,
at the root, and ``--debug`` shows the traceback instead."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from othellolab.cli import app

from helpers import fuzz_examples

runner = CliRunner()

FFO_1 = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
"""FFO #1 (14 empties): solved in milliseconds."""

NUMBERS = st.one_of(
    st.integers(-(10**25), 10**25).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        ["", "1e400", "nan", "inf", "-1", "0", "4", "61", "１２", "0x10", "1_0", "3.0"]
    ),
    st.text(max_size=10),
)


def clean_exit(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}\n{result.output}"
    )
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output


@settings(max_examples=fuzz_examples(60), deadline=None)
@given(depth=NUMBERS, size=NUMBERS)
def test_perft_arguments(depth: str, size: str) -> None:
    try:
        if 4 < float(depth) < 1e30:
            depth = "3"  # a valid depth must stay quick
    except ValueError:
        pass
    clean_exit(runner.invoke(app, ["perft", "--size", size, "--", depth]))


@settings(max_examples=fuzz_examples(40), deadline=None)
@given(bits=NUMBERS, first=NUMBERS, lines=st.text(max_size=8) | NUMBERS)
def test_solve_arguments(bits: str, first: str, lines: str, tmp_path_factory) -> None:
    problems = tmp_path_factory.mktemp("obf") / "p.obf"
    problems.write_text(FFO_1 + " G8:+18;\n")
    result = runner.invoke(
        app,
        [
            "solve",
            "--file",
            str(problems),
            "--table-bits",
            bits,
            "--first",
            first,
            "--lines",
            lines,
        ],
    )
    clean_exit(result)


@settings(max_examples=fuzz_examples(30), deadline=None)
@given(size=NUMBERS, color=st.text(max_size=8), opponent=st.text(max_size=30))
def test_play_arguments(size: str, color: str, opponent: str) -> None:
    args = ["play", "--size", size, "--color", color, "--opponent", opponent or "x"]
    clean_exit(runner.invoke(app, args, input="quit\n"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["perft", "99999999999999999999"], "less than or equal to 60"),
        (["perft", "3", "--size", "7"], "unsupported board size 7"),
        (["solve", "--file", "/nonexistent.obf"], "/nonexistent.obf"),
        (["solve", "--table-bits", "99", "--", FFO_1], "less than or equal to 30"),
        (["play", "--opponent", "alphabeta:time=nan"], "option time"),
        (["serve", "--think-time", "10", "--max-think-time", "5"], "over --max-think-time"),
        (["serve", "--max-think-time", "nan"], "max-think-time"),
    ],
)
def test_reproducers(args: list[str], says: str) -> None:
    result = runner.invoke(app, args, input="quit\n")
    clean_exit(result)
    assert result.exit_code != 0
    assert says in result.output


def test_debug_shows_the_traceback() -> None:
    result = runner.invoke(app, ["--debug", "perft", "3", "--size", "7"])
    assert result.exit_code != 0
    assert type(result.exception).__name__ == "ConfigError"
