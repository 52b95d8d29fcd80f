"""Transcript files: one game per line, ``f5d6c3...`` from the standard start.

Moves are two-character square names in upper or lower case; passes may be left out (they are
inserted where forced) or written ``PA``, ``pass`` or ``--``. Blank lines and lines starting
with ``#`` are skipped. Parsing and formatting are ``core.parse_transcript`` and
``core.format_transcript``; this module adds files, headers and errors that name the line.

>>> game = parse_transcript_line("F5 D6 C3")
>>> game.transcript()
'f5d6c3'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from othellolab.core import Board, OthelloError, parse_transcript
from othellolab.core.files import atomic_writer
from othellolab.records._stream import deliver, text_lines, undecodable
from othellolab.records.game import GameRecord
from othellolab.records.report import ReadReport, RecordError

COMMENT_PREFIX = "#"
"""Lines starting with this (after spaces) are comments."""

_MOVE_NUMBER = re.compile(r"^transcript move ([0-9]+)(?: '([^']*)')?: (.*)$", re.S)


class TranscriptError(RecordError):
    """A bad transcript line; the message names the file, the line (game) and the move."""


def parse_transcript_line(
    text: str,
    *,
    size: int = 8,
    source: str | Path | None = None,
    game: int | None = None,
    line: int | None = None,
    headers: dict[str, object] | None = None,
) -> GameRecord:
    """A game from one transcript (passes optional), checked move by move."""
    start = Board(size=size)
    try:
        actions = parse_transcript(text, start=start)
    except OthelloError as e:
        m = _MOVE_NUMBER.match(str(e))
        move = int(m.group(1)) if m else None
        raise TranscriptError(
            m.group(3) if m else str(e),
            source=source,
            game=game,
            line=line,
            move=move,
            move_text=m.group(2) if m and m.group(2) else None,
        ) from None
    return GameRecord(tuple(actions), start, headers or {})


def read_transcripts(
    path: str | Path,
    *,
    size: int = 8,
    lenient: bool = False,
    report: ReadReport | None = None,
) -> Iterator[GameRecord]:
    """Stream the games of a transcript file (gzip read transparently), one per line.

    Headers: ``source`` (file name), ``game`` (1-based) and ``line``. Strict by default;
    ``lenient=True`` skips bad lines and counts them in ``report``.
    """
    p = Path(path)
    return deliver(_items(p, size), source=p, lenient=lenient, report=report)


def _items(p: Path, size: int) -> Iterator[GameRecord | RecordError]:
    number = 0
    for line_no, raw in text_lines(p, error=TranscriptError):
        text = raw.strip()
        if not text or text.startswith(COMMENT_PREFIX):
            continue
        number += 1
        if reason := undecodable(text, "UTF-8"):
            yield TranscriptError(reason, source=p, game=number, line=line_no)
            continue
        headers = {"source": p.name, "game": number, "line": line_no}
        try:
            yield parse_transcript_line(
                text, size=size, source=p, game=number, line=line_no, headers=headers
            )
        except RecordError as e:
            yield e


def write_transcripts(
    path: str | Path, games: Iterable[GameRecord], *, passes: bool = False, upper: bool = False
) -> int:
    """Write one transcript per line, atomically (gzip if the name ends in ``.gz``).

    Passes are written ``PA`` if ``passes``; ``upper`` writes ``F5D6``. Games must start from
    the standard position of their size (a transcript has no start board). Returns the count.
    """
    p = Path(path)
    count = 0
    with atomic_writer(p) as f:
        for count, game in enumerate(games, 1):
            if game.start != Board(size=game.size):
                raise TranscriptError(
                    "a transcript can only hold a game from the standard start position",
                    source=p,
                    game=count,
                )
            text = game.transcript(passes=passes)
            f.write((text.upper() if upper else text) + "\n")
    return count
