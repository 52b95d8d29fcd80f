"""``othellolab solve``: one position, a problem file checked against its scores, errors."""

from __future__ import annotations

from typer.testing import CliRunner

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
