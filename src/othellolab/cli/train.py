"""``othellolab train supervised --config FILE``: train or resume a supervised run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

train_app = typer.Typer(help="Train networks.", no_args_is_help=True)


@train_app.command("supervised")
def supervised(
    config: Annotated[
        Path,
        typer.Option(
            "--config", "-c", help="TOML run config (see configs/supervised-example.toml)."
        ),
    ],
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Train a policy/value network on game records; a run with existing state resumes."""
    from othellolab.training.config import ConfigError, load_config

    try:
        cfg = load_config(config)
    except ConfigError as e:
        raise typer.BadParameter(str(e), param_hint="--config") from None
    if cfg.runtime.threads >= 2:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from othellolab.nn.io import ModelFileError
    from othellolab.training.supervised import train_supervised

    try:
        result = train_supervised(cfg, config_text=config.read_text(), progress=not quiet)
    except (ConfigError, ModelFileError, FileNotFoundError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    m = result.metrics
    typer.echo(
        f"{cfg.name}: {result.epochs} epochs, {result.steps} steps, {result.samples} samples; "
        f"val top-1 {m.get('val_top1', float('nan')):.3f}, top-3 {m.get('val_top3', float('nan')):.3f}, "
        f"policy CE {m.get('val_policy_ce', float('nan')):.3f} (uniform {m.get('val_uniform_ce', float('nan')):.3f}), "
        f"value MSE {m.get('val_value_mse', float('nan')):.3f}"
    )
    typer.echo(f"model: {result.model_dir}")
