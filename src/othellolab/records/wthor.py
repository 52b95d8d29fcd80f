"""WTHOR game databases (Fédération Française d'Othello): ``.wtb`` games, ``.JOU``/``.TRN`` names.

All three files start with the 16-byte header of ``HEADER_FIELDS``. A ``.wtb`` game is 68 bytes
(``GAME_FIELDS``): tournament, black and white indices into the name files, black's final disc
count, black's theoretical disc count, then 60 move bytes ``10*row + col`` (1-based; 0 ends the
game). Passes are not recorded. Name files hold ``n_records`` NUL-padded Latin-1 names of
``JOU_RECORD_SIZE`` or ``TRN_RECORD_SIZE`` bytes. Only 8x8 databases are supported.
"""

from __future__ import annotations

import datetime as _dt
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import Board, IllegalMoveError, square_name
from othellolab.core.files import atomic_writer
from othellolab.records._stream import build_games, deliver
from othellolab.records.game import GameRecord
from othellolab.records.report import ReadReport, RecordError

HEADER_FIELDS: tuple[tuple[str, int, int, str], ...] = (
    ("created_century", 0, 1, "u8"),
    ("created_year", 1, 1, "u8"),
    ("created_month", 2, 1, "u8"),
    ("created_day", 3, 1, "u8"),
    ("n_games", 4, 4, "u32"),
    ("n_records", 8, 2, "u16"),
    ("year", 10, 2, "u16"),
    ("board_size", 12, 1, "u8"),
    ("game_type", 13, 1, "u8"),
    ("depth", 14, 1, "u8"),
    ("reserved", 15, 1, "u8"),
)
"""(name, byte offset, size, type) of the 16-byte header, little-endian."""

GAME_FIELDS: tuple[tuple[str, int, int, str], ...] = (
    ("tournament", 0, 2, "u16"),
    ("black", 2, 2, "u16"),
    ("white", 4, 2, "u16"),
    ("black_discs", 6, 1, "u8"),
    ("theoretical_black_discs", 7, 1, "u8"),
    ("moves", 8, 60, "u8[60]"),
)
"""(name, byte offset, size, type) of one 68-byte game record, little-endian."""

YEARS = (1977, 2100)
"""First and last year a header may give, as the games' year (``.wtb``) or the creation date
(every file): WTHOR starts in 1977; a year outside means the file is not a WTHOR file."""

MAX_DEPTH = 60
"""Largest depth (in empty squares) of the theoretical score a ``.wtb`` header may give."""

HEADER_SIZE = 16
GAME_SIZE = 68
MAX_MOVES = 60
JOU_RECORD_SIZE = 20
TRN_RECORD_SIZE = 26
NAME_ENCODING = "latin-1"

_HEADER_STRUCT = struct.Struct("<BBBBIHHBBBB")
_GAME_DTYPE = np.dtype(
    [
        ("tournament", "<u2"),
        ("black", "<u2"),
        ("white", "<u2"),
        ("black_discs", "u1"),
        ("theoretical_black_discs", "u1"),
        ("moves", "u1", (MAX_MOVES,)),
    ]
)
_CHUNK = 4096

# Square index of each move byte, -1 where the byte is no square.
_SQUARE_OF_BYTE = np.full(256, -1, dtype=np.int64)
for _r in range(1, 9):
    for _c in range(1, 9):
        _SQUARE_OF_BYTE[10 * _r + _c] = (_r - 1) * 8 + (_c - 1)


def score_of_discs(discs: Any) -> Any:
    """Black's final disc difference from a record's black disc count (an int or an array):
    WTHOR stores the count with the empties already given to the winner."""
    return 2 * discs - 64


