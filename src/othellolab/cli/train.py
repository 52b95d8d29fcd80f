"""``othellolab train supervised|selfplay CONFIG``: start or go on with a network's training
run from a TOML config (or the run folder it made), its keys overridden with ``--set``;
``othellolab train report RUN``: a run's report. The engine's training (``train engine`` and
its stages) is in ``cli.engine``."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Protocol, TypeVar

import typer

from othellolab.cli._config import SetOption, config_file, examples, overrides, run_text
from othellolab.core import ConfigError


class _RunConfig(Protocol):
    name: str
    runs_dir: str


C = TypeVar("C", bound=_RunConfig)

CONFIG_HELP = (
    "A TOML run config ({example}), or a run folder (runs/NAME) to go on with by the run.toml "
    "its first start wrote, from any working directory."
)

QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")]

TIME_LIMIT_HELP = (
    "Stop after this many seconds of training with a checkpoint and a model of the weights so "
    "far (a GPU lease, a night); the next start goes on from there."
)


SELFPLAY_TIME_LIMIT_HELP = (
    "Stop after this many seconds of wall clock, at the next boundary: no shard, gate, grade or "
    "rating starts after it and training stops with a checkpoint; the newest model is the last "
    "whole generation, and the next start goes on from there."
)


def _resumed(cfg: C, run: Path | None) -> C:
    """``cfg`` of ``RUN/run.toml`` living in ``RUN``'s folder (its ``runs_dir`` was relative to
    where the run started)."""
    if run is None:
        return cfg
    if run.resolve().name != cfg.name:
        raise ConfigError(
            f"{run}: its run.toml names the run {cfg.name!r}, not the folder's name",
            option="CONFIG",
        )
    return replace(cfg, runs_dir=str(run.resolve().parent))  # type: ignore[type-var]


def _passive_threads(threads: int) -> None:
    """Idle OpenMP threads sleep instead of spinning when torch uses several."""
    if threads >= 2:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


train_app = typer.Typer(
    help="Train networks and the engine's evaluation; write a run's report.",
    no_args_is_help=True,
)


@train_app.command(
    "supervised",
    epilog=examples(
        "othellolab train supervised configs/supervised-example.toml",
        "othellolab train supervised configs/supervised-example.toml --set train.lr=0.01 "
        "--set train.epochs=2",
        "othellolab train supervised runs/example --time-limit 3600",
    ),
)
def supervised(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG", help=CONFIG_HELP.format(example="configs/supervised-example.toml")
        ),
    ],
    set_: SetOption = None,
    time_limit: Annotated[float | None, typer.Option(help=TIME_LIMIT_HELP)] = None,
    quiet: QuietOption = False,
) -> None:
    """Train a policy/value network on game records; a run with existing state resumes."""
    from othellolab.training.config import load_config

    given = overrides(set_)
    path, run = config_file(config)
    cfg = _resumed(load_config(path, overrides=given), run)
    _passive_threads(cfg.runtime.threads)
    from othellolab.training.supervised import train_supervised

    train = train_supervised
    if "TORCHELASTIC_ERROR_FILE" in os.environ:  # under torchrun: its report shows our error
        from torch.distributed.elastic.multiprocessing.errors import record

        train = record(train_supervised)
    result = train(
        cfg, config_text=run_text(path, given), progress=not quiet, time_limit_s=time_limit
    )
    if os.environ.get("RANK", "0") != "0":
        return  # under torchrun, rank 0 reports
    m = result.metrics
    if result.time_limited:
        typer.echo(
            f"{cfg.name}: stopped at the time limit ({time_limit:g} s) in epoch "
            f"{result.epochs + 1}; go on with: othellolab train supervised {result.run_dir}"
        )
    typer.echo(
        f"{cfg.name}: {result.epochs} epochs, {result.steps} steps, {result.samples} samples; "
        f"val top-1 {m.get('val_top1', float('nan')):.3f}, top-3 {m.get('val_top3', float('nan')):.3f}, "
        f"policy CE {m.get('val_policy_ce', float('nan')):.3f} (uniform {m.get('val_uniform_ce', float('nan')):.3f}), "
        f"value MSE {m.get('val_value_mse', float('nan')):.3f}"
    )
    typer.echo(f"model: {result.model_dir}")


@train_app.command(
    "selfplay",
    epilog=examples(
        "othellolab train selfplay configs/alphazero-6x6-quick.toml --time-limit 300",
        "othellolab train selfplay configs/alphazero-6x6.toml --set loop.generations=3 "
        "--set name=az-6x6-short",
        "othellolab train selfplay runs/az-6x6 --ray local",
    ),
)
def selfplay(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG", help=CONFIG_HELP.format(example="configs/alphazero-6x6.toml")
        ),
    ],
    set_: SetOption = None,
    ray: Annotated[
        str | None,
        typer.Option(
            help="Play self-play on a Ray cluster: 'auto', an address, or 'local' (start one "
            "here); needs pip install 'othellolab\\[distributed]'."
        ),
    ] = None,
    time_limit: Annotated[float | None, typer.Option(help=SELFPLAY_TIME_LIMIT_HELP)] = None,
    quiet: QuietOption = False,
) -> None:
    """Run AlphaZero self-play (self-play, train, gate, grade) until the config's last
    generation; a run with existing files resumes where it stopped."""
    from othellolab.training.selfplay.pipeline import train_selfplay
    from othellolab.training.selfplay.runconfig import load_run_config

    given = overrides(set_)
    path, run = config_file(config)
    cfg, _ = load_run_config(path, overrides=given)
    cfg = _resumed(cfg, run)
    _passive_threads(cfg.runtime.threads)
    summary = train_selfplay(
        cfg,
        text=run_text(path, given),
        progress=not quiet,
        ray=ray,
        log=typer.echo,
        time_limit_s=time_limit,
    )
    typer.echo(
        f"{cfg.name}: generation {summary.generation} (best {summary.best}), "
        f"{summary.cpu_hours:.2f} CPU-hours of self-play and training; stopped: {summary.stopped}"
    )
    typer.echo(f"run: {summary.root}  (report: othellolab train report {summary.root})")


@train_app.command(
    "report",
    epilog=examples("othellolab train report runs/az-6x6"),
)
def report(
    run: Annotated[Path, typer.Argument(metavar="RUN", help="A self-play run folder (runs/NAME).")],
) -> None:
    """Write a self-play run's RUN/report.md with PNG curves (losses, optimal-move rate and
    strength against CPU-hours) from RUN/metrics.jsonl."""
    import json

    from othellolab.training.selfplay.report import write_report

    if not (run / "metrics.jsonl").is_file() or not (run / "config.json").is_file():
        raise ConfigError(
            f"{run}: not a run folder (no metrics.jsonl and config.json)", option="RUN"
        )
    if "selfplay" not in json.loads((run / "config.json").read_text()):
        raise ConfigError(
            f"{run}: a supervised run; its curves are in metrics.jsonl, and 'othellolab "
            "evaluate model' writes its network's report",
            option="RUN",
        )
    path = write_report(run)
    typer.echo(f"report: {path}")
