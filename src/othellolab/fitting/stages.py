"""The engine's fit and ProbCut stages run on their own (``othellolab train engine-fit`` and
``train engine-probcut``), each from a TOML config.

A stage reads the engine config's table of the same job (``[fit]`` and ``[measure]``, or
``[probcut]``, declared in ``fitting.engine``) plus what ``train engine`` would otherwise
give it from its rounds: the fit's ``[sources]`` (the labelled runs and position files it
reads) and ProbCut's ``evaluation`` (the weights it searches with). The other tables of an
engine config are allowed and left alone, so ``configs/engine.toml`` starts every stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from othellolab.config import CheckedTable, Option, read_toml, refuse_unknown, table_from_dict
from othellolab.config.overrides import load_with_overrides
from othellolab.core import ConfigError
from othellolab.fitting.engine import FitConfig, MeasureConfig, ProbCutConfig

__all__ = [
    "FitSourcesConfig",
    "FitStageConfig",
    "ProbCutStageConfig",
    "load_fit_stage",
    "load_probcut_stage",
]

_ENGINE_KEYS = ("rounds", "workers", "fit", "probcut", "measure")
"""An engine config's own keys: a stage's config may hold them (and ignores the others')."""


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


@dataclass(frozen=True)
class FitSourcesConfig(CheckedTable):
    """What a fit on its own reads beside the ``[fit]`` records (``train engine`` gives it its
    rounds' data instead): ``labelled`` run folders (comma-separated) read up to
    ``labelled_shards`` shards (one count for every run or one per run; 0: all),
    ``positions`` files (``.npz`` of player, opponent and score), ``held_out`` (a WTHOR folder
    whose 2023 games measure the fit), ``phases`` (0: enough for 60 empties) and
    ``max_games`` per record source (0: all; for trials)."""

    labelled: str = ""
    labelled_shards: str = "0"
    positions: str = ""
    held_out: str = ""
    phases: int = 0
    max_games: int = 0

    TABLE: ClassVar[str] = "[sources]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "labelled": Option(str, help="labelled run folders, comma-separated ('': none)"),
        "labelled_shards": Option(
            str, help="shards read of each labelled run: one count or one per run (0: all)"
        ),
        "positions": Option(str, help=".npz position files, comma-separated ('': none)"),
        "held_out": Option(str, help="WTHOR folder whose 2023 games measure the fit ('': none)"),
        "phases": Option(int, 0, 60, help="phases fitted (0: enough for 60 empties)"),
        "max_games": Option(int, 0, 10**9, help="games per record source (0: all)"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        self.shard_counts()

    def shard_counts(self) -> int | tuple[int, ...]:
        """``labelled_shards`` as one count or a count per labelled run, checked."""
        counts = []
        for part in _names(self.labelled_shards) or ("0",):
            if not part.isdigit() or int(part) > 10**9:
                raise ConfigError(
                    f"expected shard counts 0..1e9, comma-separated, got {self.labelled_shards!r}",
                    where=self.TABLE,
                    option="labelled_shards",
                )
            counts.append(int(part))
        runs = len(_names(self.labelled))
        if len(counts) > 1 and len(counts) != runs:
            raise ConfigError(
                f"{len(counts)} shard counts for {runs} labelled runs (give one, or one per run)",
                where=self.TABLE,
                option="labelled_shards",
            )
        return counts[0] if len(counts) == 1 else tuple(counts)


@dataclass(frozen=True)
class FitStageConfig:
    """The pattern fit on its own: the engine config's ``fit`` and ``measure`` tables and the
    ``sources`` it reads."""

    fit: FitConfig = field(default_factory=FitConfig)
    sources: FitSourcesConfig = field(default_factory=FitSourcesConfig)
    measure: MeasureConfig = field(default_factory=MeasureConfig)

    @classmethod
    def from_dict(cls, data: Any, *, where: str) -> FitStageConfig:
        """The stage's config from a TOML document; unknown keys and bad values are errors
        naming the file, the table and the key."""
        refuse_unknown(data, [*_ENGINE_KEYS, "sources", "evaluation"], where)
        tables = {
            name: table_from_dict(klass, data.get(name, {}), f"{where}: [{name}]")
            for name, klass in (
                ("fit", FitConfig),
                ("sources", FitSourcesConfig),
                ("measure", MeasureConfig),
            )
        }
        if Path(tables["measure"].exact).suffix == ".toml":
            raise ConfigError(
                "a fit on its own measures on a labelled run folder or a .npz; generate the "
                "held-out set first (othellolab train engine-data CONFIG --out DIR)",
                where=f"{where}: [measure]",
                option="exact",
            )
        return cls(**tables)

    def options(self, *, progress: bool) -> Any:
        """The ``PatternTrainOptions`` of this fit."""
        from othellolab.fitting.patterns import PatternTrainOptions

        f, s = self.fit, self.sources
        return PatternTrainOptions(
            wthor_dir=f.wthor_path(),
            years=f.years,
            extra_sources=(Path(f.logistello),) if f.logistello else (),
            positions_files=tuple(Path(p) for p in _names(s.positions)),
            wthor_target=f.wthor_target,
            labelled=tuple(Path(p) for p in _names(s.labelled)),
            label=f.label,
            labelled_weight=f.labelled_weight,
            labelled_shards=s.shard_counts(),
            held_out=Path(s.held_out) if s.held_out else None,
            phase_width=f.phase_width,
            phases=s.phases,
            terms=f.term_names(),
            overlap=f.overlap,
            l2=f.l2,
            iterations=f.iterations,
            max_games=s.max_games,
            progress=progress,
        )


@dataclass(frozen=True)
class ProbCutStageConfig:
    """Multi-ProbCut's fit on its own: the engine config's ``probcut`` table and the
    ``evaluation`` its searches use (a shipped weights name, a weights folder, ``heuristic``
    or ``discs``; ``train engine`` uses each round's fit)."""

    probcut: ProbCutConfig = field(default_factory=ProbCutConfig)
    evaluation: str = "patterns"

    @classmethod
    def from_dict(cls, data: Any, *, where: str) -> ProbCutStageConfig:
        """The stage's config from a TOML document; errors name the file, the table and the
        key."""
        refuse_unknown(data, [*_ENGINE_KEYS, "sources", "evaluation"], where)
        probcut = table_from_dict(ProbCutConfig, data.get("probcut", {}), f"{where}: [probcut]")
        if probcut.positions == 0:
            raise ConfigError(
                "positions = 0 fits nothing; give 20 or more",
                where=f"{where}: [probcut]",
                option="positions",
            )
        try:
            evaluation = Option(str, help="evaluation").convert(
                data.get("evaluation", "patterns"), "evaluation"
            )
        except ConfigError as e:
            raise ConfigError(e.what, where=where, option="evaluation") from None
        if not evaluation.strip():
            raise ConfigError(
                "names no evaluation (patterns, a weights folder, heuristic or discs)",
                where=where,
                option="evaluation",
            )
        return cls(probcut=probcut, evaluation=evaluation)

    def options(self, *, progress: bool) -> Any:
        """The ``ProbCutOptions`` of this fit."""
        from othellolab.fitting.probcut import ProbCutOptions

        p = self.probcut
        return ProbCutOptions(
            wthor_dir=str(p.wthor_path()),
            years=p.years,
            positions=p.positions,
            max_depth=p.max_depth,
            evaluation=self.evaluation,
            seed=p.seed,
            progress=progress,
        )


def load_fit_stage(
    path: str | Path, overrides: dict[str, Any] | None = None
) -> tuple[FitStageConfig, str]:
    """Read and check a fit stage's TOML config with ``overrides`` merged over it; returns it
    and the file's text."""
    data, text = read_toml(path)
    build = lambda d: FitStageConfig.from_dict(d, where=str(path))  # noqa: E731
    return load_with_overrides(build, data, overrides), text


def load_probcut_stage(
    path: str | Path, overrides: dict[str, Any] | None = None
) -> tuple[ProbCutStageConfig, str]:
    """Read and check a ProbCut stage's TOML config with ``overrides`` merged over it; returns
    it and the file's text."""
    data, text = read_toml(path)
    build = lambda d: ProbCutStageConfig.from_dict(d, where=str(path))  # noqa: E731
    return load_with_overrides(build, data, overrides), text
