"""The games of one web server: creating them from requests (the game, its start position and
record, the human's side, the opponent with its caps), finding, expiring and closing them."""

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
    Unprocessable,
    WebError,
)
from othellolab.ui.web.games import WebGame
from othellolab.ui.web.limits import MAX_ANALYSIS_TIME, MAX_NODES, MAX_THINK_TIME
from othellolab.ui.web.models import NewGame


class GameStore:
    """The games of one server, keyed by random ids; idle games expire after ``ttl`` seconds.

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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        _check_positive("ttl", ttl)
        _check_positive("max_think_time", max_think_time)
        _check_positive("max_analysis_time", max_analysis_time)
        if not isinstance(max_games, int) or max_games < 1:
            raise ConfigError(f"must be at least 1, got {max_games!r}", option="max_games")
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
        self.think_time = think_time
        self.max_think_time = float(max_think_time)
        self.max_nodes = max_nodes
        self.max_analysis_time = float(max_analysis_time)
        self.models = models or ModelCatalog(allow_paths=False)
        self.clock = clock
        self._games: dict[str, WebGame] = {}
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

    def create(self, request: NewGame) -> WebGame:
        """A new game from a validated request; bad specs and records raise ``Unprocessable``."""
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
        player = self.make_player(spec, "opponent", played)
        limit = Limit(time=think_time, max_time=self.max_think_time, max_nodes=self.max_nodes)
        game_id = secrets.token_urlsafe(12)
        try:
            game = WebGame(
                game_id,
                start=start,
                human=human,
                opponent_spec=spec,
                player=player,
                hint_spec=self.hint_for(played),
                actions=actions,
                ply=request.ply,
                limit=limit,
                max_analysis_time=self.max_analysis_time,
                clock=self.clock,
            )
        except WebError:
            player.close()
            raise
        player.reset()
        with self._lock:
            if len(self._games) >= self.max_games:
                player.close()
                raise TooManyGames(
                    f"the server holds its maximum of {self.max_games} games; "
                    f"idle games expire after {self.ttl:g} s"
                )
            self._games[game_id] = game
        return game

    def make_player(self, spec: str, what: str, rules: Game) -> Player:
        """The player of ``spec`` for ``rules``, its model names resolved in this server's
        catalog only; an external engine (which would run a command on this machine) or a
        player of another game is refused."""
        try:
            if get_entry(parse_spec(spec)[0]).name in EXTERNAL_PLAYERS:
                raise Unprocessable(
                    f"{what} {spec[:200]!r}: the web board does not start external engines"
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
        with self._lock:
            games = list(self._games.values())
        for game in games:
            game.stop_search()

    def get(self, game_id: str) -> WebGame:
        """The game with this id, marked as used now."""
        now = self.clock()
        with self._lock:
            game = self._games.get(game_id)
            if game is not None and game.busy is None and now - game.last_access > self.ttl:
                del self._games[game_id]
                game.close()
                game = None
            if game is None:
                raise GameNotFound(f"no game with id {game_id[:40]!r} (unknown or expired)")
            game.last_access = now
            return game

    def delete(self, game_id: str) -> None:
        """Forget a game."""
        with self._lock:
            game = self._games.pop(game_id, None)
        if game is None:
            raise GameNotFound(f"no game with id {game_id[:40]!r} (unknown or expired)")
        game.close()

    def expire(self) -> int:
        """Drop the games idle for longer than the TTL (never one that is thinking)."""
        now = self.clock()
        with self._lock:
            old = [
                g for g in self._games.values() if g.busy is None and now - g.last_access > self.ttl
            ]
            for g in old:
                del self._games[g.id]
        for g in old:
            g.close()
        return len(old)

    def close(self) -> None:
        """Stop every search and drop every game."""
        self.stop_searches()
        with self._lock:
            games = list(self._games.values())
            self._games.clear()
        for g in games:
            g.close()


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
