"""``othellolab records stats|validate|convert`` through typer's test runner."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.records import read_games

from helpers import shared_file

runner = CliRunner()


def test_stats_on_real_files() -> None:
    wtb = shared_file("wthor/WTH_2004.wtb")
    ggf = shared_file("ggf/nboard_test2.ggf")
    result = runner.invoke(app, ["records", "stats", str(wtb), str(ggf)])
    assert result.exit_code == 0, result.output
    assert "games: 9116" in result.output  # 9,113 (games_per_year.csv) + 3
    assert "years: 2004" in result.output
    assert "players:" in result.output and "Saio (romano)" in result.output
    assert "result mismatches: 0" in result.output and "errors: 0" in result.output


def test_validate_exit_codes(tmp_path: Path) -> None:
    ok = runner.invoke(app, ["records", "validate", str(shared_file("ggf/novello_TestGames.ggf"))])
    assert ok.exit_code == 0 and "OK" in ok.output
    bad = tmp_path / "bad.txt"
    bad.write_text("f5d6\nf5a1\n")
    result = runner.invoke(app, ["records", "validate", str(bad)])
    assert result.exit_code == 1
    assert "bad.txt: game 2 (line 2), move 2: illegal move a1 for white" in result.output
    missing = runner.invoke(app, ["records", "validate", str(tmp_path / "nope.ggf")])
    assert missing.exit_code == 1 and "nope.ggf" in missing.output


def test_convert_between_formats(tmp_path: Path) -> None:
    src = shared_file("ggf/novello_TestGames.ggf")
    out = tmp_path / "games.wtb"
    result = runner.invoke(app, ["records", "convert", str(src), str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 12 games" in result.output
    assert (tmp_path / "games.JOU").exists() and (tmp_path / "games.TRN").exists()
    back = list(read_games(out))
    assert [g.moves for g in back] == [g.moves for g in read_games(src)]
    assert back[0].headers["black"] == "Saio1200"
    # A random-start game cannot become a transcript: a clear error, exit code 1.
    bad = runner.invoke(
        app,
        ["records", "convert", str(shared_file("ggf/nboard_test2.ggf")), str(tmp_path / "x.txt")],
    )
    assert bad.exit_code == 1 and "game 2: a transcript can only hold" in bad.output


def test_bad_files_give_messages_not_tracebacks(tmp_path: Path) -> None:
    import gzip

    bad = {
        "inf.ggf": b"(;GM[Othello]KM[inf]RE[+2];)\n",
        "huge.ggf": b"(;GM[Othello]TY[" + b"8" * 5000 + b"];)\n",
        "binary.txt": bytes(range(256)),
        "cut.txt.gz": gzip.compress(b"f5d6\n" * 3000)[:-30],
        "digits.gam": b"+f5: " + b"9" * 5000 + b" 10\n",
        "year0.wtb": b"\x14\x18\x01\x01" + bytes(6) + bytes(6),
        "latin1.obf": b"\xe9\n",
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / name) for name in bad]
    for command in (["validate"], ["stats"]):
        result = runner.invoke(app, ["records", *command, *paths])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
    result = runner.invoke(app, ["records", "validate", *paths])
    assert result.exit_code == 1 and "KM[inf]: komi 'inf' is not a finite decimal" in result.output
    assert "year0.wtb: bad header: year 0" in result.output
    for name in bad:
        converted = runner.invoke(app, ["records", "convert", str(tmp_path / name), "x.ggf"])
        assert converted.exit_code == 1 and name in converted.output, converted.output
        assert converted.exception is None or isinstance(converted.exception, SystemExit)


def test_stats_exits_1_on_a_missing_or_unreadable_file(tmp_path: Path) -> None:
    """Before: ``stats missing.wtb`` printed ``[Errno 2] ...``, then "files: 1 games: 0", and
    exited 0. Now the error names the file, the count says it was not read, and it exits 1."""
    missing = tmp_path / "missing.wtb"
    result = runner.invoke(app, ["records", "stats", str(missing)])
    assert result.exit_code == 1
    assert f"error: {missing}: No such file or directory" in result.output
    assert "[Errno" not in result.output
    assert "files: 0 (1 not read)  games: 0" in result.output
    # a directory cannot be read either; the good file is still counted
    good = shared_file("ggf/novello_TestGames.ggf")
    result = runner.invoke(app, ["records", "stats", str(good), str(tmp_path)])
    assert result.exit_code == 1
    assert "files: 1 (1 not read)  games: 12" in result.output
    assert str(tmp_path) in result.output
