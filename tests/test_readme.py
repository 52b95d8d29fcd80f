"""The README guides and its commands work as pasted (issues 60 and 62): it is at most 110 lines,
activates the environment right after the two make commands, and every shell command in it (and
in the command tour docs/commands.md and the benchmark list) is one this repository answers:
an ``othellolab`` line parsed by the command's real parser, a make target that exists, a script
that exists. The cheap ones run; the README's Python is doctested by pytest itself
(``--doctest-glob=README.md``)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from othellolab.cli import app

from helpers import REPO, parse_cli

README = REPO / "README.md"
COMMANDS = REPO / "docs" / "commands.md"
BENCHMARKS = REPO / "docs" / "benchmarks.md"
MAX_LINES = 110
"""Issue 60, part 8: a README of at most 110 lines, the reference lists in docs/."""

SHELL_BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.M | re.S)
SUBSTITUTION = re.compile(r"\$\(([^()]*)\)")
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
ACTIVATE = "source .venv/bin/activate"

runner = CliRunner()


def block_commands(block: str) -> list[str]:
    """The command lines of a shell block (comments and blank lines dropped, ``\\``
    continuations joined), each as ``shlex.join`` writes its words."""
    words = (shlex.split(line, comments=True) for line in block.replace("\\\n", " ").splitlines())
    return [shlex.join(w) for w in words if w]


def commands_of(path: Path) -> list[str]:
    """Every command line of a page's shell blocks, with each ``$(...)`` inside a line as a
    command of its own."""
    found = []
    for block in SHELL_BLOCK.findall(path.read_text(encoding="utf-8")):
        for line in block_commands(block):
            found.append(line)
            found += SUBSTITUTION.findall(line)
    return found


def check_command(line: str) -> None:
    """Fail unless ``line`` is a command this repository answers: an ``othellolab`` command
    line its parser accepts, a make target of the Makefile, the line that activates the
    environment, or a script of the repository run by python or bash."""
    words = shlex.split(line)
    while words and ASSIGNMENT.match(words[0]):  # OUT=runs/x bash script.sh
        words = words[1:]
    program = words[0]
    if program == "othellolab":
        parse_cli(words)
    elif program == "make":
        targets = re.findall(r"^([\w-]+):", (REPO / "Makefile").read_text(), re.M)
        assert len(words) == 2 and words[1] in targets, f"{line}: no such make target"
    elif program == "source":
        assert line == ACTIVATE, line
        assert re.search(r"^VENV \?= \.venv$", (REPO / "Makefile").read_text(), re.M)
    elif program in ("python", "bash"):
        assert (REPO / words[1]).is_file(), f"{line}: no such script {words[1]}"
    else:
        raise AssertionError(f"{line}: a command this test does not know how to check")


README_COMMANDS = commands_of(README)
DOC_COMMANDS = [
    (page.relative_to(REPO).as_posix(), line)
    for page in (README, COMMANDS, BENCHMARKS)
    for line in commands_of(page)
]

CHEAP = {"othellolab --help", "othellolab data list"}
"""README commands that run in a second here (the data folder a temporary one)."""


def test_readme_is_at_most_110_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines, at most {MAX_LINES}"


def test_readme_activates_the_environment_right_after_the_two_commands() -> None:
    """Issue 62: after ``make play`` or ``make test`` the next commands need ``.venv``."""
    blocks = [block_commands(b) for b in SHELL_BLOCK.findall(README.read_text(encoding="utf-8"))]
    assert blocks[0] == ["make play", "make test"]
    assert blocks[1][0] == ACTIVATE


def test_readme_and_tour_have_commands() -> None:
    assert len(README_COMMANDS) >= 12
    assert sum(page == "docs/commands.md" for page, _ in DOC_COMMANDS) >= 40
    assert any(line.startswith("python benchmarks/") for _, line in DOC_COMMANDS)


@pytest.mark.parametrize(("page", "line"), DOC_COMMANDS, ids=[f"{p}: {c}" for p, c in DOC_COMMANDS])
def test_command_is_one_the_repository_answers(page: str, line: str) -> None:
    check_command(line)


@pytest.mark.parametrize(
    "line",
    [
        "othellolab arena match a b --gamez 2",  # an option renamed
        "othellolab train selfplay",  # a missing argument
        "othellolab arena match a b --games many",  # a value of the wrong type
        "othellolab trian selfplay configs/alphazero-6x6.toml",  # a command misspelt
        "make plya",
        "python benchmarks/no_such_bench.py",
        "pip install othellolab",
    ],
)
def test_a_wrong_command_fails_the_check(line: str) -> None:
    with pytest.raises(Exception):  # noqa: B017 - click's errors, an AssertionError
        check_command(line)


@pytest.mark.parametrize("line", sorted(CHEAP))
def test_cheap_readme_command_runs(
    line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert line in README_COMMANDS, "still a command of the README"
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, shlex.split(line)[1:])
    assert result.exit_code == 0, result.output
    assert result.output.strip()


def test_readme_match_runs_on_shipped_openings() -> None:
    """The README's match names openings that ship inside the package (nothing downloaded)."""
    from othellolab.arena.openings import read_openings

    (match,) = [line for line in README_COMMANDS if line.startswith("othellolab arena match")]
    openings = parse_cli(shlex.split(match))["openings"]
    assert len(read_openings(openings)) > 1000


SMALL = [
    *("--set", "loop.games=16", "--set", "loop.shards=1", "--set", "loop.workers=1"),
    *("--set", "selfplay.parallel=16", "--set", "grade.every=0"),
]
"""Overrides that make each generation of the README's run small (its generations, and so the
models' names, stay as the config says)."""


@pytest.mark.slow
def test_readme_training_makes_the_model_that_its_serve_line_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's self-play command, run as written in a scratch folder (each generation made
    small), writes the model that its ``serve --models ... --opponent alphazero:model=NAME``
    line names."""
    (train,) = [line for line in README_COMMANDS if line.startswith("othellolab train selfplay")]
    (serve,) = [line for line in README_COMMANDS if "serve --models" in line]
    (tmp_path / "configs").symlink_to(REPO / "configs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path / "data"))
    result = runner.invoke(app, [*shlex.split(train)[1:], "--quiet", *SMALL])
    assert result.exit_code == 0, result.output
    served = parse_cli(shlex.split(serve))
    (name,) = re.findall(r"model=([^,\s]+)", served["opponent"])
    result = runner.invoke(app, ["players", *(f"--models={m}" for m in served["models"])])
    assert result.exit_code == 0, result.output
    assert re.search(rf"^\s*{re.escape(name)}\s+othello6$", result.output, re.M), result.output


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_says_how_to_use_the_environment(tmp_path: Path) -> None:
    """Issue 62: ``make setup`` (so ``make play``) and ``make test`` end their setup with the
    activate line and a next command."""
    for target in ("setup", "play", "test"):
        dry = subprocess.run(
            ["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert f"source {tmp_path / 'venv'}/bin/activate, then othellolab --help" in dry, target
