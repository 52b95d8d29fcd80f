"""The client side of the NBoard protocol (``nboard``): ``NBoardClient`` drives an external
NBoard engine (Edax, NTest, ...) as a subprocess, with a timeout on every wait and a clean
shutdown (quit, then terminate, then kill), also at interpreter exit.
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from othellolab.core import Board
from othellolab.protocols.nboard import (
    MAX_DEPTH,
    PROTOCOL_VERSION,
    EngineTimeout,
    MoveReply,
    NBoardError,
    SearchLine,
    format_move,
    parse_eval,
    parse_move_token,
    position_ggf,
)


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
            heard.nodes = parse_eval(words[1])
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
        ev = parse_eval(parts[1]) if len(parts) > 1 and parts[1] else None
        if ev is None and len(fields) > 1:
            ev = parse_eval(fields[1])  # Edax writes "=== d6 -1.00 0.0"
        secs = parse_eval(parts[2]) if len(parts) > 2 and parts[2] else None
        if secs is None and len(fields) > 2:
            secs = parse_eval(fields[2])
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
                ev = parse_eval(words[2])
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
