"""Opening sets for matches: XOT-style lists of short transcripts, one per line."""

from __future__ import annotations

from pathlib import Path

from othellolab.records.transcript import read_transcripts


def read_openings(path: str | Path, *, size: int = 8) -> list[tuple[int, ...]]:
    """Read openings (transcripts like ``f5d6c4d3c2b3b4b5``), checking each is legal.

    Blank lines and lines starting with ``#`` are skipped; a bad line raises the transcript
    reader's ``TranscriptError`` naming the file, the line and the move.
    """
    return [game.moves for game in read_transcripts(path, size=size)]
