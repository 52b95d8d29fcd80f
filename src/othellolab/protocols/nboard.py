"""The NBoard protocol, shared by both sides (``nboard_engine``: answer a GUI with any move
chooser; ``nboard_client``: drive an external engine such as Edax or NTest): its limits,
errors, move and game formats, and the ``search`` lines engines send while they think.

One command a line, in both directions. The GUI sends ``nboard 2`` first, then ``set depth N``,
``set game GGF`` (later commands concern the position at the end of that game), ``move F5``
(``/eval/time`` optional; ``PA`` passes), ``go`` (the engine answers ``=== MOVE/eval/time`` and
does not play it), ``hint N`` (``search PV EVAL 0 DEPTH`` lines for up to N moves), ``analyze``
(``analysis N EVAL`` for each position of the game, N moves from its start), ``ping N`` (stop
thinking, answer ``pong N``), ``learn`` (answered ``learned``), ``set contempt N``. While it
thinks the engine sends ``status TEXT`` and ``nodestats NODES SECONDS``; a bare ``status`` ends
a hint or an analysis. Evaluations are from the side to move, in discs when the chooser reports
discs. A line an engine cannot use gets ``error TEXT`` and the engine keeps running.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from othellolab.core import Board, Limit, OthelloError, PlayResult, parse_move, square_name
from othellolab.records.game import GameRecord
from othellolab.records.ggf import format_ggf

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
    game = GameRecord(tuple(moves), board, {"place": "othellolab", "black": "?", "white": "?"})
    return format_ggf(game)


def parse_eval(text: str) -> float | None:
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
        ev = parse_eval(rest[1]) if len(rest) > 1 else None
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
