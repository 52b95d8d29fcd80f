"""Game records as arrays: the input of the replay kernel, from WTHOR files or ``GameRecord`` values.

WTHOR ``.wtb`` files are read in one go (68-byte records -> an ``(N, 60)`` move array) with
the header parser, move decoder and error type of ``records.wthor``. Any other source is a
sequence of ``records.GameRecord`` values turned into the same arrays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from othellolab.core import BLACK
from othellolab.core.values import NO_SCORE
from othellolab.datasets.shards import MissingDataError
from othellolab.records.game import GameRecord
from othellolab.records.report import RecordError
from othellolab.records.wthor import (
    GAME_SIZE,
    HEADER_SIZE,
    WthorError,
    decode_moves,
    parse_header,
    score_of_discs,
)

OLD_NO_SCORE = -32768
"""What ``recorded_score`` held for "no result" before it held ``NO_SCORE`` (``core.values``,
the one constant that self-play records share). A build's resume cache written then holds it
(``build`` reads it as ``NO_SCORE``), and ``sha256_arrays`` hashes ``NO_SCORE`` as it, so that
a source's hash (its cache key, the ``sha256`` in a dataset's manifest) stays what it was."""

NO_YEAR = -1
"""``year`` of a game whose record does not say."""


@dataclass(frozen=True, eq=False)
class GameArrays:
    """The games of one source as arrays, ready for the replay kernel.

    ``moves[g]`` holds game ``g``'s actions padded with ``-1``; forced passes may be left out
    (WTHOR) or given as ``size*size`` (``GameRecord.moves``). The start position is seen from the
    side to move (``start_p``) whose colour is ``start_color``. ``recorded_score`` is black's
    final disc difference as the record states it (``NO_SCORE`` if none).
    """

    name: str
    size: int
    moves: np.ndarray
    start_p: np.ndarray
    start_o: np.ndarray
    start_color: np.ndarray
    year: np.ndarray
    recorded_score: np.ndarray

    @property
    def n_games(self) -> int:
        """Number of games."""
        return int(self.moves.shape[0])


def sha256_arrays(ga: GameArrays) -> str:
    """Hex SHA-256 of a ``GameArrays``' content (the cache key of an in-memory source)."""
    h = hashlib.sha256(f"{ga.size}".encode())
    recorded = ga.recorded_score.astype(np.int64)
    recorded[recorded == NO_SCORE] = OLD_NO_SCORE
    recorded = recorded.astype(ga.recorded_score.dtype)
    for a in (ga.moves, ga.start_p, ga.start_o, ga.start_color, ga.year, recorded):
        h.update(np.ascontiguousarray(a).tobytes())
        h.update(str(a.shape).encode())
    return h.hexdigest()


