"""A game of the web board (``store.GameStore`` holds them): any registered game's positions
along a recorded line with a cursor (undo/redo/replay), the specs of its AI opponent and hint
player, what they said, and a lock.

A game holds its record and settings, never a player: its searches are ``SearchJob``s that the
search workers run with their own players (``searches``). The AI thinks outside the game's lock
(``begin_think`` / ``finish_think``), so reading a game never waits for a search; while it
thinks, changes to that game are refused with a clear 409. Every search runs under the
server's caps (``max_think_time`` seconds, ``max_nodes``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from othellolab.core import IllegalMoveError, InvalidMoveError, Limit
from othellolab.core.games import Game, position_game
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
from othellolab.ui.web.searches import SearchJob, ThinkKind
from othellolab.ui.web.views import (
    chooses,
    evaluation,
    final_score,
    move_info,
    must_pass,
)


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
        self.version = 0
        self.line = 0  # grows when the record is entered elsewhere than where the AI left it
        self.clock = clock
        self.last_access = clock()
        self.client: str | None = None  # the address that opened it here (not kept on disk)

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
            self.line += 1

    def begin_think(self, kind: ThinkKind) -> tuple[Any, int]:
        """Mark the game busy and hand out the board searched and the version that
        ``finish_think`` checks."""
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
        self.busy = kind
        self.last_access = self.clock()
        return board, self.version

    def search_job(
        self, kind: ThinkKind, request: HintRequest | AnalyseRequest | None = None
    ) -> SearchJob:
        """The search begun by ``begin_think``, as a job for a search worker: the AI's move;
        a hint (with ``all_moves``, every move's score too); the whole recorded game's
        analysis."""
        limit = self.limit or Limit()
        spec = self.opponent_spec if kind == "ai" else self.hint_spec
        owner = (f"{self.id}:{kind}", self.line)
        if kind == "analysis":
            assert isinstance(request, AnalyseRequest)
            cap = limit.max_time
            if cap is not None and request.time_per_move > cap:
                raise Unprocessable(
                    f"time_per_move {request.time_per_move:g} s is over this server's maximum "
                    f"of {cap:g} s a search"
                )
            return SearchJob(
                kind,
                spec,
                self.rules.key,
                owner,
                None,
                limit,
                positions=tuple(self.boards),
                actions=tuple(self.actions),
                time_per_move=request.time_per_move,
                max_analysis_time=self.max_analysis_time,
            )
        all_moves = isinstance(request, HintRequest) and request.all_moves
        return SearchJob(kind, spec, self.rules.key, owner, self.board, limit, all_moves=all_moves)

    def abort_think(self) -> None:
        """The search failed or was abandoned: the game is free again, unchanged."""
        self.busy = None
        self.last_access = self.clock()

    def finish_think(self, kind: ThinkKind, version: int, outcome: Any) -> None:
        """Apply the AI's move, or store the hint or the analysis, with the player's report
        (``outcome``: what ``think_job``'s work returned, or a bare ``PlayResult``)."""
        self.busy = None
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

    def state(self, queued: int | None = None) -> GameState:
        """The game as the page shows it; ``queued``: its search's place in the queue."""
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
            queue=queued,
        )

    def export(self, fmt: str) -> str:
        """The whole recorded game as text: ``ggf`` (a GGF game, for games written in GGF) or
        ``transcript`` (the moves in the game's notation, passes left out)."""
        rules = self.rules
        if fmt == "ggf":
            if rules.record_format != "ggf":
                raise Unprocessable(
                    f"format: {rules.title or rules.name} games are not written in GGF; "
                    "ask for transcript"
                )
            from othellolab.records import GameRecord
            from othellolab.records.ggf import format_ggf

            names = ["human", "human"] if self.human is None else ["", ""]
            if self.human is not None:
                names[self.human], names[1 - self.human] = "human", self.opponent_spec
            final = self.boards[-1]
            score = None
            if final.is_game_over():
                mine = final_score(rules, final)
                score = int(mine if final.turn == 0 else -mine)
            record = GameRecord(
                moves=tuple(self.actions),
                start=self.boards[0],
                headers={"place": "othellolab web board", "black": names[0], "white": names[1]},
                recorded_score=score,
            )
            return format_ggf(record) + "\n"
        if fmt == "transcript":
            pairs = [
                (b, a)
                for b, a in zip(self.boards, self.actions, strict=False)
                if a != rules.pass_action
            ]
            if self.boards[0] == rules.start_position():
                if rules.record_format == "ggf":
                    from othellolab.records import GameRecord

                    return (
                        GameRecord(moves=tuple(self.actions), start=self.boards[0]).transcript()
                        + "\n"
                    )
                return rules.format_moves([a for _, a in pairs]) + "\n"
            return " ".join(rules.move_name(b, a) for b, a in pairs) + "\n"
        raise Unprocessable(f"format: {fmt[:20]!r} is not one of ggf, transcript")

    # ------------------------------------------------------------------------------------------
    # Kept: what the games database stores of a game, and the game again from it

    def record(self) -> dict[str, Any]:
        """The game as the games database keeps it (JSON-ready values)."""
        board = self.boards[-1]
        return {
            "id": self.id,
            "game": self.rules.key,
            "start": position_text(self.rules, self.boards[0]),
            "human": self.human,
            "opponent": self.opponent_spec,
            "hint": self.hint_spec,
            "think_time": None if self.limit is None else self.limit.time,
            "actions": list(self.actions),
            "cursor": self.cursor,
            "evaluations": {
                str(p): e.model_dump(mode="json") for p, e in sorted(self.evaluations.items())
            },
            "analysis": None if self.analysis is None else self.analysis.model_dump(mode="json"),
            "version": self.version,
            "result": self.rules.describe_end(board) if board.is_game_over() else None,
        }

    @classmethod
    def from_record(
        cls,
        row: dict[str, Any],
        *,
        limit: Limit,
        max_analysis_time: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> WebGame:
        """The game a ``record()`` kept, under this server's ``limit`` (its think time the
        game's own)."""
        from othellolab.core.games import get_game

        rules = get_game(row["game"])
        game = cls(
            row["id"],
            start=position_from_text(rules, row["start"]),
            human=row["human"],
            opponent_spec=row["opponent"],
            hint_spec=row["hint"],
            actions=[int(a) for a in row["actions"]],
            ply=int(row["cursor"]),
            limit=Limit(time=row["think_time"], max_time=limit.max_time, max_nodes=limit.max_nodes),
            max_analysis_time=max_analysis_time,
            clock=clock,
        )
        game.evaluations = {
            int(p): Evaluation.model_validate(e) for p, e in row["evaluations"].items()
        }
        if row["analysis"] is not None:
            game.analysis = Analysis.model_validate(row["analysis"])
        game.version = int(row["version"])
        return game


OBF_PREFIX = "obf:"
"""How a database row marks a start position kept as an OBF line (games without a position
notation of their own, such as Othello loaded from GGF with its own start board)."""


def position_text(rules: Game, position: Any) -> str | None:
    """A start position as text: ``None`` for the game's own start, else the game's notation,
    else an OBF line (a ``Board``)."""
    from othellolab.core import Board

    if position == rules.start_position():
        return None
    text = rules.format_position(position)
    if text is not None:
        return text
    if isinstance(position, Board):
        return OBF_PREFIX + position.obf()
    raise Unprocessable(f"{rules.title or rules.name}: a start position it cannot write down")


def position_from_text(rules: Game, text: str | None) -> Any:
    """The start position ``position_text`` wrote."""
    from othellolab.core import Board

    if text is None:
        return rules.start_position()
    if text.startswith(OBF_PREFIX):
        return Board.from_obf(text[len(OBF_PREFIX) :])
    return rules.start_position(text)
