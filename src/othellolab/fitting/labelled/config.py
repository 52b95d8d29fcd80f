"""The config of a labelled-position run (``othellolab train engine-data FILE``).

Top-level keys: ``seed``, ``games_per_shard``, ``shards``; tables ``[openings]`` (where games
start), ``[randomise]`` (how moves are varied), ``[search]`` (how the engine plays) and
``[labels]`` (what each position is labelled with). Every value is checked (type, finite,
range) and unknown keys are refused, with errors that name the table and the key.

>>> cfg = LabelledConfig.from_dict({"seed": 3, "labels": {"exact_empties": 12}})
>>> cfg.labels.exact_empties, cfg.search.depth
(12, 6)
>>> LabelledConfig.from_dict({"labels": {"exact_empties": 40}})
Traceback (most recent call last):
...
othellolab.core.errors.ConfigError: labelled config: [labels]: option exact_empties: must be a whole number in 0..30, got 40
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from othellolab.config import CheckedTable, refuse_unknown, table_from_dict
from othellolab.config.options import Option
from othellolab.core import ConfigError
from othellolab.datasets.feeds import parse_years
from othellolab.players.search.evaluation import check_evaluation_source
from othellolab.players.search.midgame import MAX_DEPTH
from othellolab.records.download import check_data_value

__all__ = [
    "GENERATOR_VERSION",
    "LabelSearchConfig",
    "LabelledConfig",
    "LabelsConfig",
    "OpeningsConfig",
    "RandomiseConfig",
    "load_labelled_config",
]

GENERATOR_VERSION = 2
"""Bumped whenever the generator would write different shards for the same config: it is part
of the config hash, so a run never mixes shards of two generators. Version 2: the midgame
search's two-slot table and aspiration windows (commit 118141c) change which of two moves of
equal depth-limited score a game plays; version 1's runs (commit ac459dc) stay readable."""

SOURCES = ("xot", "wthor", "mixed", "start")
"""Where games start: an XOT list, WTHOR games cut at a random ply, both mixed, or the start
position (with ``random_plies`` for variety; needs no data files)."""

MAX_EXACT_EMPTIES = 30
"""The deepest exact solve a config may ask for (30 empties take minutes per position)."""


def _check(ok: bool, where: str, option: str, what: str) -> None:
    if not ok:
        raise ConfigError(what, where=where, option=option)


