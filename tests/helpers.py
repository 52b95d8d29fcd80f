"""Test helpers: where the real data lives, and skipping with a reason when it is absent."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("OTHELLOLAB_DATA", REPO.parent / "shared" / "data"))
FIXTURES = Path(__file__).resolve().parent / "data"


def shared_file(relative: str) -> Path:
    """A file of ../shared/data, or skip the test saying which file is missing."""
    path = DATA / relative
    if not path.exists():
        pytest.skip(f"real data file {path} is absent (set OTHELLOLAB_DATA to the data folder)")
    return path


def obf_scores(line: str) -> tuple:
    """(board, [(move, score), ...]) of an OBF line, through the records reader."""
    from othellolab.records.obf import parse_obf_line

    entry = parse_obf_line(line)
    return entry.board, list(entry.moves)


def fuzz_examples(default: int) -> int:
    """How many inputs a fuzz test tries: ``default`` (small, for ``make test``), or the number
    in ``OTHELLOLAB_FUZZ_EXAMPLES`` for a long run (see docs/limits.md)."""
    text = os.environ.get("OTHELLOLAB_FUZZ_EXAMPLES", "")
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else default


def tiny_selfplay_config(name: str, **tables: dict[str, Any]) -> dict[str, Any]:
    """A 4x4 self-play run of one generation small enough for a test (b1c8, 4 simulations,
    16 games, no grading), each table updated by ``tables``."""
    data: dict[str, Any] = {
        "name": name,
        "size": 4,
        "model": {"preset": "resnet-b1c8"},
        "selfplay": {"simulations": 4, "parallel": 16, "resign_threshold": -1.0},
        "loop": {"generations": 1, "games": 16, "shards": 1},
        "train": {"batch_size": 32, "samples_per_position": 1.0},
        "grade": {"every": 0},
        "runtime": {"threads": 1},
    }
    for table, options in tables.items():
        data.setdefault(table, {}).update(options)
    return data


def parse_cli(words: list[str]) -> dict[str, Any]:
    """The parameters that the command line ``othellolab WORDS...`` gives its command, read by
    that command's real parser: an unknown command or option, a missing argument or a value of
    the wrong type raises. A ``--help`` anywhere is accepted as it exits."""
    import typer

    from othellolab.cli import app

    assert words and words[0] == "othellolab", words
    command: Any = typer.main.get_command(app)
    path, rest = ["othellolab"], list(words[1:])
    while getattr(command, "commands", None) and rest and rest[0] in command.commands:
        path.append(rest[0])
        command = command.commands[rest.pop(0)]
    if getattr(command, "commands", None):
        words_left = [word for word in rest if not word.startswith("-")]
        assert not words_left, f"{' '.join(path)} has no command {words_left[0]!r}"
    try:
        with command.make_context(" ".join(path), list(rest)) as ctx:
            return dict(ctx.params)
    except typer.Exit as stop:  # --help printed the help
        assert stop.exit_code == 0 and "--help" in rest, (words, stop.exit_code)
        return {"help": True}


@contextmanager
def serve_subprocess(
    *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``othellolab serve --port 0 ARGS`` in a subprocess (``env`` added to this one's); yields
    the URL it prints and the process, which is killed at the end if it still runs."""
    cmd = [sys.executable, "-c", "from othellolab.cli import main; main()", "serve"]
    proc = subprocess.Popen(
        [*cmd, "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if "http://127.0.0.1:" in line:
                found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not found.wait(120):
            raise AssertionError("the server did not start:\n" + "".join(lines))
        url = re.search(r"http://127\.0\.0\.1:\d+", "".join(lines)).group(0)  # type: ignore[union-attr]
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)


def brute_force(board: Any) -> int:
    """Exact score of ``board`` by plain negamax over the Board API (no pruning): the oracle the
    solver's tests compare with."""
    actions = board.legal_actions()
    if not actions:
        return int(board.score())
    return max(-brute_force(board.play(a)) for a in actions)


def random_position(seed: int, size: int, empties: int) -> Any:
    """A position of a seeded random game with at most ``empties`` empty squares left."""
    import numpy as np

    from othellolab import Board

    rng = np.random.default_rng(seed)
    board = Board(size=size)
    while board.num_empties > empties and not board.is_game_over():
        actions = board.legal_actions()
        board = board.play(actions[int(rng.integers(len(actions)))])
    return board
