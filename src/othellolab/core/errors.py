"""The errors othellolab raises for bad input, under one root: ``OthelloError``.

Every error says *what* was wrong and *where* (a file and game, a player option, a request
field) in attributes of those names, and its message is built from them, so a CLI or a web API
can catch ``OthelloError`` once and show ``str(error)``. They are ``ValueError`` subclasses, so
code that catches ``ValueError`` keeps working.

>>> e = ConfigError("must be a finite number in [0.001, 3600], got nan", where="alphabeta", option="time")
>>> str(e)
'alphabeta: option time: must be a finite number in [0.001, 3600], got nan'
>>> e.option, isinstance(e, OthelloError)
('time', True)
"""

from __future__ import annotations

import copy
from typing import Any, Self


class OthelloError(ValueError):
    """Root of every error othellolab raises for bad input: ``what`` was wrong, ``where``.

    ``str(error)`` is ``"where: what"`` (just ``what`` when ``where`` is unknown)."""

    def __init__(self, what: str, *, where: str | None = None) -> None:
        self.what = what
        self.where = where
        super().__init__(self._message())

    def _message(self) -> str:
        return f"{self.where}: {self.what}" if self.where else self.what

    def at(self, where: str, **attributes: Any) -> Self:
        """The same error located further out: ``where`` goes before the location it had
        (``error.at("transcript move 3")``); other attributes are kept or set from
        ``attributes``."""
        error = copy.copy(self)
        error.where = where if self.where is None else f"{where}: {self.where}"
        for name, value in attributes.items():
            setattr(error, name, value)
        error.args = (error._message(),)
        return error


class MoveError(OthelloError):
    """A move that cannot be played: ``move`` is the move as written (``"a1"``, ``"pass"``),
    ``number`` its 1-based place in a game or transcript, when known."""

    def __init__(
        self,
        what: str,
        *,
        where: str | None = None,
        move: str | None = None,
        number: int | None = None,
    ) -> None:
        self.move = move
        self.number = number
        super().__init__(what, where=where)


class InvalidMoveError(MoveError):
    """A move that cannot even be parsed: a bad square name or an out-of-range index."""


class IllegalMoveError(MoveError):
    """A well-formed move that the rules forbid in the given position; ``legal`` names the
    legal moves there."""

    def __init__(self, what: str, *, legal: tuple[str, ...] = (), **located: Any) -> None:
        self.legal = tuple(legal)
        super().__init__(what, **located)


class InvalidPositionError(OthelloError):
    """A malformed position: a bad OBF string, overlapping discs, discs off the board."""


class ConfigError(OthelloError):
    """An option or config value that is out of range, of the wrong type, or unknown.

    ``option`` names it (``"time"``, ``"[optim] lr"``); ``where`` names what it belongs to (a
    player spec, a config file and table, a request field); ``allowed`` describes the values it
    takes, when there is a short description."""

    def __init__(
        self,
        what: str,
        *,
        where: str | None = None,
        option: str | None = None,
        allowed: str | None = None,
    ) -> None:
        self.option = option
        self.allowed = allowed
        super().__init__(what, where=where)

    def _message(self) -> str:
        what = f"option {self.option}: {self.what}" if self.option else self.what
        return f"{self.where}: {what}" if self.where else what
