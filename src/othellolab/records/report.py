"""What readers say about bad input: ``RecordError`` (strict mode) and ``ReadReport`` (lenient).

Strict readers raise ``RecordError`` at the first bad game; its message and attributes name the
file, the game number (1-based, in file order), the move number and the line where the format
has lines. Lenient readers skip such games instead and count them in a ``ReadReport``, which
also lists games whose stored result disagrees with the replay (those are kept, not dropped).
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from othellolab.core import OthelloError


class RecordError(OthelloError):
    """A malformed game record; ``str(error)`` names the file, game, move and line if known."""

    def __init__(
        self,
        message: str,
        *,
        source: str | Path | None = None,
        game: int | None = None,
        move: int | None = None,
        line: int | None = None,
        move_text: str | None = None,
    ) -> None:
        self.source = None if source is None else str(source)
        self.game = game
        self.move = move
        self.line = line
        self.move_text = move_text
        self.reason = message
        where = location(source, game=game, move=move, line=line, move_text=move_text)
        super().__init__(message, where=where.removesuffix(": ") or None)


def location(
    source: str | Path | None,
    *,
    game: int | None = None,
    move: int | None = None,
    line: int | None = None,
    move_text: str | None = None,
) -> str:
    """Error prefix like ``"WTH_2004.wtb: game 17, move 3 (a1): "`` (``None`` parts left out)."""
    parts = []
    if game is not None:
        parts.append(f"game {game}" + (f" (line {line})" if line is not None else ""))
    elif line is not None:
        parts.append(f"line {line}")
    if move is not None:
        parts.append(_move(move, move_text))
    head = f"{source}: " if source is not None else ""
    return head + (", ".join(parts) + ": " if parts else "")


def _move(move: int, text: str | None) -> str:
    return f"move {move}" + (f" ({text})" if text else "")


@dataclass(frozen=True, slots=True)
class Problem:
    """One skipped game or one result mismatch: where it is and why."""

    source: str
    game: int | None
    reason: str
    line: int | None = None
    move: int | None = None
    move_text: str | None = None

    def __str__(self) -> str:
        where = location(
            self.source, game=self.game, line=self.line, move=self.move, move_text=self.move_text
        )
        return where + self.reason


@dataclass
class ReadReport:
    """What a reader met: games yielded, games skipped (lenient mode) and result mismatches.

    Pass one ``ReadReport`` to several readers to add up over many files. ``skipped`` and
    ``mismatches`` keep every problem; ``summary()`` groups them by kind.
    """

    games: int = 0
    skipped: list[Problem] = field(default_factory=list)
    mismatches: list[Problem] = field(default_factory=list)
    files: int = 0

    def skip(self, error: RecordError) -> None:
        """Count a game skipped because of ``error``."""
        self.skipped.append(
            Problem(
                error.source or "?",
                error.game,
                error.reason,
                error.line,
                error.move,
                error.move_text,
            )
        )

    def mismatch(
        self, source: str, game: int | None, message: str, line: int | None = None
    ) -> None:
        """Note a game whose stored result disagrees with its replay."""
        self.mismatches.append(Problem(source, game, message, line))

    @property
    def ok(self) -> bool:
        """Whether no game was skipped."""
        return not self.skipped

    def summary(self) -> str:
        """One line per kind of problem with its count, after a line of totals."""
        lines = [
            f"{self.games} games read from {self.files} file(s), {len(self.skipped)} skipped, "
            f"{len(self.mismatches)} result mismatches"
        ]
        kinds = Counter(_kind(p.reason) for p in self.skipped)
        lines += [f"  skipped {n}: {kind}" for kind, n in kinds.most_common()]
        return "\n".join(lines)


def _kind(reason: str) -> str:
    """The general kind of a problem message (its text before the first detail)."""
    return reason.split(":", 1)[0].split(" (", 1)[0]


def warn_skipped(report: ReadReport, source: str, before: int) -> None:
    """Warn once per file about games skipped since ``before``, for callers without a report."""
    n = len(report.skipped) - before
    if n:
        first = report.skipped[before]
        warnings.warn(
            f"{source}: skipped {n} bad game(s) in lenient mode; first: {first}",
            RuntimeWarning,
            stacklevel=3,
        )
