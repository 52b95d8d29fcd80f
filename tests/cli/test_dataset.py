"""``othellolab dataset build|info`` through typer's test runner."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from othellolab.cli import app

from helpers import shared_file

runner = CliRunner()


def test_build_then_info(tmp_path) -> None:
    data = shared_file("wthor/WTH_2004.wtb").read_bytes()
    src = tmp_path / "small.wtb"
    src.write_bytes(data[:4] + (120).to_bytes(4, "little") + data[8:16] + data[16 : 16 + 68 * 120])
    out = tmp_path / "ds"
    args = ["dataset", "build", str(src), "--out", str(out), "--keep", "winner", "--dedup"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"{out}: 120 games" in result.output
    assert "up to date" in runner.invoke(app, args).output
    info = json.loads(runner.invoke(app, ["dataset", "info", str(out)]).output)
    assert info["options"]["keep"] == "winner" and info["options"]["dedup"] is True
    assert sum(s["games"] for s in info["splits"].values()) == 120


def test_build_errors_are_reported(tmp_path) -> None:
    result = runner.invoke(
        app, ["dataset", "build", str(tmp_path / "none.wtb"), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1 and "no such file or directory" in result.output
    result = runner.invoke(
        app, ["dataset", "build", str(tmp_path), "--out", str(tmp_path / "o"), "--keep", "loser"]
    )
    assert result.exit_code == 1
    result = runner.invoke(app, ["dataset", "info", str(tmp_path)])
    assert result.exit_code == 1 and "not a dataset folder" in result.output
