"""The config of a self-play run (``othellolab train selfplay FILE``), read from TOML.

The top level names the run's ``game`` (a registered game, ``core.games``; default Othello)
and, for a game of several board sizes, its ``size``. Tables: ``[model]`` (a named size and
overrides, as in a supervised run; the game and board size come from the top level), ``[selfplay]`` (``SelfPlayConfig``: the search and its variants),
``[loop]`` (generations, games, shards, workers, the sliding window, the starting network),
``[train]`` (batches and loss weights per generation), ``[optim]`` (the optimiser, as in a
supervised run), ``[gate]`` (new generation against the best), ``[grade]`` (against perfect
play), ``[rate]`` (matches against fixed players) and ``[runtime]`` (device, threads; may change
on resume). Unknown tables and keys are errors that name them; every number is checked
(``config.options.Option``: type, finite, range).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from othellolab.config import CheckedTable, run_name, table_from_dict
from othellolab.config.options import Option
from othellolab.core import ConfigError
from othellolab.core.games import Game, game_for, game_names, get_game
from othellolab.core.parsing import clip
from othellolab.nn.config import ModelConfig
from othellolab.training.config import OptimConfig, RuntimeConfig
from othellolab.training.selfplay.config import SelfPlayConfig

__all__ = [
    "GateConfig",
    "GradeConfig",
    "LoopConfig",
    "RateConfig",
    "SelfPlayRunConfig",
    "SelfPlayTrainConfig",
    "load_run_config",
]


@dataclass(frozen=True)
class LoopConfig(CheckedTable):
    """The loop: ``generations`` trained generations to reach (0: until stopped),
    ``games`` self-play games per generation in ``shards`` files, played by ``workers``
    processes; the training window holds the positions of the last ``window`` generations
    (at least ``min_window`` of them, AlphaZero's sliding window); ``init``: a model
    directory or shipped model name to start from instead of random weights (e.g. the
    supervised 8x8 network ``b4c32-wthor``; its shape replaces ``[model]``);
    ``cpu_hours``: stop once self-play and training have used this much CPU time (0: no
    limit); ``skip_corrupt``: skip a shard whose checksum fails (reported in the metrics)
    instead of stopping with an error naming it."""

    generations: int = 20
    games: int = 512
    shards: int = 2
    workers: int = 1
    window: int = 4
    min_window: int = 1
    init: str = ""
    cpu_hours: float = 0.0
    skip_corrupt: bool = False

    TABLE: ClassVar[str] = "[loop]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "generations": Option(
            int,
            0,
            100_000,
            help="stop when this generation is trained (0: never); may change on resume",
        ),
        "games": Option(int, 1, 10_000_000, help="self-play games per generation"),
        "shards": Option(
            int, 1, 10_000, help="shard files per generation (the unit of work and of resume)"
        ),
        "workers": Option(
            int,
            1,
            1024,
            help="self-play processes (may change on resume: shards are seeded one by one)",
        ),
        "window": Option(
            int, 1, 10_000, help="generations whose positions form the training window"
        ),
        "min_window": Option(
            int, 1, 10_000, help="the window's size from the start (it grows to `window`)"
        ),
        "init": Option(
            str,
            help="a model directory or shipped model name to start from instead of random weights (same board size; its shape replaces `[model]`, extended with the auxiliary heads and the global pooling that `[model]` and `[train]` ask for and it lacks: those start fresh, and the log and gen0's `training.init_new` name them; a tensor of another shape is refused by name)",
        ),
        "cpu_hours": Option(
            float,
            0,
            1e6,
            help="stop after this much CPU time of self-play, training and gating (0: never); may change on resume",
        ),
        "skip_corrupt": Option(
            bool,
            help="skip a shard that fails its checksum (listed in the train record) instead of stopping; may change on resume",
        ),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.min_window > self.window:
            raise ConfigError(
                f"min_window ({self.min_window}) must not exceed window ({self.window})",
                option="min_window",
            )


@dataclass(frozen=True)
class SelfPlayTrainConfig(CheckedTable):
    """Training of one generation: each new position is sampled ``samples_per_position``
    times on average, the replay ratio (samples trained per sample generated: ``steps``), with
    a random one of the 8 symmetries (``symmetries``); a larger ``batch_size`` at the same
    ratio trains the same samples in fewer, larger steps; the policy loss (cross-entropy with
    the search's policy) counts the full searches only; the value target is the game result
    mixed with the search value by ``value_mix`` (0: the result alone). The learning rate
    (``[optim] lr``) decays along a cosine over the first ``lr_decay_generations``
    generations down to ``min_lr_ratio`` times itself, and stays there (0: constant).
    Auxiliary losses (KataGo's targets; 0: off, and the model gets the head when the weight
    is not 0): ``ownership_weight`` (each cell's final owner), ``score_weight`` (the final
    score's distribution) and ``opponent_policy_weight`` (the opponent's reply).
    Anchoring (for a run that starts from a supervised network): ``anchor_share`` [0: off]
    of every batch is expert positions from ``anchor`` (a dataset folder, a WTHOR folder with
    ``anchor_years``, or a game-record file; Othello only), ``anchor_positions`` of them drawn
    once (seeded), the expert's move as the policy target and the game's result as the value,
    so that self-play's narrow data does not wash out what the network learned from the
    games it was trained on."""

    batch_size: int = 256
    samples_per_position: float = 4.0
    min_steps: int = 1
    max_steps: int = 100_000
    value_weight: float = 1.0
    value_mix: float = 0.0
    symmetries: bool = True
    lr_decay_generations: int = 0
    min_lr_ratio: float = 0.1
    ownership_weight: float = 0.0
    score_weight: float = 0.0
    opponent_policy_weight: float = 0.0
    anchor: str = ""
    anchor_years: str = ""
    anchor_share: float = 0.0
    anchor_positions: int = 200_000

    TABLE: ClassVar[str] = "[train]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "batch_size": Option(int, 1, 65_536, help="positions per optimiser step"),
        "samples_per_position": Option(
            float,
            0.01,
            1000,
            help="the replay ratio, samples trained per position generated: steps = ceil(new positions x this / batch_size)",
        ),
        "min_steps": Option(int, 1, 10_000_000, help="fewest steps per generation"),
        "max_steps": Option(int, 1, 10_000_000, help="most steps per generation"),
        "value_weight": Option(float, 0, 100, help="weight of the value MSE in the loss"),
        "value_mix": Option(
            float,
            0,
            1,
            help="share of the search's root value in the value target (0: the game's outcome)",
        ),
        "symmetries": Option(bool, help="a random one of the 8 symmetries per sampled position"),
        "lr_decay_generations": Option(
            int,
            0,
            1_000_000,
            help="the learning rate decays along a cosine over this many generations (0: constant)",
        ),
        "min_lr_ratio": Option(
            float, 0, 1, help="... down to this share of `[optim] lr`, and stays there"
        ),
        "ownership_weight": Option(
            float,
            0,
            100,
            help="weight of the ownership loss: the mean squared error of each cell's final owner (+1 the side to move, -1 the opponent, 0 none; Othello gives the empties to the winner); above 0 the model gets an ownership head (a game with `Game.ownership` only)",
        ),
        "score_weight": Option(
            float,
            0,
            100,
            help="weight of the score loss: the cross-entropy of a distribution over the final scores of `Game.score_range` (Othello: -36..36 on 6x6) with the final score; above 0 the model gets a score-distribution head",
        ),
        "opponent_policy_weight": Option(
            float,
            0,
            100,
            help="weight of the opponent-policy loss: the cross-entropy of a second policy head with the opponent's reply (the action played at the next ply); above 0 the model gets the head",
        ),
        "anchor": Option(
            str,
            help='expert games mixed into every batch: a dataset folder (its train split), a folder of WTHOR files (with `anchor_years`) or a game-record file, read relative to where the run starts (Othello only; "": none)',
        ),
        "anchor_years": Option(
            str, digits=True, help='the years of a WTHOR `anchor` folder, e.g. "1977-2021"'
        ),
        "anchor_share": Option(
            float,
            0,
            0.9,
            help="share of every batch drawn from the anchor: the expert's move as a one-hot policy target, the game's result as the value (0: off; the steps stay as `samples_per_position` sets them, so self-play rows train (1 - share) times as often)",
        ),
        "anchor_positions": Option(
            int,
            1,
            50_000_000,
            help="the anchor's positions drawn once (seeded; moves only, no forced passes) and kept in memory",
        ),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.anchor_share > 0 and not self.anchor:
            raise ConfigError(
                "anchor_share above 0 needs anchor (the expert games to mix in)",
                option="anchor_share",
            )

    def anchor_rows(self) -> int:
        """Anchor positions in each batch."""
        return round(self.batch_size * self.anchor_share) if self.anchor else 0

    def steps(self, new_positions: int) -> int:
        """Optimiser steps of a generation whose self-play gave ``new_positions`` positions:
        ``ceil(new_positions * samples_per_position / batch_size)`` within ``min_steps`` and
        ``max_steps``."""
        wanted = math.ceil(new_positions * self.samples_per_position / self.batch_size)
        return max(self.min_steps, min(self.max_steps, wanted))

    def heads(self) -> dict[str, bool]:
        """The ``ModelConfig`` auxiliary heads these weights train (a weight above 0)."""
        return {
            "ownership_head": self.ownership_weight > 0,
            "score_distribution": self.score_weight > 0,
            "opponent_policy_head": self.opponent_policy_weight > 0,
        }

    def lr_factor(self, generation: int) -> float:
        """The learning rate of ``generation`` over ``[optim] lr``."""
        if self.lr_decay_generations == 0:
            return 1.0
        done = min(1.0, max(0, generation - 1) / self.lr_decay_generations)
        low = self.min_lr_ratio
        return low + (1 - low) * 0.5 * (1 + math.cos(math.pi * done))


@dataclass(frozen=True)
class GateConfig(CheckedTable):
    """Gating (AlphaGo Zero): a new generation plays ``games`` games (colours swapped on
    random openings of ``opening_plies`` plies) against the best one, both with
    ``simulations`` a move, and becomes the best when it scores more than ``threshold``;
    self-play then uses the best. ``games = 0``: no gate, self-play always uses the newest
    generation (AlphaZero)."""

    games: int = 0
    simulations: int = 32
    threshold: float = 0.55
    opening_plies: int = 2

    TABLE: ClassVar[str] = "[gate]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "games": Option(
            int,
            0,
            100_000,
            help="gating games of a new generation against the best (0: no gate, self-play uses the newest)",
        ),
        "simulations": Option(int, 1, 100_000, help="simulations a move in gating games"),
        "threshold": Option(
            float, 0, 1, help="score above which the new generation becomes the best"
        ),
        "opening_plies": Option(
            int, 0, 20, help="random opening plies (each opening played with both colours)"
        ),
    }


@dataclass(frozen=True)
class GradeConfig(CheckedTable):
    """Grading against perfect play (6x6: the graded set; 4x4: the whole solution) every
    ``every`` generations (0: never), for the raw policy (0) and the network with each of
    ``simulations``; ``positions`` caps the 6x6 set (0: all)."""

    every: int = 1
    simulations: tuple[int, ...] = (0, 32)
    positions: int = 0

    TABLE: ClassVar[str] = "[grade]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "every": Option(
            int, 0, 100_000, help="grade every N generations (0: never); 6x6 and 4x4 only"
        ),
        "simulations": Option(
            object,
            spec=False,
            shown="list of whole numbers 0..100000",
            help="simulation counts graded (0: the raw policy)",
        ),
        "positions": Option(
            int, 0, 10_000_000, help="first positions of the graded 6x6 set to use (0: all)"
        ),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        sims = self.simulations
        if not isinstance(sims, list | tuple) or not sims or len(sims) > 8:
            raise ConfigError("must be a list of 1 to 8 whole numbers", option="simulations")
        checked = tuple(Option(int, 0, 100_000).convert(s, "simulations") for s in sims)
        object.__setattr__(self, "simulations", checked)


@dataclass(frozen=True)
class RateConfig(CheckedTable):
    """Strength against fixed players: every ``every`` generations (0: never), ``games``
    games (colours swapped) against each of ``opponents`` (player specs), the generation
    playing with ``simulations`` a move.

    The games start from ``openings`` (an opening list such as an XOT file, ``random:N`` or
    ``none``, as ``arena match`` takes them), or by default from random openings of
    ``opening_plies`` plies. Every generation meets the same openings, so that a curve compares
    like with like; ``fresh_openings`` draws new ones for each generation instead, so that the
    ratings of several generations pooled are independent samples rather than the same
    openings replayed."""

    every: int = 0
    games: int = 20
    simulations: int = 100
    opponents: tuple[str, ...] = ()
    opening_plies: int = 4
    openings: str = ""
    fresh_openings: bool = False

    TABLE: ClassVar[str] = "[rate]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "every": Option(int, 0, 100_000, help="rate every N generations (0: never)"),
        "games": Option(int, 2, 100_000, help="games against each opponent"),
        "simulations": Option(int, 1, 100_000, help="simulations a move of the generation"),
        "opponents": Option(
            object,
            spec=False,
            shown="list of player specs",
            help='player specs, e.g. `["alphabeta:depth=2", "policy"]`',
        ),
        "opening_plies": Option(int, 0, 20, help="random opening plies (when `openings` is empty)"),
        "openings": Option(
            str,
            help='an opening list (e.g. `"xot-small"`, the XOT list that ships with the package), `random:N` or `none`, as `arena match --openings` takes them; empty: `opening_plies` random plies',
        ),
        "fresh_openings": Option(
            bool,
            help="draw new openings for each generation (pooled ratings are then independent samples); false: every generation meets the same openings",
        ),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        opponents = self.opponents
        if not isinstance(opponents, list | tuple) or not all(
            isinstance(s, str) for s in opponents
        ):
            raise ConfigError("must be a list of player specs", option="opponents")
        from othellolab.players.registry import get_entry, parse_spec

        for spec in opponents:
            try:
                get_entry(parse_spec(spec)[0])
            except ConfigError as e:
                raise ConfigError(f"{spec!r}: {e}", option="opponents") from None
        object.__setattr__(self, "opponents", tuple(opponents))


def rate_openings(
    rate: RateConfig, count: int, *, seed: int | list[int], game: Game, where: str = "[rate]"
) -> list[tuple[int, ...]]:
    """``count`` openings of ``rate.openings`` (``arena.openings.opening_set``), drawn by
    ``seed``; a bad name, a missing list or a bad line of it is a ``ConfigError`` naming
    ``[rate] openings``."""
    from othellolab.arena.openings import opening_set

    try:
        return opening_set(rate.openings, count, seed=seed, game=game)
    except ConfigError as e:
        raise ConfigError(e.what, where=where, option="openings", allowed=e.allowed) from None


_TABLES: dict[str, type] = {
    "loop": LoopConfig,
    "train": SelfPlayTrainConfig,
    "gate": GateConfig,
    "grade": GradeConfig,
    "rate": RateConfig,
}


@dataclass(frozen=True)
class SelfPlayRunConfig:
    """A whole self-play run: name, seed, the game (and its board size, for a game of
    several), the network and one object per table."""

    name: str
    model: ModelConfig
    size: int = 6
    seed: int = 0
    game: str = "othello"
    runs_dir: str = "runs"
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    loop: LoopConfig = field(default_factory=LoopConfig)
    train: SelfPlayTrainConfig = field(default_factory=SelfPlayTrainConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    grade: GradeConfig = field(default_factory=GradeConfig)
    rate: RateConfig = field(default_factory=RateConfig)
    runtime: RuntimeConfig = field(default_factory=RuntimeConfig)

    @property
    def rules(self) -> Game:
        """The game the run learns (``core.games``): ``game``, on ``size`` for a game of several
        board sizes."""
        return game_for(self.game, self.size)

    @property
    def run_dir(self) -> Path:
        """Where the run lives: ``runs_dir/name``."""
        return Path(self.runs_dir) / self.name

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as the run directory freezes it."""
        d: dict[str, Any] = {"name": self.name, "seed": self.seed, "size": self.size}
        if self.game != SelfPlayRunConfig.game:  # runs frozen before the key resume
            d["game"] = self.game
        d["runs_dir"] = self.runs_dir
        d["model"] = self.model.to_dict()
        d["selfplay"] = self.selfplay.to_dict()
        for key in (*_TABLES, "optim", "runtime"):
            d[key] = {
                k: list(v) if isinstance(v, tuple) else v
                for k, v in asdict(getattr(self, key)).items()
            }
        return d

    def defaults(self) -> dict[str, dict[str, Any]]:
        """Every table's defaults (an option added after a run started does not block its
        resume when it keeps its default)."""
        d = {key: asdict(klass()) for key, klass in _TABLES.items()}
        d["selfplay"] = SelfPlayConfig().to_dict()
        d["model"] = ModelConfig.defaults()
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "config") -> SelfPlayRunConfig:
        """Build and validate, rejecting unknown tables and keys (named in the error)."""
        top = {
            "name",
            "seed",
            "size",
            "game",
            "runs_dir",
            "model",
            "selfplay",
            "optim",
            "runtime",
            *_TABLES,
        }
        unknown = sorted(set(data) - top)
        if unknown:
            raise ConfigError(
                f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(top))}",
                where=where,
                option=unknown[0],
            )
        name = run_name(data.get("name"), where)
        seed = Option(int, 0, 2**63 - 1).convert(data.get("seed", 0), "seed")
        game = data.get("game", cls.game)
        if not isinstance(game, str) or game not in game_names():
            raise ConfigError(
                f"expected one of {', '.join(game_names())}, got {clip(game, 40)}",
                where=where,
                option="game",
            )
        sizes = get_game(game).sizes
        if not sizes and "size" in data:
            raise ConfigError(f"{game} has one board: leave size out", where=where, option="size")
        size = data.get("size", cls.size if cls.size in sizes or not sizes else sizes[0])
        if sizes and (size not in sizes or isinstance(size, bool)):
            allowed = ", ".join(map(str, sizes[:-1])) + f" or {sizes[-1]}"
            raise ConfigError(
                f"size must be {allowed}, got {clip(size, 40)}", where=where, option="size"
            )
        runs_dir = data.get("runs_dir", "runs")
        if not isinstance(runs_dir, str) or not runs_dir:
            raise ConfigError("runs_dir must be a folder name", where=where, option="runs_dir")
        model = data.get("model")
        if not isinstance(model, dict | str):
            raise ConfigError(
                "a [model] table is required (e.g. preset = 'resnet-b4c32')", where=where
            )
        table = {"preset": model} if isinstance(model, str) else dict(model)
        if "size" in table and table["size"] != size:
            raise ConfigError(
                f"the model's size {table['size']!r} is not the run's size {size}",
                where=f"{where}: [model]",
                option="size",
            )
        if "game" in table and table["game"] != game:
            raise ConfigError(
                f"the model plays {table['game']!r}, this run is {game}",
                where=f"{where}: [model]",
                option="game",
            )
        mcfg = ModelConfig.from_dict(
            {**table, "size": size, "game": game}, where=f"{where}: [model]"
        )
        selfplay = data.get("selfplay", {})
        if not isinstance(selfplay, dict):
            raise ConfigError("expected a table", where=f"{where}: [selfplay]")
        sp = SelfPlayConfig.from_dict(selfplay, where=f"{where}: [selfplay]")
        if sp.solve_empties and not get_game(game).has_exact_endgame:
            raise ConfigError(
                f"{game} has no exact endgame: leave solve_empties out",
                where=f"{where}: [selfplay]",
                option="solve_empties",
            )
        tables = {
            k: table_from_dict(klass, data.get(k, {}), f"{where}: [{k}]")
            for k, klass in _TABLES.items()
        }
        mcfg = _with_heads(mcfg, tables["train"], where)
        if tables["train"].anchor and game != "othello":
            raise ConfigError(
                f"anchor reads Othello game records; {game} has none",
                where=f"{where}: [train]",
                option="anchor",
            )
        if sp.score_utility and not (mcfg.score_head or mcfg.score_distribution):
            raise ConfigError(
                "the score utility needs a score: set [train] score_weight above 0 (or "
                "[model] score_head = true)",
                where=f"{where}: [selfplay]",
                option="score_utility",
            )
        from othellolab.arena.openings import is_opening_list

        if tables["rate"].openings and not is_opening_list(tables["rate"].openings):
            # random:N and none are checked here; a list is read when the run starts
            rate_openings(
                tables["rate"], 1, seed=0, game=game_for(game, size), where=f"{where}: [rate]"
            )
        optim = OptimConfig.from_dict(data.get("optim", {}), where=f"{where}: [optim]")
        runtime = RuntimeConfig.from_dict(data.get("runtime", {}), where=f"{where}: [runtime]")
        return cls(
            name=name,
            model=mcfg,
            size=size,
            seed=seed,
            game=game,
            runs_dir=runs_dir,
            selfplay=sp,
            optim=optim,
            runtime=runtime,
            **tables,
        )


