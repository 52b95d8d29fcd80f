"""Every run-config loader takes overrides merged over the file before the checks, and a bad
override gets the loader's own error, naming the key and saying that it came from an override."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab.arena.tournament_config import load_config as load_tournament
from othellolab.config import parse_overrides
from othellolab.core import ConfigError
from othellolab.fitting.engine import load_engine_config
from othellolab.fitting.labelled.config import load_labelled_config
from othellolab.training.selfplay.runconfig import load_run_config

SELFPLAY = 'name = "t"\nsize = 4\nmodel = "resnet-b1c8"\n[loop]\ngames = 8\n'
ENGINE = '[[rounds]]\ndata = "x.toml"\n[fit]\nphase_width = 5\n'
LABELLED = "seed = 3\n[labels]\nsearch_depth = 2\n"
TOURNAMENT = 'name = "t"\ngames = 2\n[players]\na = "random"\nb = "greedy"\n'


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(text)
    return path


def test_selfplay(tmp_path: Path) -> None:
    path = _file(tmp_path, SELFPLAY)
    cfg, text = load_run_config(path, parse_overrides(["loop.generations=3", "selfplay.leaves=4"]))
    assert (cfg.loop.generations, cfg.loop.games, cfg.selfplay.leaves) == (3, 8, 4)
    assert text == SELFPLAY
    with pytest.raises(ConfigError) as info:
        load_run_config(path, {"loop": {"games": 0}})
    assert "[loop]: option games: must be a whole number" in str(info.value)
    assert "(from an override of loop.games)" in str(info.value)


def test_engine(tmp_path: Path) -> None:
    path = _file(tmp_path, ENGINE)
    cfg, _ = load_engine_config(path, {"fit": {"l2": 2.0}, "workers": 2})
    assert (cfg.fit.l2, cfg.fit.phase_width, cfg.workers) == (2.0, 5, 2)
    with pytest.raises(ConfigError, match=r"\[fit\]: option nope: unknown .*override of fit\.nope"):
        load_engine_config(path, {"fit": {"nope": 1}})


def test_labelled(tmp_path: Path) -> None:
    path = _file(tmp_path, LABELLED)
    cfg = load_labelled_config(path, {"shards": 7})
    assert (cfg.shards, cfg.seed, cfg.labels.search_depth) == (7, 3, 2)
    with pytest.raises(ConfigError, match=r"option seed: .*\(from an override of seed\)"):
        load_labelled_config(path, {"seed": -1})


def test_tournament(tmp_path: Path) -> None:
    path = _file(tmp_path, TOURNAMENT)
    cfg = load_tournament(path, parse_overrides(["games=4", "players.c=random"]), workers=2)
    assert (cfg.games, cfg.workers, len(cfg.players)) == (4, 2, 3)
    with pytest.raises(ConfigError, match=r"option games: .*\(from an override of games\)"):
        load_tournament(path, {"games": 3})


def test_a_year_key_takes_one_year_as_a_number(tmp_path: Path) -> None:
    """``--set fit.years=2019`` is read by TOML as an integer: a years key takes it as the
    text of that one year, and the held-out year is still refused by its own check."""
    path = _file(tmp_path, ENGINE)
    cfg, _ = load_engine_config(path, parse_overrides(["fit.years=2019", "probcut.years=2018"]))
    assert (cfg.fit.years, cfg.probcut.years) == ("2019", "2018")
    with pytest.raises(ConfigError, match=r"\[fit\]: option years: 2023 is the held-out year"):
        load_engine_config(path, parse_overrides(["fit.years=2023"]))
    with pytest.raises(ConfigError, match=r"option years: expected text, got True"):
        load_engine_config(path, {"fit": {"years": True}})
    labelled = load_labelled_config(_file(tmp_path, LABELLED), {"openings": {"years": 1990}})
    assert labelled.openings.years == "1990"
