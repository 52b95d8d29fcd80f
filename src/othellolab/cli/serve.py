"""``othellolab serve``: the web board on 127.0.0.1, against any registered player."""

from __future__ import annotations

import os
import sys
import threading
import webbrowser
from typing import Annotated

import typer


def _can_open_browser() -> bool:
    """Whether a graphical browser can open here (a text browser would take over the terminal)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def serve(
    port: Annotated[int, typer.Option(help="TCP port on 127.0.0.1.", min=0, max=65535)] = 8000,
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
        float, typer.Option(help="Seconds after which an idle game is forgotten.", min=1)
    ] = 3600.0,
    max_games: Annotated[int, typer.Option(help="Most games held at once.", min=1)] = 1000,
    think_time: Annotated[
        float | None, typer.Option(help="Seconds the AI may think per move (default: its own).")
    ] = None,
) -> None:
    """Play in the browser: serve the web board locally and print its URL."""
    try:
        import uvicorn

        from othellolab.players import make_player, strongest_player_spec
        from othellolab.players.endgame import warm_up
        from othellolab.ui.web import create_app
    except ImportError as e:
        raise typer.BadParameter(
            f"the web board needs the 'web' extra (pip install 'othellolab[web]'): {e}"
        ) from None
    for name, spec in (("--opponent", opponent), ("--hint", hint)):
        if spec is not None:
            try:
                make_player(spec).close()
            except ValueError as e:
                raise typer.BadParameter(str(e), param_hint=name) from None
    if think_time is not None and think_time <= 0:
        raise typer.BadParameter("must be positive seconds", param_hint="--think-time")
    app = create_app(
        opponent=opponent, hint=hint, ttl=ttl, max_games=max_games, think_time=think_time
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
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
        url = f"http://127.0.0.1:{bound}/"
        typer.echo(f"othellolab web board: {url}  (opponent {spec}; Ctrl+C to stop)")
        if open_browser:
            if _can_open_browser() and webbrowser.open(url):
                return
            typer.echo("(no graphical browser here: open the URL yourself)")

    threading.Thread(target=announce, daemon=True).start()
    # The default opponent solves its endgame exactly; a fresh install compiles the solver here
    # (about 40 s, in the background) rather than in the middle of the first game.
    threading.Thread(target=warm_up, daemon=True).start()
    server.run()
