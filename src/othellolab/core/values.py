"""Small value types shared by boards, players, protocols and the arena."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from othellolab.core.squares import BLACK, COLOR_NAMES, WHITE, Color


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
        diff = self.black_discs - self.white_discs
        if diff > 0:
            diff += self.empties
        elif diff < 0:
            diff -= self.empties
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


@dataclass(frozen=True, slots=True)
class Limit:
    """How much a player may think: any of time (seconds), search depth, nodes, simulations.

    ``None`` means no limit of that kind; a player uses its own default when all are ``None``.
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    simulations: int | None = None

    def __post_init__(self) -> None:
        for name in ("time", "depth", "nodes", "simulations"):
            v = getattr(self, name)
            if v is not None and (not math.isfinite(v) or v < 0):
                raise ValueError(f"Limit.{name} must be a non-negative finite number, got {v!r}")


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
