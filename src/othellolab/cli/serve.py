"""``othellolab serve``: the web board on 127.0.0.1 (or any address ``--host`` names, with a
warning), against any registered player."""

from __future__ import annotations

import os
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer

from othellolab.core import OthelloError
from othellolab.ui.web.limits import (
    MAX_GAMES_PER_CLIENT,
    MAX_NODES,
    MAX_QUEUE,
    MAX_THINK_TIME,
    MAX_WAIT,
    RATE_BURST,
    RATE_LIMIT,
)


def _can_open_browser() -> bool:
    """Whether a graphical browser can open here (a text browser would take over the terminal)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def serve(
    port: Annotated[int, typer.Option(help="TCP port to listen on.", min=0, max=65535)] = 8000,
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on: 127.0.0.1 serves this machine only; another address "
            "(0.0.0.0 or :: for every interface) serves other machines too, with a warning.",
        ),
    ] = "127.0.0.1",
    opponent: Annotated[
        str | None,
        typer.Option(help="Default opponent spec, e.g. 'greedy:seed=1' (default: the strongest)."),
    ] = None,
    hint: Annotated[
        str | None, typer.Option(help="Player spec that answers hints (default: the strongest).")
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the board in a browser.")
    ] = False,
    ttl: Annotated[
        float,
        typer.Option(help="Seconds after which an idle game is forgotten.", min=1, max=30 * 86400),
    ] = 3600.0,
    max_games: Annotated[
        int, typer.Option(help="Most games held in memory at once.", min=1, max=10_000)
    ] = 100,
    think_time: Annotated[
        float | None,
        typer.Option(
            help="Seconds the AI thinks per move (default: the player's own setting).",
            min=0.001,
            max=3600,
        ),
    ] = None,
    max_think_time: Annotated[
        float,
        typer.Option(
            help="Every search stops after this many seconds, whatever its settings.",
            min=0.01,
            max=3600,
        ),
    ] = MAX_THINK_TIME,
    max_nodes: Annotated[
        int,
        typer.Option(
            help="Every search stops after this many nodes, simulations or playouts.",
            min=1,
            max=10**12,
        ),
    ] = MAX_NODES,
    models: Annotated[
        list[Path] | None,
        typer.Option(
            "--models",
            help="Models that 'model=NAME' may name (repeat for several): a model directory, a "
            "training run, its models/ folder, or a folder of these. A run's models are named "
            "RUN/NAME (runs/my-az/models/gen0030 is 'my-az/gen0030'), others by their folder "
            "name; the shipped models are always there, paths never are.",
        ),
    ] = None,
    search_workers: Annotated[
        int | None,
        typer.Option(
            help="Searches run at once, each in its own process (default: one per core).",
            min=1,
            max=256,
        ),
    ] = None,
    max_queue: Annotated[
        int,
        typer.Option(
            help="Searches that may wait for a worker; more get a 503 with Retry-After.",
            min=0,
            max=100_000,
        ),
    ] = MAX_QUEUE,
    search_threads: Annotated[
        int,
        typer.Option(
            help="Threads each search may use (its player's threads where it has the option; "
            "a spec asking for more is refused).",
            min=1,
            max=256,
        ),
    ] = 1,
    max_wait: Annotated[
        float,
        typer.Option(
            help="Seconds a search may wait for a worker (expected or waited).", min=0.1, max=3600
        ),
    ] = MAX_WAIT,
    db: Annotated[
        str | None,
        typer.Option(
            help="SQLite file that keeps every game (default: web/games.sqlite3 in the data folder; ':memory:' keeps none).",
            show_default=False,
        ),
    ] = None,
    max_games_per_client: Annotated[
        int,
        typer.Option(
            help="Open games (held, not over) one client address may have; more get a 429.",
            min=1,
            max=10_000,
        ),
    ] = MAX_GAMES_PER_CLIENT,
    rate_limit: Annotated[
        float,
        typer.Option(
            help="Requests a second one client address may send on average; more get a 429.",
            min=0.01,
            max=10_000,
        ),
    ] = RATE_LIMIT,
    rate_burst: Annotated[
        int,
        typer.Option(help="Requests one client address may send at once.", min=1, max=100_000),
    ] = RATE_BURST,
) -> None:
    """Play in the browser: serve the web board locally and print its URL."""
    try:
        import uvicorn

        from othellolab.nn.pretrained import ModelCatalog
        from othellolab.players import strongest_player_spec
        from othellolab.players.warmup import warm_up
        from othellolab.ui.web import create_app
        from othellolab.ui.web.clients import check_host
        from othellolab.ui.web.errors import WebError
        from othellolab.ui.web.gamedb import GameDB, default_db_path
    except ImportError as e:
        raise typer.BadParameter(
            f"the web board needs the 'web' extra (pip install 'othellolab[web]'): {e}"
        ) from None
    if think_time is not None and think_time > max_think_time:
        raise typer.BadParameter(
            f"{think_time:g} s is over --max-think-time ({max_think_time:g} s)",
            param_hint="--think-time",
        )
    try:
        address, local = check_host(host)
    except OthelloError as e:
        raise typer.BadParameter(e.what, param_hint="--host") from None
    try:
        catalog = ModelCatalog(models or (), allow_paths=False)
    except OthelloError as e:
        raise typer.BadParameter(e.what, param_hint="--models") from None
    try:
        games_db = GameDB(default_db_path() if db is None else db)
    except OthelloError as e:
        raise typer.BadParameter(e.what, param_hint="--db") from None
    app = create_app(
        opponent=opponent,
        hint=hint,
        ttl=ttl,
        max_games=max_games,
        think_time=think_time,
        max_think_time=max_think_time,
        max_nodes=max_nodes,
        models=catalog,
        search_workers=search_workers,
        search_processes=True,
        max_queue=max_queue,
        max_wait=max_wait,
        search_threads=search_threads,
        db=games_db,
        max_games_per_client=max_games_per_client,
        rate_limit=rate_limit,
        rate_burst=rate_burst,
    )
    # The specs are checked as a new game's opponent is built, model names and all: after the
    # models are registered, through the same code as POST /api/games.
    for name, what, spec in (("--opponent", "opponent", opponent), ("--hint", "hint", hint)):
        if spec is not None:
            try:
                app.state.store.check_player(spec, what)
            except (OthelloError, WebError) as e:
                raise typer.BadParameter(str(e), param_hint=name) from None
    if not local:
        typer.echo(
            f"warning: --host {address} serves the board beyond this machine: whoever reaches "
            "this port can play and spend its CPU on searches (no login; per client address "
            f"at most {max_games_per_client} open games and {rate_limit:g} requests a second, "
            f"bursts of {rate_burst})",
            err=True,
        )
    config = uvicorn.Config(app, host=address, port=port, log_level="warning")
    server = _Server(config)
    server.on_exit = app.state.store.stop_searches
    spec = opponent or strongest_player_spec()

    def announce() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if not server.started:
            return
        bound = port
        for s in server.servers:
            for sock in s.sockets:
                bound = sock.getsockname()[1]
        url = f"http://{_url_host(address)}:{bound}/"
        typer.echo(
            f"othellolab web board: {url}  (opponent {spec}; each move at most "
            f"{max_think_time:g} s; Ctrl+C to stop)"
        )
        if open_browser:
            if _can_open_browser() and webbrowser.open(url):
                return
            typer.echo("(no graphical browser here: open the URL yourself)")

    threading.Thread(target=announce, daemon=True).start()
    # The default opponent solves its endgame exactly; a fresh install compiles the solver and
    # the other search kernels here (about a minute, in the background, unless ``make setup``
    # already did) rather than in the middle of the first game.
    threading.Thread(target=warm_up, daemon=True).start()
    server.run()


def _url_host(address: str) -> str:
    """How a URL names ``address``: this machine for "every interface", brackets for IPv6."""
    if address in ("0.0.0.0", "::"):
        return "127.0.0.1" if address == "0.0.0.0" else "[::1]"
    return f"[{address}]" if ":" in address else address


class _Server:
    """``uvicorn.Server`` that, on SIGINT/SIGTERM, first stops every search in flight (they
    return at their next node), so that in-flight requests end and the server exits at once."""

    def __new__(cls, config: Any) -> Any:
        import uvicorn

        class Server(uvicorn.Server):
            on_exit: Callable[[], None] | None = None

            def handle_exit(self, sig: int, frame: FrameType | None) -> None:
                if self.on_exit is not None:
                    self.on_exit()
                super().handle_exit(sig, frame)

        return Server(config)