def decode_moves(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The one decoder of WTHOR move bytes: ``(squares, ends)`` of an ``(N, 60)`` uint8 array,
    ``squares`` the square of each byte (``10*row + col``, digits 1..8; -1 where the byte is
    no square, the end-of-game 0 included) and ``ends`` each game's move count (the place of
    its first 0 byte, 60 if none)."""
    squares = _SQUARE_OF_BYTE[raw]
    zero = raw == 0
    ends = np.where(zero.any(axis=1), zero.argmax(axis=1), MAX_MOVES)
    return squares, ends


class WthorError(RecordError):
    """A malformed WTHOR file; the message names the file, and the game and move if any."""


@dataclass(frozen=True, slots=True)
class WthorHeader:
    """The 16-byte header of a WTHOR file (``created`` is (year, month, day))."""

    created: tuple[int, int, int]
    n_games: int
    n_records: int
    year: int
    board_size: int
    game_type: int
    depth: int
    reserved: int = 0

    def to_bytes(self) -> bytes:
        """The header as stored (board size 8 written as 8)."""
        y, m, d = self.created
        return _HEADER_STRUCT.pack(
            y // 100, y % 100, m, d, self.n_games, self.n_records, self.year,
            self.board_size, self.game_type, self.depth, self.reserved,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class WthorGame:
    """One game as stored: indices into the ``.TRN``/``.JOU`` name files and the moves."""

    tournament: int
    black_player: int
    white_player: int
    black_discs: int
    theoretical_black_discs: int
    moves: tuple[int, ...]


def parse_header(data: bytes, path: str = "<bytes>", *, games: bool = True) -> WthorHeader:
    """Decode a WTHOR header, rejecting boards other than 8x8 (``games``: a ``.wtb`` header)."""
    if len(data) < HEADER_SIZE:
        raise WthorError(
            f"file too short for a WTHOR header ({len(data)} of {HEADER_SIZE} bytes)", source=path
        )
    century, year2, month, day, n1, n2, year, size, gtype, depth, reserved = _HEADER_STRUCT.unpack(
        data[:HEADER_SIZE]
    )
    if games and size not in (0, 8):
        what = "10x10 games are not supported" if size == 10 else "expected 0 or 8 for 8x8"
        raise WthorError(
            f"bad header: board size byte {size} (offset 12); {what}; only 8x8 WTHOR files are read",
            source=path,
        )
    if year2 > 99:
        raise WthorError(
            f"bad header: creation year byte {year2} (offset 1) is over 99", source=path
        )
    header = WthorHeader(
        (century * 100 + year2, month, day), n1, n2, year, 8 if size in (0, 8) else size,
        gtype, depth, reserved,
    )  # fmt: skip
    problem = header_problem(header, games=games)
    if problem:
        raise WthorError(f"bad header: {problem}", source=path)
    return header


def header_problem(header: WthorHeader, *, games: bool = True) -> str | None:
    """What is implausible in a header, or None: a creation date outside ``YEARS`` or not a
    calendar month and day, and for a ``.wtb`` header (``games``) a year outside ``YEARS`` or a
    depth over ``MAX_DEPTH``. The reader and the writer both check headers with it."""
    lo, hi = YEARS
    y, m, d = header.created
    if not (lo <= y <= hi and 1 <= m <= 12 and 1 <= d <= 31):
        return f"creation date {y}-{m:02d}-{d:02d} (offsets 0-3) is not a date in {lo}..{hi}"
    if games and not lo <= header.year <= hi:
        return f"year {header.year} (offset 10) is outside {lo}..{hi}"
    if games and header.depth > MAX_DEPTH:
        return f"depth {header.depth} (offset 14) is over {MAX_DEPTH} empty squares"
    return None


def read_header(path: str | Path) -> WthorHeader:
    """The header of a ``.wtb`` file."""
    with Path(path).open("rb") as f:
        return parse_header(f.read(HEADER_SIZE), str(path))


# ----------------------------------------------------------------------------------------------
# Name files


def read_names(path: str | Path, *, record_size: int | None = None) -> list[str]:
    """The names of a ``.JOU`` (players) or ``.TRN`` (tournaments) file; index = record number.

    The record size follows from the extension (20 for ``.JOU``, 26 for ``.TRN``) unless given.
    """
    p = Path(path)
    size = record_size or _record_size(p)
    data = p.read_bytes()
    header = parse_header(data, str(p), games=False)
    body = data[HEADER_SIZE:]
    n = header.n_records
    if len(body) < n * size:
        raise WthorError(
            f"truncated name file: header announces {n} records of {size} bytes, "
            f"found {len(body)} bytes (record {len(body) // size + 1} is cut)",
            source=p,
        )
    if len(body) > n * size:
        raise WthorError(
            f"{len(body) - n * size} bytes after the {n} records the header announces", source=p
        )
    return [
        body[i * size : (i + 1) * size].split(b"\0", 1)[0].decode(NAME_ENCODING) for i in range(n)
    ]


def write_names(
    path: str | Path,
    names: Sequence[str],
    *,
    record_size: int | None = None,
    created: tuple[int, int, int] | None = None,
) -> None:
    """Write a ``.JOU``/``.TRN`` name file atomically (record size from the extension)."""
    p = Path(path)
    size = record_size or _record_size(p)
    records = []
    for i, name in enumerate(names):
        try:
            raw = name.encode(NAME_ENCODING)
        except UnicodeEncodeError as e:
            raise WthorError(f"name {i} {name!r} is not Latin-1: {e}", source=p) from None
        if len(raw) > size:
            raise WthorError(f"name {i} {name!r} is longer than {size} bytes", source=p)
        records.append(raw.ljust(size, b"\0"))
    header = WthorHeader(created or _today(), 0, len(names), 0, 0, 0, 0)
    problem = header_problem(header, games=False)
    if problem:
        raise WthorError(f"cannot write this header: {problem}", source=p)
    with atomic_writer(p, binary=True) as f:
        f.write(header.to_bytes()[:12] + b"\0\0\0\0")
        f.write(b"".join(records))


def _record_size(p: Path) -> int:
    ext = p.suffix.lower()
    if ext == ".jou":
        return JOU_RECORD_SIZE
    if ext == ".trn":
        return TRN_RECORD_SIZE
    raise WthorError(
        f"cannot tell the record size from the extension {p.suffix!r}: expected .JOU or .TRN "
        "(or pass record_size)",
        source=p,
    )


def _find_names(folder: Path, ext: str) -> Path | None:
    found = sorted(q for q in folder.glob("*") if q.suffix.lower() == ext and q.is_file())
    return found[0] if len(found) == 1 else None


def _name_table(
    table: str | Path | Sequence[str] | bool | None, folder: Path, ext: str
) -> tuple[list[str] | None, str | None]:
    if table is False:
        return None, None
    if table is None or table is True:
        found = _find_names(folder, ext)
        if found is None:
            if table is True:
                raise WthorError(f"no single {ext.upper()} file next to it", source=folder)
            return None, None
        return read_names(found), found.name
    if isinstance(table, str | Path):
        return read_names(table), Path(table).name
    return list(table), "the given table"


# ----------------------------------------------------------------------------------------------
# Games


def read_wtb(path: str | Path) -> Iterator[WthorGame]:
    """Stream the raw records of a ``.wtb`` file (no names, no replay; see ``read_wthor``)."""
    p = Path(path)
    for _, chunk in _chunks(p):
        if isinstance(chunk, WthorError):
            raise chunk
        squares, ends = decode_moves(chunk["moves"])
        for rec, moves, end in zip(chunk, squares, ends.tolist(), strict=True):
            yield WthorGame(
                int(rec["tournament"]),
                int(rec["black"]),
                int(rec["white"]),
                int(rec["black_discs"]),
                int(rec["theoretical_black_discs"]),
                tuple(moves[:end].tolist()),
            )


def _chunks(p: Path) -> Iterator[tuple[int, np.ndarray | WthorError]]:
    """(number of the first game, records) in chunks; a truncated tail comes as an error."""
    with p.open("rb") as f:
        header = parse_header(f.read(HEADER_SIZE), str(p))
        first = 1
        while first <= header.n_games:
            want = min(_CHUNK, header.n_games - first + 1)
            data = f.read(want * GAME_SIZE)
            whole = len(data) // GAME_SIZE
            if whole:
                yield first, np.frombuffer(data, dtype=_GAME_DTYPE, count=whole)
            if whole < want:
                g = first + whole
                yield (
                    g,
                    WthorError(
                        f"truncated record ({len(data) - whole * GAME_SIZE} of {GAME_SIZE} bytes); "
                        f"the header announces {header.n_games} games",
                        source=p,
                        game=g,
                    ),
                )
                return
            first += want
        extra = len(f.read())
        if extra:
            yield (
                first,
                WthorError(
                    f"{extra} bytes after the {header.n_games} games the header announces "
                    f"(bad game count at offset 4?)",
                    source=p,
                    game=header.n_games + 1,
                ),
            )


def read_wthor(
    path: str | Path,
    *,
    players: str | Path | Sequence[str] | bool | None = None,
    tournaments: str | Path | Sequence[str] | bool | None = None,
    lenient: bool = False,
    report: ReadReport | None = None,
) -> Iterator[GameRecord]:
    """Stream the games of a ``.wtb`` file as checked ``GameRecord`` records.

    Headers: ``black``, ``white``, ``tournament`` (names, when a name table is found), their
    indices ``black_id``, ``white_id``, ``tournament_id``, ``year`` (from the file header),
    ``source`` (file name), ``game`` (1-based number in the file) and ``theoretical_depth``.
    ``players``/``tournaments`` are a ``.JOU``/``.TRN`` path or a list of names; by default the
    single ``.JOU``/``.TRN`` file next to ``path`` is used if there is one (``False``: none).
    Scores are black's disc differences: ``recorded_score = 2 * discs - 64``.

    Strict by default: a bad move byte, an illegal move, a truncated record or a bad header
    raises ``WthorError`` naming the file, game and move; ``lenient=True`` skips bad games and
    counts them in ``report``.
    """
    p = Path(path)
    header = read_header(p)
    jou, _ = _name_table(players, p.parent, ".jou")
    trn, _ = _name_table(tournaments, p.parent, ".trn")
    base = {"year": header.year, "source": p.name, "theoretical_depth": header.depth}
    items = _wthor_items(p, base, jou, trn)
    return deliver(items, source=p, lenient=lenient, report=report)


def _wthor_items(
    p: Path, base: dict[str, object], jou: list[str] | None, trn: list[str] | None
) -> Iterator[GameRecord | RecordError]:
    for first, chunk in _chunks(p):
        if isinstance(chunk, WthorError):
            yield chunk
            return
        raw = chunk["moves"]
        squares, ends = decode_moves(raw)
        zero = raw == 0
        # A game is malformed if a move before its end is no square or a byte follows the end.
        invalid = ((squares < 0) & ~zero).any(axis=1) | (
            (raw != 0) & (np.arange(MAX_MOVES) > ends[:, None])
        ).any(axis=1)
        fields: list[dict[str, Any]] = []
        errors: dict[int, RecordError] = {}
        cols = {k: chunk[k].tolist() for k in ("tournament", "black", "white")}
        discs = chunk["black_discs"].tolist()
        theo = chunk["theoretical_black_discs"].tolist()
        for i in range(len(chunk)):
            g = first + i
            try:
                if invalid[i]:
                    _check_move_bytes(p, g, raw[i], int(ends[i]))
                fields.append(_wthor_fields(p, g, base, jou, trn, cols, i, discs[i], theo[i]))
            except RecordError as e:
                errors[i] = e
                fields.append({})
        games = build_games(squares, ends, fields, source=p, first_game=first, error=WthorError)
        for i, game in enumerate(games):
            yield errors.get(i, game)


def _check_move_bytes(p: Path, g: int, raw: np.ndarray, end: int) -> None:
    for k, byte in enumerate(raw.tolist()):
        if k < end and _SQUARE_OF_BYTE[byte] < 0:
            raise WthorError(
                f"invalid move byte {byte} (expected 10*row + col, 11..88)",
                source=p,
                game=g,
                move=k + 1,
            )
        if k > end and byte:
            raise WthorError(
                f"move byte {byte} after the end-of-game 0 at move {end + 1}",
                source=p,
                game=g,
                move=k + 1,
            )


def _wthor_fields(
    p: Path,
    g: int,
    base: dict[str, object],
    jou: list[str] | None,
    trn: list[str] | None,
    cols: dict[str, list[int]],
    i: int,
    discs: int,
    theo: int,
) -> dict[str, Any]:
    headers = dict(base)
    headers["game"] = g
    for key, table, what in (
        ("tournament", trn, "tournament"),
        ("black", jou, "player"),
        ("white", jou, "player"),
    ):
        index = cols[key][i]
        headers[f"{key}_id"] = index
        if table is not None:
            if index >= len(table):
                raise WthorError(
                    f"{key} {what} index {index} is not in the name file ({len(table)} names)",
                    source=p,
                    game=g,
                )
            headers[key] = table[index]
    if discs > 64 or theo > 64:
        raise WthorError(
            f"bad disc count (black {discs}, theoretical {theo}; at most 64)", source=p, game=g
        )
    return {
        "headers": headers,
        "recorded_score": score_of_discs(discs),
        "theoretical_score": score_of_discs(theo),
    }


def replay(game: WthorGame, *, where: str = "") -> Board:
    """Play a raw WTHOR game's moves from the start, inserting the passes it leaves out.

    Returns the final board; an illegal move raises ``IllegalMoveError`` naming ``where``
    (file and game) and the move number.
    """
    try:
        return GameRecord.from_moves(np.asarray(game.moves, dtype=np.int64)).final_board
    except IllegalMoveError as e:
        number = e.number or 0
        text = f" ({square_name(game.moves[number - 1])})" if number else ""
        raise IllegalMoveError(
            e.what,
            where=f"{where}move {number}{text}",
            move=e.move,
            legal=e.legal,
            number=e.number,
        ) from None


# ----------------------------------------------------------------------------------------------
# Writer


def write_wthor(
    path: str | Path,
    games: Iterable[GameRecord],
    *,
    year: int | None = None,
    players: str | Path | Sequence[str] | None = None,
    tournaments: str | Path | Sequence[str] | None = None,
    depth: int | None = None,
    created: tuple[int, int, int] | None = None,
    game_type: int = 0,
) -> int:
    """Write 8x8 games from the standard start as a ``.wtb`` file, atomically; returns the count.

    Player and tournament indices come from the names in the headers looked up in
    ``players``/``tournaments`` (a ``.JOU``/``.TRN`` path or a list of names; see
    ``name_table`` to build one), else from the ``*_id`` headers, else 0 (``???``). ``year``
    and ``depth`` default to the first game's ``year`` and ``theoretical_depth`` headers.
    Scores: black's disc count is ``(recorded_score + 64) / 2`` (the replayed score when none
    is recorded); the theoretical count likewise, defaulting to the recorded one.
    """
    p = Path(path)
    jou = _lookup(players)
    trn = _lookup(tournaments)
    count = 0
    first: GameRecord | None = None
    with atomic_writer(p, binary=True) as f:
        f.write(b"\0" * HEADER_SIZE)
        for count, game in enumerate(games, 1):
            if first is None:
                first = game
            f.write(_game_record(p, count, game, jou, trn))
        h0 = first.headers if first is not None else {}
        header = WthorHeader(
            created or _today(),
            count,
            0,
            year if year is not None else int(h0.get("year", _dt.date.today().year)),
            8,
            game_type,
            depth if depth is not None else int(h0.get("theoretical_depth", 0)),
        )
        problem = header_problem(header)
        if problem:
            raise WthorError(f"cannot write this header: {problem}", source=p)
        f.seek(0)
        f.write(header.to_bytes())
    return count


def name_table(
    games: Iterable[GameRecord], key: str, *, base: Sequence[str] = ("???",)
) -> list[str]:
    """Names for a ``.JOU`` (keys ``black``/``white``) or ``.TRN`` (``tournament``) file:
    ``base`` then every new name met under ``key`` (a comma-separated list of keys), in order."""
    names = list(base)
    seen = set(names)
    keys = key.split(",")
    for game in games:
        for k in keys:
            name = game.headers.get(k)
            if isinstance(name, str) and name not in seen:
                seen.add(name)
                names.append(name)
    return names


def _lookup(table: str | Path | Sequence[str] | None) -> tuple[list[str], dict[str, int]] | None:
    if table is None:
        return None
    names = read_names(table) if isinstance(table, str | Path) else list(table)
    index: dict[str, int] = {}
    for i, name in enumerate(names):
        index.setdefault(name, i)
    return names, index


def _game_record(
    p: Path,
    g: int,
    game: GameRecord,
    jou: tuple[list[str], dict[str, int]] | None,
    trn: tuple[list[str], dict[str, int]] | None,
) -> bytes:
    if game.size != 8 or game.start != Board():
        raise WthorError(
            "WTHOR stores only 8x8 games from the standard start position", source=p, game=g
        )
    h = game.headers
    ids = [
        _index(p, g, h, "tournament", trn),
        _index(p, g, h, "black", jou),
        _index(p, g, h, "white", jou),
    ]
    recorded = game.recorded_score if game.recorded_score is not None else game.score
    theo = game.theoretical_score if game.theoretical_score is not None else recorded
    discs = []
    for what, s in (("recorded", recorded), ("theoretical", theo)):
        if s % 2 or not -64 <= s <= 64:
            raise WthorError(
                f"{what} score {s:+d} cannot be stored as a disc count (needs an even -64..64)",
                source=p,
                game=g,
            )
        discs.append((s + 64) // 2)
    moves = bytearray(MAX_MOVES)
    placed = [a for a in game.moves if a != 64]
    for k, a in enumerate(placed):
        moves[k] = 10 * (a // 8 + 1) + a % 8 + 1
    return struct.pack("<HHHBB", *ids, *discs) + bytes(moves)


def _index(
    p: Path,
    g: int,
    headers: Mapping[str, Any],
    key: str,
    table: tuple[list[str], dict[str, int]] | None,
) -> int:
    name = headers.get(key)
    given = headers.get(f"{key}_id")
    if table is not None and isinstance(name, str):
        names, index = table
        if isinstance(given, int) and 0 <= given < len(names) and names[given] == name:
            return given
        if name not in index:
            raise WthorError(
                f"{key} name {name!r} is not in the name table ({len(names)} names); "
                "add it (see name_table) and write the .JOU/.TRN file too",
                source=p,
                game=g,
            )
        return index[name]
    if isinstance(given, int):
        if not 0 <= given < 65536:
            raise WthorError(f"{key}_id {given} does not fit in u16", source=p, game=g)
        return given
    return 0


def _today() -> tuple[int, int, int]:
    d = _dt.date.today()
    return d.year, d.month, d.day
