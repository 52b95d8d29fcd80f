"""The engine's evaluation from one config: rounds of search-labelled self-play, each fitted.

``othellolab train engine configs/engine.toml --out DIR`` runs, for every
``[[rounds]]`` entry in order, three stages with files between them:

1. **data**: the round's labelled-position config (``train engine-data``) generates its
   ``shards`` into the round's data folder; with ``play = "previous"`` the previous round's
   fit plays and labels the games (Logistello's iteration);
2. **fit**: the pattern evaluation (``train engine-fit``) fitted to the ``[fit]`` records plus
   the data of this round and every round before it, into ``DIR/round-K``;
3. **probcut**: multi-ProbCut fitted with those weights (``train engine-probcut``), into
   ``DIR/round-K/probcut.json``, which players with ``weights=DIR/round-K`` use;

and then measures the fit (``[measure]``: mean absolute error against exact scores, beside
named weight sets). Every stage resumes on its own (the data shard by shard, the fit phase by
phase, ProbCut search by search) and a finished one is skipped, so running the command again
after any interruption goes on where it stopped. ``DIR/engine.json`` keeps the config: a
different one is refused, naming the keys that differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from othellolab.config import refuse_unknown, table_from_dict
from othellolab.config.options import CheckedTable, Option
from othellolab.core import ConfigError
from othellolab.core.files import write_json
from othellolab.fitting.labelled.config import LabelledConfig, differences, load_labelled_config
from othellolab.records.download import check_data_value, config_path

__all__ = ["EngineConfig", "FitConfig", "MeasureConfig", "ProbCutConfig", "RoundConfig"]

WHERE = "engine config"
STATE_FILE = "engine.json"
FORMAT = "othellolab.engine-run"
PLAY = ("config", "previous")


def _check_years(years: str, table: str) -> None:
    """``years`` must parse and leave out the held-out year."""
    from othellolab.datasets.feeds import parse_years
    from othellolab.fitting.patterns import HELD_OUT_YEAR

    try:
        ys = parse_years(years)
    except ConfigError as e:
        raise ConfigError(e.what, where=table, option="years") from None
    if HELD_OUT_YEAR in ys:
        raise ConfigError(
            f"{HELD_OUT_YEAR} is the held-out year; fit on others", where=table, option="years"
        )


@dataclass(frozen=True)
class RoundConfig(CheckedTable):
    """One round: the labelled-position config ``data`` (a TOML path), its first ``shards``
    shards generated and fitted (0: the config's own count), written to ``out`` ("": the run's
    ``data/round-K``; an existing run folder of that config is resumed and extended), played by
    the config's own ``[search] evaluation`` (``play = "config"``) or by the previous round's
    fit (``"previous"``)."""

    data: str = ""
    shards: int = 0
    out: str = ""
    play: str = "config"

    TABLE: ClassVar[str] = "[[rounds]]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "data": Option(str, help="the round's labelled-position config (TOML)"),
        "shards": Option(int, 0, 10_000_000, help="shards generated and fitted (0: the config's)"),
        "out": Option(str, help="the round's data folder ('': DIR/data/round-K)"),
        "play": Option(
            str, choices=PLAY, help="who plays: the data config's evaluation or the previous fit"
        ),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.data.strip():
            raise ConfigError(
                "every round names its labelled-position config (a TOML path)",
                where=self.TABLE,
                option="data",
            )


@dataclass(frozen=True)
class FitConfig(CheckedTable):
    """The pattern fit (``train engine-fit``; its options of the same names): the WTHOR records
    ``wthor`` ("": none) of ``years`` with targets ``wthor_target``, Logistello's book
    ``logistello`` ("": none), the rounds' data with target ``label`` counted
    ``labelled_weight`` times, ``phase_width`` empties per phase, the extra ``terms``
    (comma-separated, or ``all``), the phase window ``overlap``, the ridge ``l2`` and the
    conjugate-gradient ``iterations``."""

    wthor: str = "data:wthor"
    years: str = "1977-2022"
    wthor_target: str = "theoretical"
    logistello: str = ""
    label: str = "final"
    labelled_weight: float = 5.0
    phase_width: int = 5
    terms: str = "all"
    overlap: int = 2
    l2: float = 5.0
    iterations: int = 60

    TABLE: ClassVar[str] = "[fit]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "wthor": Option(
            str,
            check=check_data_value,
            help="WTHOR folder ('': none); data:wthor: the data folder's copy (`othellolab data path wthor`)",
        ),
        "years": Option(str, digits=True, help="WTHOR years (never 2023)"),
        "wthor_target": Option(str, choices=("theoretical", "final"), help="WTHOR target"),
        "logistello": Option(str, help="Logistello's logbook.gam(.gz) ('': none)"),
        "label": Option(
            str, choices=("final", "exact", "search"), help="label of the rounds' data"
        ),
        "labelled_weight": Option(float, 1e-6, 1e6, help="weight of a labelled position"),
        "phase_width": Option(int, 1, 60, help="empties per phase"),
        "terms": Option(str, help="extra terms, comma-separated, or all (every count term)"),
        "overlap": Option(int, 0, 60, help="each phase also fits this many empties beyond it"),
        "l2": Option(float, 1e-6, 1e6, help="ridge pseudo-count"),
        "iterations": Option(int, 1, 100_000, help="conjugate-gradient steps per phase"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_years(self.years, self.TABLE)
        try:
            self.term_names()
        except ValueError as e:
            raise ConfigError(str(e), where=self.TABLE, option="terms") from None

    def wthor_path(self) -> Path | None:
        """The WTHOR folder ``wthor`` names (``data:wthor`` found in the data folder), or None
        for ""; a missing data folder copy is a ``ConfigError`` naming the key."""
        return config_path(self.wthor, where=self.TABLE, option="wthor") if self.wthor else None

    def term_names(self) -> tuple[str, ...]:
        """The extra terms, checked (``ValueError`` naming a bad one); ``all`` is every count
        term (the pattern terms are named one by one)."""
        from othellolab.players.search.patterns import COUNT_TERMS, check_terms

        names = [t.strip() for t in self.terms.split(",") if t.strip()]
        return COUNT_TERMS if names == ["all"] else check_terms(names)


@dataclass(frozen=True)
class ProbCutConfig(CheckedTable):
    """Multi-ProbCut's fit with each round's weights (``train engine-probcut``): ``positions`` drawn
    from the WTHOR ``years`` of ``wthor`` (0 positions: no fit, the players fall back to the
    shipped one), searched to ``max_depth`` plies, drawn with ``seed``."""

    wthor: str = "data:wthor"
    years: str = "2015-2022"
    positions: int = 2000
    max_depth: int = 10
    seed: int = 0

    TABLE: ClassVar[str] = "[probcut]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "wthor": Option(
            str,
            check=check_data_value,
            help="WTHOR folder the positions are drawn from; data:wthor: the data folder's copy (`othellolab data path wthor`)",
        ),
        "years": Option(str, digits=True, help="WTHOR years (never 2023)"),
        "positions": Option(int, 0, 1_000_000, help="positions searched (0: no fit)"),
        "max_depth": Option(int, 3, 20, help="deepest search fitted"),
        "seed": Option(int, 0, 2**63 - 1, help="seed of the draw"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_years(self.years, self.TABLE)
        if 0 < self.positions < 20:
            raise ConfigError(
                f"must be 0 (no fit) or at least 20, got {self.positions}",
                where=self.TABLE,
                option="positions",
            )

    def wthor_path(self) -> Path:
        """The WTHOR folder ``wthor`` names (``data:wthor`` found in the data folder); a
        missing data folder copy is a ``ConfigError`` naming the key."""
        return config_path(self.wthor, where=self.TABLE, option="wthor")


@dataclass(frozen=True)
class MeasureConfig(CheckedTable):
    """What each round's fit is measured on: the exact scores of ``exact``, beside the weight
    sets of ``compare`` (comma-separated shipped names or folders). ``exact`` is a
    labelled-position config (``.toml``, such as ``configs/patterns-heldout.toml``: generated
    into the run's ``heldout`` folder before the first round), a labelled run folder (its
    ``exact`` labels), a ``.npz`` of player, opponent and score, or "" (no measure)."""

    exact: str = ""
    compare: str = "patterns-wthor,patterns-r1"

    TABLE: ClassVar[str] = "[measure]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "exact": Option(str, help="exact scores: a labelled run or a .npz ('': none)"),
        "compare": Option(str, help="weight sets measured beside, comma-separated"),
    }

    def names(self) -> list[str]:
        return [n.strip() for n in self.compare.split(",") if n.strip()]


@dataclass(frozen=True)
class EngineConfig:
    """The whole recipe: ``rounds`` in order, the ``fit`` and ``probcut`` every round uses,
    what ``measure`` scores, and the ``workers`` processes that generate the data."""

    rounds: tuple[RoundConfig, ...]
    fit: FitConfig = field(default_factory=FitConfig)
    probcut: ProbCutConfig = field(default_factory=ProbCutConfig)
    measure: MeasureConfig = field(default_factory=MeasureConfig)
    workers: int = 1

    TABLES: ClassVar[dict[str, type]] = {
        "fit": FitConfig,
        "probcut": ProbCutConfig,
        "measure": MeasureConfig,
    }

    @classmethod
    def from_dict(cls, data: Any) -> EngineConfig:
        """A config from a TOML document, rejecting unknown keys and bad values by name."""
        refuse_unknown(data, ["rounds", "workers", *cls.TABLES], WHERE)
        rounds = data.get("rounds")
        if not isinstance(rounds, list) or not rounds:
            raise ConfigError(
                "needs at least one [[rounds]] table (data = a labelled-position config)",
                where=WHERE,
                option="rounds",
            )
        parsed = tuple(
            table_from_dict(RoundConfig, r, f"{WHERE}: [[rounds]] {k}")
            for k, r in enumerate(rounds, 1)
        )
        if parsed[0].play == "previous":
            raise ConfigError(
                'the first round has no previous fit to play with; use play = "config"',
                where=f"{WHERE}: [[rounds]] 1",
                option="play",
            )
        try:
            workers = Option(int, 1, 1024, help="worker processes").convert(
                data.get("workers", 1), "workers"
            )
        except ConfigError as e:
            raise ConfigError(e.what, where=WHERE, option="workers") from None
        tables = {
            name: table_from_dict(klass, data.get(name, {}), f"{WHERE}: [{name}]")
            for name, klass in cls.TABLES.items()
        }
        return cls(rounds=parsed, workers=workers, **tables)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rounds"] = [asdict(r) for r in self.rounds]
        return data


def load_engine_config(
    path: str | Path, overrides: Mapping[str, Any] | None = None
) -> tuple[EngineConfig, str]:
    """Read and check a TOML engine config, with ``overrides`` (table -> key -> value, as
    ``config.parse_overrides`` makes them) merged over its tables first; returns it and the
    file's text (without the overrides)."""
    from othellolab.config import load_with_overrides, read_toml

    data, text = read_toml(path)
    return load_with_overrides(EngineConfig.from_dict, data, overrides), text


