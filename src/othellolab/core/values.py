"""Small value types shared by boards, players, protocols and the arena."""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from othellolab.core.errors import ConfigError
from othellolab.core.squares import BLACK, COLOR_NAMES, WHITE, Color

T = TypeVar("T")

NO_SCORE = -128
"""The final disc difference of a game that has none: a self-play game that was resigned, a
record that states no result. Below every real score (a board has at most 64 squares) and
held as it is by every integer dtype that stores scores (int8 in self-play records, int16 in
datasets' game arrays)."""


def disc_score(own: int, other: int, empties: int) -> int:
    """Final disc difference for the side with ``own`` discs against ``other``, the ``empties``
    going to the winner (WTHOR and tournament rules). The one rule behind every final score:
    ``Outcome.score`` calls it, the kernels (``core.kernels.final_score``) compile it."""
    diff = own - other
    if diff > 0:
        return diff + empties
    if diff < 0:
        return diff - empties
    return 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: disc counts as on the board, winner, and scores.

    Scores give the empty squares to the winner, as WTHOR and tournament rules do.
    """

    black_discs: int
    white_discs: int
    empties: int

    @property
    def winner(self) -> Color | None:
        """``BLACK``, ``WHITE``, or ``None`` for a draw."""
        if self.black_discs > self.white_discs:
            return BLACK
        if self.white_discs > self.black_discs:
            return WHITE
        return None

    def score(self, color: Color = BLACK) -> int:
        """Final disc difference from ``color``'s point of view, empties to the winner."""
        diff = disc_score(self.black_discs, self.white_discs, self.empties)
        return diff if color == BLACK else -diff

    def result(self, color: Color = BLACK) -> int:
        """+1 for a win of ``color``, 0 for a draw, -1 for a loss."""
        s = self.score(color)
        return (s > 0) - (s < 0)

    def final_counts(self) -> tuple[int, int]:
        """(black, white) disc counts with the empties given to the winner."""
        w = self.winner
        b, wh = self.black_discs, self.white_discs
        if w == BLACK:
            b += self.empties
        elif w == WHITE:
            wh += self.empties
        return b, wh

    def __str__(self) -> str:
        b, w = self.final_counts()
        who = "draw" if self.winner is None else f"{COLOR_NAMES[self.winner]} wins"
        return f"{who} {b}-{w}"


class Stop:
    """A request, made from another thread, that a running search return now with the best move
    it has (its client has gone, its server is shutting down).

    Searches look at ``is_set()`` between steps; a compiled search ``link``s the cell of its
    statistics array that its kernels poll, so that ``set()`` reaches it within one node.
    """

    __slots__ = ("_cells", "_event", "_lock")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._cells: list[tuple[np.ndarray, int]] = []

    def set(self) -> None:
        """Ask every search watching this signal to stop."""
        with self._lock:
            self._event.set()
            for array, index in self._cells:
                array[index] = 1

    def is_set(self) -> bool:
        """Whether a stop was asked for."""
        return self._event.is_set()

    @contextlib.contextmanager
    def link(self, array: np.ndarray, index: int) -> Iterator[None]:
        """While inside, ``set()`` also writes 1 into ``array[index]`` (a kernel's abort flag)."""
        cell = (array, index)
        with self._lock:
            if self._event.is_set():
                array[index] = 1
            self._cells.append(cell)
        try:
            yield
        finally:
            with self._lock:
                self._cells = [c for c in self._cells if c is not cell]

    def __repr__(self) -> str:
        return f"Stop(set={self.is_set()})"


