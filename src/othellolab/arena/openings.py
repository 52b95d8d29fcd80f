"""Opening sets for matches: XOT-style lists of short transcripts, one per line."""

from __future__ import annotations

from pathlib import Path

from othellolab.core import OthelloError, parse_transcript


def read_openings(path: str | Path, *, size: int = 8) -> list[tuple[int, ...]]:
    """Read openings (transcripts like ``f5d6c4d3c2b3b4b5``), checking each is legal.

    Blank lines and lines starting with ``#`` are skipped; errors name the file and line.
    """
    p = Path(path)
    out: list[tuple[int, ...]] = []
    with p.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                out.append(tuple(parse_transcript(text, size=size)))
            except OthelloError as e:
                raise type(e)(f"{p}, line {number}: {e}") from None
    return out
