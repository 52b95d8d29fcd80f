"""The web board's refusals: each a ``WebError`` with its HTTP status and a message that says
why."""

from __future__ import annotations

__all__ = [
    "EXTERNAL_PLAYERS",
    "Conflict",
    "GameNotFound",
    "Gone",
    "PlayerFailed",
    "ServerBusy",
    "TooManyGames",
    "TooManyRequests",
    "Unprocessable",
    "WebError",
]


class WebError(Exception):
    """A request the web board refuses; ``status`` is the HTTP status, the message says why."""

    status = 400


class GameNotFound(WebError):
    """No game has that id (never created, deleted, or expired)."""

    status = 404


class Conflict(WebError):
    """The request does not fit the game's state: out of turn, game over, the AI is thinking."""

    status = 409


EXTERNAL_PLAYERS = frozenset({"nboard"})
"""Players that start outside programs: never built from a web request."""


class Unprocessable(WebError):
    """Well-formed JSON whose content is wrong: a bad move, an illegal move, a bad player spec."""

    status = 422


class TooManyGames(WebError):
    """The server holds its maximum number of games."""

    status = 503


class PlayerFailed(WebError):
    """The AI player raised or answered an illegal move (a server-side fault, not bad input)."""

    status = 500


class Gone(WebError):
    """The search was abandoned: its client went away, or the server is shutting down."""

    status = 503


class ServerBusy(WebError):
    """Every search worker is busy and the queue in front of them is full, or would keep this
    search waiting too long: try again after ``retry_after`` seconds (the ``Retry-After``
    header)."""

    status = 503

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


class TooManyRequests(WebError):
    """One client is over a per-client limit (its open games, or its request rate): it may try
    again after ``retry_after`` seconds (the ``Retry-After`` header)."""

    status = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}
