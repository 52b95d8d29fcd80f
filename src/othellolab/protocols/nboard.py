"""The NBoard protocol, both sides: ``NBoardEngine``/``serve`` answer a GUI (or any NBoard
client) with any move chooser, and ``NBoardClient`` drives an external NBoard engine (Edax,
NTest, ...) as a subprocess with timeouts and a clean shutdown.

One command a line, in both directions. The GUI sends ``nboard 2`` first, then ``set depth N``,
``set game GGF`` (later commands concern the position at the end of that game), ``move F5``
(``/eval/time`` optional; ``PA`` passes), ``go`` (the engine answers ``=== MOVE/eval/time`` and
does not play it), ``hint N`` (``search PV EVAL 0 DEPTH`` lines for up to N moves), ``analyze``
(``analysis N EVAL`` for each position of the game, N moves from its start), ``ping N`` (stop
thinking, answer ``pong N``), ``learn`` (answered ``learned``), ``set contempt N``. While it
thinks the engine sends ``status TEXT`` and ``nodestats NODES SECONDS``; a bare ``status`` ends
a hint or an analysis. Evaluations are from the side to move, in discs when the chooser reports
discs. A line this engine cannot use gets ``error TEXT`` and the engine keeps running.

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

import collections
import contextlib
import dataclasses
import math
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from othellolab.core import Board, Limit, OthelloError, PlayResult, Stop, parse_move, square_name
from othellolab.records.game import Game
from othellolab.records.ggf import format_ggf, parse_ggf

__all__ = [
    "PROTOCOL_VERSION",
    "Chooser",
    "EngineTimeout",
    "MoveReply",
    "NBoardClient",
    "NBoardEngine",
    "NBoardError",
    "SearchLine",
    "format_move",
    "parse_move_token",
    "position_ggf",
    "serve",
]

PROTOCOL_VERSION = 2
"""The NBoard protocol version this module speaks (``nboard 2``)."""

MAX_DEPTH = 60
MAX_HINT = 64


class NBoardError(OthelloError):
    """A protocol failure: a malformed line, an illegal move, an engine that died or answered
    something unusable. ``where`` names the engine or the command."""


class EngineTimeout(NBoardError):
    """An engine that did not answer in time (it is killed: its state is unknown)."""


class Chooser(Protocol):
    """What the engine serves: ``choose(board, limit) -> PlayResult``, as every player has."""

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult: ...


# ----------------------------------------------------------------------------------------------
# Wire format


def format_move(action: int, size: int = 8) -> str:
    """A move as NBoard writes it: ``F5``, or ``PA`` for a pass.

    >>> format_move(37), format_move(64)
    ('F5', 'PA')
    """
    n = size * size
    return "PA" if action == n else square_name(action, size).upper()


def parse_move_token(token: str, board: Board) -> int:
    """The action of a move token (``F5``, ``f5``, ``PA``, ``pass``; anything after a ``/``,
    the eval and time, is ignored), checked legal in ``board``."""
    text = token.split("/", 1)[0].strip()
    try:
        action = parse_move(text, board.size)
    except (OthelloError, ValueError) as e:
        raise NBoardError(f"bad move {token!r}: {e}") from None
    if not board.is_legal(action):
        legal = " ".join(format_move(a, board.size) for a in board.legal_actions()) or "none"
        raise NBoardError(f"illegal move {text!r} here; legal: {legal}")
    return action


def position_ggf(board: Board, moves: Sequence[int] = ()) -> str:
    """The GGF game ``set game`` sends: ``board`` as the start (``BO``) and ``moves`` after it."""
    game = Game(tuple(moves), board, {"place": "othellolab", "black": "?", "white": "?"})
    return format_ggf(game)


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class SearchLine:
    """A ``search`` (or ``book``) line: the principal variation as moves, the evaluation from
    the side to move, the depth as the engine writes it (``12``, ``22@73%``) and free text."""

    pv: tuple[str, ...]
    eval: float | None
    depth: str = ""
    text: str = ""
    book: bool = False

    @property
    def move(self) -> str | None:
        return self.pv[0] if self.pv else None

    @classmethod
    def parse(cls, line: str) -> SearchLine:
        words = line.split()
        kind, rest = words[0], words[1:]
        pv_text = rest[0] if rest else ""
        if "-" in pv_text:  # "F5-D6-C3"
            pv = tuple(m for m in pv_text.split("-") if m)
        else:  # "F5d6C3"
            pv = tuple(pv_text[i : i + 2] for i in range(0, len(pv_text), 2))
        ev = _float(rest[1]) if len(rest) > 1 else None
        depth = rest[3] if len(rest) > 3 else ""
        return cls(pv, ev, depth, " ".join(rest[4:]), kind == "book")

    def format(self) -> str:
        ev = "0.00" if self.eval is None else f"{self.eval:.2f}"
        line = f"{'book' if self.book else 'search'} {'-'.join(self.pv) or 'PA'} {ev} 0 {self.depth or 0}"
        return line + (f" {self.text}" if self.text else "")


@dataclass(frozen=True)
class MoveReply:
    """An engine's answer to ``go``: the action, its evaluation and thinking time if given,
    and what it said while thinking (search lines, the last node count and status)."""

    move: int
    eval: float | None = None
    seconds: float | None = None
    searches: tuple[SearchLine, ...] = ()
    nodes: float | None = None
    status: tuple[str, ...] = ()
    text: str = ""


# ----------------------------------------------------------------------------------------------
# The engine side


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
        self.learned: list[Game] = []
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
            value = _float(words[2]) if len(words) == 3 else None
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
        self.learned.append(Game(tuple(self.moves), self.start))
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


# ----------------------------------------------------------------------------------------------
# The client side


@dataclass
class _Listen:
    """What an engine said since the last command: status, search lines, node counts."""

    status: list[str] = field(default_factory=list)
    searches: list[SearchLine] = field(default_factory=list)
    nodes: float | None = None
    errors: list[str] = field(default_factory=list)


class NBoardClient:
    """An external NBoard engine in a subprocess: ``command`` (a string split like a shell
    would, or a list) is started in its own process group with pipes for stdin, stdout and
    stderr; the handshake (``nboard 2``, then ``ping``/``pong``) must finish within
    ``start_timeout`` seconds. Every wait has a timeout; on a timeout the engine is killed and
    ``EngineTimeout`` raised. ``close`` (also at interpreter exit) sends ``quit``, then
    terminates and finally kills the process group."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        cwd: str | Path | None = None,
        start_timeout: float = 30.0,
        env: dict[str, str] | None = None,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise NBoardError("empty engine command")
        self.argv = argv
        self.label = Path(argv[0]).name
        self.engine_name: str | None = None
        self._pings = 0
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="latin-1",
                bufsize=1,
                cwd=cwd,
                env=env,
                start_new_session=os.name == "posix",
            )
        except OSError as e:
            raise NBoardError(f"cannot start {shlex.join(argv)}: {e}") from None
        self._finalizer = weakref.finalize(self, _shutdown, self.proc, 1.0)
        threading.Thread(target=self._pump_out, daemon=True, name="nboard-stdout").start()
        self._err_thread = threading.Thread(
            target=self._pump_err, daemon=True, name="nboard-stderr"
        )
        self._err_thread.start()
        try:
            self.send(f"nboard {PROTOCOL_VERSION}")
            self.ping(timeout=start_timeout)
        except BaseException:
            self.close()
            raise

    # -- plumbing

    def _pump_out(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.suppress(ValueError, OSError):
            for line in self.proc.stdout:
                self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        with contextlib.suppress(ValueError, OSError):
            for line in self.proc.stderr:
                self._stderr.append(line.rstrip())

    def _where(self) -> str:
        return f"engine {self.engine_name or self.label}"

    def _died(self, doing: str) -> NBoardError:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(1.0)
        self._err_thread.join(1.0)  # what it said on the way out
        code = self.proc.poll()
        tail = " | ".join(list(self._stderr)[-5:])
        self.close()
        return NBoardError(
            f"the engine exited (code {code}) while {doing}"
            + (f"; stderr: {tail}" if tail else ""),
            where=self._where(),
        )

    def send(self, line: str) -> None:
        """Write one command line to the engine."""
        if "\n" in line or "\r" in line:
            raise NBoardError(f"a command must be one line: {line!r}")
        stdin = self.proc.stdin
        if stdin is None or self.proc.poll() is not None:
            raise self._died(f"sending {line.split()[0]!r}")
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(f"sending {line.split()[0]!r}") from None

    def _wait(
        self, done: Callable[[str], bool], timeout: float, doing: str, heard: _Listen
    ) -> str | None:
        """Read lines until ``done(line)``; collect what else the engine says into ``heard``.
        ``timeout=0``: no deadline. Returns the final line; raises on timeout or exit."""
        deadline = time.monotonic() + timeout if timeout > 0 else math.inf
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise EngineTimeout(
                    f"no answer within {timeout:g} s while {doing}", where=self._where()
                )
            try:
                line = self._lines.get(timeout=min(left, 3600.0))
            except queue.Empty:
                continue
            if line is None:
                raise self._died(doing)
            if done(line):
                return line
            self._note(line, heard)

    def _note(self, line: str, heard: _Listen) -> None:
        words = line.split()
        if not words:
            return
        kind = words[0]
        if kind == "set" and len(words) >= 2 and words[1] == "myname":
            self.engine_name = line.split(None, 2)[2].strip() if len(words) > 2 else None
        elif kind == "status":
            heard.status.append(line[6:].strip())
        elif kind in ("search", "book"):
            heard.searches.append(SearchLine.parse(line))
        elif kind == "nodestats" and len(words) >= 2:
            heard.nodes = _float(words[1])
        elif kind == "error":
            heard.errors.append(line[5:].strip())

    # -- commands

    def ping(self, *, timeout: float = 30.0) -> None:
        """Synchronise: ``ping N``, then drop everything until ``pong N``."""
        self._pings += 1
        n = self._pings
        self.send(f"ping {n}")
        self._wait(
            lambda line: line.split()[:2] == ["pong", str(n)],
            timeout,
            "waiting for pong",
            _Listen(),
        )

    def set_depth(self, depth: int) -> None:
        if not 1 <= depth <= MAX_DEPTH:
            raise NBoardError(f"depth must be in [1, {MAX_DEPTH}], got {depth}")
        self.send(f"set depth {depth}")

    def set_contempt(self, contempt: float) -> None:
        self.send(f"set contempt {contempt:g}")

    def set_game(self, board: Board, moves: Sequence[int] = ()) -> None:
        """Tell the engine the position: ``board`` as the start of a game, then ``moves``."""
        self.send("set game " + position_ggf(board, moves))

    def move(self, action: int, size: int = 8) -> None:
        self.send(f"move {format_move(action, size)}")

    def go(self, board: Board, *, timeout: float = 60.0) -> MoveReply:
        """Ask for the engine's move in ``board`` (the position last set); checks it is legal."""
        heard = _Listen()
        t0 = time.perf_counter()
        line = self._wait(lambda line: line.startswith("==="), timeout, "thinking (go)", heard)
        assert line is not None
        fields = line[3:].split()
        if not fields:
            raise NBoardError(f"empty move line {line!r}", where=self._where())
        parts = fields[0].split("/")
        try:
            action = parse_move_token(parts[0], board)
        except NBoardError as e:
            raise NBoardError(f"answered {line!r}: {e.what}", where=self._where()) from None
        ev = _float(parts[1]) if len(parts) > 1 and parts[1] else None
        if ev is None and len(fields) > 1:
            ev = _float(fields[1])  # Edax writes "=== d6 -1.00 0.0"
        secs = _float(parts[2]) if len(parts) > 2 and parts[2] else None
        if secs is None and len(fields) > 2:
            secs = _float(fields[2])
        return MoveReply(
            action,
            ev,
            secs if secs is not None else time.perf_counter() - t0,
            tuple(heard.searches),
            heard.nodes,
            tuple(heard.status),
            line,
        )

    def request_move(self, board: Board, *, timeout: float = 60.0) -> MoveReply:
        """``set game`` for ``board``, ``ping`` (which drops what is left of earlier answers),
        then ``go``: the engine's move there."""
        self.set_game(board)
        self.ping(timeout=timeout)
        self.send("go")
        return self.go(board, timeout=timeout)

    def hint(self, count: int, *, timeout: float = 60.0) -> list[SearchLine]:
        """``hint N``: the engine's search lines until it ends with a bare ``status`` (or until
        ``timeout``, since the protocol has no other end marker: then what came so far)."""
        heard = _Listen()
        self.ping(timeout=timeout)
        self.send(f"hint {count}")
        with contextlib.suppress(EngineTimeout):
            self._wait_soft(lambda line: line.strip() == "status", timeout, "hinting", heard)
        return heard.searches

    def analyze(self, *, timeout: float = 600.0) -> dict[int, float]:
        """``analyze``: the evaluation of each position of the game, by moves played."""
        heard = _Listen()
        out: dict[int, float] = {}

        def done(line: str) -> bool:
            words = line.split()
            if words[:1] == ["analysis"] and len(words) >= 3:
                ev = _float(words[2])
                if words[1].isdigit() and ev is not None:
                    out[int(words[1])] = ev
            return line.strip() == "status"

        self.ping(timeout=timeout)
        self.send("analyze")
        self._wait(done, timeout, "analyzing", heard)
        return out

    def learn(self, *, timeout: float = 30.0) -> None:
        self.ping(timeout=timeout)
        self.send("learn")
        self._wait(lambda line: line.strip() == "learned", timeout, "learning", _Listen())

    def _wait_soft(
        self, done: Callable[[str], bool], timeout: float, doing: str, heard: _Listen
    ) -> None:
        """Like ``_wait``, but a timeout only stops listening (the engine is not killed): the
        next ``ping`` resynchronises."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise self._died(doing)
            if done(line):
                return
            self._note(line, heard)

    def stderr_tail(self) -> list[str]:
        """The engine's last lines on stderr (for diagnostics)."""
        return list(self._stderr)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, *, grace: float = 1.0) -> None:
        """Send ``quit``, wait ``grace`` seconds, then terminate and kill the process group."""
        self._finalizer.detach()
        _shutdown(self.proc, grace)

    def __enter__(self) -> NBoardClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _shutdown(proc: subprocess.Popen[str], grace: float) -> None:
    """Stop an engine process: ``quit``, then SIGTERM, then SIGKILL (its whole group)."""
    if proc.poll() is None:
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdin is not None
            proc.stdin.write("quit\n")
            proc.stdin.flush()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
    for sig in (signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
        if proc.poll() is not None:
            break
        with contextlib.suppress(OSError):
            if os.name == "posix":
                os.killpg(proc.pid, sig)
            else:  # pragma: no cover
                proc.terminate() if sig == signal.SIGTERM else proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(2.0)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        with contextlib.suppress(OSError, ValueError):
            if stream is not None:
                stream.close()
