"""docs/selfplay.md against the code: the options table (keys, defaults, ranges) and the
record tables (names and dtypes)."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from othellolab.core.games import get_game
from othellolab.players import UniformEvaluator
from othellolab.players.mcts.batch import SearchConfig
from othellolab.training.selfplay import SelfPlayConfig, play_games
from othellolab.training.selfplay.records import GAME_DTYPES, POSITION_DTYPES
from othellolab.training.selfplay.runconfig import (
    GateConfig,
    GradeConfig,
    LoopConfig,
    RateConfig,
    SelfPlayTrainConfig,
)

DOC = (Path(__file__).resolve().parents[3] / "docs" / "selfplay.md").read_text()


def rows(name: str) -> dict[str, list[str]]:
    m = re.search(rf"<!-- selfplay:{name} -->\n(.*?)<!-- /selfplay:{name} -->", DOC, re.S)
    assert m, f"docs/selfplay.md has no selfplay:{name} section"
    out = {}
    for line in m.group(1).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        out[cells[0].strip("`")] = cells[1:]
    return out


def test_config_table() -> None:
    table = rows("config")
    config = SelfPlayConfig()
    assert list(table) == SelfPlayConfig.keys()
    options = {**SearchConfig.OPTIONS, **SelfPlayConfig.OPTIONS}
    for name, (default, values, _) in table.items():
        value = getattr(config, name)
        shown = (
            "none"
            if value is None
            else str(value).lower()
            if isinstance(value, bool)
            else str(value)
        )
        assert default == shown, name
        assert values == options[name].describe(), name


@pytest.mark.parametrize(
    ("name", "dtypes"), [("positions", POSITION_DTYPES), ("games", GAME_DTYPES)]
)
def test_record_tables(name: str, dtypes: dict[str, np.dtype[Any]]) -> None:
    table = rows(name)
    assert tuple(table) == tuple(dtypes)
    records = play_games(
        UniformEvaluator(),
        2,
        game=get_game("othello", size=4),
        config=SelfPlayConfig(simulations=4, seed=0),
    )
    for array, (kind, _) in table.items():
        assert kind.split()[0] == str(dtypes[array]) == str(getattr(records, array).dtype), array


@pytest.mark.parametrize(
    ("name", "klass"),
    [
        ("loop", LoopConfig),
        ("train", SelfPlayTrainConfig),
        ("gate", GateConfig),
        ("grade", GradeConfig),
        ("rate", RateConfig),
    ],
)
def test_loop_tables(name: str, klass: type) -> None:
    """Each loop table lists every option of its dataclass, with its default and range."""
    table = rows(name)
    assert list(table) == [f.name for f in fields(klass)]
    config = klass()
    for key, (default, values, _) in table.items():
        value = getattr(config, key)
        if isinstance(value, bool):
            shown = str(value).lower()
        elif isinstance(value, str):
            shown = f'"{value}"'
        elif isinstance(value, tuple):
            shown = str(list(value))
        else:
            shown = str(value)
        assert default == shown, key
        option = klass.OPTIONS[key]
        if option.spec:
            assert values == option.describe(), key
