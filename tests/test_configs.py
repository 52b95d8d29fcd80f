"""Every config a user starts from (``configs/``) loads with the reader of its kind, and
``configs/README.md`` documents each in one row of its table, no more and no fewer."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def _supervised(path: Path) -> Any:
    from othellolab.training.config import load_config

    return load_config(path)


def _selfplay(path: Path) -> Any:
    from othellolab.training.selfplay.runconfig import load_run_config

    return load_run_config(path)[0]


def _engine(path: Path) -> Any:
    from othellolab.fitting.engine import load_engine_config

    return load_engine_config(path)[0]


def _labelled(path: Path) -> Any:
    from othellolab.fitting.labelled.config import load_labelled_config

    return load_labelled_config(path)


def _tournament(path: Path) -> Any:
    from othellolab.arena.tournament_config import load_config

    return load_config(path)


READERS: dict[str, Callable[[Path], Any]] = {
    "supervised": _supervised,
    "self-play": _selfplay,
    "engine": _engine,
    "labelled positions": _labelled,
    "tournament": _tournament,
}


def table() -> dict[str, str]:
    """configs/README.md's rows: file name -> kind."""
    rows = re.findall(
        r"^\| \[([^\]]+)\]\(\1\) \| ([^|]+) \|", (CONFIGS / "README.md").read_text(), re.M
    )
    return {name: kind.strip() for name, kind in rows}


def test_the_readme_lists_every_config_once() -> None:
    files = sorted(p.relative_to(CONFIGS).as_posix() for p in CONFIGS.rglob("*.toml"))
    assert sorted(table()) == files
    assert set(table().values()) <= set(READERS)


@pytest.mark.parametrize("name", sorted(table()))
def test_every_config_loads_with_the_reader_of_its_kind(name: str) -> None:
    assert READERS[table()[name]](CONFIGS / name) is not None
