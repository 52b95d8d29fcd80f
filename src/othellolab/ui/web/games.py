"""Games of the web board, kept in memory: a recorded line with a cursor (undo/redo/replay), an
AI opponent from the player registry, a lock per game, and expiry of idle games.

The AI thinks outside the game's lock (``begin_think`` / ``finish_think``), so reading a game
never waits for a search; while it thinks, changes to that game are refused with a clear 409.
Every search runs under the server's caps (``max_think_time`` seconds, ``max_nodes``) and with
a ``Stop`` signal that the app sets when the client goes away or the server shuts down.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from othellolab.core import (
    BLACK,
    COLOR_NAMES,
    WHITE,
    Board,
    Color,
    ConfigError,
    IllegalMoveError,
    InvalidMoveError,
    Limit,
    OthelloError,
    PlayResult,
    Stop,
    format_transcript,
    parse_move,
    parse_transcript,
    square_name,
)
from othellolab.nn.pretrained import ModelCatalog
from othellolab.players import Player, make_game_player, make_player
from othellolab.players.registry import get_entry, parse_spec
from othellolab.records.ggf import parse_ggf
from othellolab.ui.web.limits import MAX_NODES, MAX_THINK_TIME
from othellolab.ui.web.models import Evaluation, GameState, NewGame, Result

ThinkKind = Literal["ai", "hint"]


class WebError(Exception):
    """A request the web board refuses; ``status`` is the HTTP status, the message says why."""

    status = 400


class GameNotFound(WebError):
    """No game has that id (never created, deleted, or expired)."""

    status = 404


class Conflict(WebError):
    """The request does not fit the game's state: out of turn, game over, the AI is thinking."""

    status = 409


EXTERNAL_PLAYERS = frozenset({"nboard"})
"""Players that start outside programs: never built from a web request."""


class Unprocessable(WebError):
    """Well-formed JSON whose content is wrong: a bad move, an illegal move, a bad player spec."""

    status = 422


class TooManyGames(WebError):
    """The server holds its maximum number of games."""

    status = 503


class PlayerFailed(WebError):
    """The AI player raised or answered an illegal move (a server-side fault, not bad input)."""

    status = 500


class Gone(WebError):
    """The search was abandoned: its client went away, or the server is shutting down."""

    status = 503


def _color_name(color: Color) -> Literal["black", "white"]:
    return "black" if color == BLACK else "white"


