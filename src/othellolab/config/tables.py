"""The readers every config shares: a TOML file, a table checked against its declared fields,
and the number checks whose errors name the file, the table and the key.

Every run config (supervised, self-play, the engine's training, tournaments) is read by
``read_toml`` and built table by table with ``table_from_dict``; ``CheckedTable`` (in
``options``) declares each field with its type and range.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError

__all__ = [
    "check_count",
    "check_number",
    "read_toml",
    "refuse_unknown",
    "run_name",
    "table_from_dict",
    "whole_number",
]


def read_toml(path: str | Path) -> tuple[dict[str, Any], str]:
    """A TOML config file's tables and its text; a missing, unreadable or invalid file is a
    ``ConfigError`` naming it (every training config is read here)."""
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such config file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{p}: cannot read the config ({e})") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: invalid TOML ({e})") from None


def refuse_unknown(data: Any, known: list[str], where: str) -> None:
    """A ``ConfigError`` at ``where`` unless ``data`` is a mapping whose keys are all ``known``
    (the error names the first unknown key and lists the known ones)."""
    if not isinstance(data, dict):
        raise ConfigError("expected a table", where=where)
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown key(s) {', '.join(map(str, unknown))}; known: {', '.join(known)}",
            where=where,
            option=str(unknown[0]),
        )


def table_from_dict(klass: type, data: Any, where: str) -> Any:
    """``klass`` built from a mapping (a TOML table): unknown keys and bad values are errors
    located at ``where`` that name the key."""
    keys = klass.keys() if hasattr(klass, "keys") else [f.name for f in fields(klass)]
    refuse_unknown(data, keys, where)
    try:
        return klass(**data)
    except ConfigError as e:
        raise ConfigError(e.what, where=where, option=e.option, allowed=e.allowed) from None


def run_name(name: Any, where: str) -> str:
    """A run's name, which names its folder: required, letters, digits, '-', '_' and '.'."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("'name' (the run name) is required", where=where, option="name")
    if not all(c.isalnum() or c in "-_." for c in name) or name.startswith("."):
        raise ConfigError(
            f"name {name!r} may hold only letters, digits, '-', '_' and '.'",
            where=where,
            option="name",
        )
    return name


def whole_number(value: object) -> bool:
    """An int that is not a bool (``True`` is not a count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_number(
    value: object,
    option: str,
    *,
    where: str,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
) -> float:
    """``value`` as a float when it is a finite number in ``[low, high]`` (``(low, high]`` with
    ``low_open``); otherwise a ``ConfigError`` naming the option and the range."""
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    v = float(value) if ok else math.nan  # type: ignore[arg-type]
    inside = math.isfinite(v) and (v > low if low_open else v >= low) and v <= high
    if not inside:
        bracket = "(" if low_open else "["
        raise ConfigError(
            f"must be a finite number in {bracket}{low:g}, {high:g}], got {value!r}",
            where=where,
            option=option,
        )
    return v


def check_count(value: object, option: str, *, where: str, low: int = 1) -> int:
    """``value`` when it is a whole number ``>= low``; otherwise a ``ConfigError``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ConfigError(
            f"must be a whole number >= {low}, got {value!r}", where=where, option=option
        )
    return int(value)
