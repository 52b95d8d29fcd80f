"""The games of one web server: creating them from requests (the game, its start position and
record, the human's side, the opponent with its caps), finding, keeping and deleting them.

Every game is kept in the games database (``gamedb.GameDB``) as it changes; at most
``max_games`` are held in memory, the least recently used idle one dropped (still kept) to make
room, and a game asked for by id comes back from the database. A game holds no player: the
search workers own them (``searches``)."""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from othellolab.core import ConfigError, Limit, OthelloError
from othellolab.core.games import DEFAULT_GAME, Game, game_for, get_game, position_game
from othellolab.nn.pretrained import ModelCatalog
from othellolab.players import Player, make_player, strongest_player_spec
from othellolab.players.registry import get_entry, parse_spec
from othellolab.records.ggf import parse_ggf
from othellolab.ui.web.errors import (
    EXTERNAL_PLAYERS,
    GameNotFound,
    TooManyGames,
    TooManyRequests,
    Unprocessable,
)
from othellolab.ui.web.gamedb import MEMORY, GameDB
from othellolab.ui.web.games import WebGame
from othellolab.ui.web.limits import (
    MAX_ANALYSIS_TIME,
    MAX_GAMES,
    MAX_NODES,
    MAX_SEARCH_THREADS,
    MAX_THINK_TIME,
)
from othellolab.ui.web.models import NewGame

CHECKED_SPECS = 256
"""Player specs (with their game) remembered as checked, so a new game builds no player."""


