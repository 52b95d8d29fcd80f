"""The match kernel: one game between two players, and a match of colour-swapped pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from othellolab.core import BLACK, Board, Limit
from othellolab.players.base import Player
from othellolab.records.game import Game


def play_game(
    black: Player,
    white: Player,
    *,
    opening: Sequence[int] = (),
    size: int = 8,
    limit: Limit | None = None,
    headers: dict[str, object] | None = None,
) -> Game:
    """Play one game from the start position after ``opening``; returns the full record."""
    board = Board(size=size)
    moves: list[int] = []
    for a in opening:
        board = board.play(a)
        moves.append(a)
    for p in (black, white):
        p.reset()
    while not board.is_game_over():
        player = black if board.turn == BLACK else white
        move = player.choose(board, limit).move
        board = board.play(move)
        moves.append(move)
    head = {"black": black.name, "white": white.name, **(headers or {})}
    return Game(tuple(moves), Board(size=size), head)


@dataclass
class MatchResult:
    """Results of a match between players A and B, from A's point of view."""

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    disc_diff: int = 0
    games: list[Game] = field(default_factory=list)

    @property
    def n(self) -> int:
        """Number of games played."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's points per game (win 1, draw 0.5)."""
        return (self.wins + 0.5 * self.draws) / self.n if self.n else 0.0

    def add(self, score: int, game: Game | None = None) -> None:
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
        return (
            f"{self.a} vs {self.b}: +{self.wins} ={self.draws} -{self.losses} "
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
) -> MatchResult:
    """Play ``games`` games, alternating colours; each opening is used twice (once per colour)."""
    result = MatchResult(a.name, b.name)
    for g in range(games):
        opening = openings[(g // 2) % len(openings)] if openings else ()
        a_black = g % 2 == 0
        black, white = (a, b) if a_black else (b, a)
        game = play_game(black, white, opening=opening, size=size, limit=limit)
        result.add(game.score() if a_black else -game.score(), game if keep_games else None)
    return result
