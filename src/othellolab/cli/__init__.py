"""The ``othellolab`` command: thin subcommands over the library.

Bad input is caught here, once: an ``OthelloError`` (or an ``OSError`` on a file the user
named) prints its message and exits with status 1, never a traceback; ``--debug`` shows it.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import click
import typer
from typer.core import TyperGroup

from othellolab.cli import arena as _arena
from othellolab.cli import book as _book
from othellolab.cli import data as _data
from othellolab.cli import dataset as _dataset
from othellolab.cli import engine as _engine  # noqa: F401  (adds train engine and its stages)
from othellolab.cli import evaluate as _evaluate
from othellolab.cli import nboard as _nboard
from othellolab.cli import play as _play
from othellolab.cli import records as _records
from othellolab.cli import serve as _serve
from othellolab.cli import solve as _solve
from othellolab.cli import tools as _tools
from othellolab.cli._common import reflow_help
from othellolab.cli._config import examples
from othellolab.cli.rl import rl_app
from othellolab.cli.train import train_app
from othellolab.core import OthelloError
from othellolab.core.numba_kernel import announce_compiles


class _Catching(TyperGroup):
    """The root command group: turns the library's bad-input errors into a clean message, and
    every command's help into reflowed text (``_common.help_text``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        reflow_help(self)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # the reader of our output went away (``| head``): stop quietly, as Unix tools do
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(1) from None
        except (OthelloError, OSError) as e:
            if ctx.meta.get("othellolab.debug"):
                raise
            typer.echo(f"Error: {_message(e)}", err=True)
            raise typer.Exit(1) from None


def _message(error: Exception) -> str:
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    return str(error)


app = typer.Typer(
    cls=_Catching,
    help="othellolab: rules, players and tools for Othello AI.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    ctx: typer.Context,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback of an error.")
    ] = False,
) -> None:
    ctx.meta["othellolab.debug"] = debug
    # the first run on a machine compiles the Numba kernels (seconds): say so on a terminal
    announce_compiles()


app.command(
    "perft",
    epilog=examples("othellolab perft 6", "othellolab perft 8 --size 6"),
)(_tools.perft)
app.command(
    "players",
    epilog=examples("othellolab players", "othellolab players --models runs/az-6x6"),
)(_tools.players)
app.command("warm-up", epilog=examples("othellolab warm-up"))(_tools.warm_up)
app.command(
    "play",
    epilog=examples(
        "othellolab play",
        "othellolab play --opponent alphabeta:depth=4 --color white",
        "othellolab play --game animal-shogi --opponent shogi-alphabeta:depth=4",
    ),
)(_play.play)
app.add_typer(_records.app, name="records")
app.command(
    "solve",
    epilog=examples(
        'othellolab solve -- "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"',
        "othellolab solve --file tests/data/fforum-1-19.obf --lines 1-3",
        "othellolab solve --file tests/data/fforum-1-19.obf --lines 1-3 --threads 2",
    ),
)(_solve.solve)
app.add_typer(_dataset.app, name="dataset")
app.add_typer(_data.app, name="data")
app.command(
    "serve",
    epilog=examples("othellolab serve --open", "othellolab serve --models runs --port 8001"),
)(_serve.serve)
app.add_typer(train_app, name="train")
app.add_typer(_evaluate.app, name="evaluate")
app.add_typer(rl_app, name="rl")
app.add_typer(_arena.app, name="arena")
app.add_typer(_book.app, name="book")
app.command(
    "nboard",
    epilog=examples('othellolab nboard --player "alphabeta:evaluation=patterns,time=1"'),
)(_nboard.nboard)


def main() -> None:
    """Entry point of the console script."""
    app()