def round_data(
    cfg: EngineConfig, out: Path, k: int, *, played: bool = True
) -> tuple[LabelledConfig, Path]:
    """Round ``k``'s (1-based) labelled config, with its shards and player settled (with
    ``played=False``, before the previous round's fit exists, its own player), and the folder
    its data lives in."""
    r = cfg.rounds[k - 1]
    where = f"{WHERE}: [[rounds]] {k}"
    if not Path(r.data).is_file():
        raise ConfigError(f"{r.data}: no such labelled-position config", where=where, option="data")
    data = load_labelled_config(r.data)
    if r.shards:
        data = replace(data, shards=r.shards)
    if r.play == "previous" and played:
        data = replace(data, search=replace(data.search, evaluation=str(out / f"round-{k - 1}")))
    return data, Path(r.out) if r.out else out / "data" / f"round-{k}"


def _freeze(cfg: EngineConfig, out: Path, text: str) -> None:
    """Write ``engine.json`` on a first start; on a later one refuse another config."""
    path = out / STATE_FILE
    now = cfg.to_dict()
    if path.is_file():
        before = json.loads(path.read_text()).get("config", {})
        if before != now:
            changed = differences(before, now)
            raise ConfigError(
                f"{out} holds an engine run of another config; changed: {'; '.join(changed)}. "
                "Give another --out, or the config it was started with",
                option="--config",
            )
        return
    out.mkdir(parents=True, exist_ok=True)
    write_json(path, {"format": FORMAT, "version": 1, "config": now, "text": text})