def _start_arrays(n: int, size: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from othellolab.core import Board

    board = Board(size=size)
    return (
        np.full(n, board.player, dtype=np.uint64),
        np.full(n, board.opponent, dtype=np.uint64),
        np.zeros(n, dtype=np.uint8),
    )


def read_wtb_arrays(path: str | Path) -> GameArrays:
    """All games of a ``.wtb`` file as arrays (vectorised decoding, strict).

    Errors name the file, the game (1-based) and the move: a truncated record, or a move byte
    that is not ``10*row + col`` with digits 1..8. As in ``records.wthor.read_wtb``, a game's
    moves end at its first zero byte.
    """
    p = Path(path)
    data = p.read_bytes()
    header = parse_header(data[:HEADER_SIZE], str(p))
    n = header.n_games
    body = data[HEADER_SIZE:]
    if len(body) < n * GAME_SIZE:
        g = len(body) // GAME_SIZE + 1
        raise WthorError(
            f"{p}: game {g}: truncated record ({len(body) - (g - 1) * GAME_SIZE} of "
            f"{GAME_SIZE} bytes); the header announces {n} games"
        )
    rec = np.frombuffer(body, dtype=np.uint8, count=n * GAME_SIZE).reshape(n, GAME_SIZE)
    raw = rec[:, 8:]
    squares, ends = decode_moves(raw)
    played = np.arange(raw.shape[1]) < ends[:, None]
    bad = played & (squares < 0)
    if bad.any():
        g, m = np.argwhere(bad)[0]
        raise WthorError(f"{p}: game {g + 1}, move {m + 1}: invalid move byte {raw[g, m]}")
    moves = np.where(played, squares, -1).astype(np.int16)
    black_discs = rec[:, 6].astype(np.int16)
    start_p, start_o, start_color = _start_arrays(n)
    return GameArrays(
        name=p.name,
        size=8,
        moves=moves,
        start_p=start_p,
        start_o=start_o,
        start_color=start_color,
        year=np.full(n, header.year, dtype=np.int16),
        recorded_score=score_of_discs(black_discs).astype(np.int16),
    )


def read_wtb_theoretical(path: str | Path) -> tuple[np.ndarray, int]:
    """Each game's theoretical score of a ``.wtb`` file (black's disc difference under perfect
    play from the game's position at ``depth`` empty squares, empties to the winner) and that
    ``depth`` from the header: WTHOR's solved scores, exact where the human result is not."""
    p = Path(path)
    data = p.read_bytes()
    header = parse_header(data[:HEADER_SIZE], str(p))
    n = header.n_games
    if len(data) - HEADER_SIZE < n * GAME_SIZE:
        raise WthorError(f"{p}: truncated: the header announces {n} games")
    rec = np.frombuffer(data[HEADER_SIZE:], dtype=np.uint8, count=n * GAME_SIZE)
    theoretical = rec.reshape(n, GAME_SIZE)[:, 7].astype(np.int16)
    return score_of_discs(theoretical).astype(np.int16), int(header.depth)


def games_to_arrays(games: Iterable[GameRecord], *, name: str = "<games>") -> GameArrays:
    """``GameRecord`` values (any reader's output) as arrays; all games must share a board size."""
    moves: list[tuple[int, ...]] = []
    sp: list[int] = []
    so: list[int] = []
    sc: list[int] = []
    years: list[int] = []
    recorded: list[int] = []
    size = None
    for number, game in enumerate(games, 1):
        if size is None:
            size = game.size
        elif game.size != size:
            raise RecordError(
                f"game {number} is {game.size}x{game.size}, earlier games {size}x{size}",
                source=name,
            )
        moves.append(game.moves)
        sp.append(game.start.player)
        so.append(game.start.opponent)
        sc.append(int(game.start.turn != BLACK))
        year = game.headers.get("year")
        years.append(int(year) if year is not None else NO_YEAR)
        recorded.append(NO_SCORE if game.recorded_score is None else int(game.recorded_score))
    size = size or 8
    width = max((len(m) for m in moves), default=0)
    arr = np.full((len(moves), width), -1, dtype=np.int16)
    for g, m in enumerate(moves):
        arr[g, : len(m)] = m
    return GameArrays(
        name=name,
        size=size,
        moves=arr,
        start_p=np.array(sp, dtype=np.uint64),
        start_o=np.array(so, dtype=np.uint64),
        start_color=np.array(sc, dtype=np.uint8),
        year=np.array(years, dtype=np.int16),
        recorded_score=np.array(recorded, dtype=np.int16),
    )


def load_source(path: str | Path) -> GameArrays:
    """The games of one record file: ``.wtb`` through the vectorised reader, other formats
    through ``records.read_games`` when that reader exists."""
    p = Path(path)
    if p.suffix.lower() == ".wtb":
        return read_wtb_arrays(p)
    from othellolab import records

    read_games = getattr(records, "read_games", None)
    if read_games is None:
        raise RecordError(
            f"unsupported record format {p.suffix!r} (expected a .wtb file)", source=p
        )
    return games_to_arrays(read_games(p), name=p.name)


def expand_sources(sources: Iterable[str | Path]) -> list[Path]:
    """Files named by ``sources``: a directory stands for its ``.wtb`` files, sorted by name."""
    out: list[Path] = []
    for s in sources:
        p = Path(s)
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if f.suffix.lower() == ".wtb" and f.is_file())
            if not files:
                raise MissingDataError(f"{p}: no .wtb files in this directory")
            out.extend(files)
        elif p.is_file():
            out.append(p)
        else:
            raise MissingDataError(f"{p}: no such file or directory")
    return out
