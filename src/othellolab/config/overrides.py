"""Overrides of a run config's keys (``--set train.lr=0.01``), merged over the TOML's tables
before the config is checked, so that a bad override gets the same error as a bad key in the
file, saying that it came from an override.

>>> parse_overrides(["train.lr=0.01", "loop.generations=3", "seed=2", "name=my-run"])
{'train': {'lr': 0.01}, 'loop': {'generations': 3}, 'seed': 2, 'name': 'my-run'}
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from othellolab.core import ConfigError

__all__ = ["load_with_overrides", "merge_overrides", "parse_overrides"]

T = TypeVar("T")

_KEY = re.compile(r"[A-Za-z0-9_-]+")
_MAX_DEPTH = 4
"""Most parts a dotted key may have (table, key, and two levels below for nested tables)."""


def _value(text: str, item: str) -> Any:
    """``text`` read as a TOML value (``3`` an int, ``0.01`` a float, ``true`` a bool, a list,
    a quoted string); any other text without quotes or brackets is a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    if not text or text[0] in "\"'[{" or "\n" in text:
        raise ConfigError(
            f'override {item!r}: {text!r} is not a TOML value (quote a string: key="text")',
            option=item.split("=", 1)[0].strip() or None,
        )
    return text


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``["train.lr=0.01", "seed=2"]`` as the nested mapping ``{"train": {"lr": 0.01},
    "seed": 2}`` that the run-config loaders take as ``overrides``; each value is read as a
    TOML value, or as a bare string when it is not one. An item without ``=``, with an empty
    or malformed key, or that sets a key twice (or both a table and a key inside it) is a
    ``ConfigError`` naming it."""
    if isinstance(items, str):
        raise ConfigError(f"overrides must be a list of KEY=VALUE items, got the text {items!r}")
    out: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, str) or "=" not in item:
            raise ConfigError(f"override {item!r}: expected KEY=VALUE (e.g. train.lr=0.01)")
        key, text = (part.strip() for part in item.split("=", 1))
        parts = key.split(".")
        if not key or len(parts) > _MAX_DEPTH or not all(_KEY.fullmatch(p) for p in parts):
            raise ConfigError(
                f"override {item!r}: the key must be NAME or TABLE.NAME (letters, digits, '_' "
                f"and '-'), got {key!r}",
                option=key or None,
            )
        value = _value(text, item)
        node = out
        for depth, part in enumerate(parts[:-1]):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(
                    f"override {item!r}: {'.'.join(parts[: depth + 1])} is set to a value "
                    "by another override",
                    option=key,
                )
        if parts[-1] in node:
            raise ConfigError(f"override {item!r}: {key} is set twice", option=key)
        node[parts[-1]] = value
    return out


def merge_overrides(
    data: Mapping[str, Any], overrides: Mapping[str, Any] | None
) -> tuple[dict[str, Any], set[tuple[str, ...]]]:
    """``data`` (a TOML file's tables) with ``overrides`` merged over it, table by table (a
    table in both keeps the file's keys the override leaves alone), and the dotted paths the
    overrides set. ``data`` is not changed."""

    def merge(
        base: Mapping[str, Any], top: Mapping[str, Any], prefix: tuple[str, ...]
    ) -> dict[str, Any]:
        out = dict(base)
        for key, value in top.items():
            path = (*prefix, str(key))
            if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
                out[key] = merge(out[key], value, path)
            elif isinstance(value, Mapping) and key not in out:
                out[key] = merge({}, value, path)
            else:
                out[key] = value
                paths.add(path)
        return out

    paths: set[tuple[str, ...]] = set()
    if overrides is None:
        return dict(data), paths
    if not isinstance(overrides, Mapping):
        raise ConfigError(
            f"overrides must be a mapping of table -> key -> value, got {overrides!r}"
        )
    return merge(data, overrides, ()), paths


def _override_of(error: ConfigError, paths: set[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The override that ``error`` is about: one whose last key is the error's option, inside
    the table that the error's location names (``[train]``), if any."""
    where = error.where or ""
    for path in sorted(paths, key=len, reverse=True):
        for i, part in enumerate(path):
            if part != error.option:
                continue
            if i == 0 or f"[{path[i - 1]}]" in where or f"[[{path[i - 1]}]]" in where:
                return path[: i + 1]
    return None


def load_with_overrides(
    build: Callable[[dict[str, Any]], T],
    data: Mapping[str, Any],
    overrides: Mapping[str, Any] | None,
) -> T:
    """``build(data with overrides merged)``; a ``ConfigError`` about a key an override set
    says so (``... (from an override of train.lr)``)."""
    merged, paths = merge_overrides(data, overrides)
    try:
        return build(merged)
    except ConfigError as e:
        path = _override_of(e, paths) if e.option is not None else None
        if path is None:
            raise
        error = copy.copy(e)
        error.what = f"{e.what} (from an override of {'.'.join(path)})"
        error.args = (error._message(),)
        raise error from None