_HEAD_WEIGHTS = {
    "ownership_head": "ownership_weight",
    "score_distribution": "score_weight",
    "opponent_policy_head": "opponent_policy_weight",
}


def _with_heads(model: ModelConfig, train: SelfPlayTrainConfig, where: str) -> ModelConfig:
    """``model`` with the auxiliary heads that ``[train]``'s weights train; a weight for a
    target the game lacks is an error naming it."""
    wanted = {k: True for k, on in train.heads().items() if on and not getattr(model, k)}
    if not wanted:
        return model
    try:
        return replace(model, **wanted)
    except ConfigError as e:
        key = _HEAD_WEIGHTS.get(str(e.option), "")
        raise ConfigError(
            f"{e.what} (leave {key} at 0)", where=f"{where}: [train]", option=key
        ) from None


def load_run_config(
    path: str | Path, overrides: Mapping[str, Any] | None = None
) -> tuple[SelfPlayRunConfig, str]:
    """Read and validate a TOML self-play config, with ``overrides`` (table -> key -> value, as
    ``config.parse_overrides`` makes them) merged over its tables first; returns it and the
    file's text (without the overrides: ``to_dict`` has them)."""
    from othellolab.config import load_with_overrides, read_toml

    data, text = read_toml(path)
    build = lambda d: SelfPlayRunConfig.from_dict(d, where=str(path))  # noqa: E731
    return load_with_overrides(build, data, overrides), text
