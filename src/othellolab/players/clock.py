"""Time on a game clock: how much of the time left to spend on this move.

A game clock gives each side ``T`` seconds for all its moves (tournaments, NBoard's clock,
``arena`` with ``clock=``). A player that plans its own time (``Player.plans_time``) reads
``Limit.clock``; every other player gets ``per_move``'s share as a per-move time, capped so
that one move never takes more than a fixed part of what is left.

The alpha-beta player's plan (``plan``) also keeps time for the exact endgame solve, which is
worth the most near the end, and spends more in the midgame than in the opening.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from othellolab.core import Limit

__all__ = ["MoveTime", "move_limit", "per_move", "plan", "with_move_time"]

RESERVE = 0.02
"""Part of the clock never planned (process and Python overheads, the last moves): a move
returns within a few milliseconds of its time (``search.midgame.time_reserve``)."""

MIN_RESERVE = 0.05
"""Seconds never planned, however short the clock."""

MAX_SHARE = 0.3
"""The most of what is left that one move may take."""

SOLVE_WEIGHT = 4.0
"""The endgame solve's weight in ``plan``, in moves of the opening: about a tenth of the clock
is left at the solve (a 20-empties solve takes under half a second on one core, and time a
finished solve leaves is lost, so more left the clock a fifth unused)."""

DEFAULT_MOVES_LEFT = 30
"""Moves left to the side to move when its game gives no estimate."""


@dataclass(frozen=True, slots=True)
class MoveTime:
    """The time for one move: the ``target`` a search aims at and the hard ``cap`` it stops at;
    ``solve`` is the time offered to an exact solve first (0: do not try)."""

    target: float
    cap: float
    solve: float = 0.0


def _usable(clock: float) -> float:
    return max(0.0, clock - max(MIN_RESERVE, RESERVE * clock))


def per_move(clock: float, moves_left: int | None) -> MoveTime:
    """An even share of the usable clock over the moves left, capped at ``MAX_SHARE`` of it
    and at three times the share."""
    usable = _usable(clock)
    n = max(1, moves_left if moves_left is not None else DEFAULT_MOVES_LEFT)
    target = usable / n
    cap = min(MAX_SHARE * usable, 3.0 * target)
    return MoveTime(max(target, 0.001), max(cap, 0.001))


def plan(clock: float, empties: int, *, endgame: int) -> MoveTime:
    """The alpha-beta player's time for a move of an Othello game with ``empties`` empty
    squares, solving exactly from ``endgame`` empties: before the solve, the usable clock is
    shared over the moves to the solve and the solve itself, the midgame moves (20-45 empties)
    weighted 1.5, the opening's 1 and the solve ``SOLVE_WEIGHT`` (spent this way, a tenth of
    the clock is left at the solve); at ``endgame`` empties and below, the solve is offered up
    to half of what is left, and a failed solve leaves the searches their share."""
    usable = _usable(clock)
    mine_left = max(1, (empties + 1) // 2)
    if empties <= endgame:
        share = per_move(clock, mine_left)
        return MoveTime(share.target, share.cap, solve=0.5 * usable)
    weights = sum(_weight(e) for e in range(empties, endgame, -2))
    target = usable * _weight(empties) / (weights + SOLVE_WEIGHT)
    cap = min(MAX_SHARE * usable, 3.0 * target)
    return MoveTime(max(min(target, cap), 0.001), max(cap, 0.001))


def _weight(empties: int) -> float:
    return 1.5 if 20 <= empties <= 45 else 1.0


def move_limit(limit: Limit, share: MoveTime) -> Limit:
    """``limit`` with its game clock replaced by this move's ``share``: its target as ``time``,
    its cap (within the limit's own ``max_time``) as ``max_time``, the target never above it."""
    cap = share.cap if limit.max_time is None else min(share.cap, limit.max_time)
    return replace(limit, time=min(share.target, cap), max_time=cap, clock=None)


def with_move_time(limit: Limit, moves_left: int | None) -> Limit:
    """``limit`` with its ``clock`` turned into a per-move ``time`` and ``max_time`` (for the
    players that do not plan their own time)."""
    if limit.clock is None:
        return limit
    return move_limit(limit, per_move(limit.clock, moves_left))
