"""The engine side of the NBoard protocol (``nboard``): ``NBoardEngine`` answers a GUI, or any
NBoard client, with any move chooser; ``serve`` runs it over stdin and stdout.

This module sits below ``players``: the engine serves any object with ``choose(board, limit)``
returning a ``PlayResult`` (and optional ``reset``, ``close``, ``name``); a ``ping`` while it
thinks reaches it as ``Limit.stop``.

>>> import io
>>> class First:
...     name = "first"
...     def choose(self, board, limit=None):
...         return PlayResult(board.legal_actions()[0])
>>> out = io.StringIO()
>>> engine = NBoardEngine(First(), output=out)
>>> for line in ("nboard 2", "set depth 4", "ping 1", "go", "move d3", "ping 2"):
...     _ = engine.handle(line)
>>> print(out.getvalue().strip())
set myname first
pong 1
status first is thinking
=== D3
status
pong 2
"""

from __future__ import annotations

import dataclasses
import math
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import IO

from othellolab.core import Board, Limit, OthelloError, PlayResult, Stop, square_name
from othellolab.protocols.nboard import (
    MAX_DEPTH,
    MAX_HINT,
    Chooser,
    NBoardError,
    SearchLine,
    format_move,
    parse_eval,
    parse_move_token,
)
from othellolab.records.game import GameRecord
from othellolab.records.ggf import parse_ggf


