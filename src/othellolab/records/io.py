"""``read_games``/``write_games``: one entry point for every game-record format, by extension.

>>> format_of("WTH_2004.wtb"), format_of("logbook.gam.gz"), format_of("openings.txt")
('wthor', 'logistello', 'transcript')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from othellolab.records.game import GameRecord
from othellolab.records.ggf import read_ggf, write_ggf
from othellolab.records.logistello import read_logistello, write_logistello
from othellolab.records.report import RecordError
from othellolab.records.transcript import read_transcripts, write_transcripts
from othellolab.records.wthor import read_wthor, write_wthor

EXTENSIONS: dict[str, str] = {
    ".wtb": "wthor",
    ".ggf": "ggf",
    ".gam": "logistello",
    ".txt": "transcript",
    ".transcript": "transcript",
}
"""File extension (case-insensitive, after removing ``.gz``) -> format name."""

READERS: dict[str, Callable[..., Iterator[GameRecord]]] = {
    "wthor": read_wthor,
    "ggf": read_ggf,
    "logistello": read_logistello,
    "transcript": read_transcripts,
}
WRITERS: dict[str, Callable[..., int]] = {
    "wthor": write_wthor,
    "ggf": write_ggf,
    "logistello": write_logistello,
    "transcript": write_transcripts,
}


def format_of(path: str | Path) -> str:
    """The format of a file from its extension (``.gz`` is looked through)."""
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    ext = suffixes[-1] if suffixes else ""
    if ext in EXTENSIONS:
        return EXTENSIONS[ext]
    if ext == ".obf":
        raise RecordError(
            "OBF files hold positions, not games: read them with records.read_obf", source=p
        )
    known = ", ".join(sorted(EXTENSIONS))
    raise RecordError(
        f"unknown game-record extension {ext or '(none)'!r}: expected one of {known} "
        "(optionally .gz), or pass format=",
        source=p,
    )


def read_games(
    path: str | Path, *, format: str | None = None, **options: Any
) -> Iterator[GameRecord]:
    """Stream the games of any supported file; ``options`` go to the format's reader
    (``lenient``, ``report``, and e.g. ``players`` for WTHOR or ``size`` for transcripts)."""
    fmt = format or format_of(path)
    if fmt not in READERS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(READERS)}")
    return READERS[fmt](path, **options)


def write_games(
    path: str | Path, games: Iterable[GameRecord], *, format: str | None = None, **options: Any
) -> int:
    """Write games in the format of ``path``'s extension, atomically; returns the count."""
    fmt = format or format_of(path)
    if fmt not in WRITERS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(WRITERS)}")
    return WRITERS[fmt](path, games, **options)