@dataclass(frozen=True)
class OpeningsConfig(CheckedTable):
    """Where each game starts (defaults in brackets): ``source`` [xot]: ``xot`` (a line of the
    ``xot`` list), ``wthor`` (a game of the WTHOR ``years`` in ``wthor_dir``, cut after a
    random number of plies in ``min_ply..max_ply``), ``mixed`` (XOT with probability
    ``xot_share`` [0.5], else WTHOR) or ``start``. Paths are relative to the working folder."""

    source: str = "xot"
    xot: str = "xot-large"
    wthor_dir: str = "data:wthor"
    years: str = "1977-2022"
    min_ply: int = 10
    max_ply: int = 30
    xot_share: float = 0.5

    TABLE: ClassVar[str] = "[openings]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "source": Option(str, choices=SOURCES, help="where games start"),
        "xot": Option(
            str,
            check=check_data_value,
            help="XOT opening list (one transcript a line), or a shipped list: xot-large, xot-small",
        ),
        "wthor_dir": Option(
            str,
            check=check_data_value,
            help="folder of WTH_<year>.wtb files; data:wthor: the data folder's copy (`othellolab data path wthor`)",
        ),
        "years": Option(str, digits=True, help="WTHOR years, e.g. 1977-2022"),
        "min_ply": Option(int, 0, 59, help="fewest WTHOR plies replayed"),
        "max_ply": Option(int, 0, 59, help="most WTHOR plies replayed"),
        "xot_share": Option(float, 0, 1, help="share of XOT openings when mixed"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(
            self.min_ply <= self.max_ply,
            self.TABLE,
            "max_ply",
            f"max_ply {self.max_ply} is below min_ply {self.min_ply}",
        )
        try:
            years = parse_years(self.years)
        except ConfigError as e:
            raise ConfigError(e.what, where=self.TABLE, option="years") from None
        _check(bool(years), self.TABLE, "years", "names no year")


@dataclass(frozen=True)
class RandomiseConfig(CheckedTable):
    """How moves are varied: the first ``random_plies`` [2] moves after the opening are
    uniformly random; then, at game plies ``first_ply..last_ply`` [0..30] (counted from the
    start position), with ``temperature`` > 0 [1.0; in discs] a move is drawn from the softmax
    of the moves' ``softmax_depth``-ply [2] search scores (one search per legal move), else the
    engine's best move is played."""

    random_plies: int = 2
    temperature: float = 1.0
    softmax_depth: int = 2
    first_ply: int = 0
    last_ply: int = 30

    TABLE: ClassVar[str] = "[randomise]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "random_plies": Option(int, 0, 60, help="uniformly random moves after the opening"),
        "temperature": Option(float, 0, 1000, unit="discs", help="softmax temperature (0: off)"),
        "softmax_depth": Option(int, 1, 20, help="plies of the search scoring each move"),
        "first_ply": Option(int, 0, 60, help="first game ply drawn from the softmax"),
        "last_ply": Option(int, 0, 60, help="last game ply drawn from the softmax"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(
            self.first_ply <= self.last_ply,
            self.TABLE,
            "last_ply",
            f"last_ply {self.last_ply} is below first_ply {self.first_ply}",
        )


@dataclass(frozen=True)
class LabelSearchConfig(CheckedTable):
    """How the engine chooses its moves: iterative-deepening alpha-beta to ``depth`` [6] plies,
    stopped early after ``nodes`` [0: no limit] nodes (never a time limit: the data must not
    depend on the machine), with ``evaluation`` [auto: the shipped patterns] at the leaves (one
    of ``EVALUATION_NAMES``, a shipped pattern weights set such as ``patterns-r1`` or a folder of
    fitted weights, so a fitted evaluation plays and labels the next round) and a table of ``2**table_bits`` [18] entries
    kept for a game."""

    depth: int = 6
    nodes: int = 0
    evaluation: str = "auto"
    table_bits: int = 18

    TABLE: ClassVar[str] = "[search]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "depth": Option(int, 1, MAX_DEPTH, help="plies of the move search"),
        "nodes": Option(int, 0, 10**12, help="node limit per move (0: none)"),
        "evaluation": Option(str, help="leaf evaluation: auto, a name or pattern weights"),
        "table_bits": Option(int, 16, 24, help="transposition table of 2**bits entries"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.evaluation != "auto":
            try:
                check_evaluation_source(self.evaluation)
            except ConfigError as e:
                raise ConfigError(
                    e.what, where=self.TABLE, option="evaluation", allowed=f"auto, {e.allowed}"
                ) from None


@dataclass(frozen=True)
class LabelsConfig(CheckedTable):
    """What each kept position is labelled with. ``final``: the game's final disc difference
    from the side to move, the game finished by the exact solver from ``exact_empties`` [20]
    empties on (so its tail is perfect play); ``exact``: the exact score of every position on
    that tail; ``search``: a ``search_depth``-ply [4; 0: none] search score, with an empty
    table (a function of the position alone). Positions are kept with ``min_empties`` ..
    ``max_empties`` [0..60] empty squares."""

    exact_empties: int = 20
    search_depth: int = 4
    min_empties: int = 0
    max_empties: int = 60

    TABLE: ClassVar[str] = "[labels]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "exact_empties": Option(int, 0, MAX_EXACT_EMPTIES, help="solve exactly from here"),
        "search_depth": Option(int, 0, 20, help="plies of the search label (0: none)"),
        "min_empties": Option(int, 0, 60, help="fewest empties of a kept position"),
        "max_empties": Option(int, 0, 60, help="most empties of a kept position"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(
            self.min_empties <= self.max_empties,
            self.TABLE,
            "max_empties",
            f"max_empties {self.max_empties} is below min_empties {self.min_empties}",
        )


_TABLES: dict[str, type] = {
    "openings": OpeningsConfig,
    "randomise": RandomiseConfig,
    "search": LabelSearchConfig,
    "labels": LabelsConfig,
}

_TOP: dict[str, Option] = {
    "seed": Option(int, 0, 2**63 - 1, help="seed of every random choice"),
    "games_per_shard": Option(int, 1, 1_000_000, help="games in one shard"),
    "shards": Option(int, 1, 10_000_000, help="shards to generate"),
}


@dataclass(frozen=True)
class LabelledConfig:
    """A labelled-position run: ``shards`` [100] shards of ``games_per_shard`` [64] games,
    shard ``i`` seeded by ``(seed, i)`` [seed 0], so that the data is regenerable from the
    config and a resumed run writes the shards an uninterrupted one would have. ``shards`` is
    not part of the config's identity (``config_hash``): raising it extends a run."""

    seed: int = 0
    games_per_shard: int = 64
    shards: int = 100
    openings: OpeningsConfig = field(default_factory=OpeningsConfig)
    randomise: RandomiseConfig = field(default_factory=RandomiseConfig)
    search: LabelSearchConfig = field(default_factory=LabelSearchConfig)
    labels: LabelsConfig = field(default_factory=LabelsConfig)

    WHERE: ClassVar[str] = "labelled config"

    @classmethod
    def from_dict(cls, data: Any, *, where: str = WHERE) -> LabelledConfig:
        """A config from a mapping (a TOML document), rejecting unknown keys and tables."""
        refuse_unknown(data, [*_TOP, *_TABLES], where)
        top = {}
        for name, option in _TOP.items():
            if name in data:
                try:
                    top[name] = option.convert(data[name], name)
                except ConfigError as e:
                    raise ConfigError(e.what, where=where, option=name) from None
        tables = {
            name: table_from_dict(klass, data.get(name, {}), f"{where}: [{name}]")
            for name, klass in _TABLES.items()
        }
        return cls(**top, **tables)

    def to_dict(self) -> dict[str, Any]:
        """The config as plain data (``from_dict`` reads it back)."""
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """What decides the shards' contents: the config without ``shards``, with the
        generator's version."""
        data = self.to_dict()
        del data["shards"]
        data["generator_version"] = GENERATOR_VERSION
        return data

    @property
    def config_hash(self) -> str:
        """SHA-256 of ``identity()`` as canonical JSON: shards of one run all carry it."""
        text = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def shard_seed(self, index: int) -> int:
        """The seed of shard ``index``, derived from ``seed`` and the index alone."""
        state = np.random.SeedSequence([self.seed, index]).generate_state(2, np.uint64)
        return int(state[0] >> np.uint64(1))


def differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """The keys (``table.key``) whose values differ between two configs' plain data."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key} ({a!r} -> {b!r})")
    return out


def load_labelled_config(
    path: str | Path, overrides: Mapping[str, Any] | None = None
) -> LabelledConfig:
    """Read and check a TOML labelled-position config, with ``overrides`` (table -> key ->
    value, as ``config.parse_overrides`` makes them) merged over its tables first."""
    from othellolab.config import load_with_overrides, read_toml

    data, _ = read_toml(path)
    return load_with_overrides(
        lambda d: LabelledConfig.from_dict(d, where=str(path)), data, overrides
    )
