"""The match kernel: one game between two players, and a match of colour-swapped pairs.

Othello by default; any game of the protocol (``core.games``) with ``game=``: the players get
that game's positions, and a game of it is recorded as a ``MoveRecord``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from othellolab.core import BLACK, Board, Limit
from othellolab.core.games import Game as Rules
from othellolab.core.games import game_for
from othellolab.core.othello_game import Othello
from othellolab.players.base import Player
from othellolab.records.game import GameRecord


@dataclass(frozen=True)
class MoveRecord:
    """A finished game of another game than Othello: the actions played from its start, the
    result for the first player (+1, 0, -1) and the headers."""

    game: str
    moves: tuple[int, ...]
    result: int
    headers: dict[str, object] = field(default_factory=dict)

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
    """Play one game from the start position after ``opening``; returns the full record.
    ``black`` moves first (the first player of any ``game``)."""
    rules = game_for(game, size)
    for p in (black, white):
        p.reset()
    if not isinstance(rules, Othello):
        return _play_other(black, white, rules, opening, limit, headers)
    board = Board(size=rules.size)
    moves: list[int] = []
    for a in opening:
        board = board.play(a)
        moves.append(a)
    while not board.is_game_over():
        player = black if board.turn == BLACK else white
        move = player.choose(board, limit).move
        board = board.play(move)
        moves.append(move)
    head = {"black": black.name, "white": white.name, **(headers or {})}
    return GameRecord(tuple(moves), Board(size=rules.size), head)


def _play_other(
    first: Player,
    second: Player,
    rules: Rules,
    opening: Sequence[int],
    limit: Limit | None,
    headers: dict[str, object] | None,
) -> MoveRecord:
    position: Any = rules.new_position()
    moves: list[int] = []
    for a in opening:
        position = position.play(a)
        moves.append(a)
    while not position.is_game_over():
        player = first if position.turn == 0 else second
        move = player.choose(position, limit).move
        position = position.play(move)
        moves.append(move)
    result = position.result()  # for the side to move at the end
    first_result = result if position.turn == 0 else -result
    head = {"first": first.name, "second": second.name, **(headers or {})}
    return MoveRecord(rules.key, tuple(moves), int(first_result), head)


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
    game: str = "othello"

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
        if self.game != "othello":
            return head + f"({100 * self.score:.1f}%)"
        return head + (
            f"({100 * self.score:.1f}%, mean disc difference {self.disc_diff / max(self.n, 1):+.1f})"
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
        score = played.score()
        result.add(score if a_black else -score, played if keep_games else None)
    return result
