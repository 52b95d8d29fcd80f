"""The match kernel: one game between two players, and a match of colour-swapped pairs.

Othello by default; any game of the protocol (``core.games``) with ``game=``: the players get
that game's positions, and a game is recorded as its ``record_format`` says (a ``GameRecord``
for GGF, Othello's), else as a ``MoveRecord``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from othellolab.core import Limit
from othellolab.core.games import DEFAULT_GAME, game_for, get_game
from othellolab.core.games import Game as Rules
from othellolab.players.base import Player
from othellolab.records.game import GameRecord


@dataclass(frozen=True)
class MoveRecord:
    """A finished game of a game without a records format of its own: the actions played from
    its start, the result for the first player (+1, 0, -1) and the headers."""

    game: str
    moves: tuple[int, ...]
    result: int
    headers: dict[str, object] = field(default_factory=dict)

    @property
    def score(self) -> int:
        """The result for the first player (what ``GameRecord.score`` is for Othello)."""
        return self.result


def play_game(
    black: Player,
    white: Player,
    *,
    opening: Sequence[int] = (),
    size: int = 8,
    limit: Limit | None = None,
    headers: dict[str, object] | None = None,
    game: str | Rules | None = None,
) -> GameRecord | MoveRecord:
    """Play one game from the start position after ``opening``; returns the full record (a
    ``GameRecord`` for a game whose records are GGF, else a ``MoveRecord``). ``black`` moves
    first (the first player of any ``game``).

    A ``limit`` with a ``clock`` is a game clock: each side has that many seconds for all its
    moves, and each move is asked with the time its side has left; the headers record the
    seconds each side used (``time_black``/``time_white``, or ``time_first``/``time_second``)
    and, when a side ran past its clock, ``overtime`` (its name), which the game does not
    forfeit."""
    rules = game_for(game, size)
    for p in (black, white):
        p.reset()
    start: Any = rules.new_position()
    position = start
    moves: list[int] = []
    for a in opening:
        position = position.play(a)
        moves.append(a)
    clock = None if limit is None else limit.clock
    used = [0.0, 0.0]
    while not position.is_game_over():
        side = 0 if position.turn == start.turn else 1
        player = (black, white)[side]
        asked = limit if clock is None else replace(limit, clock=max(0.0, clock - used[side]))
        t0 = time.perf_counter()
        move = player.choose(position, asked).move
        used[side] += time.perf_counter() - t0
        position = position.play(move)
        moves.append(move)
    head = dict(headers or {})
    if clock is not None:
        names = ("black", "white") if rules.record_format == "ggf" else ("first", "second")
        head.update({f"time_{n}": round(u, 3) for n, u in zip(names, used, strict=True)})
        late = [n for n, u in zip(names, used, strict=True) if u > clock]
        if late:
            head["overtime"] = ",".join(late)
    make = _RECORDS.get(rules.record_format, _move_record)
    return make(rules, start, position, tuple(moves), black.name, white.name, head)


def _game_record(
    rules: Rules, start: Any, end: Any, moves: tuple[int, ...], first: str, second: str,
    headers: dict[str, object],
) -> GameRecord:  # fmt: skip
    """The records layer's ``GameRecord`` (what GGF and the other Othello formats hold)."""
    return GameRecord(moves, start, {"black": first, "white": second, **headers})


def _move_record(
    rules: Rules, start: Any, end: Any, moves: tuple[int, ...], first: str, second: str,
    headers: dict[str, object],
) -> MoveRecord:  # fmt: skip
    result = end.result()  # for the side to move at the end
    first_result = result if end.turn == start.turn else -result
    head = {"first": first, "second": second, **headers}
    return MoveRecord(rules.key, moves, int(first_result), head)


_RECORDS = {"ggf": _game_record}
"""The record a finished game is kept as, by its game's ``record_format``."""


@dataclass
class MatchResult:
    """Results of a match between players A and B, from A's point of view, in ``game`` (a
    ``core.games`` name; ``disc_diff`` sums the results in a game without discs)."""

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    disc_diff: int = 0
    games: list[GameRecord | MoveRecord] = field(default_factory=list)
    game: str = DEFAULT_GAME

    @property
    def n(self) -> int:
        """Number of games played."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's points per game (win 1, draw 0.5)."""
        return (self.wins + 0.5 * self.draws) / self.n if self.n else 0.0

    def add(self, score: int, game: GameRecord | MoveRecord | None = None) -> None:
        """Count one game that A finished ``score`` discs ahead (negative: behind)."""
        self.disc_diff += score
        if score > 0:
            self.wins += 1
        elif score < 0:
            self.losses += 1
        else:
            self.draws += 1
        if game is not None:
            self.games.append(game)

    def __str__(self) -> str:
        head = f"{self.a} vs {self.b}: +{self.wins} ={self.draws} -{self.losses} "
        score_name = get_game(self.game).score_name
        if score_name is None:  # a final score is a result: its mean is the score above
            return head + f"({100 * self.score:.1f}%)"
        return head + (
            f"({100 * self.score:.1f}%, mean {score_name} {self.disc_diff / max(self.n, 1):+.1f})"
        )


def play_match(
    a: Player,
    b: Player,
    *,
    games: int,
    openings: Sequence[Sequence[int]] = (),
    size: int = 8,
    limit: Limit | None = None,
    keep_games: bool = False,
    game: str | Rules | None = None,
) -> MatchResult:
    """Play ``games`` games, alternating colours; each opening is used twice (once per colour).
    ``game``: another game of the protocol than Othello on ``size``."""
    result = MatchResult(a.name, b.name, game=game_for(game, size).name)
    for g in range(games):
        opening = openings[(g // 2) % len(openings)] if openings else ()
        a_black = g % 2 == 0
        black, white = (a, b) if a_black else (b, a)
        played = play_game(black, white, opening=opening, size=size, limit=limit, game=game)
        score = played.score
        result.add(score if a_black else -score, played if keep_games else None)
    return result
