"""The example scripts that no course chapter runs and no other test covers run end to end
from the command line on tiny budgets (examples/README.md lists which test runs each)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from othellolab.players.search.solved6 import GRADED_6X6, load_graded_set

from helpers import REPO

EXAMPLES = REPO / "examples"


def run_example(name: str, *args: str, cwd: Path) -> str:
    """``python examples/NAME ARGS`` in ``cwd``; its output, after checking it succeeded."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


def load(name: str):  # type: ignore[no-untyped-def]
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_match_plays_the_games_it_is_asked_for(tmp_path: Path) -> None:
    out = run_example("match.py", "random:seed=1", "greedy:seed=2", "--games", "4", cwd=tmp_path)
    # "A vs B: +W =D -L (...)": the counts add up to the games asked for
    counts = re.search(r"\+(\d+) =(\d+) -(\d+)", out)
    assert counts is not None and sum(map(int, counts.groups())) == 4, out


def test_build_solved6x6_writes_solved_positions(tmp_path: Path) -> None:
    from othellolab.players.search.solved6 import load_solved_set

    out = tmp_path / "solved.obf"
    text = run_example("build_solved6x6.py", "--count", "3", "--out", str(out), cwd=tmp_path)
    entries = load_solved_set(out)
    assert len(entries) == 3 and "wrote 3 solved positions" in text
    for e in entries:  # every legal move is listed with its score
        assert {a for a, _ in e.moves} == set(e.board.legal_actions())


def test_build_graded6x6_outcomes_of_a_small_set(tmp_path: Path) -> None:
    """``--outcomes`` on the shipped set's first positions (the set itself takes an hour)."""
    lines = [line for line in GRADED_6X6.read_text().splitlines() if not line.startswith("#")]
    small = tmp_path / "graded6x6.obf"
    small.write_text("\n".join(lines[:5]) + "\n")
    run_example("build_graded6x6.py", "--outcomes", "--out", str(small), cwd=tmp_path)
    saved = np.load(tmp_path / "graded6x6-outcomes.npz")
    entries = load_graded_set(small)
    assert len(entries) == 5 and all(len(v) == 5 for v in saved.values())


def test_grade_reference_players_on_a_few_positions(monkeypatch, capsys) -> None:
    module = load("grade_reference_players")
    few = load_graded_set()[:12]
    monkeypatch.setattr(module, "load_graded_set", lambda: few)
    module.main()
    out = capsys.readouterr().out
    # the solver plays the set's own best moves: 100% by construction
    assert "12 positions" in out and "100.0%" in out, out


@pytest.mark.slow
def test_rl_tables_maze_table(tmp_path: Path) -> None:
    module = load("rl_tables")
    table = module.maze_table(1, tmp_path)
    assert "| q-learning | 100 | 1/1 |" in table, table
    assert (tmp_path / "rl_maze_curve.png").read_bytes()[:4] == b"\x89PNG"
