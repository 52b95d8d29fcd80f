"""A game of the web board, kept in memory (``store.GameStore`` holds them): any registered
game's positions along a recorded line with a cursor (undo/redo/replay), an AI opponent from
the player registry, a hint player that also analyses, and a lock.

The AI thinks outside the game's lock (``begin_think`` / ``finish_think``), so reading a game
never waits for a search; while it thinks, changes to that game are refused with a clear 409.
Every search runs under the server's caps (``max_think_time`` seconds, ``max_nodes``) and with
a ``Stop`` signal that the app sets when the client goes away or the server shuts down.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from othellolab.core import (
    IllegalMoveError,
    InvalidMoveError,
    Limit,
    PlayResult,
    Stop,
)
from othellolab.core.games import Game, position_game
from othellolab.players import Player, make_player
from othellolab.ui.web import analysis as _analysis
from othellolab.ui.web.errors import Conflict, PlayerFailed, Unprocessable
from othellolab.ui.web.limits import MAX_ANALYSIS_TIME
from othellolab.ui.web.models import (
    AnalyseRequest,
    Analysis,
    Evaluation,
    GameState,
    HintRequest,
    Result,
)
from othellolab.ui.web.views import (
    chooses,
    evaluation,
    final_score,
    move_info,
    must_pass,
)

ThinkKind = Literal["ai", "hint", "analysis"]


class WebGame:
    """One game of any registered game: the start position, the recorded actions (passes
    explicit) and a cursor.

    ``boards[i]`` is the position after ``i`` actions (a position of the game: ``Board``,
    ``AnimalShogi``, ...). Undo and redo move the cursor; a move played before the end of the
    record replaces the rest of it (or just steps forward when it is the recorded next move).
    """

    def __init__(
        self,
        game_id: str,
        *,
        start: Any,
        human: int | None,
        opponent_spec: str,
        player: Player,
        hint_spec: str,
        actions: list[int] | None = None,
        ply: int | None = None,
        limit: Limit | None = None,
        max_analysis_time: float = MAX_ANALYSIS_TIME,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.id = game_id
        self.rules: Game = position_game(start)
        self.human = human
        self.opponent_spec = opponent_spec
        self.player = player
        self.hint_spec = hint_spec
        self.limit = limit
        self.max_analysis_time = max_analysis_time
        self.lock = threading.Lock()
        self.actions: list[int] = []
        self.boards: list[Any] = [start]
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
        self.analysis: Analysis | None = None
        self.stop: Stop | None = None
        self.version = 0
        self.clock = clock
        self.last_access = clock()
        self._hint_player: Player | None = None

    # ------------------------------------------------------------------------------------------
    # Facts

    @property
    def board(self) -> Any:
        """The position shown: after ``cursor`` actions."""
        return self.boards[self.cursor]

    @property
    def size(self) -> int:
        """Rows of the game's board."""
        return self.rules.rows

    def side(self, side: int) -> str:
        """A side's name in this game (``black``, ``sente``)."""
        return self.rules.side_names[side]

    def is_human_turn(self, board: Any) -> bool:
        """Whether the side to move in ``board`` is played by the human."""
        return self.human is None or board.turn == self.human

    def _pov(self) -> int:
        return 0 if self.human is None else self.human

    def _legal_names(self, board: Any) -> str:
        return ", ".join(self.rules.move_name(board, a) for a in board.legal_actions()) or "none"

    # ------------------------------------------------------------------------------------------
    # Changes (call with ``lock`` held)

    def _check_idle(self) -> None:
        if self.busy == "ai":
            raise Conflict(f"game {self.id}: the AI is thinking; wait for its move")
        if self.busy == "hint":
            raise Conflict(f"game {self.id}: a hint is being computed; wait for it")
        if self.busy == "analysis":
            raise Conflict(f"game {self.id}: the game is being analysed; wait for it")

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
            self.analysis = None
        self.hint = None
        self.version += 1

    def play_human(self, move: str) -> None:
        """Play the human's move (its name in the game's notation, or ``pass``) in the
        position shown."""
        self._check_idle()
        board = self.board
        if board.is_game_over():
            raise Conflict(f"game {self.id}: the game is over; no more moves")
        try:
            action = self.rules.parse_move(board, move)
        except InvalidMoveError as e:
            raise Unprocessable(
                f"game {self.id}: invalid move {move!r}: {e}; legal moves: "
                f"{self._legal_names(board)}"
            ) from None
        if not self.is_human_turn(board):
            raise Conflict(
                f"game {self.id}: it is {self.side(board.turn)}'s turn, played by the AI "
                f"({self.opponent_spec}); you play {self.side(self._pov())}"
            )
        try:
            self._apply(action)
        except IllegalMoveError as e:
            raise Unprocessable(f"game {self.id}, move {self.cursor + 1}: {e}") from None

    def _undo_target(self) -> int | None:
        for p in range(self.cursor - 1, -1, -1):
            b = self.boards[p]
            if self.human is None or (b.turn == self.human and chooses(self.rules, b)):
                return p
        return None

    def _redo_target(self) -> int | None:
        if self.cursor >= len(self.actions):
            return None
        for p in range(self.cursor + 1, len(self.actions) + 1):
            b = self.boards[p]
            if (
                self.human is None
                or (b.turn == self.human and chooses(self.rules, b))
                or b.is_game_over()
            ):
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

    def hint_player(self) -> Player:
        """The player that gives hints and analyses (made on first use)."""
        if self._hint_player is None:
            self._hint_player = make_player(self.hint_spec, self.rules.name)
        return self._hint_player

    def begin_think(self, kind: ThinkKind) -> tuple[Any, Player, int]:
        """Mark the game busy and hand out what a search needs: the board, the player, and the
        version that ``finish_think`` checks. ``search_limit()`` is then the search's limit,
        with a fresh ``stop`` signal."""
        self._check_idle()
        board = self.board
        if kind == "analysis":
            if not self.actions:
                raise Conflict(f"game {self.id}: no move has been played; nothing to analyse")
        elif board.is_game_over():
            raise Conflict(f"game {self.id}: the game is over; no more moves")
        if kind == "ai":
            if self.human is not None and board.turn == self.human:
                raise Conflict(
                    f"game {self.id}: it is {self.side(board.turn)}'s turn, the human's; "
                    "the AI moves only on its own turn"
                )
            if self.human is None:
                raise Conflict(f"game {self.id}: both sides are human here; there is no AI")
            player = self.player
        else:
            player = self.hint_player()
        self.busy = kind
        self.stop = Stop()
        self.last_access = self.clock()
        return board, player, self.version

    def search_limit(self) -> Limit:
        """The limit of the search in flight: the game's, with that search's stop signal."""
        base = self.limit or Limit()
        return dataclasses.replace(base, stop=self.stop)

    def think_job(
        self,
        kind: ThinkKind,
        board: Any,
        player: Player,
        request: HintRequest | AnalyseRequest | None = None,
    ) -> Callable[[], Any]:
        """The work of a search begun by ``begin_think``, to run outside the lock: the
        player's move; for a hint asked ``all_moves``, also every move's score; for an
        analysis, the whole recorded game's."""
        limit = self.search_limit()
        rules = self.rules
        if kind == "analysis":
            assert isinstance(request, AnalyseRequest)
            cap = limit.max_time
            if cap is not None and request.time_per_move > cap:
                raise Unprocessable(
                    f"time_per_move {request.time_per_move:g} s is over this server's maximum "
                    f"of {cap:g} s a search"
                )
            positions, actions = list(self.boards), list(self.actions)
            return lambda: _analysis.analyse(
                rules,
                positions,
                actions,
                player,
                name=self.hint_spec,
                time_per_move=request.time_per_move,
                max_time=self.max_analysis_time,
                limit=limit,
            )
        all_moves = isinstance(request, HintRequest) and request.all_moves

        def job() -> tuple[PlayResult, dict[int, Any] | None]:
            result = player.choose(board, limit)
            scores = _analysis.move_scores(rules, board, player, limit) if all_moves else None
            return result, scores

        return job

    def stop_search(self) -> None:
        """Ask the search in flight, if any, to return now."""
        if self.stop is not None:
            self.stop.set()

    def abort_think(self) -> None:
        """The search failed or was abandoned: the game is free again, unchanged."""
        self.busy = None
        self.stop = None
        self.last_access = self.clock()

    def finish_think(self, kind: ThinkKind, version: int, outcome: Any) -> None:
        """Apply the AI's move, or store the hint or the analysis, with the player's report
        (``outcome``: what ``think_job``'s work returned, or a bare ``PlayResult``)."""
        self.busy = None
        self.stop = None
        self.last_access = self.clock()
        if version != self.version:
            raise Conflict(f"game {self.id}: the game changed while the {kind} was computed")
        if kind == "analysis":
            self.analysis = outcome
            self.version += 1
            return
        result, scores = outcome if isinstance(outcome, tuple) else (outcome, None)
        board = self.board
        name = self.opponent_spec if kind == "ai" else self.hint_spec
        legal = board.legal_actions()
        if not isinstance(result.move, int | np.integer) or int(result.move) not in legal:
            raise PlayerFailed(
                f"game {self.id}: player {name!r} answered {result.move!r}, not a legal move; "
                f"legal: {self._legal_names(board)}"
            )
        report = evaluation(
            self.rules,
            board,
            ply=self.cursor,
            by=kind,
            player=name,
            result=result,
            pov=self._pov(),
            scores=scores,
        )
        if kind == "ai":
            self.evaluations[self.cursor] = report
            self._apply(int(result.move))
        else:
            self.hint = report
            self.version += 1

    def pass_for_ai(self) -> bool:
        """Play the AI's forced pass without asking it; ``True`` if there was one to play."""
        board = self.board
        if self.human is not None and board.turn != self.human and must_pass(self.rules, board):
            self._check_idle()
            self._apply(self.rules.pass_action)  # type: ignore[arg-type]
            return True
        return False

    # ------------------------------------------------------------------------------------------
    # The view

    def _result(self, board: Any, view: dict[str, Any]) -> Result | None:
        if not board.is_game_over():
            return None
        score = final_score(self.rules, board)
        winner = None if not score else board.turn if score > 0 else 1 - board.turn
        final = view.get("final") or [None, None]
        human_score = None
        if self.human is not None:
            human_score = int(score if board.turn == self.human else -score)
        return Result(
            winner=None if winner is None else self.side(winner),
            black=final[0],
            white=final[1],
            text=self.rules.describe_end(board),
            reason=self.rules.end_reason(board),
            human_score=human_score,
        )

    def _transcript(self) -> str:
        """The moves up to the cursor in the game's record notation, passes left out; from a
        start other than the game's own, the moves' names separated by spaces."""
        rules = self.rules
        pairs = [
            (b, a)
            for b, a in zip(self.boards, self.actions[: self.cursor], strict=False)
            if a != rules.pass_action
        ]
        if self.boards[0] == rules.start_position():
            return rules.format_moves([a for _, a in pairs])
        return " ".join(rules.move_name(b, a) for b, a in pairs)

    def state(self) -> GameState:
        """The game as the page shows it."""
        rules = self.rules
        board = self.board
        view = rules.board_view(board)
        over = board.is_game_over()
        to_move: Literal["human", "ai", "nobody"] = (
            "nobody" if over else "human" if self.is_human_turn(board) else "ai"
        )
        legal = [a for a in board.legal_actions() if a != rules.pass_action]
        infos = [move_info(rules, board, a) for a in legal]
        last = self.actions[self.cursor - 1] if self.cursor else None
        before = self.boards[self.cursor - 1] if self.cursor else None
        latest = [p for p in self.evaluations if p < self.cursor]
        counts = view.get("counts") or [None, None]
        names = [rules.move_name(b, a) for b, a in zip(self.boards, self.actions, strict=False)]
        return GameState(
            id=self.id,
            game=rules.key,
            title=rules.title or rules.name,
            sides=list(rules.side_names),
            size=rules.rows,
            human="both" if self.human is None else self.side(self.human),
            opponent=self.opponent_spec,
            view=view,
            cells=list(view.get("cells", [])),
            turn=self.side(board.turn),
            to_move=to_move,
            legal=[m.name for m in infos],
            legal_moves=infos,
            must_pass=must_pass(rules, board),
            game_over=over,
            black_discs=counts[0],
            white_discs=counts[1],
            result=self._result(board, view),
            ply=self.cursor,
            moves=names,
            last_move=None if last is None else names[self.cursor - 1],
            last_parts=None if last is None else move_info(rules, before, last),
            transcript=self._transcript(),
            position=rules.format_position(board),
            score_scale=rules.score_scale,
            can_undo=self._undo_target() is not None,
            can_redo=self.cursor < len(self.actions),
            busy=self.busy,
            evaluation=self.evaluations[max(latest)] if latest else None,
            hint=self.hint if self.hint is not None and self.hint.ply == self.cursor else None,
            analysis=self.analysis,
            version=self.version,
        )

    def close(self) -> None:
        """Release the players' outside resources."""
        for p in (self.player, self._hint_player):
            if p is not None:
                with contextlib.suppress(Exception):  # one failing close must not stop the other
                    p.close()