class NBoardEngine:
    """The NBoard engine's state and command handlers over one move chooser.

    ``limit`` fixes the search limit of every ``go``/``hint``/``analyze`` (``set depth`` is
    then only recorded); without it, ``set depth N`` becomes ``Limit(depth=N)`` when
    ``use_depth`` (players that do not search by depth ignore it), else the chooser's own
    settings apply. ``handle`` processes one line and returns False on ``quit``.
    """

    def __init__(
        self,
        chooser: Chooser,
        *,
        output: IO[str] | None = None,
        name: str | None = None,
        limit: Limit | None = None,
        use_depth: bool = True,
    ) -> None:
        self.chooser = chooser
        self.output = output if output is not None else sys.stdout
        self.name = name or str(getattr(chooser, "name", "othellolab"))
        self.limit = limit
        self.use_depth = use_depth
        self.version: int | None = None
        self.depth: int | None = None
        self.contempt = 0.0
        self.start = Board()
        self.moves: list[int] = []
        self.board = self.start
        self.learned: list[GameRecord] = []
        self._lock = threading.Lock()
        self._stop: Stop | None = None
        self._commands: dict[str, Callable[[str, list[str]], None]] = {
            "nboard": self._nboard,
            "set": self._set,
            "move": self._move,
            "go": self._go,
            "hint": self._hint,
            "analyze": self._analyze,
            "ping": self._ping,
            "learn": self._learn,
        }

    # -- output

    def send(self, line: str) -> None:
        """Write one line and flush it (a GUI reads a pipe)."""
        with self._lock:
            self.output.write(line + "\n")
            self.output.flush()

    def _status(self, text: str = "") -> None:
        self.send(f"status {text}".rstrip())

    def _error(self, text: str) -> None:
        self.send("error " + " ".join(text.split()))

    # -- dispatch

    def handle(self, line: str) -> bool:
        """Process one command line; a bad one gets an ``error`` line. False on ``quit``."""
        text = line.strip()
        if not text:
            return True
        words = text.split()
        command = words[0].lower()
        if command == "quit":
            return False
        try:
            handler = self._commands.get(command)
            if handler is not None:
                handler(text, words)
            elif len(words) == 1 and len(command) == 2:  # NBoard 1.1 sends a bare "F5"
                self._move(text, ["move", *words])
            else:
                raise NBoardError(f"unknown command {words[0][:40]!r}")
        except NBoardError as e:
            self._error(str(e))
        except Exception as e:  # a failing chooser must not end the session
            self._error(f"{command}: {type(e).__name__}: {e}")
        return True

    def _limit(self) -> Limit | None:
        if self.limit is not None:
            return self.limit
        if self.use_depth and self.depth is not None:
            return Limit(depth=self.depth)
        return None

    # -- commands

    def _nboard(self, text: str, words: list[str]) -> None:
        self.version = _int(words, 1, 0, 1000, "nboard VERSION")
        self.send(f"set myname {self.name}")

    def _set(self, text: str, words: list[str]) -> None:
        if len(words) < 2:
            raise NBoardError("set: expected 'set depth N', 'set game GGF' or 'set contempt N'")
        what = words[1].lower()
        if what == "depth":
            self.depth = _int(words, 2, 1, MAX_DEPTH, "set depth N")
        elif what == "contempt":
            value = parse_eval(words[2]) if len(words) == 3 else None
            if value is None:
                raise NBoardError("set contempt: expected one finite number")
            self.contempt = value
        elif what == "game":
            ggf = text.split(None, 2)[2] if len(words) > 2 else ""
            try:
                games = list(parse_ggf(ggf, source="set game"))
            except OthelloError as e:
                raise NBoardError(str(e)) from None
            if len(games) != 1:
                raise NBoardError(f"set game: expected one GGF game, got {len(games)}")
            self._new_game(games[0].start, list(games[0].moves))
        else:
            raise NBoardError(f"set: unknown option {words[1][:40]!r}")

    def _new_game(self, start: Board, moves: list[int]) -> None:
        board = start
        for a in moves:
            board = board.play(a)
        continued = start == self.start and moves[: len(self.moves)] == self.moves
        if not continued:
            reset = getattr(self.chooser, "reset", None)
            if callable(reset):
                reset()
        self.start, self.moves, self.board = start, moves, board

    def _move(self, text: str, words: list[str]) -> None:
        if len(words) != 2:
            raise NBoardError("move: expected 'move F5' (or 'move F5/eval/time', 'move PA')")
        if self.board.is_game_over():
            raise NBoardError("move: the game is over")
        action = parse_move_token(words[1], self.board)
        self.moves.append(action)
        self.board = self.board.play(action)

    def _ping(self, text: str, words: list[str]) -> None:
        n = words[1] if len(words) > 1 else "0"
        if len(words) > 2 or not n.lstrip("-").isdigit() or len(n) > 18:
            raise NBoardError("ping: expected 'ping N' with an integer N")
        self.send(f"pong {int(n)}")

    def _learn(self, text: str, words: list[str]) -> None:
        self.learned.append(GameRecord(tuple(self.moves), self.start))
        self.send("learned")

    def stop_search(self) -> None:
        """Ask the search in progress, if any, to answer now (from the input-reading thread:
        a GUI's ``ping`` while the engine thinks)."""
        stop = self._stop
        if stop is not None:
            stop.set()

    def _think(self, board: Board) -> tuple[PlayResult, float]:
        t0 = time.perf_counter()
        self._stop = stop = Stop()
        try:
            limit = dataclasses.replace(self._limit() or Limit(), stop=stop)
            result = self.chooser.choose(board, limit)
        finally:
            self._stop = None
        seconds = time.perf_counter() - t0
        if not board.is_legal(result.move):
            raise NBoardError(f"the player chose an illegal move ({result.move})")
        return result, seconds

    def _search_line(self, board: Board, result: PlayResult, seconds: float) -> SearchLine:
        info = result.info or {}
        pv = [str(m).upper() for m in info.get("pv") or []]
        if not pv or pv[0].lower() != square_name(result.move, board.size):
            pv = [format_move(result.move, board.size)]
        pv = ["PA" if m.lower() == "pass" else m for m in pv]
        depth = info.get("depth")
        exact = bool(result.score and result.score.exact)
        depth_text = f"{depth}@100%" if exact and depth is not None else str(depth or 0)
        ev = _eval_of(result)
        return SearchLine(tuple(pv), ev, depth_text, "")

    def _nodestats(self, result: PlayResult, seconds: float) -> None:
        nodes = (result.info or {}).get("nodes")
        if isinstance(nodes, int | float) and math.isfinite(nodes):
            self.send(f"nodestats {nodes:.0f} {seconds:.2f}")

    def _go(self, text: str, words: list[str]) -> None:
        board = self.board
        if board.is_game_over():
            raise NBoardError("go: the game is over")
        if board.must_pass():
            self.send("=== PA")
            return
        self._status(f"{self.name} is thinking")
        result, seconds = self._think(board)
        line = self._search_line(board, result, seconds)
        if line.eval is not None:
            self.send(line.format())
        self._nodestats(result, seconds)
        move = format_move(result.move, board.size)
        ev = line.eval
        self.send(f"=== {move}/{ev:.2f}/{seconds:.2f}" if ev is not None else f"=== {move}")
        self._status()

    def _hint(self, text: str, words: list[str]) -> None:
        count = _int(words, 1, 1, MAX_HINT, "hint N")
        board = self.board
        if board.is_game_over():
            raise NBoardError("hint: the game is over")
        self._status(f"{self.name} is thinking")
        try:
            if board.must_pass():
                ev, _ = self._evaluate(board.play(board.pass_action))
                self.send(SearchLine(("PA",), None if ev is None else -ev, "0").format())
                return
            result, seconds = self._think(board)
            best = self._search_line(board, result, seconds)
            self.send(best.format())
            self._nodestats(result, seconds)
            if count == 1 or best.eval is None:
                return
            others = [a for a in board.legal_actions() if a != result.move]
            if result.policy is not None:
                others.sort(key=lambda a: -float(result.policy[a]))  # type: ignore[index]
            for a in others[: count - 1]:
                ev, pv = self._evaluate(board.play(a))
                if ev is None:
                    break
                moves = (format_move(a, board.size), *pv)
                self.send(SearchLine(moves, -ev, best.depth).format())
        finally:
            self._status()

    def _evaluate(self, board: Board, *, passes: int = 0) -> tuple[float | None, tuple[str, ...]]:
        """The chooser's evaluation of ``board`` from its side to move, with its PV; exact at
        the end of the game; through a forced pass."""
        if board.is_game_over():
            return float(board.score()), ()
        if board.must_pass() and passes == 0:
            ev, pv = self._evaluate(board.play(board.pass_action), passes=1)
            return (None if ev is None else -ev), ("PA", *pv)
        result, seconds = self._think(board)
        line = self._search_line(board, result, seconds)
        return line.eval, line.pv

    def _analyze(self, text: str, words: list[str]) -> None:
        """``analysis N EVAL`` for each position of the game, from the last back to the start."""
        self._status(f"{self.name} is analyzing")
        boards = [self.start]
        for a in self.moves:
            boards.append(boards[-1].play(a))
        try:
            for n in range(len(boards) - 1, -1, -1):
                ev, _ = self._evaluate(boards[n])
                if ev is None:
                    raise NBoardError(f"analyze: {self.name} reports no evaluation")
                self.send(f"analysis {n} {ev:.2f}")
        finally:
            self._status()