def _fit(cfg: EngineConfig, dest: Path, data: list[tuple[Path, int]], progress: bool) -> None:
    from othellolab.fitting.patterns import PatternTrainOptions, train_patterns

    f = cfg.fit
    options = PatternTrainOptions(
        wthor_dir=f.wthor_path(),
        years=f.years,
        extra_sources=(Path(f.logistello),) if f.logistello else (),
        wthor_target=f.wthor_target,
        labelled=tuple(d for d, _ in data),
        label=f.label,
        labelled_weight=f.labelled_weight,
        labelled_shards=tuple(n for _, n in data),
        phase_width=f.phase_width,
        terms=f.term_names(),
        overlap=f.overlap,
        l2=f.l2,
        iterations=f.iterations,
        progress=progress,
    )
    train_patterns(dest, options)


def _exact_source(cfg: EngineConfig, out: Path) -> Path | None:
    """Where the measure's exact scores are read from (checked before any work starts)."""
    exact = cfg.measure.exact
    if not exact:
        return None
    path = Path(exact)
    where = f"{WHERE}: {MeasureConfig.TABLE}"
    if path.suffix == ".toml":
        if not path.is_file():
            raise ConfigError(
                f"{exact}: no such labelled-position config", where=where, option="exact"
            )
        load_labelled_config(path)
        return out / "heldout"
    if not path.exists():
        raise ConfigError(
            f"{exact}: no such run folder or .npz of exact scores", where=where, option="exact"
        )
    return path


