"""Plumbing shared by the readers: build a checked ``GameRecord``, then raise or skip and count; read
text that may be gzip-compressed, undecodable or corrupt without losing track of the line."""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from othellolab.core import Board, MoveError, OthelloError
from othellolab.core.files import atomic_writer
from othellolab.records._replay import insert_passes_batch
from othellolab.records.game import GameRecord
from othellolab.records.report import ReadReport, RecordError, warn_skipped


def build_game(
    moves: Any,
    *,
    source: str | Path,
    game: int,
    line: int | None = None,
    start: Board | None = None,
    error: type[RecordError] = RecordError,
    **fields: Any,
) -> GameRecord:
    """``GameRecord.from_moves`` whose errors become an ``error`` naming file, game and move."""
    try:
        return GameRecord.from_moves(moves, start=start, **fields)
    except MoveError as e:
        raise error(
            e.what, source=source, game=game, move=e.number, line=line, move_text=e.move
        ) from e
    except OthelloError as e:
        raise error(str(e), source=source, game=game, line=line) from e


def build_games(
    moves: np.ndarray,
    lengths: np.ndarray,
    fields: list[dict[str, Any]],
    *,
    source: str | Path,
    first_game: int,
    start: Board | None = None,
    error: type[RecordError] = RecordError,
) -> Iterator[GameRecord | RecordError]:
    """Checked games from rows of integer moves (row ``i``: ``lengths[i]`` moves of game
    ``first_game + i``), replayed by one compiled call; bad games come out as errors."""
    board = start if start is not None else Board()
    size = board.size
    actions, n_actions, bad, fp, fo = insert_passes_batch(
        board.player, board.opponent, moves.astype(np.int64, copy=False), lengths, size
    )
    n_list = n_actions.tolist()
    bad_list = bad.tolist()
    turn0 = board.turn
    for i, f in enumerate(fields):
        if bad_list[i] >= 0:
            try:
                yield build_game(
                    moves[i, : lengths[i]],
                    source=source,
                    game=first_game + i,
                    start=start,
                    error=error,
                    **f,
                )
            except RecordError as e:
                yield e
            continue
        k = n_list[i]
        game = GameRecord._trusted(tuple(actions[i, :k].tolist()), board, f)
        final = Board.from_bitboards(int(fp[i]), int(fo[i]), turn0 ^ (k & 1), size=size)
        object.__setattr__(game, "_final", final)
        yield game


T = TypeVar("T")


def deliver(
    items: Iterable[T | RecordError],
    *,
    source: str | Path,
    lenient: bool,
    report: ReadReport | None,
) -> Iterator[T]:
    """Yield the records of ``items``; an error item is raised (strict) or skipped and counted.

    An error raised by ``items`` itself ends the file the same way: raised, or counted. Games
    whose recorded score disagrees with the replay are yielded and noted in the report. Without
    a report, a lenient read warns once about what it skipped.
    """
    rep = report if report is not None else ReadReport()
    rep.files += 1
    before = len(rep.skipped)
    name = str(source)
    try:
        for item in items:
            if isinstance(item, RecordError):
                if not lenient:
                    raise item
                rep.skip(item)
                continue
            if isinstance(item, GameRecord):
                mismatch = item.result_mismatch()
                if mismatch is not None:
                    rep.mismatch(name, item.headers.get("game"), mismatch, item.headers.get("line"))
            rep.games += 1
            yield item
    except RecordError as e:
        if not lenient:
            raise
        rep.skip(e)
    if report is None:
        warn_skipped(rep, name, before)


CORRUPT_DATA = (EOFError, zlib.error, gzip.BadGzipFile)
"""What reading a damaged gzip file raises (a truncated stream, bad data, a bad CRC)."""

_SURROGATE = re.compile("[\udc80-\udcff]")


def write_lines(path: str | Path, items: Iterable[T], line: Callable[[T], str]) -> int:
    """Write ``line(item)`` for each item, one a line, to ``path`` atomically (gzip if the name
    ends in ``.gz``); returns how many were written."""
    count = 0
    with atomic_writer(path) as f:
        for item in items:
            f.write(line(item) + "\n")
            count += 1
    return count


def text_lines(
    path: str | Path, *, encoding: str = "utf-8", error: type[RecordError] = RecordError
) -> Iterator[tuple[int, str]]:
    """Numbered lines (1-based, line ends kept) of a text file, gzip read transparently.

    Bytes that are not valid ``encoding`` come through as lone surrogates, so that one bad line
    does not end the file (``undecodable`` says why a line is bad); damaged compressed data
    raises ``error`` naming the file and the last line read whole.
    """
    p = Path(path)
    number = 0
    with open_text(p, encoding=encoding, errors="surrogateescape") as f:
        try:
            for number, line in enumerate(f, 1):
                yield number, line
        except CORRUPT_DATA as e:
            after = f" after line {number}" if number else ""
            raise error(f"damaged compressed data{after} ({e})", source=p) from None


def text_blocks(
    path: str | Path, *, encoding: str, size: int, error: type[RecordError] = RecordError
) -> Iterator[str]:
    """The text of a file in blocks of ``size`` characters, gzip read transparently; damaged
    compressed data raises ``error`` naming the file."""
    p = Path(path)
    with open_text(p, encoding=encoding, errors="surrogateescape") as f:
        try:
            while block := f.read(size):
                yield block
        except CORRUPT_DATA as e:
            raise error(f"damaged compressed data ({e})", source=p) from None


def undecodable(line: str, encoding: str) -> str | None:
    """Why a line of ``text_lines`` is not valid ``encoding`` text, or None when it is."""
    if line.isascii():
        return None
    m = _SURROGATE.search(line)
    if m is None:
        return None
    return f"not {encoding} text: byte 0x{ord(m.group()) - 0xDC00:02x} at column {m.start() + 1}"


def open_text(path: str | Path, *, encoding: str = "utf-8", errors: str = "strict") -> IO[str]:
    """Open a text file for reading, gunzipping it transparently when it is gzip-compressed.

    Closing the text stream closes the file (a ``GzipFile`` given a file object would leave
    that open)."""
    p = Path(path)
    with p.open("rb") as probe:
        compressed = probe.read(2) == b"\x1f\x8b"
    stream = gzip.open(p, "rb") if compressed else p.open("rb")  # noqa: SIM115 (the caller closes it)
    return io.TextIOWrapper(stream, encoding=encoding, errors=errors, newline="")
