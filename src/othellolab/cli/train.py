"""``othellolab train supervised --config FILE``: train or resume a supervised run (or
``--resume RUN``: go on with the run's own config); ``othellolab train selfplay`` likewise for
AlphaZero runs; ``othellolab train patterns``: fit the pattern evaluation; ``othellolab train
patterns-data``: generate search-labelled positions for it; ``othellolab train engine``: both,
round after round, and multi-ProbCut, from one config."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Protocol, TypeVar

import typer

from othellolab.core import ConfigError


class _RunConfig(Protocol):
    name: str
    runs_dir: str


C = TypeVar("C", bound=_RunConfig)

RESUME_HELP = (
    "A run folder (runs/NAME) to go on with, by the run.toml its first start wrote: no config "
    "file needed, from any working directory (its data paths as given then)."
)


def _config_file(config: Path | None, resume: Path | None) -> Path:
    """The TOML a train command reads: ``--config FILE``, or ``RUN/run.toml`` for ``--resume
    RUN``; exactly one of the two."""
    if (config is None) == (resume is None):
        raise ConfigError(
            "give --config FILE (start a run, or resume it) or --resume RUN (go on with a run "
            "folder's own run.toml), not both or neither",
            option="--config / --resume",
        )
    if resume is None:
        assert config is not None
        return config
    path = resume / "run.toml"
    if not path.is_file():
        raise ConfigError(f"{resume}: not a run folder (no run.toml)", option="--resume")
    return path


def _resumed(cfg: C, resume: Path | None) -> C:
    """``cfg`` of ``RUN/run.toml`` living in ``RUN``'s folder (its ``runs_dir`` was relative to
    where the run started)."""
    if resume is None:
        return cfg
    if resume.resolve().name != cfg.name:
        raise ConfigError(
            f"{resume}: its run.toml names the run {cfg.name!r}, not the folder's name",
            option="--resume",
        )
    return replace(cfg, runs_dir=str(resume.resolve().parent))  # type: ignore[type-var]


train_app = typer.Typer(help="Train networks and the pattern evaluation.", no_args_is_help=True)


@train_app.command("supervised")
def supervised(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", "-c", help="TOML run config (see configs/supervised-example.toml)."
        ),
    ] = None,
    resume: Annotated[Path | None, typer.Option(help=RESUME_HELP)] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Stop after this many seconds of training with a checkpoint and a model of the "
            "weights so far (a GPU lease, a night); the next start goes on from there."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Train a policy/value network on game records; a run with existing state resumes."""
    from othellolab.training.config import load_config

    config = _config_file(config, resume)
    cfg = _resumed(load_config(config), resume)
    if cfg.runtime.threads >= 2:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from othellolab.training.supervised import train_supervised

    train = train_supervised
    if "TORCHELASTIC_ERROR_FILE" in os.environ:  # under torchrun: its report shows our error
        from torch.distributed.elastic.multiprocessing.errors import record

        train = record(train_supervised)
    result = train(cfg, config_text=config.read_text(), progress=not quiet, time_limit_s=time_limit)
    if os.environ.get("RANK", "0") != "0":
        return  # under torchrun, rank 0 reports
    m = result.metrics
    if result.time_limited:
        typer.echo(
            f"{cfg.name}: stopped at the time limit ({time_limit:g} s) in epoch "
            f"{result.epochs + 1}; go on with: othellolab train supervised --resume "
            f"{result.run_dir}"
        )
    typer.echo(
        f"{cfg.name}: {result.epochs} epochs, {result.steps} steps, {result.samples} samples; "
        f"val top-1 {m.get('val_top1', float('nan')):.3f}, top-3 {m.get('val_top3', float('nan')):.3f}, "
        f"policy CE {m.get('val_policy_ce', float('nan')):.3f} (uniform {m.get('val_uniform_ce', float('nan')):.3f}), "
        f"value MSE {m.get('val_value_mse', float('nan')):.3f}"
    )
    typer.echo(f"model: {result.model_dir}")


