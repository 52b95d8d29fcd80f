"""``othellolab train engine CONFIG --out DIR``: the engine's evaluation, every stage round
after round; ``train engine-data``, ``train engine-fit`` and ``train engine-probcut``: one
stage on its own. Each starts from a TOML config whose keys ``--set`` overrides.

The stages are commands beside ``train engine`` (not below it) because a command that runs
with a CONFIG argument cannot also be a group of subcommands without guessing whether its
first word is a stage or a file; their common prefix lists them together."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from othellolab.cli._config import SetOption, config_file, examples, overrides, run_text
from othellolab.cli.train import QuietOption, train_app
from othellolab.core import ConfigError

_RAY_HELP = (
    "Play on a Ray cluster: 'auto', an address, or 'local' (start one here); needs pip "
    "install 'othellolab\\[distributed]'."
)


def _file(config: Path) -> Path:
    path, run = config_file(config)
    if run is not None:
        raise ConfigError(
            f"{config}: a run folder; this command takes a TOML config (and --out DIR to go on "
            "with a run there)",
            option="CONFIG",
        )
    return path


@train_app.command(
    "engine",
    epilog=examples(
        "othellolab train engine configs/engine.toml --out runs/engine",
        "othellolab train engine configs/engine.toml --out runs/engine-quick "
        "--set workers=1 --set probcut.positions=200",
    ),
)
def engine(
    config: Annotated[
        Path,
        typer.Argument(metavar="CONFIG", help="TOML engine config (see configs/engine.toml)."),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Run folder (resumed if it holds this config).")
    ],
    set_: SetOption = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Processes generating the data; shorthand of --set workers=N."),
    ] = None,
    quiet: QuietOption = False,
) -> None:
    """The engine's evaluation from one config: for each round, search-labelled self-play
    (as engine-data), the pattern fit to it and every round before (as engine-fit),
    multi-ProbCut with the new weights (as engine-probcut) and the fit's error against exact
    scores; running it again resumes every stage where it stopped."""
    from othellolab.fitting.engine import load_engine_config, train_engine

    given = overrides(set_, workers=workers)
    path = _file(config)
    cfg, _ = load_engine_config(path, overrides=given)
    summary = train_engine(cfg, out, text=run_text(path, given), progress=not quiet, log=typer.echo)
    for row in summary["rounds"]:
        mae = ", ".join(f"{n} {v:.2f}" for n, v in row.get("mae", {}).items())
        typer.echo(
            f"round {row['round']}: {row['positions']:,} positions in {row['shards']} shards; "
            f"weights {row['weights']}" + (f"; MAE {mae}" if mae else "")
        )
    typer.echo(f"weights: {summary['weights']} (play them: alphabeta:weights={summary['weights']})")


@train_app.command(
    "engine-data",
    epilog=examples(
        "othellolab train engine-data configs/patterns-selfplay.toml --out runs/labelled-r1",
        "othellolab train engine-data configs/patterns-heldout.toml --out runs/heldout-20-24 "
        "--workers 2",
        "othellolab train engine-data configs/patterns-selfplay.toml --out runs/labelled-small "
        "--set shards=4 --set games_per_shard=8",
    ),
)
def engine_data(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG",
            help="TOML labelled-position config (see configs/patterns-selfplay.toml).",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Run folder (resumed if it holds this config).")
    ],
    set_: SetOption = None,
    workers: Annotated[int, typer.Option(help="Worker processes (1: this process).")] = 1,
    ray: Annotated[str | None, typer.Option(help=_RAY_HELP)] = None,
    quiet: QuietOption = False,
) -> None:
    """The engine's first stage: search-labelled self-play positions for the pattern fit.
    The engine plays itself from XOT or WTHOR openings and the exact solver finishes each
    game; a run folder with the same config resumes (after any kill), a different config is
    refused."""
    from othellolab.fitting.labelled import generate_labelled, load_labelled_config

    given = overrides(set_)
    path = _file(config)
    cfg = load_labelled_config(path, overrides=given)
    summary = generate_labelled(
        cfg, out, text=run_text(path, given), workers=workers, ray=ray, progress=not quiet
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


@train_app.command(
    "engine-fit",
    epilog=examples(
        "othellolab train engine-fit configs/engine.toml --out runs/patterns "
        "--set sources.labelled=runs/labelled-r1",
        "othellolab train engine-fit configs/engine.toml --set measure.exact=runs/heldout-20-24",
    ),
)
def engine_fit(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG",
            help="TOML config: the \\[fit] and \\[measure] tables of an engine config (see "
            "configs/engine.toml) and the \\[sources] the fit reads; its other tables are "
            "left alone.",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Output folder of the weights (resumes if present); without it, only the "
            "\\[measure] table's weight sets are scored.",
        ),
    ] = None,
    set_: SetOption = None,
    quiet: QuietOption = False,
) -> None:
    """The engine's second stage: fit the 8x8 pattern evaluation to game records, labelled
    runs and position files; writes weights.safetensors + config.json. With \\[measure] exact
    set, reports each weight set's mean absolute error against its exact scores by empties."""
    from othellolab.fitting.patterns import exact_errors, read_positions, train_patterns
    from othellolab.fitting.stages import load_fit_stage

    cfg, _ = load_fit_stage(_file(config), overrides(set_))
    exact = cfg.measure.exact
    if out is None and not exact:
        raise ConfigError(
            "give --out DIR to fit, or --set measure.exact=RUN to score weight sets", option="--out"
        )
    scored = cfg.measure.names()
    if out is not None:
        result = train_patterns(out, cfg.options(progress=not quiet))
        for row in result.get("held_out", {}).get("mae_by_empties", []):
            typer.echo(
                f"{row['empties']:>6} empties: patterns MAE {row['patterns_mae']:.2f}, "
                f"heuristic {row['heuristic_mae']:.2f} ({row['positions']:,} positions)"
            )
        typer.echo(f"weights: {out}")
        scored.append(str(out))
    if exact:
        from othellolab.fitting.labelled import load_labelled

        test = (
            load_labelled(Path(exact), label="exact")
            if Path(exact).is_dir()
            else read_positions(Path(exact))
        )
        rows = exact_errors(test, scored)
        typer.echo(f"MAE against the exact scores of {exact} ({len(test):,} positions):")
        typer.echo("empties  positions  " + "  ".join(scored))
        for row in rows:
            maes = "  ".join(f"{row['mae'][n]:>{len(n)}.2f}" for n in scored)
            typer.echo(f"{row['empties']:>7}  {row['positions']:>9,}  {maes}")


