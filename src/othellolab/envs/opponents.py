"""The side an environment plays itself: a player spec, a ``Player``, or a plain function.

Environments seed their opponent from their own seed, so that an episode replays exactly,
the opponent's choices included. The opponent's positions are the env's game's people's
positions (``Board``, ``AnimalShogi``, ``GamePosition``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

import numpy as np

from othellolab.core import IllegalMoveError, Limit, PlayResult
from othellolab.core.games import position_game
from othellolab.players import Player, make_player
from othellolab.players.registry import get_entry, parse_spec

OpponentFn = Callable[[Any, np.random.Generator], Union[int, PlayResult]]  # noqa: UP007
"""A function opponent: ``fn(board, rng) -> action`` (or a ``PlayResult``); ``board`` is the
env's game's position (a ``Board``, an ``AnimalShogi``); ``rng`` is a generator the
environment seeds, so a random function replays under the same seed."""

OpponentLike = Union[str, Player, OpponentFn]  # noqa: UP007
"""What an environment accepts as its opponent: a spec (``"greedy"``), a ``Player``, or a
function ``(board, rng) -> action``."""


class Opponent:
    """Chooses the moves of the side the environment plays, and checks they are legal.

    A spec string is rebuilt with a ``seed`` option on every ``seed`` call when its player
    takes one (and the spec does not fix it); a function receives a generator seeded the same
    way; a ``Player`` instance is used as given (seed it yourself for reproducible episodes).
    A player (spec or instance) must play ``game`` (its ``games``), else a ``ConfigError``
    names it.
    """

    def __init__(
        self, opponent: OpponentLike, *, limit: Limit | None = None, game: str = "othello"
    ) -> None:
        self.limit = limit
        self._spec: str | None = None
        self._fn: OpponentFn | None = None
        self._player: Player | None = None
        self.rng = np.random.default_rng()
        if isinstance(opponent, str):
            name, options = parse_spec(opponent)
            self._seedable = "seed" in get_entry(name).options() and "seed" not in options
            self._spec = opponent
            self._player = make_player(opponent, game)
        elif isinstance(opponent, Player):
            self._player = make_player(opponent, game)
        elif callable(opponent):
            self._fn = opponent
        else:
            raise TypeError(
                f"opponent must be a player spec, a Player or a function (board, rng) -> action, "
                f"got {opponent!r}"
            )

    @property
    def name(self) -> str:
        """A short description for reports: the spec, the player's name or the function's."""
        if self._spec is not None:
            return self._spec
        if self._player is not None:
            return self._player.name
        return getattr(self._fn, "__name__", "function")

    def seed(self, seed: int) -> None:
        """Make the opponent's future choices a function of ``seed``."""
        self.rng = np.random.default_rng(seed)
        if self._spec is not None and self._seedable:
            if self._player is not None:
                self._player.close()
            self._player = make_player(self._spec, seed=seed)

    def reset(self) -> None:
        """A new game starts."""
        if self._player is not None:
            self._player.reset()

    def choose(self, board: Any) -> int:
        """The opponent's action in ``board`` (any game's position where the game is not
        over), checked legal."""
        if self._player is not None:
            answer: int | PlayResult = self._player.choose(board, self.limit)
        else:
            assert self._fn is not None
            answer = self._fn(board, self.rng)
        action = answer.move if isinstance(answer, PlayResult) else int(answer)
        legal = board.legal_actions()
        if action not in legal:
            game = position_game(board)
            names = ", ".join(game.move_name(board, a) for a in legal)
            raise IllegalMoveError(
                f"opponent {self.name!r} chose illegal action {action} in position "
                f"{board!r}; legal moves: {names}"
            )
        return action

    def close(self) -> None:
        """Release the opponent's outside resources."""
        if self._player is not None:
            self._player.close()