class WebGame:
    """One game: the start position, the recorded actions (passes explicit) and a cursor.

    ``boards[i]`` is the position after ``i`` actions. Undo and redo move the cursor; a move
    played before the end of the record replaces the rest of it (or just steps forward when
    it is the recorded next move).
    """

    def __init__(
        self,
        game_id: str,
        *,
        start: Board,
        human: Color | None,
        opponent_spec: str,
        player: Player,
        hint_spec: str,
        actions: list[int] | None = None,
        ply: int | None = None,
        limit: Limit | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.id = game_id
        self.human = human
        self.opponent_spec = opponent_spec
        self.player = player
        self.hint_spec = hint_spec
        self.limit = limit
        self.lock = threading.Lock()
        self.actions: list[int] = []
        self.boards: list[Board] = [start]
        for a in actions or []:
            self.actions.append(a)
            self.boards.append(self.boards[-1].play(a))
        self.cursor = len(self.actions) if ply is None else ply
        if not 0 <= self.cursor <= len(self.actions):
            raise Unprocessable(
                f"ply {self.cursor} is outside the loaded game (0..{len(self.actions)})"
            )
        self.busy: ThinkKind | None = None
        self.evaluations: dict[int, Evaluation] = {}
        self.hint: Evaluation | None = None
        self.stop: Stop | None = None
        self.version = 0
        self.clock = clock
        self.last_access = clock()
        self._hint_player: Player | None = None

    # ------------------------------------------------------------------------------------------
    # Facts

    @property
    def board(self) -> Board:
        """The position shown: after ``cursor`` actions."""
        return self.boards[self.cursor]

    @property
    def size(self) -> int:
        """Board size of the game."""
        return self.boards[0].size

    def is_human_turn(self, board: Board) -> bool:
        """Whether the side to move in ``board`` is played by the human."""
        return self.human is None or board.turn == self.human

    def _pov(self) -> Color:
        return BLACK if self.human is None else self.human

    # ------------------------------------------------------------------------------------------
    # Changes (call with ``lock`` held)

    def _check_idle(self) -> None:
        if self.busy == "ai":
            raise Conflict(f"game {self.id}: the AI is thinking; wait for its move")
        if self.busy == "hint":
            raise Conflict(f"game {self.id}: a hint is being computed; wait for it")

    def _apply(self, action: int) -> None:
        board = self.board
        after = board.play(action)
        if self.cursor < len(self.actions) and self.actions[self.cursor] == action:
            self.cursor += 1
        else:
            if self.cursor < len(self.actions):
                del self.actions[self.cursor :]
                del self.boards[self.cursor + 1 :]
                self.evaluations = {p: e for p, e in self.evaluations.items() if p < self.cursor}
            self.actions.append(action)
            self.boards.append(after)
            self.cursor += 1
        self.hint = None
        self.version += 1

    def play_human(self, move: str) -> None:
        """Play the human's move (a square name or ``pass``) in the position shown."""
        self._check_idle()
        board = self.board
        try:
            action = parse_move(move, board.size)
        except InvalidMoveError as e:
            raise Unprocessable(f"game {self.id}: invalid move {move!r}: {e}") from None
        if board.is_game_over():
            raise Conflict(f"game {self.id}: the game is over; no more moves")
        if not self.is_human_turn(board):
            raise Conflict(
                f"game {self.id}: it is {COLOR_NAMES[board.turn]}'s turn, played by the AI "
                f"({self.opponent_spec}); you play {COLOR_NAMES[self._pov()]}"
            )
        try:
            self._apply(action)
        except IllegalMoveError as e:
            raise Unprocessable(f"game {self.id}, move {self.cursor + 1}: {e}") from None

    def _undo_target(self) -> int | None:
        for p in range(self.cursor - 1, -1, -1):
            b = self.boards[p]
            if self.human is None or (b.turn == self.human and b.legal_mask):
                return p
        return None

    def _redo_target(self) -> int | None:
        if self.cursor >= len(self.actions):
            return None
        for p in range(self.cursor + 1, len(self.actions) + 1):
            b = self.boards[p]
            if self.human is None or (b.turn == self.human and b.legal_mask) or b.is_game_over():
                return p
        return len(self.actions)

    def undo(self) -> None:
        """Back to the previous position where the human chooses a move (one ply when both
        sides are human)."""
        self._check_idle()
        target = self._undo_target()
        if target is None:
            raise Conflict(f"game {self.id}: nothing to undo")
        self.goto(target)

    def redo(self) -> None:
        """Forward along the record to the next position where the human chooses a move."""
        self._check_idle()
        target = self._redo_target()
        if target is None:
            raise Conflict(f"game {self.id}: nothing to redo")
        self.goto(target)

    def goto(self, ply: int) -> None:
        """Show the position after ``ply`` recorded moves, keeping the rest for redo."""
        self._check_idle()
        if not 0 <= ply <= len(self.actions):
            raise Unprocessable(
                f"game {self.id}: ply {ply} is outside the recorded game (0..{len(self.actions)})"
            )
        if ply != self.cursor:
            self.cursor = ply
            self.hint = None
            self.version += 1
            self.player.reset()

    def begin_think(self, kind: ThinkKind) -> tuple[Board, Player, int]:
        """Mark the game busy and hand out what a search needs: the board, the player, and the
        version that ``finish_think`` checks. ``search_limit()`` is then the search's limit,
        with a fresh ``stop`` signal."""
        self._check_idle()
        board = self.board
        if board.is_game_over():
            raise Conflict(f"game {self.id}: the game is over; no more moves")
        if kind == "ai":
            if self.human is not None and board.turn == self.human:
                raise Conflict(
                    f"game {self.id}: it is {COLOR_NAMES[board.turn]}'s turn, the human's; "
                    "the AI moves only on its own turn"
                )
            if self.human is None:
                raise Conflict(f"game {self.id}: both sides are human here; there is no AI")
            player = self.player
        else:
            if self._hint_player is None:
                self._hint_player = make_player(self.hint_spec)
            player = self._hint_player
        self.busy = kind
        self.stop = Stop()
        self.last_access = self.clock()
        return board, player, self.version

    def search_limit(self) -> Limit:
        """The limit of the search in flight: the game's, with that search's stop signal."""
        base = self.limit or Limit()
        return dataclasses.replace(base, stop=self.stop)

    def stop_search(self) -> None:
        """Ask the search in flight, if any, to return now."""
        if self.stop is not None:
            self.stop.set()

    def abort_think(self) -> None:
        """The search failed or was abandoned: the game is free again, unchanged."""
        self.busy = None
        self.stop = None
        self.last_access = self.clock()

    def finish_think(self, kind: ThinkKind, version: int, result: PlayResult) -> None:
        """Apply the AI's move, or store the hint, with the player's report."""
        self.busy = None
        self.stop = None
        self.last_access = self.clock()
        if version != self.version:
            raise Conflict(f"game {self.id}: the game changed while the {kind} was computed")
        board = self.board
        name = self.opponent_spec if kind == "ai" else self.hint_spec
        if not board.is_legal(result.move):
            raise PlayerFailed(
                f"game {self.id}: player {name!r} answered {result.move!r}, not a legal move; "
                f"legal: {', '.join(square_name(a, board.size) for a in board.legal_actions())}"
            )
        evaluation = self._evaluation(board, kind, name, result)
        if kind == "ai":
            self.evaluations[self.cursor] = evaluation
            self._apply(int(result.move))
        else:
            self.hint = evaluation
            self.version += 1

    def pass_for_ai(self) -> bool:
        """Play the AI's forced pass without asking it; ``True`` if there was one to play."""
        board = self.board
        if self.human is not None and board.turn != self.human and board.must_pass():
            self._check_idle()
            self._apply(board.pass_action)
            return True
        return False

    def _evaluation(
        self, board: Board, kind: ThinkKind, name: str, result: PlayResult
    ) -> Evaluation:
        n = board.size * board.size + 1
        value = exact = win_prob = None
        unit = "discs"
        if result.score is not None:
            score = result.score if board.turn == self._pov() else result.score.flipped()
            unit = "result" if getattr(score, "unit", "discs") == "result" else "discs"
            value = round(float(score.value), 3)
            exact = bool(score.exact)
            win_prob = None if score.win_prob is None else round(float(score.win_prob), 4)
        policy = None
        if result.policy is not None:
            p = np.asarray(result.policy, dtype=np.float64).ravel()
            if p.shape == (n,) and np.all(np.isfinite(p)):
                policy = [round(float(x), 4) for x in p]
        return Evaluation(
            ply=self.cursor,
            by=kind,
            player=name,
            move=square_name(int(result.move), board.size),
            value=value,
            unit=unit,
            exact=bool(exact),
            win_prob=win_prob,
            policy=policy,
        )

    # ------------------------------------------------------------------------------------------
    # The view

    def state(self) -> GameState:
        """The game as the page shows it."""
        board = self.board
        size = board.size
        black, white = board.black, board.white
        cells = [1 if black >> i & 1 else 2 if white >> i & 1 else 0 for i in range(size * size)]
        over = board.is_game_over()
        result = None
        outcome = board.outcome()
        if outcome is not None:
            b, w = outcome.final_counts()
            winner = outcome.winner
            result = Result(
                winner=None if winner is None else _color_name(winner),
                black=b,
                white=w,
                text=str(outcome),
                human_score=None if self.human is None else outcome.score(self.human),
            )
        to_move: Literal["human", "ai", "nobody"] = (
            "nobody" if over else "human" if self.is_human_turn(board) else "ai"
        )
        last = self.actions[self.cursor - 1] if self.cursor else None
        latest = [p for p in self.evaluations if p < self.cursor]
        return GameState(
            id=self.id,
            size=size,
            human="both" if self.human is None else _color_name(self.human),
            opponent=self.opponent_spec,
            cells=cells,
            turn=_color_name(board.turn),
            to_move=to_move,
            legal=board.legal_moves.names(),
            must_pass=board.must_pass(),
            game_over=over,
            black_discs=board.disc_count(BLACK),
            white_discs=board.disc_count(WHITE),
            result=result,
            ply=self.cursor,
            moves=[square_name(a, size) for a in self.actions],
            last_move=None if last is None else square_name(last, size),
            transcript=format_transcript(self.actions[: self.cursor], size=size),
            can_undo=self._undo_target() is not None,
            can_redo=self.cursor < len(self.actions),
            busy=self.busy,
            evaluation=self.evaluations[max(latest)] if latest else None,
            hint=self.hint if self.hint is not None and self.hint.ply == self.cursor else None,
            version=self.version,
        )

    def close(self) -> None:
        """Release the players' outside resources."""
        for p in (self.player, self._hint_player):
            if p is not None:
                with contextlib.suppress(Exception):  # one failing close must not stop the other
                    p.close()


class GameStore:
    """The games of one server, keyed by random ids; idle games expire after ``ttl`` seconds."""

    def __init__(
        self,
        *,
        default_opponent: str,
        hint_spec: str,
        ttl: float = 3600.0,
        max_games: int = 100,
        think_time: float | None = None,
        max_think_time: float = MAX_THINK_TIME,
        max_nodes: int = MAX_NODES,
        models: ModelCatalog | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        _check_positive("ttl", ttl)
        _check_positive("max_think_time", max_think_time)
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
        self.models = models or ModelCatalog(allow_paths=False)
        self.clock = clock
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def create(self, request: NewGame) -> WebGame:
        """A new game from a validated request; bad specs and records raise ``Unprocessable``."""
        self.expire()
        spec = (request.opponent or self.default_opponent).strip()
        think_time = request.think_time if request.think_time is not None else self.think_time
        if think_time is not None and think_time > self.max_think_time:
            raise Unprocessable(
                f"think_time {think_time:g} s is over this server's maximum of "
                f"{self.max_think_time:g} s (othellolab serve --max-think-time)"
            )
        player = self.make_player(spec, "opponent")
        start = Board(size=request.size)
        actions: list[int] = []
        if request.record is not None:
            fmt = request.record_format
            if fmt == "auto":
                fmt = "ggf" if "(;" in request.record else "transcript"
            try:
                if fmt == "ggf":
                    game = next(parse_ggf(request.record, source="record"), None)
                    if game is None:
                        raise ValueError("no GGF game '(;...;)' found")
                    start, actions = game.start, list(game.moves)
                else:
                    actions = parse_transcript(request.record, size=request.size)
            except OthelloError as e:
                player.close()
                raise Unprocessable(f"record ({fmt}): {e}") from None
        elif request.ply is not None:
            player.close()
            raise Unprocessable("ply is only meaningful with a record to load")
        human: Color | None
        if request.human == "both":
            human = None
        elif request.human == "random":
            human = int(np.random.default_rng(request.seed).integers(2))
        else:
            human = BLACK if request.human == "black" else WHITE
        limit = Limit(time=think_time, max_time=self.max_think_time, max_nodes=self.max_nodes)
        game_id = secrets.token_urlsafe(12)
        try:
            game = WebGame(
                game_id,
                start=start,
                human=human,
                opponent_spec=spec,
                player=player,
                hint_spec=self.hint_spec,
                actions=actions,
                ply=request.ply,
                limit=limit,
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

    def make_player(self, spec: str, what: str) -> Player:
        """The player of ``spec``, its model names resolved in this server's catalog only; an
        external engine (which would run a command on this machine) or a player of another
        game than Othello is refused."""
        try:
            if get_entry(parse_spec(spec)[0]).name in EXTERNAL_PLAYERS:
                raise Unprocessable(
                    f"{what} {spec[:200]!r}: the web board does not start external engines"
                )
            return make_game_player(spec, "othello", models=self.models)
        except OthelloError as e:
            raise Unprocessable(f"{what} {spec[:200]!r}: {e}") from None

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