@train_app.command(
    "engine-probcut",
    epilog=examples(
        "othellolab train engine-probcut configs/engine.toml --out probcut.json "
        "--set evaluation=patterns-r1",
        "othellolab train engine-probcut configs/engine.toml --out runs/patterns/probcut.json "
        "--set evaluation=runs/patterns --set probcut.positions=500",
    ),
)
def engine_probcut(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG",
            help="TOML config: the \\[probcut] table of an engine config (see configs/engine.toml) "
            "and the evaluation its searches use (evaluation = a shipped weights name, a "
            "weights folder, heuristic or discs; default patterns); its other tables are left "
            "alone.",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="The fit (JSON; resumes its searches); put it in the weights folder as "
            "probcut.json for players to use it.",
        ),
    ],
    set_: SetOption = None,
    quiet: QuietOption = False,
) -> None:
    """The engine's third stage: fit multi-ProbCut, how a shallow search predicts a deep one,
    per depth and empties."""
    from othellolab.fitting.probcut import fit_probcut
    from othellolab.fitting.stages import load_probcut_stage

    cfg, _ = load_probcut_stage(_file(config), overrides(set_))
    fit = fit_probcut(out, cfg.options(progress=not quiet), log=typer.echo)
    typer.echo(f"{out}: {len(fit['fits'])} fitted rows in {fit['seconds']:.0f} s")