class GameStore:
    """The games of one server, keyed by random ids, kept in ``db`` (a ``GameDB`` or its
    path); games idle for ``ttl`` seconds leave memory (not the database).

    ``default_opponent`` and ``hint_spec`` serve every game they play; a game they do not play
    (or every game, when they are ``None``) gets its strongest shipped player
    (``strongest_player_spec(game)``: ``az-6x6`` on 6x6, the exact solver on 4x4).
    """

    def __init__(
        self,
        *,
        default_opponent: str | None = None,
        hint_spec: str | None = None,
        ttl: float = 3600.0,
        max_games: int = 100,
        think_time: float | None = None,
        max_think_time: float = MAX_THINK_TIME,
        max_nodes: int = MAX_NODES,
        max_analysis_time: float = MAX_ANALYSIS_TIME,
        models: ModelCatalog | None = None,
        db: GameDB | str | Any = MEMORY,
        max_games_per_client: int | None = None,
        search_threads: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        _check_positive("ttl", ttl)
        _check_positive("max_think_time", max_think_time)
        _check_positive("max_analysis_time", max_analysis_time)
        if not isinstance(max_games, int) or not 1 <= max_games <= MAX_GAMES:
            raise ConfigError(
                f"must be in 1..{MAX_GAMES} (games held in memory), got {max_games!r}",
                option="max_games",
            )
        if max_games_per_client is not None and (
            isinstance(max_games_per_client, bool)
            or not isinstance(max_games_per_client, int)
            or not 1 <= max_games_per_client <= MAX_GAMES
        ):
            raise ConfigError(
                f"must be in 1..{MAX_GAMES} (open games of one client), got "
                f"{max_games_per_client!r}",
                option="max_games_per_client",
            )
        if (
            isinstance(search_threads, bool)
            or not isinstance(search_threads, int)
            or not 1 <= search_threads <= MAX_SEARCH_THREADS
        ):
            raise ConfigError(
                f"must be a whole number in 1..{MAX_SEARCH_THREADS}, got {search_threads!r}",
                option="search_threads",
            )
        if not isinstance(max_nodes, int) or max_nodes < 1:
            raise ConfigError(f"must be at least 1, got {max_nodes!r}", option="max_nodes")
        if think_time is not None:
            _check_positive("think_time", think_time)
            if think_time > max_think_time:
                raise ConfigError(
                    f"{think_time:g} s is over the server's max_think_time of {max_think_time:g} s",
                    option="think_time",
                )
        self.default_opponent = default_opponent
        self.hint_spec = hint_spec
        self.ttl = ttl
        self.max_games = max_games
        self.max_games_per_client = max_games_per_client
        self.search_threads = search_threads
        self.think_time = think_time
        self.max_think_time = float(max_think_time)
        self.max_nodes = max_nodes
        self.max_analysis_time = float(max_analysis_time)
        self.models = models or ModelCatalog(allow_paths=False)
        self.clock = clock
        self.db = db if isinstance(db, GameDB) else GameDB(db)
        self.pool: Any = None  # the app's SearchPool: stop_searches stops its searches
        self._games: dict[str, WebGame] = {}
        self._checked: dict[tuple[str, str], None] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    @staticmethod
    def _plays(spec: str | None, rules: Game) -> bool:
        if spec is None:
            return False
        try:
            return rules.name in get_entry(parse_spec(spec)[0]).games()
        except OthelloError:
            return False

    def opponent_for(self, rules: Game) -> str:
        """The default opponent of a game: the server's, if it plays it, else the game's
        strongest."""
        if self._plays(self.default_opponent, rules):
            return self.default_opponent  # type: ignore[return-value]
        return strongest_player_spec(rules)

    def hint_for(self, rules: Game) -> str:
        """The hint player of a game: the server's, if it plays it, else the game's strongest."""
        if self._plays(self.hint_spec, rules):
            return self.hint_spec  # type: ignore[return-value]
        return strongest_player_spec(rules)

    @staticmethod
    def game_of(request: NewGame) -> Game:
        """The game a request names, with its size."""
        try:
            return game_for(request.game, request.size)
        except OthelloError as e:
            raise Unprocessable(f"body.game: {e}") from None

    @staticmethod
    def _human(request: NewGame, rules: Game) -> int | None:
        text = request.human.strip().lower()
        if text == "both":
            return None
        if text == "random":
            return int(np.random.default_rng(request.seed).integers(2))
        for names in (rules.side_names, rules.side_choices, ("first", "second")):
            if text in names:
                return names.index(text)
        choices = dict.fromkeys(
            (*rules.side_names, *rules.side_choices, "first", "second", "random", "both")
        )
        raise Unprocessable(
            f"body.human: {request.human[:20]!r} is not a side of {rules.title or rules.name}; "
            f"choose {', '.join(choices)}"
        )

    def _start(self, request: NewGame, rules: Game) -> tuple[Any, list[int]]:
        """The start position and the recorded actions of a request (its position and
        record, read in the game's notations)."""
        try:
            start = rules.start_position(request.position)
        except OthelloError as e:
            fmt = rules.position_format or "position"
            raise Unprocessable(f"body.position ({fmt}): {e}") from None
        if request.record is None:
            return start, []
        fmt = request.record_format
        if fmt == "auto":
            fmt = "ggf" if "(;" in request.record else "transcript"
        try:
            if fmt == "ggf":
                if rules.record_format != "ggf":
                    raise ConfigError(f"{rules.title or rules.name} games are not written in GGF")
                record = next(parse_ggf(request.record, source="record"), None)
                if record is None:
                    raise ConfigError("no GGF game '(;...;)' found")
                return record.start, list(record.moves)
            if request.position is None:
                return start, rules.parse_moves(request.record)
            actions, position = [], start
            for number, name in enumerate(request.record.split(), 1):
                try:
                    a = rules.parse_move(position, name)
                    position = position.play(a)
                except OthelloError as e:
                    raise ConfigError(f"move {number} {name[:20]!r}: {e}") from None
                actions.append(a)
            return start, actions
        except OthelloError as e:
            raise Unprocessable(f"record ({fmt}): {e}") from None

    def create(self, request: NewGame, *, client: str | None = None) -> WebGame:
        """A new game from a validated request, opened by ``client`` (its address); bad specs
        and records raise ``Unprocessable``, a client with ``max_games_per_client`` open games
        ``TooManyRequests``."""
        self.expire()
        rules = self.game_of(request)
        spec = (request.opponent or self.opponent_for(rules)).strip()
        think_time = request.think_time if request.think_time is not None else self.think_time
        if think_time is not None and think_time > self.max_think_time:
            raise Unprocessable(
                f"think_time {think_time:g} s is over this server's maximum of "
                f"{self.max_think_time:g} s (othellolab serve --max-think-time)"
            )
        human = self._human(request, rules)
        if request.record is None and request.ply is not None:
            raise Unprocessable("ply is only meaningful with a record to load")
        start, actions = self._start(request, rules)
        played = position_game(start)  # a GGF record brings its own board size
        self._check_spec(spec, "opponent", played)
        game = WebGame(
            secrets.token_urlsafe(12),
            start=start,
            human=human,
            opponent_spec=spec,
            hint_spec=self.hint_for(played),
            actions=actions,
            ply=request.ply,
            limit=self._limit(think_time),
            max_analysis_time=self.max_analysis_time,
            clock=self.clock,
        )
        game.client = client
        self._admit(game)
        with game.lock:
            self.save(game)
        return game

    def _limit(self, think_time: float | None) -> Limit:
        return Limit(time=think_time, max_time=self.max_think_time, max_nodes=self.max_nodes)

    def _check_spec(self, spec: str, what: str, rules: Game) -> None:
        """Build and close the player of ``spec`` once per spec and game (the workers build
        their own), so that a bad spec is refused when the game is created."""
        key = (spec, rules.key)
        if key in self._checked:
            return
        self.make_player(spec, what, rules).close()
        with self._lock:
            self._checked[key] = None
            while len(self._checked) > CHECKED_SPECS:
                del self._checked[next(iter(self._checked))]

    def _admit(self, game: WebGame) -> None:
        """Hold ``game`` in memory, dropping the least recently used idle game (kept in the
        database) when ``max_games`` are held; refused when every one held is thinking, or
        when the client that opens it holds its most open games."""
        with self._lock:
            self._check_client(game.client)
            if game.id not in self._games and len(self._games) >= self.max_games:
                idle = [g for g in self._games.values() if g.busy is None]
                if not idle:
                    raise TooManyGames(
                        f"the server holds its maximum of {self.max_games} games in memory and "
                        "every one is thinking; try again when a search has ended"
                    )
                del self._games[min(idle, key=lambda g: g.last_access).id]
            self._games[game.id] = game

    def _check_client(self, client: str | None) -> None:
        """Refuse a new game of ``client`` when it holds ``max_games_per_client`` open games
        (in memory and not over); it may retry when the least recently used one expires."""
        limit = self.max_games_per_client
        if client is None or limit is None:
            return
        mine = [
            g for g in self._games.values() if g.client == client and not g.board.is_game_over()
        ]
        if len(mine) < limit:
            return
        idle = self.clock() - min(g.last_access for g in mine)
        retry = max(1, math.ceil(self.ttl - idle))
        raise TooManyRequests(
            f"{client} has {len(mine)} open games, the most one client may have "
            f"({limit}: othellolab serve --max-games-per-client); finish or delete one, or "
            f"try again in {retry} s when the least recently used one expires",
            retry_after=retry,
        )

    def save(self, game: WebGame) -> None:
        """Keep ``game`` as it stands in the database (call with its lock held)."""
        self.db.save(game.record())

    def make_player(self, spec: str, what: str, rules: Game) -> Player:
        """The player of ``spec`` for ``rules``, its model names resolved in this server's
        catalog only; an external engine (which would run a command on this machine) or a
        player of another game is refused."""
        try:
            name, options = parse_spec(spec)
            entry = get_entry(name)
            if entry.name in EXTERNAL_PLAYERS:
                raise Unprocessable(
                    f"{what} {spec[:200]!r}: the web board does not start external engines"
                )
            threads = options.get("threads")
            if (
                isinstance(threads, int)
                and threads > self.search_threads
                and "threads" in entry.spec_options()
            ):
                raise Unprocessable(
                    f"{what} {spec[:200]!r}: threads={threads} is over this server's "
                    f"{self.search_threads} a search (othellolab serve --search-threads)"
                )
            return make_player(spec, rules.name, models=self.models)
        except OthelloError as e:
            raise Unprocessable(f"{what} {spec[:200]!r}: {e}") from None

    def check_player(self, spec: str, what: str) -> None:
        """Build and close the player of ``spec`` as a new game would (the same checks, the
        same model names), for the first game it plays: how ``othellolab serve`` checks its
        ``--opponent`` and ``--hint`` before it starts. ``Unprocessable`` says what is wrong."""
        try:
            games = get_entry(parse_spec(spec)[0]).games()
        except OthelloError as e:
            raise Unprocessable(f"{what} {spec[:200]!r}: {e}") from None
        rules = get_game(games[0]) if games else get_game(DEFAULT_GAME)
        self.make_player(spec, what, rules).close()

    def stop_searches(self) -> None:
        """Ask every search in flight to return now (the server is shutting down)."""
        if self.pool is not None:
            self.pool.stop_all()

    def get(self, game_id: str) -> WebGame:
        """The game with this id (from memory, else from the database), marked as used now."""
        now = self.clock()
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            game = self._load(game_id)
        game.last_access = now
        return game

    def _load(self, game_id: str) -> WebGame:
        row = self.db.load(game_id)
        if row is None:
            raise GameNotFound(f"no game with id {game_id[:40]!r} (unknown or deleted)")
        try:
            game = WebGame.from_record(
                row,
                limit=self._limit(None),
                max_analysis_time=self.max_analysis_time,
                clock=self.clock,
            )
        except OthelloError as e:
            raise GameNotFound(
                f"game {game_id[:40]!r} is kept but cannot be served here: {e}"
            ) from None
        with self._lock:
            held = self._games.get(game_id)
            if held is not None:
                return held  # another request loaded it first
        self._admit(game)
        return game

    def delete(self, game_id: str) -> None:
        """Forget a game, in memory and in the database."""
        with self._lock:
            game = self._games.pop(game_id, None)
        if not self.db.delete(game_id) and game is None:
            raise GameNotFound(f"no game with id {game_id[:40]!r} (unknown or deleted)")

    def saved(self, *, limit: int = 100, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
        """Summaries of the kept games, latest changed first, and their number."""
        return self.db.list(limit=limit, offset=offset)

    def expire(self) -> int:
        """Drop from memory the games idle for longer than the TTL (never one that is
        thinking); the database keeps them."""
        now = self.clock()
        with self._lock:
            old = [
                g for g in self._games.values() if g.busy is None and now - g.last_access > self.ttl
            ]
            for g in old:
                del self._games[g.id]
        return len(old)

    def close(self) -> None:
        """Stop every search, drop every game from memory and close the database."""
        self.stop_searches()
        with self._lock:
            self._games.clear()
        self.db.close()


def _check_positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"expected seconds, got {value!r}", option=name)
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(
            f"must be a positive finite number of seconds, got {value!r}", option=name
        )


def describe_value(value: Any) -> Any:
    """A JSON-friendly form of an option default (its repr when it is not a JSON scalar)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)
