"""Fixtures of the labelled-position tests: ``tiny``, a tiny config (games from the start
position varied by random plies and a softmax, searched 2 plies deep, solved exactly from 10
empties: seconds a shard) with changes, and ``toml_text``, which writes one as TOML."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

TINY: dict[str, Any] = {
    "seed": 7,
    "games_per_shard": 3,
    "shards": 2,
    "openings": {"source": "start"},
    "randomise": {
        "random_plies": 6,
        "temperature": 2.0,
        "softmax_depth": 1,
        "first_ply": 6,
        "last_ply": 20,
    },
    "search": {"depth": 2, "table_bits": 16},
    "labels": {"exact_empties": 10, "search_depth": 2},
}


def _tiny(**changes: Any) -> dict[str, Any]:
    """``TINY`` with top-level keys or ``table__key`` entries replaced."""
    data = copy.deepcopy(TINY)
    for key, value in changes.items():
        table, _, name = key.partition("__")
        if name:
            data.setdefault(table, {})[name] = value
        else:
            data[key] = value
    return data


def _toml_text(data: dict[str, Any]) -> str:
    """``data`` (one level of tables) as TOML."""
    lines = [f"{k} = {_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for name, table in data.items():
        if isinstance(table, dict):
            lines += ["", f"[{name}]", *(f"{k} = {_value(v)}" for k, v in table.items())]
    return "\n".join(lines) + "\n"


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(v)


@pytest.fixture(scope="session")
def tiny() -> Callable[..., dict[str, Any]]:
    """``tiny(**changes)``: the tiny config with top-level keys or ``table__key`` replaced."""
    return _tiny


@pytest.fixture(scope="session")
def toml_text() -> Callable[[dict[str, Any]], str]:
    """``toml_text(data)``: a config's plain data as TOML."""
    return _toml_text
