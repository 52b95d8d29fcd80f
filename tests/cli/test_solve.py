"""``othellolab solve``: one position, a problem file checked against its scores, errors."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from othellolab import Board
from othellolab.cli import app

from helpers import FIXTURES

runner = CliRunner()
FFO = FIXTURES / "fforum-1-19.obf"


def test_solve_one_position() -> None:
    line = FFO.read_text().splitlines()[1]  # FFO #2: A4 +10
    result = runner.invoke(app, ["solve", "--", line])
    assert result.exit_code == 0, result.output
    assert "best move: a4" in result.output and "score:     +10" in result.output
    assert "nodes/s" in result.output


def test_solve_file_matches(tmp_path) -> None:
    result = runner.invoke(app, ["solve", "--file", str(FFO), "--lines", "2-4"])
    assert result.exit_code == 0, result.output
    assert "solved 3 positions, 0 mismatches" in result.output


def test_solve_file_reports_mismatch(tmp_path) -> None:
    lines = FFO.read_text().splitlines()
    wrong = lines[1].replace("A4:+10", "A4:+12")
    bad = tmp_path / "bad.obf"
    bad.write_text(wrong + "\n")
    result = runner.invoke(app, ["solve", "--file", str(bad), "--first", "1"])
    assert result.exit_code == 1
    assert "MISMATCH: score +10, file says +12" in result.output


def test_solve_bad_input(tmp_path) -> None:
    bad = tmp_path / "bad.obf"
    bad.write_text("XO- X\n")
    result = runner.invoke(app, ["solve", "--file", str(bad)])
    assert result.exit_code == 2 and "line 1" in result.output
    assert runner.invoke(app, ["solve"]).exit_code != 0


def test_solve_file_with_each_ordering_evaluation() -> None:
    """--evaluation changes how moves are ordered, never the scores checked against the file."""
    for name in ("patterns", "heuristic", "discs"):
        result = runner.invoke(
            app, ["solve", "--file", str(FFO), "--lines", "2-3", "--evaluation", name]
        )
        assert result.exit_code == 0, (name, result.output)
        assert "solved 2 positions, 0 mismatches" in result.output
    bad = runner.invoke(app, ["solve", "--file", str(FFO), "--evaluation", "nonsense"])
    assert bad.exit_code == 2 and "evaluation must be one of" in bad.output


START = "-" * 27 + "OX------XO" + "-" * 27 + " X"


def test_solve_refuses_too_many_empties(tmp_path) -> None:
    """Before: the start position (60 empties) ran silently for hours. Now it is refused, and
    the error says how to go on anyway."""
    result = runner.invoke(app, ["solve", "--", START])
    assert result.exit_code == 1
    assert "60 empty squares, above --max-empties 30" in result.output
    assert "pass --max-empties 60" in result.output
    lines = FFO.read_text().splitlines()
    problems = tmp_path / "p.obf"
    problems.write_text(lines[0] + "\n" + START + "\n")
    result = runner.invoke(app, ["solve", "--file", str(problems), "--max-empties", "20"])
    assert result.exit_code == 1 and "line 2 has 60 empty squares" in result.output
    assert "solved" not in result.output  # refused before solving anything


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_solve_time_limit_is_checked(value: str) -> None:
    line = FFO.read_text().splitlines()[0]
    result = runner.invoke(app, ["solve", "--time-limit", value, "--", line])
    assert result.exit_code == 1
    assert "--time-limit" in result.output and "seconds above 0" in result.output


def test_solve_time_limit_stops_a_long_solve() -> None:
    """30 empties cannot be solved in a millisecond: the solve gives up and says so."""
    board = Board.from_transcript("c4c5f6c3b5g7e3e6c2f3g3a5h8b3f4f2b4f5f7h3a3d2e2e1a6e7d7c1c6g8")
    assert board.num_empties == 30
    result = runner.invoke(app, ["solve", "--time-limit", "0.001", "--", board.obf()])
    assert result.exit_code == 1, result.output
    assert "no result within --time-limit 0.001 s (30 empties)" in result.output
    assert "Traceback" not in result.output


def test_solve_interrupted(monkeypatch) -> None:
    """Ctrl-C (here raised by the solver itself) prints "interrupted" and exits 130, where it
    used to end in click's bare "Aborted!" with status 1."""
    from othellolab.players.search import endgame

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(endgame, "solve", interrupted)
    line = FFO.read_text().splitlines()[0]
    for args in (["--", line], ["--file", str(FFO), "--first", "1"]):
        result = runner.invoke(app, ["solve", *args])
        assert result.exit_code == 130
        assert "interrupted" in result.output and "Traceback" not in result.output


def test_solve_announces_the_work() -> None:
    line = FFO.read_text().splitlines()[0]
    result = runner.invoke(app, ["solve", "--time-limit", "60", "--", line])
    assert result.exit_code == 0, result.output
    assert "solving 14 empties, at most 60 s (Ctrl-C stops)" in result.output


def test_solve_threads() -> None:
    """--threads N solves with N threads (the same scores); a bad count is a usage error
    naming --threads."""
    result = runner.invoke(app, ["solve", "--file", str(FFO), "--lines", "5-7", "--threads", "2"])
    assert result.exit_code == 0, result.output
    assert "solved 3 positions, 0 mismatches" in result.output
    for bad in ("0", "-1", "257"):
        r = runner.invoke(app, ["solve", "--file", str(FFO), "--threads", bad])
        assert r.exit_code == 2 and "--threads" in r.output, (bad, r.output)
    r = runner.invoke(app, ["solve", "--file", str(FFO), "--threads", "1.5"])
    assert r.exit_code == 2 and "--threads" in r.output
