"""The one interface every move chooser speaks: ``Player.choose(board, limit) -> PlayResult``."""

from __future__ import annotations

import abc
import functools
from typing import Any

import numpy as np

from othellolab.core import Board, ConfigError, Limit, PlayResult, Score
from othellolab.core.games import position_game, position_state
from othellolab.players.clock import with_move_time

__all__ = ["Limit", "PlayResult", "Player", "Score", "playable_actions", "uniform_policy"]


class Player(abc.ABC):
    """A move chooser. ``choose`` returns a legal action for the side to move of ``board``.

    Players may keep state between moves of one game (a search tree, a clock); ``reset`` starts
    a new game and ``close`` frees outside resources (an engine process). ``choose`` is only
    called on positions where the game is not over.
    """

    #: Short name used in reports and the registry spec (``"greedy"``).
    name: str = "player"

    #: The games (``core.games`` names) whose positions ``choose`` takes: Othello's ``Board``
    #: by default; a player of another game receives that game's position (``AnimalShogi``);
    #: ``None``: every game of the protocol (a search over the game's rules).
    games: tuple[str, ...] | None = ("othello",)

    #: Whether ``choose`` spends a game clock (``Limit.clock``) itself; other players receive
    #: the clock as a per-move time (``players.clock.with_move_time``).
    plans_time: bool = False

    @abc.abstractmethod
    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        """The action to play in ``board``, with optional policy, score and search info."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every ``choose`` a subclass defines first refuses a position of a game the player
        does not play (``games``), naming both, instead of failing inside its search."""
        super().__init_subclass__(**kwargs)
        choose = cls.__dict__.get("choose")
        if choose is None or getattr(choose, "__isabstractmethod__", False):
            return

        @functools.wraps(choose)
        def checked(
            self: Player, board: Any, limit: Limit | None = None, *args: Any, **kwargs: Any
        ) -> PlayResult:
            try:
                rules = position_game(board)
            except TypeError:  # not a position of the protocol: the player's own affair
                rules = None
            game = None if rules is None else rules.name
            if game is not None and self.games is not None and game not in self.games:
                raise ConfigError(
                    f"plays {' and '.join(self.games)} only, not {game} positions "
                    f"({type(board).__name__})",
                    where=f"player {self.name!r}",
                )
            if limit is not None and limit.clock is not None and not self.plans_time:
                left = None if rules is None else rules.moves_left(*position_state(board))
                limit = with_move_time(limit, left)
            return choose(self, board, limit, *args, **kwargs)

        cls.choose = checked  # type: ignore[method-assign]

    def reset(self) -> None:  # noqa: B027 - optional hook
        """Forget everything about the previous game."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release outside resources; the player may not be used afterwards."""

    def __enter__(self) -> Player:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def playable_actions(board: Board) -> list[int]:
    """The legal actions of ``board``; a ``ValueError`` when the game is over (a player is
    asked for a move only while the game goes on)."""
    actions = board.legal_actions()
    if not actions:
        raise ValueError(f"no legal move: the game is over\n{board}")
    return actions


def uniform_policy(board: Board, actions: list[int] | None = None) -> np.ndarray:
    """A probability vector over the position's ``n_actions`` actions (any game's position),
    uniform over ``actions`` (default: the legal actions)."""
    acts = board.legal_actions() if actions is None else actions
    policy = np.zeros(board.n_actions, dtype=np.float32)
    if acts:
        policy[acts] = 1.0 / len(acts)
    return policy
