"""Reference tables of the docs, rendered from the config declarations (``CheckedTable``), so
that a key's default, range and meaning are written once, in the code.

A doc marks each generated table with ``<!-- NAME -->`` and ``<!-- /NAME -->``; ``BLOCKS``
says which config class each one renders (one table), or which classes (a list: one table of
them all, its first column naming each class's ``TABLE``). ``python -m othellolab.config.reference --write``
rewrites them; ``--check`` (and ``tests/config/test_reference.py``) fails when one differs.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from othellolab.config.options import Option

__all__ = ["BLOCKS", "reference_table", "render_doc", "stale_blocks", "tables_reference"]

BLOCKS: dict[str, dict[str, str | list[str]]] = {
    "docs/selfplay.md": {
        "selfplay:loop": "othellolab.training.selfplay.runconfig:LoopConfig",
        "selfplay:train": "othellolab.training.selfplay.runconfig:SelfPlayTrainConfig",
        "selfplay:gate": "othellolab.training.selfplay.runconfig:GateConfig",
        "selfplay:grade": "othellolab.training.selfplay.runconfig:GradeConfig",
        "selfplay:rate": "othellolab.training.selfplay.runconfig:RateConfig",
        "selfplay:config": "othellolab.training.selfplay.config:SelfPlayConfig",
    },
    "docs/engine-training.md": {
        "engine:labelled": [
            "othellolab.fitting.labelled.config:OpeningsConfig",
            "othellolab.fitting.labelled.config:RandomiseConfig",
            "othellolab.fitting.labelled.config:LabelSearchConfig",
            "othellolab.fitting.labelled.config:LabelsConfig",
        ],
        "engine:config": [
            "othellolab.fitting.engine:RoundConfig",
            "othellolab.fitting.engine:FitConfig",
            "othellolab.fitting.engine:ProbCutConfig",
            "othellolab.fitting.engine:MeasureConfig",
        ],
        "engine:sources": "othellolab.fitting.stages:FitSourcesConfig",
    },
    "docs/arena.md": {
        "arena:config": "othellolab.arena.tournament_config:TournamentConfig",
        "arena:limit": "othellolab.arena.tournament_config:LimitTable",
    },
    "docs/supervised.md": {
        "supervised:config": [
            "othellolab.training.config:DataConfig",
            "othellolab.training.config:OptimConfig",
            "othellolab.training.config:ScheduleConfig",
            "othellolab.training.config:TrainConfig",
            "othellolab.training.config:RuntimeConfig",
            "othellolab.training.config:DistributedConfig",
        ],
        "supervised:model": "othellolab.nn.config:ModelConfig",
    },
}
"""Each doc's generated blocks: marker name -> ``module:Class`` (named, not imported, so that
this module stays below the packages whose configs it renders)."""


def _default(value: Any) -> str:
    """A default as the tables write it: ``none``, ``true``, ``""``, ``[0, 32]``, ``1.0``,
    ``(required)`` for a key without one."""
    if value is MISSING:
        return "(required)"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, tuple | list):
        return json.dumps(list(value))
    return str(value)


def _rows(klass: type) -> list[tuple[str, Any, Option]]:
    """``(key, default, option)`` of every key of ``klass``, its sections' keys in place."""
    out = []
    for f in fields(klass):
        section = klass.SECTIONS.get(f.name)  # type: ignore[attr-defined]
        if section is not None:
            out += _rows(section)
            continue
        default = f.default if f.default_factory is MISSING else f.default_factory()
        out.append((f.name, default, klass.OPTIONS[f.name]))  # type: ignore[attr-defined]
    return out


def reference_table(klass: type) -> str:
    """The Markdown table of a ``CheckedTable``: key, default, values (``Option.describe``, or
    the option's ``shown`` text) and meaning (its ``help``)."""
    lines = ["| key | default | values | meaning |", "|---|---|---|---|"]
    for key, default, option in _rows(klass):
        values = option.shown or option.describe()
        lines.append(f"| `{key}` | {_default(default)} | {values} | {option.help} |")
    return "\n".join(lines) + "\n"


def tables_reference(classes: list[type]) -> str:
    """One Markdown table of several ``CheckedTable``s (a run config's tables): each class's
    ``TABLE`` in the first column of its first row, then key, default, values and meaning."""
    lines = ["| table | key | default | values | meaning |", "|---|---|---|---|---|"]
    for klass in classes:
        table = f"`{klass.TABLE}`"  # type: ignore[attr-defined]
        for key, default, option in _rows(klass):
            values = option.shown or option.describe()
            lines.append(f"| {table} | `{key}` | {_default(default)} | {values} | {option.help} |")
            table = ""
    return "\n".join(lines) + "\n"


def _class(target: str) -> type:
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def _render(target: str | list[str]) -> str:
    """The generated text of a block: one class's table, or a list's table of tables."""
    if isinstance(target, list):
        return tables_reference([_class(t) for t in target])
    return reference_table(_class(target))


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {re.escape(name)} -->\n)(.*?)(<!-- /{re.escape(name)} -->)", re.S)


def render_doc(text: str, blocks: dict[str, str | list[str]], where: str = "doc") -> str:
    """``text`` with each marked block replaced by its generated table; a missing marker is a
    ``ValueError`` naming it."""
    for name, target in blocks.items():
        pattern = _block(name)
        if not pattern.search(text):
            raise ValueError(f"{where}: no <!-- {name} --> ... <!-- /{name} --> block")
        table = _render(target)
        text = pattern.sub(lambda m, t=table: m.group(1) + t + m.group(3), text)
    return text


def stale_blocks(root: Path) -> list[str]:
    """The ``doc: block`` names whose text differs from the generated table."""
    stale = []
    for doc, blocks in BLOCKS.items():
        text = (root / doc).read_text()
        for name, target in blocks.items():
            m = _block(name).search(text)
            if m is None or m.group(2) != _render(target):
                stale.append(f"{doc}: {name}")
    return stale


def main(argv: list[str] | None = None) -> int:
    """``--write`` regenerates the docs' tables; ``--check`` lists the stale ones (exit 1)."""
    parser = argparse.ArgumentParser(prog="python -m othellolab.config.reference")
    parser.add_argument("--write", action="store_true", help="rewrite the docs' tables")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository")
    args = parser.parse_args(argv)
    if args.write:
        for doc, blocks in BLOCKS.items():
            path = args.root / doc
            new = render_doc(path.read_text(), blocks, where=doc)
            if new != path.read_text():
                path.write_text(new)
                print(f"wrote {doc}")
        return 0
    stale = stale_blocks(args.root)
    for line in stale:
        print(f"stale: {line} (run python -m othellolab.config.reference --write)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