@train_app.command("selfplay")
def selfplay(
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="TOML run config (see configs/alphazero-6x6.toml)."),
    ] = None,
    resume: Annotated[Path | None, typer.Option(help=RESUME_HELP)] = None,
    ray: Annotated[
        str | None,
        typer.Option(
            help="Play self-play on a Ray cluster: 'auto', an address, or 'local' (start one "
            "here); needs pip install 'othellolab\\[distributed]'."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
) -> None:
    """Run AlphaZero self-play (self-play, train, gate, grade) until the config's last
    generation; a run with existing files resumes where it stopped."""
    from othellolab.training.selfplay.pipeline import train_selfplay
    from othellolab.training.selfplay.runconfig import load_run_config

    cfg, text = load_run_config(_config_file(config, resume))
    cfg = _resumed(cfg, resume)
    if cfg.runtime.threads >= 2:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    summary = train_selfplay(cfg, text=text, progress=not quiet, ray=ray, log=typer.echo)
    typer.echo(
        f"{cfg.name}: generation {summary.generation} (best {summary.best}), "
        f"{summary.cpu_hours:.2f} CPU-hours of self-play and training; stopped: {summary.stopped}"
    )
    typer.echo(f"run: {summary.root}  (report: othellolab selfplay report {summary.root})")


@train_app.command("probcut")
def probcut(
    out: Annotated[Path, typer.Option("--out", "-o", help="The fit (JSON); resumes its searches.")],
    wthor: Annotated[Path, typer.Option(help="Folder of WTHOR .wtb files (WTH_<year>.wtb).")],
    years: Annotated[str, typer.Option(help="WTHOR years to draw from (never 2023).")] = (
        "2015-2022"
    ),
    positions: Annotated[
        int, typer.Option(help="Positions to search at every depth.", min=20, max=10**6)
    ] = 2000,
    max_depth: Annotated[int, typer.Option(help="Deepest search fitted.", min=3, max=20)] = 10,
    evaluation: Annotated[
        str,
        typer.Option(
            help="Evaluation of the searches: patterns, heuristic, discs or pattern weights "
            "(a shipped set or a directory; put the fit in it as probcut.json)."
        ),
    ] = "patterns",
    seed: Annotated[int, typer.Option(help="Seed of the position draw.", min=0)] = 0,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Fit multi-ProbCut: how a shallow search predicts a deep one, per depth and empties."""
    from othellolab.fitting.probcut import ProbCutOptions, fit_probcut

    options = ProbCutOptions(
        wthor_dir=str(wthor),
        years=years,
        positions=positions,
        max_depth=max_depth,
        evaluation=evaluation,
        seed=seed,
        progress=not quiet,
    )
    fit = fit_probcut(out, options, log=typer.echo)
    typer.echo(f"{out}: {len(fit['fits'])} fitted rows in {fit['seconds']:.0f} s")


@train_app.command("patterns")
def patterns(
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (resumes if present)."),
    ] = None,
    wthor: Annotated[
        Path | None, typer.Option(help="Folder of WTHOR .wtb files (WTH_<year>.wtb).")
    ] = None,
    years: Annotated[str, typer.Option(help="WTHOR years to train on (never 2023).")] = "1977-2022",
    logistello: Annotated[
        Path | None, typer.Option(help="Logistello's logbook.gam(.gz), added to the data.")
    ] = None,
    positions: Annotated[
        list[Path] | None,
        typer.Option(
            "--positions",
            help="A .npz of player, opponent (bitboards) and score (from the side to move), "
            "added to the data; repeatable.",
        ),
    ] = None,
    wthor_target: Annotated[
        str,
        typer.Option(
            help="Target of WTHOR positions: theoretical (the files' solved score up to their "
            "depth, the final result after) or final."
        ),
    ] = "theoretical",
    labelled: Annotated[
        list[Path] | None,
        typer.Option(
            "--labelled",
            help="A run folder of train patterns-data, added to the data; repeatable.",
        ),
    ] = None,
    label: Annotated[
        str, typer.Option(help="Target of the --labelled positions: final, exact or search.")
    ] = "final",
    labelled_weight: Annotated[
        float,
        typer.Option(help="How many times each --labelled position counts in the fit."),
    ] = 1.0,
    labelled_shards: Annotated[
        list[int] | None,
        typer.Option(
            "--labelled-shards",
            help="Read the first N shards of each --labelled run (0: all there are); once for "
            "every run, or once per run in their order.",
        ),
    ] = None,
    held_out: Annotated[
        Path | None,
        typer.Option(help="Folder of WTHOR files whose 2023 games measure the fit."),
    ] = None,
    phase_width: Annotated[
        int, typer.Option(help="Empties per phase: 5 (12 phases), 2 (30), 1 (60).")
    ] = 5,
    phases: Annotated[int, typer.Option(help="Phases (0 = enough for 60 empties).")] = 0,
    terms: Annotated[
        str,
        typer.Option(
            help="Extra terms, comma-separated: mobility, potential_mobility, parity (or 'all')."
        ),
    ] = "",
    overlap: Annotated[
        int, typer.Option(help="Each phase also fits positions this many empties beyond it.")
    ] = 2,
    l2: Annotated[float, typer.Option(help="Ridge pseudo-count per configuration.")] = 5.0,
    iterations: Annotated[int, typer.Option(help="Conjugate-gradient steps per phase.")] = 60,
    max_games: Annotated[int, typer.Option(help="Games per source (0 = all), for trials.")] = 0,
    exact: Annotated[
        Path | None,
        typer.Option(
            help="A .npz of player, opponent and exact scores, or a patterns-data run folder "
            "(its exact labels): report each --weights set's (and the fitted one's) mean "
            "absolute error against them by empties."
        ),
    ] = None,
    weights: Annotated[
        list[str] | None,
        typer.Option(
            "--weights", help="A shipped weights name or directory to score on --exact; repeatable."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Fit the 8x8 pattern evaluation to game results or given positions; writes
    weights.safetensors + config.json. With --exact and no --out, only scores --weights."""
    from othellolab.fitting.patterns import (
        PatternTrainOptions,
        exact_errors,
        read_positions,
        train_patterns,
    )
    from othellolab.players.search.patterns import TERMS

    test = None
    if exact is not None:
        if exact.is_dir():
            from othellolab.fitting.labelled import load_labelled

            test = load_labelled(exact, label="exact")
        else:
            test = read_positions(exact)
    scored = list(weights or [])
    if weights and exact is None:
        raise ConfigError(
            "--weights names sets to score on --exact FILE; give it", option="--weights"
        )
    if out is None and test is None:
        raise ConfigError("give --out DIR to fit, or --exact FILE to score", option="--out")
    if out is not None:
        names = [t.strip() for t in terms.split(",") if t.strip()]
        options = PatternTrainOptions(
            wthor_dir=wthor,
            years=years,
            extra_sources=(logistello,) if logistello else (),
            positions_files=tuple(positions or ()),
            wthor_target=wthor_target,
            labelled=tuple(labelled or ()),
            label=label,
            labelled_weight=labelled_weight,
            labelled_shards=(
                tuple(labelled_shards)
                if labelled_shards and len(labelled_shards) > 1
                else (labelled_shards or [0])[0]
            ),
            held_out=held_out,
            phase_width=phase_width,
            phases=phases,
            terms=TERMS if names == ["all"] else tuple(names),
            overlap=overlap,
            l2=l2,
            iterations=iterations,
            max_games=max_games,
            progress=not quiet,
        )
        config = train_patterns(out, options)
        for row in config.get("held_out", {}).get("mae_by_empties", []):
            typer.echo(
                f"{row['empties']:>6} empties: patterns MAE {row['patterns_mae']:.2f}, "
                f"heuristic {row['heuristic_mae']:.2f} ({row['positions']:,} positions)"
            )
        typer.echo(f"weights: {out}")
        scored.append(str(out))
    if test is not None:
        rows = exact_errors(test, scored)
        typer.echo(f"MAE against the exact scores of {exact} ({len(test):,} positions):")
        typer.echo("empties  positions  " + "  ".join(scored))
        for row in rows:
            maes = "  ".join(f"{row['mae'][n]:>{len(n)}.2f}" for n in scored)
            typer.echo(f"{row['empties']:>7}  {row['positions']:>9,}  {maes}")


@train_app.command("patterns-data")
def patterns_data(
    config: Annotated[
        Path,
        typer.Option("--config", "-c", help="TOML config (see configs/patterns-selfplay.toml)."),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Run folder (resumed if it holds this config).")
    ],
    workers: Annotated[int, typer.Option(help="Worker processes (1: this process).")] = 1,
    ray: Annotated[
        str | None,
        typer.Option(
            help="Play on a Ray cluster: 'auto', an address, or 'local' (start one here); "
            "needs pip install 'othellolab\\[distributed]'."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Generate search-labelled self-play positions for the pattern fit: the engine plays
    itself from XOT or WTHOR openings and the exact solver finishes each game; a run folder
    with the same config resumes (after any kill), a different config is refused."""
    from othellolab.fitting.labelled import generate_labelled, load_labelled_config

    cfg = load_labelled_config(config)
    summary = generate_labelled(
        cfg, out, text=config.read_text(), workers=workers, ray=ray, progress=not quiet
    )
    typer.echo(
        f"{out}: {summary['shards']} of {summary['shards_wanted']} shards, "
        f"{summary['games']:,} games, {summary['positions']:,} positions "
        f"({summary['exact_positions']:,} with an exact score)"
    )
    for row in summary["phases"]:
        if row["positions"]:
            typer.echo(
                f"{row['empties']:>6} empties: {row['positions']:>10,} positions, "
                f"{row['exact']:>10,} exact"
            )
    rates = ", ".join(
        f"{kind} {rate:,}" if rate is not None else f"{kind} -"
        for kind, rate in summary["positions_per_cpu_hour"].items()
    )
    typer.echo(f"positions per CPU-hour: {rates}")


@train_app.command("engine")
def engine(
    config: Annotated[
        Path, typer.Option("--config", "-c", help="TOML config (see configs/engine.toml).")
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Run folder (resumed if it holds this config).")
    ],
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
) -> None:
    """The engine's evaluation from one config: for each round, search-labelled self-play
    (train patterns-data), the pattern fit to it and every round before (train patterns),
    multi-ProbCut with the new weights (train probcut) and the fit's error against exact
    scores; running it again resumes every stage where it stopped."""
    from othellolab.fitting.engine import load_engine_config, train_engine

    cfg, text = load_engine_config(config)
    summary = train_engine(cfg, out, text=text, progress=not quiet, log=typer.echo)
    for row in summary["rounds"]:
        mae = ", ".join(f"{n} {v:.2f}" for n, v in row.get("mae", {}).items())
        typer.echo(
            f"round {row['round']}: {row['positions']:,} positions in {row['shards']} shards; "
            f"weights {row['weights']}" + (f"; MAE {mae}" if mae else "")
        )
    typer.echo(f"weights: {summary['weights']} (play them: alphabeta:weights={summary['weights']})")