def _check_sources(cfg: EngineConfig) -> None:
    """The record folders and files the fit and ProbCut read, and the weight sets the measure
    compares, must exist before hours of data generation start."""
    from othellolab.players.search.patterns import pattern_weights_dir

    try:
        wthor = cfg.fit.wthor_path()
        probcut = cfg.probcut.wthor_path() if cfg.probcut.positions else None
    except ConfigError as e:
        raise ConfigError(e.what, where=f"{WHERE}: {e.where}", option=e.option) from None
    paths = [
        (str(wthor or ""), FitConfig.TABLE, "wthor"),
        (cfg.fit.logistello, FitConfig.TABLE, "logistello"),
    ]
    if probcut is not None:
        paths.append((str(probcut), ProbCutConfig.TABLE, "wthor"))
    for path, table, option in paths:
        if path and not Path(path).exists():
            raise ConfigError(
                f"{path}: no such file or folder", where=f"{WHERE}: {table}", option=option
            )
    for name in cfg.measure.names():
        try:
            pattern_weights_dir(name)
        except FileNotFoundError as e:
            raise ConfigError(
                str(e), where=f"{WHERE}: {MeasureConfig.TABLE}", option="compare"
            ) from None


def _measure(cfg: EngineConfig, exact: Path, dest: Path) -> list[dict[str, Any]]:
    from othellolab.fitting.labelled import load_labelled
    from othellolab.fitting.patterns import exact_errors, read_positions

    test = load_labelled(exact, label="exact") if exact.is_dir() else read_positions(exact)
    return exact_errors(test, [*cfg.measure.names(), str(dest)])


def train_engine(
    cfg: EngineConfig,
    out: str | Path,
    *,
    text: str = "",
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run (or resume) every round of ``cfg`` into ``out``; returns the summary it writes to
    ``out/summary.json``: per round, its data, the fit's folder and the measured errors."""
    from othellolab.fitting.labelled import generate_labelled, summarise
    from othellolab.fitting.probcut import ProbCutOptions, fit_probcut

    out = Path(out)
    say = log or (lambda _: None)
    # Every round's labelled config is read and checked before any work starts.
    for k in range(1, len(cfg.rounds) + 1):
        round_data(cfg, out, k, played=False)
    _check_sources(cfg)
    exact = _exact_source(cfg, out)
    _freeze(cfg, out, text)
    if exact is not None and Path(cfg.measure.exact).suffix == ".toml":
        say(f"held-out exact scores ({cfg.measure.exact}) in {exact}")
        held = load_labelled_config(cfg.measure.exact)
        text_held = Path(cfg.measure.exact).read_text()
        generate_labelled(held, exact, text=text_held, workers=cfg.workers, progress=progress)
    rounds: list[dict[str, Any]] = []
    fitted: list[tuple[Path, int]] = []
    for k, r in enumerate(cfg.rounds, 1):
        data, folder = round_data(cfg, out, k)
        say(f"round {k}: data ({data.shards} shards of {r.data}) in {folder}")
        generate_labelled(
            data, folder, text=Path(r.data).read_text(), workers=cfg.workers, progress=progress
        )
        summary = summarise(folder, first=data.shards)
        fitted.append((folder, data.shards))
        dest = out / f"round-{k}"
        if (dest / "weights.safetensors").is_file() and (dest / "config.json").is_file():
            say(f"round {k}: fit done before ({dest})")
        else:
            say(f"round {k}: fitting the patterns to {len(fitted)} round(s) of data")
            _fit(cfg, dest, fitted, progress)
        p = cfg.probcut
        if p.positions and not (dest / "probcut.json").is_file():
            say(f"round {k}: fitting multi-ProbCut with {dest}")
            fit_probcut(
                dest / "probcut.json",
                ProbCutOptions(
                    wthor_dir=str(p.wthor_path()),
                    years=p.years,
                    positions=p.positions,
                    max_depth=p.max_depth,
                    evaluation=str(dest),
                    seed=p.seed,
                    progress=progress,
                ),
                log=log,
            )
        row: dict[str, Any] = {
            "round": k,
            "data": str(folder),
            "shards": data.shards,
            "positions": summary["positions"],
            "weights": str(dest),
            "probcut": (dest / "probcut.json").is_file(),
        }
        if exact is not None:
            rows = _measure(cfg, exact, dest)
            write_json(dest / "measure.json", {"exact": cfg.measure.exact, "rows": rows})
            row["mae"] = rows[-1]["mae"]
            scores = ", ".join(f"{n} {v:.2f}" for n, v in rows[-1]["mae"].items())
            say(f"round {k}: mean absolute error on {cfg.measure.exact}: {scores}")
        rounds.append(row)
    result = {"rounds": rounds, "weights": rounds[-1]["weights"]}
    write_json(out / "summary.json", result)
    return result
