"""What every config-taking command shares: the CONFIG argument (a TOML file, or a run folder
to go on with), the repeatable ``--set KEY=VALUE`` that overrides its keys, shorthand flags
that set one key, the text a run folder keeps, and the examples at the end of each help."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from othellolab.core import ConfigError

SET_HELP = (
    "Override a key of the config: TABLE.KEY=VALUE (a TOML value; bare text is a string), "
    "e.g. --set train.lr=0.01; repeatable."
)

SetOption = Annotated[
    list[str] | None, typer.Option("--set", "-s", metavar="KEY=VALUE", help=SET_HELP)
]
"""The ``--set`` option of every config-taking command."""


def examples(*lines: str) -> str:
    """A command's help epilog: its examples, one a line (``tests/cli/test_examples.py``
    parses each with the real parser, and runs the cheap ones)."""
    return "Examples:\n\n" + "\n\n".join(f"  {line}" for line in lines)


def overrides(items: list[str] | None, **shorthands: Any) -> dict[str, Any]:
    """The ``--set`` items as the nested mapping the config loaders take, with the shorthand
    flags (``workers=2`` for ``--workers 2``; ``None``: not given) set as their dotted keys; a
    key set by both a flag and ``--set`` is an error naming both."""
    from othellolab.config import parse_overrides

    out = parse_overrides(items or [])
    for key, value in shorthands.items():
        if value is None:
            continue
        *tables, name = key.split(".")
        node = out
        for table in tables:
            node = node.setdefault(table, {})
        flag = "--" + name.replace("_", "-")
        if name in node:
            raise ConfigError(f"{flag} and --set {key}=... both set {key}; give one", option=flag)
        node[name] = value
    return out


def config_file(config: Path) -> tuple[Path, Path | None]:
    """The TOML a command reads and the run folder it goes on with: CONFIG itself, or
    ``CONFIG/run.toml`` when CONFIG is a run folder (written by the run's first start)."""
    if config.is_dir():
        path = config / "run.toml"
        if not path.is_file():
            raise ConfigError(
                f"{config}: a folder but not a run folder (no run.toml); give a TOML config",
                option="CONFIG",
            )
        return path, config
    if not config.exists():
        raise ConfigError(f"{config}: no such config file or run folder", option="CONFIG")
    return config, None


def run_text(path: Path, given: dict[str, Any]) -> str:
    """The config text a run folder keeps: the file as given, or with ``--set`` overrides the
    config they make (the file's tables with the overrides merged, as TOML), so that going on
    with the run folder reads the same config."""
    text = path.read_text()
    if not given:
        return text
    from othellolab.config import read_toml
    from othellolab.config.overrides import merge_overrides

    data, _ = read_toml(path)
    merged, _ = merge_overrides(data, given)
    return f"# {path} with overrides {json.dumps(given)}\n" + toml_text(merged)


def toml_text(data: dict[str, Any]) -> str:
    """``data`` (what ``tomllib`` reads: tables, arrays of tables, strings, numbers, booleans
    and lists of them) written as TOML that reads back equal."""
    lines: list[str] = []
    _table(data, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(data: dict[str, Any], path: list[str], lines: list[str]) -> None:
    def is_tables(v: Any) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    plain = {k: v for k, v in data.items() if not isinstance(v, dict) and not is_tables(v)}
    for key, value in plain.items():
        lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in data.items():
        if isinstance(value, dict):
            lines += ["", "[" + ".".join(_key(k) for k in [*path, key]) + "]"]
            _table(value, [*path, key], lines)
        elif is_tables(value):
            for item in value:
                lines += ["", "[[" + ".".join(_key(k) for k in [*path, key]) + "]]"]
                _table(item, [*path, key], lines)


def _key(key: str) -> str:
    bare = key and all(c.isalnum() or c in "-_" for c in key) and key.isascii()
    return key if bare else _string(key)


def _string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = (
        f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else "\\" + c if c in '"\\' else c
        for c in text
    )
    return '"' + "".join(escaped) + '"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise ConfigError(f"cannot write {value!r} as a TOML value")
