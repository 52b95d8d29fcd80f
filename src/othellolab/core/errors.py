"""Typed errors of the rules: all are ``ValueError`` subclasses whose messages say what and where."""

from __future__ import annotations


class OthelloError(ValueError):
    """Base class of every error othellolab raises for bad input."""


class InvalidMoveError(OthelloError):
    """A move that cannot even be parsed: a bad square name or an out-of-range index."""


class IllegalMoveError(OthelloError):
    """A well-formed move that the rules forbid in the given position."""


class InvalidPositionError(OthelloError):
    """A malformed position: a bad OBF string, overlapping discs, discs off the board."""
