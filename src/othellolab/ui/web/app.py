"""The web board's FastAPI app: a JSON API over ``GameStore`` and the static page that uses it.

Every bad request is a 4xx whose ``detail`` says what was wrong, and 500 is kept for real bugs.
AI searches run on the search workers (``searches.SearchPool``: processes for ``othellolab
serve``), never on the threads that answer requests, so reads and the human's moves answer at
once whatever the load; searches beyond the workers wait in a bounded fair queue (503 with
``Retry-After`` past its bounds). Each search is capped by the server's limits and stopped when
its client goes away or the server shuts down. Every change of a game is kept in the games
database (``gamedb``) before it is answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from othellolab.arena.ladder import shipped_ratings
from othellolab.core import ConfigError, OthelloError
from othellolab.core.games import DEFAULT_GAME, Game, game_for, game_names
from othellolab.core.games import get_game as game_named
from othellolab.core.parsing import clip, parse_int
from othellolab.nn.pretrained import ModelCatalog
from othellolab.players import available_players
from othellolab.players.registry import PlayerEntry, describe_options, spec_defaults
from othellolab.ui.web.clients import ClientLimits, RateLimiter, client_key
from othellolab.ui.web.errors import (
    EXTERNAL_PLAYERS,
    Gone,
    Unprocessable,
    WebError,
)
from othellolab.ui.web.gamedb import MEMORY, GameDB
from othellolab.ui.web.games import WebGame
from othellolab.ui.web.headers import SecurityHeaders
from othellolab.ui.web.limits import (
    MAX_ANALYSIS_TIME,
    MAX_NODES,
    MAX_QUEUE,
    MAX_THINK_TIME,
    MAX_WAIT,
    RATE_BURST,
)
from othellolab.ui.web.models import (
    AnalyseRequest,
    ErrorResponse,
    GameInfo,
    GameState,
    GameVariant,
    GotoRequest,
    HintRequest,
    MoveRequest,
    NewGame,
    PlayerInfo,
    PlayersResponse,
    SavedGame,
    SavedGames,
    ServerLimits,
)
from othellolab.ui.web.searches import SearchPool, ThinkKind, default_workers
from othellolab.ui.web.store import GameStore, describe_value

STATIC = Path(__file__).resolve().parent / "static"
RECORD_FORMATS = ["auto", "transcript", "ggf"]

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse} for code in (404, 409, 413, 422, 429, 500, 503)
}


MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a JSON body."""


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``max_bytes`` with a 413, whether the client
    declares the length or streams the body in chunks (the body is read before the app runs),
    and JSON bodies that repeat a key, nest deeper than ``MAX_JSON_DEPTH`` or hold ``NaN`` or
    ``Infinity`` with a 422 (Python's JSON reader would keep the last value of a repeated key
    silently, and accept those constants)."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                text = value.decode("latin-1")
                try:
                    parse_int(text, lo=0, hi=self.max_bytes, what="Content-Length")
                except OthelloError:
                    await self._refuse(scope, send, f"Content-Length {clip(text)!r}")
                    return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body = message.get("body", b"")
            seen += len(body)
            if seen > self.max_bytes:
                await self._refuse(scope, send, f"more than {self.max_bytes} bytes sent")
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        problem = _json_problem(body) if _is_json(scope) else None
        if problem is not None:
            response = JSONResponse({"detail": f"invalid JSON body: {problem}"}, status_code=422)
            await response(scope, _no_receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, send: Send, what: str) -> None:
        response = JSONResponse(
            {"detail": f"request body too large ({what}); the limit is {self.max_bytes} bytes"},
            status_code=413,
        )
        await response(scope, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


def _is_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            return b"json" in value.lower()
    return False


def _json_problem(body: bytes) -> str | None:
    """What is wrong with a JSON body beyond its syntax (left to the app's own 422): a
    repeated key, nesting over ``MAX_JSON_DEPTH``, a ``NaN``/``Infinity`` constant, bytes that
    are not UTF-8 (which the app would answer with a bare 400)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 text (byte {e.start} is 0x{body[e.start]:02x})"
    depth = level = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            level += 1
            depth = max(depth, level)
        elif byte in (0x5D, 0x7D):
            level -= 1
    if depth > MAX_JSON_DEPTH:
        return f"nested {depth} levels deep ({MAX_JSON_DEPTH} at most)"

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                raise _JsonProblem(f"the key {key[:50]!r} appears twice")
            seen[key] = value
        return seen

    def constant(name: str) -> Any:
        raise _JsonProblem(f"{name} is not a JSON number")

    try:
        json.loads(body, object_pairs_hook=pairs, parse_constant=constant)
    except _JsonProblem as e:
        return str(e)
    except ValueError:
        return None  # a syntax error: the app reports it with its location
    return None


class _JsonProblem(Exception):
    pass


RETRY_AFTER = {
    "description": "Whole seconds after which the request may succeed.",
    "schema": {"type": "integer", "minimum": 1},
}


def _errors_as_json(schema: dict[str, Any]) -> dict[str, Any]:
    """The app's OpenAPI schema with every error answer declared as the JSON ``ErrorResponse``
    it is, also on routes whose success is plain text (FastAPI would give their errors the
    route's media type), and the ``Retry-After`` header of the 429 and 503 answers."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for code, response in operation.get("responses", {}).items():
                if code.startswith("2"):
                    continue
                content = response.get("content")
                if content:
                    response["content"] = {"application/json": next(iter(content.values()))}
                if code in ("429", "503"):
                    response["headers"] = {"Retry-After": RETRY_AFTER}
    return schema


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(x) for x in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(parts)


def create_app(
    *,
    opponent: str | None = None,
    hint: str | None = None,
    ttl: float = 3600.0,
    max_games: int = 100,
    think_time: float | None = None,
    max_think_time: float = MAX_THINK_TIME,
    max_nodes: int = MAX_NODES,
    max_analysis_time: float = MAX_ANALYSIS_TIME,
    models: ModelCatalog | None = None,
    max_body: int = 64 * 1024,
    sweep_interval: float = 60.0,
    search_workers: int | None = None,
    search_processes: bool = False,
    max_queue: int = MAX_QUEUE,
    max_wait: float = MAX_WAIT,
    db: GameDB | str | Path = MEMORY,
    max_games_per_client: int | None = None,
    rate_limit: float | None = None,
    rate_burst: int = RATE_BURST,
    search_threads: int = 1,
) -> FastAPI:
    """The web board app. ``opponent`` and ``hint`` are player specs for the games they play
    (default, and for the other games: each game's strongest shipped player); idle games
    expire after ``ttl`` seconds. Every search stops by ``max_think_time`` seconds (plus a
    small margin) and after ``max_nodes`` nodes, simulations or playouts, an analysis of a
    whole game after ``max_analysis_time`` seconds; ``think_time`` is the default time per move
    (the players' own settings when ``None``). A ``model=`` option may name only the models of
    ``models`` (default: the shipped ones), never a path.

    ``search_workers`` searches run at once (default: one per core), each in a process of its
    own with ``search_processes`` (``othellolab serve``), else in a thread of this process
    (which sees players registered at run time, as tests do); at most ``max_queue`` more wait,
    each at most ``max_wait`` seconds. A search runs on ``search_threads`` threads (its player's
    ``threads`` where it has the option: a spec asking for more is refused). Games are kept in ``db`` (a ``GameDB`` or its file;
    default: in memory).

    Per client address (``clients.client_key``): at most ``max_games_per_client`` open games
    and ``rate_limit`` requests a second in bursts of ``rate_burst``, more refused with 429
    and ``Retry-After``; ``None`` leaves that bound off (``othellolab serve`` sets both, to the
    defaults of ``limits``)."""
    workers = default_workers() if search_workers is None else search_workers
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ConfigError(
            f"must be a whole number in 1..256, got {workers!r}", option="search_workers"
        )
    if (
        isinstance(max_queue, bool)
        or not isinstance(max_queue, int)
        or not 0 <= max_queue <= 100_000
    ):
        raise ConfigError(
            f"must be a whole number in 0..100000, got {max_queue!r}", option="max_queue"
        )
    if (
        isinstance(max_wait, bool)
        or not isinstance(max_wait, int | float)
        or not (math.isfinite(max_wait) and 0 < max_wait <= 3600)
    ):
        raise ConfigError(f"must be seconds in (0, 3600], got {max_wait!r}", option="max_wait")
    store = GameStore(
        default_opponent=opponent,
        hint_spec=hint,
        ttl=ttl,
        max_games=max_games,
        think_time=think_time,
        max_think_time=max_think_time,
        max_nodes=max_nodes,
        max_analysis_time=max_analysis_time,
        models=models,
        db=db,
        max_games_per_client=max_games_per_client,
        search_threads=search_threads,
    )
    limiter = None if rate_limit is None else RateLimiter(rate_limit, rate_burst)
    pool = SearchPool(
        workers,
        processes=search_processes,
        max_queue=max_queue,
        max_wait=max_wait,
        expected=think_time,  # None: the players' own time, measured on the first search
        models=store.models,
        preload=((store.opponent_for(game_named(DEFAULT_GAME)), game_named(DEFAULT_GAME).key),),
        threads=search_threads,
    )
    store.pool = pool

    def state(game: WebGame) -> GameState:
        return game.state(pool.queue.position(game.id))

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(_warm_up)
        if search_processes:
            await run_in_threadpool(pool.start)

        async def sweep() -> None:
            while True:
                await asyncio.sleep(sweep_interval)
                await run_in_threadpool(store.expire)

        task = asyncio.create_task(sweep())
        try:
            yield
        finally:
            task.cancel()
            pool.close()
            store.close()

    app = FastAPI(
        title="othellolab web board",
        description="Play Othello or animal shogi against any registered othellolab player.",
        version="1",
        lifespan=lifespan,
        responses=_ERRORS,
        docs_url=None,  # the interactive docs pages load their scripts from a CDN
        redoc_url=None,
    )
    app.state.store = store
    app.state.pool = pool

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _errors_as_json(FastAPI.openapi(app))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(BodyLimit, max_bytes=max_body)
    if limiter is not None:
        app.add_middleware(ClientLimits, limiter=limiter)
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> JSONResponse:
        headers = getattr(exc, "headers", None)
        return JSONResponse({"detail": str(exc)}, status_code=exc.status, headers=headers)

    @app.exception_handler(OthelloError)
    async def _bad_input(request: Request, exc: OthelloError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_message(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        return JSONResponse(
            {"detail": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers
        )

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/players", response_model=PlayersResponse)
    def players(game: str = "othello", size: int = 8) -> PlayersResponse:
        """Every registered player of a game (default: 8x8 Othello) with its options, the
        server's defaults for it, and the games the board plays."""
        rules = _game(game, size)
        ratings = shipped_ratings() if rules == game_named(DEFAULT_GAME) else {}
        return PlayersResponse(
            game=rules.key,
            players=[
                PlayerInfo(
                    name=e.name,
                    help=e.help,
                    strength=e.strength,
                    aliases=list(e.aliases),
                    options={k: describe_value(v) for k, v in spec_defaults(e).items()},
                    defaults={k: describe_value(v) for k, v in e.defaults.items()},
                    ranges=describe_options(e, models=store.models, game=rules.key),
                    rating=ratings.get(e.name),
                    models=store.models.names(rules.key) if _has_model_option(e) else None,
                )
                for e in available_players()
                if e.name not in EXTERNAL_PLAYERS and rules.name in e.games()
            ],
            default_opponent=store.opponent_for(rules),
            hint_player=store.hint_for(rules),
            formats=RECORD_FORMATS if rules.record_format == "ggf" else RECORD_FORMATS[:2],
            limits=ServerLimits(
                max_think_time=store.max_think_time,
                max_nodes=store.max_nodes,
                max_analysis_time=store.max_analysis_time,
                models=store.models.names(),
            ),
            games=[_game_info(store, name) for name in game_names()],
        )

    @app.post("/api/games", response_model=GameState, status_code=201)
    def new_game(request: NewGame, http: Request) -> GameState:
        """Start a game, or load one from a record to replay or continue. 429 with
        ``Retry-After`` when this client holds its most open games."""
        game = store.create(request, client=client_key(http.scope))
        with game.lock:
            return state(game)

    @app.get("/api/games", response_model=SavedGames)
    def saved_games(limit: int = 100, offset: int = 0) -> SavedGames:
        """The games this server keeps, latest changed first (``limit`` 1..1000 of them, from
        ``offset``)."""
        if not 1 <= limit <= 1000:
            raise Unprocessable(f"query.limit: must be in 1..1000, got {limit}")
        if not 0 <= offset <= 10**9:
            raise Unprocessable(f"query.offset: must be in 0..1e9, got {offset}")
        rows, total = store.saved(limit=limit, offset=offset)
        games = []
        for row in rows:
            try:
                rules = game_named(row["game"])
                human = "both" if row["human"] is None else rules.side_names[row["human"]]
                title = rules.title or rules.name
            except (OthelloError, IndexError):
                human, title = "?", row["game"]
            games.append(SavedGame(title=title, **{**row, "human": human}))
        return SavedGames(games=games, total=total)

    @app.get("/api/games/{game_id}", response_model=GameState)
    def get_game(game_id: str) -> GameState:
        """The game as it stands (also while the AI thinks)."""
        game = store.get(game_id)
        with game.lock:
            return state(game)

    @app.get(
        "/api/games/{game_id}/export",
        response_class=PlainTextResponse,
        responses={200: {"content": {"text/plain": {}}}},
    )
    def export_game(game_id: str, format: str = "ggf") -> PlainTextResponse:
        """The whole recorded game as a file: ``format`` ``ggf`` (Othello) or ``transcript``."""
        game = store.get(game_id)
        with game.lock:
            text = game.export(format[:20])
        suffix = "ggf" if format == "ggf" else "txt"
        return PlainTextResponse(
            text,
            headers={"Content-Disposition": f'attachment; filename="{game.id}.{suffix}"'},
        )

    @app.delete("/api/games/{game_id}", status_code=204)
    def delete_game(game_id: str) -> Response:
        """Forget a game, and its record in the database."""
        store.delete(game_id)
        return Response(status_code=204)

    def change(game_id: str, do: Any) -> GameState:
        """Apply ``do(game)`` under the game's lock, keep the game, answer its state."""
        game = store.get(game_id)
        with game.lock:
            do(game)
            store.save(game)
            return state(game)

    @app.post("/api/games/{game_id}/move", response_model=GameState)
    def move(game_id: str, request: MoveRequest) -> GameState:
        """The human plays a move (``f5``) or a forced pass (``pass``)."""
        return change(game_id, lambda game: game.play_human(request.move))

    @app.post("/api/games/{game_id}/undo", response_model=GameState)
    def undo(game_id: str) -> GameState:
        """Back to the human's previous turn."""
        return change(game_id, lambda game: game.undo())

    @app.post("/api/games/{game_id}/redo", response_model=GameState)
    def redo(game_id: str) -> GameState:
        """Forward to the human's next turn in the recorded game."""
        return change(game_id, lambda game: game.redo())

    @app.post("/api/games/{game_id}/goto", response_model=GameState)
    def goto(game_id: str, request: GotoRequest) -> GameState:
        """Show the position after ``ply`` recorded moves (replay)."""
        return change(game_id, lambda game: game.goto(request.ply))

    def begin(game_id: str, kind: ThinkKind, body: Any) -> tuple[WebGame, Any, GameState | None]:
        game = store.get(game_id)
        with game.lock:
            if kind == "ai" and game.pass_for_ai():
                store.save(game)
                return game, None, state(game)
            _, version = game.begin_think(kind)
            try:
                job = game.search_job(kind, body)
            except BaseException:
                game.abort_think()
                raise
        return game, (job, version), None

    def finish(game: WebGame, kind: ThinkKind, version: int, outcome: Any) -> GameState:
        with game.lock:
            game.finish_think(kind, version, outcome)
            store.save(game)
            return state(game)

    async def think(
        request: Request,
        game_id: str,
        kind: ThinkKind,
        body: HintRequest | AnalyseRequest | None = None,
    ) -> GameState:
        game, begun, answer = await run_in_threadpool(begin, game_id, kind, body)
        if answer is not None:
            return answer
        job, version = begun
        try:
            outcome = await pool.search(game.id, job, request.is_disconnected)
        except WebError as e:
            with game.lock:
                game.abort_think()
            if isinstance(e, Gone | Unprocessable) or e.status >= 500:
                e.args = (f"game {game.id}: {e}",)
            raise
        except BaseException:
            with game.lock:
                game.abort_think()
            raise
        if pool.closing and kind != "analysis":
            with game.lock:
                game.abort_think()
            raise Gone(
                f"game {game.id}: the {kind} search was abandoned (the server is shutting down)"
            )
        return await run_in_threadpool(finish, game, kind, version, outcome)

    @app.post("/api/games/{game_id}/ai-move", response_model=GameState)
    async def ai_move(request: Request, game_id: str) -> GameState:
        """The AI plays its move (searched by a search worker, after the searches queued
        before it); its report comes along. 503 with ``Retry-After`` when the queue is full."""
        return await think(request, game_id, "ai")

    @app.post("/api/games/{game_id}/hint", response_model=GameState)
    async def hint_move(
        request: Request, game_id: str, body: HintRequest | None = None
    ) -> GameState:
        """Ask the hint player for the position shown; the answer is in ``hint``. With
        ``all_moves``, every legal move is also searched on its own and scored."""
        return await think(request, game_id, "hint", body)

    @app.post("/api/games/{game_id}/analyse", response_model=GameState)
    async def analyse(request: Request, game_id: str, body: AnalyseRequest) -> GameState:
        """Evaluate every position of the recorded game with the hint player, within
        ``time_per_move`` seconds each; the answer is in ``analysis``."""
        return await think(request, game_id, "analysis", body)

    return app


def _has_model_option(entry: PlayerEntry) -> bool:
    return any(option.model for option in entry.declared().values())


def _game(name: str, size: int) -> Game:
    """The game of a query (``game``, ``size``), or a 422 naming what is wrong."""
    try:
        return game_for(name[:40], size)
    except OthelloError as e:
        raise Unprocessable(f"query.game: {e}") from None


def _game_info(store: GameStore, name: str) -> GameInfo:
    rules = game_named(name)
    sizes = list(rules.sizes)
    variants = [(size, game_for(name, size)) for size in sizes] or [(None, rules)]
    return GameInfo(
        name=rules.name,
        title=rules.title or rules.name,
        sizes=sizes,
        sides=list(rules.side_names),
        position_format=rules.position_format,
        variants=[
            GameVariant(key=g.key, size=size, default_opponent=store.opponent_for(g))
            for size, g in variants
        ],
    )


def _warm_up() -> None:
    """Load the compiled rules kernels of every game and size before the first request."""
    for name in game_names():
        rules = game_named(name)
        for size in rules.sizes or (None,):
            variant = rules if size is None else game_for(name, size)
            position = variant.start_position()
            legal = position.legal_actions()
            if legal:
                position.play(legal[0]).is_game_over()