def run_stoppable(fn: Callable[[], T], stop: Stop | None = None) -> T:
    """``fn()``, run in a worker thread while this thread waits, so that Ctrl-C interrupts the
    wait: Python delivers ``KeyboardInterrupt`` to the main thread only between two of its own
    steps, never inside a compiled search. On Ctrl-C, ``stop`` is set (a search given it returns
    at its next node) and, once ``fn`` has returned, the interrupt is raised again; without a
    ``stop`` the worker (a daemon) is left to end with the process."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as e:  # handed to the waiting thread
            outcome["error"] = e

    worker = threading.Thread(target=work, name="othellolab-search", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        if stop is not None:
            stop.set()
            worker.join()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@dataclass(frozen=True, slots=True)
class Limit:
    """How much a player may think: any of time (seconds), search depth, nodes, simulations.

    ``None`` means no limit of that kind; a player uses its own settings when all four are
    ``None``. ``max_time`` and ``max_nodes`` are hard caps on top of whatever the player would
    do otherwise (its own settings or the four above): it answers within ``max_time`` seconds
    plus a small margin and spends at most ``max_nodes`` search nodes, simulations or playouts,
    whichever it counts. ``stop`` lets another thread end the search early.

    ``clock`` is a game clock instead: the seconds left to the side to move for this move and
    all its later ones. A player that plans its own time (``Player.plans_time``) spreads it
    over the game; any other gets a time for this move from ``players.clock``.
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    simulations: int | None = None
    max_time: float | None = None
    max_nodes: int | None = None
    stop: Stop | None = field(default=None, compare=False, hash=False)
    clock: float | None = None

    def __post_init__(self) -> None:
        for name in ("time", "depth", "nodes", "simulations", "max_time", "max_nodes", "clock"):
            v = getattr(self, name)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
                raise ConfigError(f"expected a number, got {v!r}", where="Limit", option=name)
            if not math.isfinite(v) or v < 0:
                raise ConfigError(
                    f"must be a non-negative finite number, got {v!r}", where="Limit", option=name
                )

    @property
    def is_empty(self) -> bool:
        """No target of its own (time, depth, nodes, simulations, clock): the player's settings
        apply."""
        return (
            self.time is None and self.depth is None and self.nodes is None
            and self.simulations is None and self.clock is None
        )  # fmt: skip

    def capped_time(self, seconds: float | None) -> float | None:
        """``seconds`` (``None``: no time limit) bounded by ``max_time``."""
        if self.max_time is None:
            return seconds
        return self.max_time if seconds is None else min(seconds, self.max_time)

    def capped_nodes(self, count: int | None) -> int | None:
        """``count`` (``None``: no limit) bounded by ``max_nodes``."""
        if self.max_nodes is None:
            return count
        return int(self.max_nodes) if count is None else min(int(count), int(self.max_nodes))

    def stopped(self) -> bool:
        """Whether ``stop`` has been set."""
        return self.stop is not None and self.stop.is_set()


@dataclass(frozen=True, slots=True)
class Score:
    """A position evaluation from the point of view of the side to move.

    With ``unit="discs"`` (the default), ``value`` is the expected final disc difference (or a
    heuristic on that scale), or the proven one when ``exact`` is True. With
    ``unit="result"``, ``value`` is the expected result in [-1, 1] (+1 a win), as tree searches
    over win/loss evaluators report. ``win_prob`` is an optional probability of winning.
    """

    value: float
    exact: bool = False
    win_prob: float | None = None
    unit: str = "discs"

    def __post_init__(self) -> None:
        if self.unit not in ("discs", "result"):
            raise ValueError(f"Score.unit must be 'discs' or 'result', got {self.unit!r}")

    def flipped(self) -> Score:
        """The same evaluation from the opponent's point of view."""
        wp = None if self.win_prob is None else 1.0 - self.win_prob
        return Score(-self.value, self.exact, wp, self.unit)


@dataclass(frozen=True, slots=True)
class PlayResult:
    """A player's answer: the action, and optionally its policy, score and search info.

    ``policy`` has one probability per action (``size*size + 1``, pass last); ``score`` is from
    the point of view of the side to move in the position the player was asked about.
    """

    move: int
    policy: np.ndarray | None = None
    score: Score | None = None
    info: dict[str, Any] = field(default_factory=dict)
