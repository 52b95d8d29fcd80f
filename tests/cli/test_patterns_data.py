"""``othellolab train engine-data`` and ``train engine``: a tiny run through typer's test runner, its resume, and a
refused change of config."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from othellolab.cli import app

runner = CliRunner()

TINY = """
seed = 3
games_per_shard = 2
shards = 2

[openings]
source = "start"

[randomise]
random_plies = 6

[search]
depth = {depth}

[labels]
exact_empties = 10
search_depth = 1
"""


def test_engine_data_command(tmp_path: Path) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.format(depth=2))
    out = tmp_path / "run"
    args = ["train", "engine-data", str(config), "--out", str(out), "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2 of 2 shards, 4 games" in result.output
    assert "positions per CPU-hour: final" in result.output
    assert "  0-5 empties:" in result.output
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert again.output.splitlines()[0] == result.output.splitlines()[0]
    config.write_text(TINY.format(depth=3))
    refused = runner.invoke(app, args)
    assert refused.exit_code == 1
    assert "search.depth (2 -> 3)" in refused.output
    overridden = runner.invoke(app, [*args, "--set", "search.depth=2"])
    assert overridden.exit_code == 0, overridden.output


def test_engine_data_names_a_bad_key(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(TINY.format(depth=0))
    args = ["train", "engine-data", str(config), "--out", str(tmp_path / "r")]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "depth" in result.output and "[search]" in result.output
    assert not (tmp_path / "r").exists()


ENGINE = """
[[rounds]]
data = "{data}"
shards = 1

[fit]
wthor = ""
labelled_weight = 1.0
iterations = 5

[probcut]
positions = 0
"""


def test_engine_command_runs_a_round_and_names_a_bad_key(tmp_path: Path) -> None:
    data = tmp_path / "tiny.toml"
    data.write_text(TINY.format(depth=2))
    config = tmp_path / "engine.toml"
    config.write_text(ENGINE.format(data=data))
    out = tmp_path / "engine"
    args = ["train", "engine", str(config), "--out", str(out), "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "round 1: " in result.output and f"weights: {out / 'round-1'}" in result.output
    assert (out / "round-1" / "weights.safetensors").is_file()
    config.write_text(ENGINE.format(data=data).replace("iterations = 5", "iterations = -5"))
    refused = runner.invoke(app, args)
    assert refused.exit_code == 1
    assert "[fit]" in refused.output and "iterations" in refused.output
    overridden = runner.invoke(app, [*args, "--set", "fit.iterations=5"])
    assert overridden.exit_code == 0, overridden.output
    assert "fit done before" in overridden.output


def test_engine_workers_flag_is_a_shorthand_of_the_key(tmp_path: Path) -> None:
    config = tmp_path / "engine.toml"
    config.write_text(ENGINE.format(data=tmp_path / "tiny.toml"))
    args = ["train", "engine", str(config), "--out", str(tmp_path / "e"), "--workers", "2"]
    both = runner.invoke(app, [*args, "--set", "workers=3"])
    assert both.exit_code == 1
    assert "--workers and --set workers=... both set workers" in both.output
    bad = runner.invoke(app, [*args[:-1], "0"])
    assert bad.exit_code == 1 and "workers" in bad.output and "override" in bad.output


def test_engine_fit_takes_a_shard_count_per_labelled_run(tmp_path: Path) -> None:
    config = tmp_path / "fit.toml"
    config.write_text('[fit]\nwthor = ""\n[sources]\nlabelled = "a,b"\n')
    args = ["train", "engine-fit", str(config), "--out", str(tmp_path / "fit")]
    refused = runner.invoke(app, [*args, "--set", "sources.labelled_shards=1,2,3"])
    assert refused.exit_code == 1
    assert "3 shard counts for 2 labelled runs" in refused.output
    assert "[sources]" in refused.output and "labelled_shards" in refused.output
