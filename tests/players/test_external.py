"""The nboard player's options: each bad one is a ConfigError naming it, before any process
starts; a config file names the command instead of the spec."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from othellolab.core import Board, ConfigError
from othellolab.players import make_player
from othellolab.testing import check_player


@pytest.mark.parametrize(
    ("spec", "option", "message"),
    [
        ("nboard", "cmd", "missing"),
        ("nboard:cmd=''", "cmd", "missing"),
        ("nboard:cmd=x,depth=0", "depth", r"must be a whole number in 1\.\.60"),
        ("nboard:cmd=x,depth=61", "depth", r"must be a whole number in 1\.\.60"),
        ("nboard:cmd=x,depth=2.5", "depth", "must be a whole number"),
        ("nboard:cmd=x,timeout=nan", "timeout", r"must be a finite number in 0\.1\.\.86400"),
        ("nboard:cmd=x,timeout=0", "timeout", "must be a finite number"),
        ("nboard:cmd=x,start_timeout=1e9", "start_timeout", "must be a finite number"),
        ("nboard:cmd=x,cwd=/nonexistent/folder", "cwd", "is not a folder"),
        ("nboard:cmd=x,config=y", "cmd", "not both"),
        ("nboard:config=/nonexistent.toml", "config", "no such file"),
    ],
)
def test_bad_options_name_the_option(spec: str, option: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        make_player(spec)
    assert info.value.option == option


def test_config_file_rejects_unknown_keys(tmp_path: Path) -> None:
    config = tmp_path / "engine.toml"
    config.write_text('cmd = "edax"\nlevel = 3\n')
    with pytest.raises(ConfigError, match=r"unknown keys \['level'\]"):
        make_player(f"nboard:config={config}")


def test_config_file_runs_our_engine_and_passes_the_conformance_check(tmp_path: Path) -> None:
    """A command given as a list in TOML (no quoting needed), relative cwd, a display name."""
    config = tmp_path / "engine.toml"
    cmd = [sys.executable, "-m", "othellolab.cli", "nboard", "--player", "greedy:seed=3"]
    config.write_text(
        f"cmd = {cmd!r}\ndepth = 3\ntimeout = 60\nstart_timeout = 120\ncwd = '.'\nname = 'g'\n".replace(
            "'", '"'
        )
    )
    with make_player(f"nboard:config={config}") as player:
        assert player.name == "g" and player.depth == 3  # type: ignore[attr-defined]
        check_player(player, sizes=(8, 4))
        result = player.choose(Board())
        assert result.info["engine"] == "othellolab greedy"
