"""Logistello's game book ``logbook.gam``: one game per line, ``+d3-c3+c4...: -04 10``.

``+`` marks a black move and ``-`` a white one; a pass shows as the same sign twice in a row.
After the colon come black's disc difference and a search depth. In the public book the score
gives the empty squares to the winner in most games and not in a few (see docs/formats.md),
so those games show up as result mismatches. Files may be gzip-compressed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numba
import numpy as np

from othellolab.core import Board, square_name
from othellolab.core.parsing import NumberError, parse_int
from othellolab.records._stream import (
    build_games,
    deliver,
    text_lines,
    undecodable,
    write_lines,
)
from othellolab.records.game import GameRecord
from othellolab.records.report import ReadReport, RecordError

SIGNS = {"+": 0, "-": 1}
"""Move prefix -> colour (0 black, 1 white)."""

MAX_SCORE = 64
"""Largest score (black's disc difference) in absolute value."""

MAX_DEPTH = 99
"""Largest search depth a line may give (the public book gives 10 throughout)."""

_LINE = re.compile(r"^((?:[+-][a-hA-H][1-8])*)\s*:\s*([+-]?[0-9]+)\s+([0-9]+)\s*$", re.ASCII)
_PASS = 64
_CHUNK = 4096


@numba.njit(cache=True, nogil=True)
def _signed_moves(
    text: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Actions (passes explicit, -1 padded) of many ``+d3-c3...`` strings in one byte buffer.

    A string whose first move is white's gets length -1.
    """
    n = starts.shape[0]
    out = np.full((n, 120), -1, dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    for i in range(n):
        k = 0
        expected = 0
        for j in range(starts[i], ends[i], 3):
            colour = 1 if text[j] == 45 else 0
            if colour != expected:
                if k == 0:
                    k = -1
                    break
                out[i, k] = 64
                k += 1
                expected = 1 - expected
            out[i, k] = (text[j + 2] - 49) * 8 + (text[j + 1] | 32) - 97
            k += 1
            expected = 1 - expected
        lengths[i] = k
    return out, lengths


class LogistelloError(RecordError):
    """A bad line of a Logistello book; the message names the file, the line and the move."""


def parse_logistello_line(
    text: str, *, source: str | Path | None = None, line: int | None = None
) -> tuple[np.ndarray, int, int]:
    """(actions with explicit passes, black's disc difference, depth) of one book line."""
    m = _LINE.match(text.strip())
    if m is None:
        raise LogistelloError(
            "expected '+d3-c3...: SCORE DEPTH' (signed moves, a colon, two numbers), "
            f"found {text.strip()[:40]!r}",
            source=source,
            game=line,
            line=line,
        )
    raw = np.frombuffer(m.group(1).encode("ascii"), dtype=np.uint8).reshape(-1, 3)
    colour = (raw[:, 0] == ord("-")).astype(np.int64)
    squares = (raw[:, 2].astype(np.int64) - ord("1")) * 8 + (raw[:, 1] | 0x20) - ord("a")
    if len(colour) and colour[0] != 0:
        raise LogistelloError(
            "the first move is white's (black moves first)",
            source=source,
            game=line,
            line=line,
            move=1,
            move_text=m.group(1)[:3],
        )
    repeats = np.nonzero(colour[1:] == colour[:-1])[0] + 1
    actions = np.insert(squares, repeats, _PASS) if len(repeats) else squares
    return actions, *_numbers(m, source, line)


def _numbers(m: re.Match[str], source: str | Path | None, line: int | None) -> tuple[int, int]:
    """(score, depth) of a matched line: black's disc difference within ``-MAX_SCORE..MAX_SCORE``,
    a depth within ``0..MAX_DEPTH``.

    ``_LINE`` matched them as ASCII digits, so a short one is converted directly (the hot path:
    121,123 lines in the public book); anything else goes through ``core.parsing`` for the
    bounds and the message."""
    score_text, depth_text = m.group(2, 3)
    if len(score_text) <= 4 and len(depth_text) <= 3:
        score, depth = int(score_text), int(depth_text)
        if -MAX_SCORE <= score <= MAX_SCORE and 0 <= depth <= MAX_DEPTH:
            return score, depth
    try:
        score = parse_int(score_text, lo=-MAX_SCORE, hi=MAX_SCORE, what="score")
        depth = parse_int(depth_text, lo=0, hi=MAX_DEPTH, what="depth")
    except NumberError as e:
        raise LogistelloError(e.what, source=source, game=line, line=line) from None
    return score, depth


def read_logistello(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[GameRecord]:
    """Stream the games of a Logistello book (gzip read transparently) as checked games.

    Headers: ``source``, ``game`` (= ``line``, 1-based) and ``depth``; ``recorded_score`` is
    the stored score. Strict by default; ``lenient=True`` skips bad lines and counts them.
    """
    p = Path(path)
    return deliver(_items(p), source=p, lenient=lenient, report=report)


def _items(p: Path) -> Iterator[GameRecord | RecordError]:
    batch: list[tuple[int, str, dict[str, Any]] | RecordError] = []
    for line_no, raw in text_lines(p, encoding="ascii", error=LogistelloError):
        text = raw.strip()
        if not text:
            continue
        m = _LINE.match(text)
        if m is None or len(m.group(1)) > 180:
            batch.append(_bad_line(text, p, line_no))
        else:
            try:
                score, depth = _numbers(m, p, line_no)
            except RecordError as e:
                batch.append(e)
            else:
                headers = {"source": p.name, "game": line_no, "line": line_no, "depth": depth}
                batch.append((line_no, m.group(1), {"headers": headers, "recorded_score": score}))
        if len(batch) >= _CHUNK:
            yield from _check(p, batch)
            batch = []
    yield from _check(p, batch)


def _bad_line(text: str, p: Path, line_no: int) -> RecordError:
    if reason := undecodable(text, "ASCII"):
        return LogistelloError(reason, source=p, game=line_no, line=line_no)
    try:
        parse_logistello_line(text, source=p, line=line_no)
    except RecordError as e:
        return e
    return LogistelloError("more than 60 moves", source=p, game=line_no, line=line_no)


def _check(
    p: Path, batch: list[tuple[int, str, dict[str, Any]] | RecordError]
) -> Iterator[GameRecord | RecordError]:
    rows = [b for b in batch if not isinstance(b, RecordError)]
    buf = "".join(r[1] for r in rows).encode("ascii")
    ends = np.cumsum([len(r[1]) for r in rows], dtype=np.int64)
    starts = ends - np.array([len(r[1]) for r in rows], dtype=np.int64)
    moves, lengths = _signed_moves(np.frombuffer(buf, dtype=np.uint8), starts, ends)
    white_first = lengths < 0
    lengths[white_first] = 0
    games = iter(
        build_games(
            moves, lengths, [r[2] for r in rows], source=p, first_game=1, error=LogistelloError
        )
    )
    i = -1
    for item in batch:
        if isinstance(item, RecordError):
            yield item
            continue
        i += 1
        game = next(games)
        line_no, text, _ = item
        if white_first[i]:
            yield _bad_line(text + ": 0 0", p, line_no)
            continue
        actions = moves[i, : lengths[i]]
        if isinstance(game, RecordError):
            yield LogistelloError(game.reason,
                                  source=p, game=line_no, line=line_no, move=game.move,
                                  move_text=_move_text(actions, game.move))  # fmt: skip
        elif len(game.moves) != len(actions):
            given = actions.tolist()
            k = next(i for i, (a, b) in enumerate(zip(game.moves, given, strict=False)) if a != b)
            yield LogistelloError(
                "the signs say the wrong colour moves here (a pass is missing)",
                source=p,
                game=line_no,
                line=line_no,
                move=k + 1,
            )
        else:
            yield game


def _move_text(actions: np.ndarray, move: int | None) -> str | None:
    if not move or move > len(actions):
        return None
    return square_name(int(actions[move - 1]))


def format_logistello_line(game: GameRecord) -> str:
    """One game as a book line; the score is the recorded one, else the replayed one."""
    if game.size != 8 or game.start != Board():
        raise LogistelloError("a Logistello line holds an 8x8 game from the standard start")
    parts = []
    turn = 0
    for a in game.moves:
        if a != _PASS:
            parts.append(("+" if turn == 0 else "-") + square_name(a))
        turn = 1 - turn
    score = game.recorded_score if game.recorded_score is not None else game.score
    return f"{''.join(parts)}: {score:+03d} {int(game.headers.get('depth', 0))}"


def write_logistello(path: str | Path, games: Iterable[GameRecord]) -> int:
    """Write games as a Logistello book, atomically (gzip if the name ends in ``.gz``)."""
    return write_lines(path, games, format_logistello_line)
