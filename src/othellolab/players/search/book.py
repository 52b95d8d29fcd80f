"""An opening book: positions of the first plies with their negamax values, looked up by the
search players before they search.

A book holds 8x8 positions in canonical form (the smallest ``(player, opponent)`` pair of the
eight symmetric images, so that transposed and mirrored lines share one entry), each with its
value in discs from the side to move: the best of its book children's values and of the best
move that leaves the book, searched by the engine when the book was built
(``fitting.book``). A player in the book plays the book move of best value while no move
outside the book is better; otherwise it searches, which finds that move itself.

Files: ``book.safetensors`` (sorted keys, values, game counts, search depths) and
``config.json`` (sources, build options, counts, the SHA-256 of the tensors), checked on load
as weights are (``ModelFileError`` naming the file).
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import Board
from othellolab.core import kernels as _k
from othellolab.core.parsing import clip
from othellolab.nn.files import (
    CHECKSUM_KEY,
    ModelFileError,
    expected_checksum,
    read_config,
    verify_weights,
)

__all__ = [
    "BOOK_FILE",
    "DEFAULT_BOOK",
    "Book",
    "BookMove",
    "available_books",
    "canonical",
    "canonical_batch",
    "load_book",
    "save_book",
    "shipped_book",
]

BOOK_FILE = "book.safetensors"
FORMAT = "othellolab-book"
VERSION = 1
DEFAULT_BOOK = "book-wthor"
"""The shipped book that ``book=on`` plays."""

_DATA = Path(__file__).resolve().parent / "data"
_KEY = np.dtype([("p", np.uint64), ("o", np.uint64)])


def canonical(p: int, o: int) -> tuple[int, int]:
    """The smallest ``(p, o)`` of the eight symmetric images of an 8x8 position."""
    return min((_k.transform(p, k, 8), _k.transform(o, k, 8)) for k in range(8))


def canonical_batch(p: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``canonical`` of many positions at once (uint64 arrays)."""
    p = np.asarray(p, dtype=np.uint64)
    o = np.asarray(o, dtype=np.uint64)
    best_p, best_o = p.copy(), o.copy()
    for k in range(1, 8):
        tp, to = _k.transform_batch(p, k, 8), _k.transform_batch(o, k, 8)
        better = (tp < best_p) | ((tp == best_p) & (to < best_o))
        best_p[better] = tp[better]
        best_o[better] = to[better]
    return best_p, best_o


def _strictly_sorted(keys: np.ndarray) -> bool:
    p, o = keys["p"], keys["o"]
    return bool(np.all((p[1:] > p[:-1]) | ((p[1:] == p[:-1]) & (o[1:] > o[:-1]))))


