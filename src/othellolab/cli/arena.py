"""``othellolab arena match|tournament|ratings``: resumable matches and tournaments between
player specs, and maximum-likelihood ratings of their results."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from othellolab.cli._common import as_command
from othellolab.cli._config import SetOption, examples, overrides

app = typer.Typer(help="Matches, tournaments and ratings between players.", no_args_is_help=True)

_QUIET = typer.Option("--quiet", "-q", help="No progress bar.")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "-", text).strip("-")[:60] or "player"


def _command() -> str:
    return "othellolab " + " ".join(shlex.quote(a) for a in sys.argv[1:])


@app.command(
    "match",
    epilog=examples(
        "othellolab arena match random greedy --games 2 --out runs/arena-smoke --quiet",
        'othellolab arena match "alphabeta:time=0.5" mcts:sims=2000 --games 40 '
        "--openings xot-small --workers 2",
    ),
)
def match(
    a: Annotated[str, typer.Argument(help="Player spec A, e.g. 'alphabeta:time=0.5'.")],
    b: Annotated[str, typer.Argument(help="Player spec B.")],
    games: Annotated[int, typer.Option(help="Games (even: colour-swapped pairs).")] = 20,
    openings: Annotated[
        str,
        typer.Option(
            help="An opening list: a file (one transcript a line) or a shipped list, "
            "xot-small or xot-large (see 'othellolab data list'); random:N (N random plies) "
            "or none."
        ),
    ] = "random:8",
    game: Annotated[
        str,
        typer.Option(
            help="The game, by its registered name (othello, animal-shogi); one without "
            "opening lists takes openings random:N or none."
        ),
    ] = "othello",
    size: Annotated[
        int, typer.Option(help="The board size of a game that has one (Othello: 8, 6 or 4).")
    ] = 8,
    seed: Annotated[int, typer.Option(help="Seed of the opening draw.")] = 0,
    time: Annotated[
        float | None, typer.Option(help="Seconds per move for both (default: their own).")
    ] = None,
    depth: Annotated[int | None, typer.Option(help="Search depth per move for both.")] = None,
    nodes: Annotated[int | None, typer.Option(help="Nodes per move for both.")] = None,
    clock: Annotated[
        float | None,
        typer.Option(help="A game clock: seconds for all of a side's moves in a game."),
    ] = None,
    workers: Annotated[int, typer.Option(help="Games played at once, in processes.")] = 1,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Results folder (default: arena/A-vs-B); resumed."),
    ] = None,
    quiet: Annotated[bool, _QUIET] = False,
) -> None:
    """Play A against B on openings with colours swapped; results resume after a kill."""
    from othellolab.arena.tournament_config import Entrant, TournamentConfig, parse_limit

    la, lb = (a, b) if a != b else (f"{a} #1", f"{b} #2")
    given = (("time", time), ("depth", depth), ("nodes", nodes), ("clock", clock))
    limit = {k: v for k, v in given if v is not None}
    name = f"{_slug(la)}-vs-{_slug(lb)}"
    # a match is a tournament of two: its errors would name the tournament
    with as_command("arena match", f"tournament {name!r}"):
        config = TournamentConfig(
            players=(Entrant(la, a), Entrant(lb, b)),
            games=games,
            openings=openings,
            game=game,
            size=size,
            seed=seed,
            limit=parse_limit(limit, "arena match"),
            workers=workers,
            name=name,
        )
        folder = out or Path("arena") / config.name
        _run(config, folder, quiet=quiet, max_games=None)


@app.command(
    "tournament",
    epilog=examples(
        "othellolab arena tournament configs/ladder.toml --out arena/ladder",
        "othellolab arena tournament configs/ladder.toml --set games=4 --max-games 2 --quiet",
    ),
)
def tournament(
    config_file: Annotated[
        Path,
        typer.Argument(metavar="CONFIG", help="Tournament TOML file (see configs/ladder.toml)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Results folder (default: arena/NAME); resumed."),
    ] = None,
    set_: SetOption = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Games played at once; shorthand of --set workers=N."),
    ] = None,
    max_games: Annotated[
        int | None, typer.Option(help="Stop after this many new games (resume later).", min=1)
    ] = None,
    quiet: Annotated[bool, _QUIET] = False,
) -> None:
    """Play a round-robin or gauntlet tournament from a config; resumes where it stopped."""
    from othellolab.arena.tournament_config import load_config

    given = overrides(set_, workers=workers)
    config = load_config(config_file, overrides=given)
    _run(config, out or Path("arena") / config.name, quiet=quiet, max_games=max_games)


def _run(config: Any, folder: Path, *, quiet: bool, max_games: int | None) -> None:
    from othellolab.arena.tournament import check_entrants, pairing_results, run_tournament
    from othellolab.players import make_player

    check_entrants(config)  # a bad spec fails now, not after an hour of games
    for e in config.players:
        make_player(e.spec, config.game).close()
    run = run_tournament(config, folder, progress=not quiet, max_games=max_games)
    done = len(run.records)
    typer.echo(
        f"{run.played} games played in {run.seconds:.0f} s; {done} in {folder / 'results.jsonl'}"
        + ("" if run.complete else " (not finished: run the same command again to resume)")
    )
    for m in pairing_results(run.records).values():
        typer.echo(str(m))
    if len({r["black"] for r in run.records} | {r["white"] for r in run.records}) >= 2:
        _rate([folder], out=folder, title=f"Ratings: {config.name}", echo_table=True)


@app.command(
    "ratings",
    epilog=examples(
        "othellolab arena ratings arena/ladder",
        "othellolab arena ratings arena/a arena/b --anchor random --bootstrap 200",
    ),
)
def ratings(
    results: Annotated[
        list[Path], typer.Argument(help="results.jsonl files or the folders holding them.")
    ],
    anchor: Annotated[
        str | None, typer.Option(help="Player fixed at --anchor-rating (default: random).")
    ] = None,
    anchor_rating: Annotated[float, typer.Option(help="The anchor's rating.")] = 0.0,
    prior: Annotated[
        float, typer.Option(help="Virtual games per pairing, half won by each side (0-1000).")
    ] = 2.0,
    bootstrap: Annotated[
        int, typer.Option(help="Intervals from this many bootstrap refits (0: curvature).")
    ] = 0,
    colour: Annotated[
        bool, typer.Option("--colour/--no-colour", help="Fit black's advantage.")
    ] = True,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Report folder (default: the first results' folder)."),
    ] = None,
    title: Annotated[str, typer.Option(help="Report title.")] = "Ratings",
    ladder_json: Annotated[
        Path | None,
        typer.Option(
            help="Also write the ratings of each registered player's default setting here "
            "(the web board's opponent list reads src/othellolab/arena/data/ladder.json)."
        ),
    ] = None,
) -> None:
    """Maximum-likelihood Elo with intervals; prints the table, writes report.md and PNGs."""
    folder = out or (results[0] if results[0].is_dir() else results[0].parent)
    _rate(
        results, out=folder, title=title, anchor=anchor, anchor_rating=anchor_rating,
        prior=prior, bootstrap=bootstrap, colour=colour, echo_table=True, ladder_json=ladder_json,
    )  # fmt: skip


def _random_label(specs: dict[str, str]) -> str | None:
    """The label of the uniformly random player, the usual anchor at 0, if one played."""
    if "random" in specs:
        return "random"
    return next((label for label, spec in specs.items() if spec.split(":")[0] == "random"), None)


def _rate(
    results: list[Path],
    *,
    out: Path,
    title: str,
    echo_table: bool,
    ladder_json: Path | None = None,
    **options: Any,
) -> None:
    from othellolab.arena.ratings import fit_ratings, games_from_records, write_report
    from othellolab.arena.results import load_results

    records = load_results(*results)
    specs = {}
    for r in records:
        specs[r["black"]] = r["black_spec"]
        specs[r["white"]] = r["white_spec"]
    if options.get("anchor") is None:
        options["anchor"] = _random_label(specs)
    fitted = fit_ratings(games_from_records(records), **options)
    path = write_report(fitted, out, title=title, specs=specs, command=_command())
    if echo_table:
        typer.echo(fitted.table(specs=specs))
        typer.echo(fitted.summary())
    typer.echo(f"report: {path}")
    if ladder_json is not None:
        from othellolab.arena.ladder import export_ladder

        data = export_ladder(fitted, specs, ladder_json)
        typer.echo(f"ladder ratings of {', '.join(data['players'])}: {ladder_json}")
