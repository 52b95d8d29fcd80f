"""The ``othellolab`` command: thin subcommands over the library."""

from __future__ import annotations

import typer

from othellolab.cli import arena as _arena
from othellolab.cli import dataset as _dataset
from othellolab.cli import evaluate as _evaluate
from othellolab.cli import nboard as _nboard
from othellolab.cli import play as _play
from othellolab.cli import records as _records
from othellolab.cli import serve as _serve
from othellolab.cli import solve as _solve
from othellolab.cli import tools as _tools
from othellolab.cli.train import train_app

app = typer.Typer(
    help="othellolab: rules, players and tools for Othello AI.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("perft")(_tools.perft)
app.command("players")(_tools.players)
app.command("play")(_play.play)
app.add_typer(_records.app, name="records")
app.command("solve")(_solve.solve)
app.add_typer(_dataset.app, name="dataset")
app.command("serve")(_serve.serve)
app.add_typer(train_app, name="train")
app.add_typer(_evaluate.app, name="evaluate")
app.add_typer(_arena.app, name="arena")
app.command("nboard")(_nboard.nboard)


def main() -> None:
    """Entry point of the console script."""
    app()