def _eval_of(result: PlayResult) -> float | None:
    if result.score is None or not math.isfinite(result.score.value):
        return None
    return float(result.score.value)


def _int(words: list[str], index: int, lo: int, hi: int, usage: str) -> int:
    if len(words) != index + 1:
        raise NBoardError(f"expected '{usage}'")
    text = words[index]
    if not text.lstrip("-").isdigit() or len(text) > 9 or not lo <= int(text) <= hi:
        raise NBoardError(f"{usage}: {text[:20]!r} is not an integer in [{lo}, {hi}]")
    return int(text)


def serve(
    chooser: Chooser,
    *,
    input: IO[str] | None = None,
    output: IO[str] | None = None,
    name: str | None = None,
    limit: Limit | None = None,
    use_depth: bool = True,
) -> NBoardEngine:
    """Run an NBoard engine over ``input``/``output`` (stdin/stdout) until ``quit`` or the end
    of input; the chooser is closed at the end. A ``ping`` that arrives while the chooser
    thinks sets the search's ``Limit.stop``, so that it answers at once with its best move."""
    source = input if input is not None else sys.stdin
    engine = NBoardEngine(chooser, output=output, name=name, limit=limit, use_depth=use_depth)
    lines: queue.Queue[str | None] = queue.Queue()
    busy = threading.Event()

    def read() -> None:
        try:
            for line in source:
                lines.put(line)
                if busy.is_set() and line.split()[:1] == ["ping"]:
                    engine.stop_search()
        finally:
            lines.put(None)

    threading.Thread(target=read, name="nboard-reader", daemon=True).start()
    try:
        while (line := lines.get()) is not None:
            busy.set()
            try:
                if not engine.handle(line):
                    break
            except BrokenPipeError:  # the GUI went away: end quietly
                break
            finally:
                busy.clear()
    finally:
        close = getattr(chooser, "close", None)
        if callable(close):
            close()
    return engine