def keys_of(p: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Structured ``(p, o)`` keys that sort and compare as pairs (for ``np.searchsorted``)."""
    keys = np.empty(len(p), dtype=_KEY)
    keys["p"] = p
    keys["o"] = o
    return keys


@dataclass(frozen=True, slots=True)
class BookMove:
    """A move of a book position: its value in discs from the mover's side, and whether the
    book holds the position it leads to (a move out of the book carries the searched value of
    the best such move only)."""

    move: int
    value: int
    in_book: bool


@dataclass(frozen=True, eq=False)
class Book:
    """A read-only opening book: canonical keys sorted, with values, game counts and the depth
    of the search behind each value."""

    keys: np.ndarray
    value: np.ndarray
    count: np.ndarray
    depth: np.ndarray
    config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.keys)
        if not (len(self.value) == len(self.count) == len(self.depth) == n):
            raise ValueError("book arrays must have one entry per key")
        if n > 1 and not _strictly_sorted(self.keys):
            raise ValueError("book keys must be sorted and distinct")

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def name(self) -> str:
        return str(self.config.get("name", "book"))

    def _index(self, p: int, o: int) -> int:
        cp, co = canonical(p, o)
        key = np.array([(cp, co)], dtype=_KEY)
        i = int(np.searchsorted(self.keys, key[0]))
        if i < len(self.keys) and self.keys[i] == key[0]:
            return i
        return -1

    def lookup(self, board: Board) -> int | None:
        """The book value of ``board`` from its side to move, or ``None`` when not in the book."""
        if board.size != 8:
            return None
        i = self._index(board.player, board.opponent)
        return None if i < 0 else int(self.value[i])

    def value_of_start(self) -> int:
        """The book's value of the start position (0 is a draw with best play)."""
        value = self.lookup(Board())
        return 0 if value is None else value

    def entry(self, board: Board) -> dict[str, int] | None:
        """Value, game count and search depth of ``board``'s entry, or ``None``."""
        if board.size != 8:
            return None
        i = self._index(board.player, board.opponent)
        if i < 0:
            return None
        return {
            "value": int(self.value[i]),
            "count": int(self.count[i]),
            "depth": int(self.depth[i]),
        }

    def moves(self, board: Board) -> list[BookMove]:
        """The moves of ``board`` whose positions the book holds, best first (values from the
        mover's side); empty when ``board`` is not in the book."""
        if board.size != 8 or self._index(board.player, board.opponent) < 0:
            return []
        out = []
        for a in board.legal_actions():
            child = board.play(a)
            if child.is_game_over():
                continue
            i = self._index(child.player, child.opponent)
            if i >= 0:
                v = int(self.value[i])
                out.append(BookMove(a, -v if child.turn != board.turn else v, True))
        out.sort(key=lambda m: -m.value)
        return out

    def choose(
        self, board: Board, *, margin: int = 0, rng: random.Random | None = None
    ) -> BookMove | None:
        """The book move to play, or ``None`` to search: a move among the book moves whose value
        is within ``margin`` discs of the best (the best alone with 0, at random with ``rng``),
        provided the best book move is as good as the position's value (else the best move
        leaves the book, and the search should find it)."""
        value = self.lookup(board)
        if value is None:
            return None
        moves = self.moves(board)
        if not moves or moves[0].value < value:
            return None
        good = [m for m in moves if m.value >= moves[0].value - margin]
        return rng.choice(good) if rng is not None and len(good) > 1 else good[0]


def save_book(
    directory: str | Path,
    keys: np.ndarray,
    value: np.ndarray,
    count: np.ndarray,
    depth: np.ndarray,
    info: dict[str, Any] | None = None,
) -> Path:
    """Write ``book.safetensors`` and ``config.json`` atomically (keys sorted here)."""
    from safetensors.numpy import save

    from othellolab.core.files import write_bytes, write_json
    from othellolab.nn.files import file_sha256

    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    if len(keys) > 1 and not _strictly_sorted(keys):
        raise ValueError("book keys must be distinct")
    tensors = {
        "player": np.ascontiguousarray(keys["p"]),
        "opponent": np.ascontiguousarray(keys["o"]),
        "value": np.clip(np.asarray(value)[order], -64, 64).astype(np.int8),
        "count": np.minimum(np.asarray(count)[order], 2**32 - 1).astype(np.uint32),
        "depth": np.clip(np.asarray(depth)[order], 0, 60).astype(np.uint8),
    }
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    write_bytes(d / BOOK_FILE, save(tensors))
    config = {
        "format": FORMAT,
        "version": VERSION,
        "board_size": 8,
        "positions": len(keys),
        "created": datetime.date.today().isoformat(),
        **(info or {}),
        CHECKSUM_KEY: file_sha256(d / BOOK_FILE),
    }
    write_json(d / "config.json", config)
    return d


def available_books() -> list[str]:
    """Names of the shipped books (data folders holding a book file)."""
    if not _DATA.is_dir():
        return []
    return sorted(p.name for p in _DATA.iterdir() if (p / BOOK_FILE).is_file())


def _resolve(source: str | Path) -> Path:
    d = Path(source)
    if (d / "config.json").is_file():
        return d
    if str(source) in available_books():
        return _DATA / str(source)
    raise FileNotFoundError(
        f"{source}: no opening book (config.json and {BOOK_FILE}); shipped: "
        f"{', '.join(available_books()) or 'none'}"
    )


def load_book(source: str | Path | None = None) -> Book:
    """A book from a folder, or the shipped book of that name (default ``DEFAULT_BOOK``); a
    foreign, damaged or inconsistent file is a ``ModelFileError`` naming it."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    d = _resolve(source if source not in (None, "") else DEFAULT_BOOK)
    config_path = d / "config.json"
    config = read_config(config_path)
    if config.get("format") != FORMAT:
        raise ModelFileError(
            f"not an othellolab opening book (format {clip(config.get('format'))}, expected "
            f"{FORMAT!r})",
            where=str(config_path),
            key="format",
        )
    if config.get("version") != VERSION:
        raise ModelFileError(
            f"book version {clip(config.get('version'))} is not {VERSION}",
            where=str(config_path),
            key="version",
        )
    path = d / BOOK_FILE
    verify_weights(path, expected_checksum(config, config_path), config_path=config_path)
    try:
        t = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        raise ModelFileError(
            f"corrupted or not a safetensors file ({e})", where=str(path)
        ) from None
    dtypes = {
        "player": np.uint64,
        "opponent": np.uint64,
        "value": np.int8,
        "count": np.uint32,
        "depth": np.uint8,
    }
    n = None
    for name, dtype in dtypes.items():
        a = t.get(name)
        if a is None or a.ndim != 1 or a.dtype != dtype or (n is not None and len(a) != n):
            got = None if a is None else f"{a.dtype}{list(a.shape)}"
            raise ModelFileError(
                f"tensor {name!r} is {got}, expected one {np.dtype(dtype)} per position",
                where=str(path),
            )
        n = len(a)
    if int(config.get("positions", -1)) != n:
        raise ModelFileError(
            f"config says {clip(config.get('positions'))} positions, the file holds {n}",
            where=str(config_path),
            key="positions",
        )
    keys = keys_of(t["player"], t["opponent"])
    if n and (np.any(t["player"] & t["opponent"]) or np.abs(t["value"].astype(int)).max() > 64):
        raise ModelFileError("overlapping discs or a value beyond 64 discs", where=str(path))
    try:
        return Book(keys, t["value"], t["count"], t["depth"], {"name": d.name, **config})
    except ValueError as e:
        raise ModelFileError(str(e), where=str(path)) from None


_SHIPPED: dict[str, Book] = {}


def shipped_book(name: str = DEFAULT_BOOK) -> Book:
    """The shipped book ``name`` (or a folder), loaded once per process."""
    if name not in _SHIPPED:
        _SHIPPED[name] = load_book(name)
    return _SHIPPED[name]
