"""WTHOR ``.wtb`` game files (Fédération Française d'Othello), read strictly and streamed.

A file is a 16-byte header (game count at bytes 4-7, board size at byte 12) and 68-byte games:
tournament, black and white player indices (u16 each), black's final disc count, black's
theoretical score, then 60 move bytes ``10*row + col`` (1-based; 0 ends the game). Passes are
not recorded.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from othellolab.core import Board, IllegalMoveError, OthelloError, square_name

HEADER_SIZE = 16
GAME_SIZE = 68


class WthorError(OthelloError):
    """A malformed WTHOR file; the message names the file, and the game and move if any."""


@dataclass(frozen=True, slots=True)
class WthorHeader:
    """The 16-byte header of a WTHOR file."""

    created: tuple[int, int, int]
    n_games: int
    n_records: int
    year: int
    board_size: int
    game_type: int
    depth: int


@dataclass(frozen=True, slots=True)
class WthorGame:
    """One game as stored: indices into the ``.TRN``/``.JOU`` name files and the moves."""

    tournament: int
    black_player: int
    white_player: int
    black_discs: int
    theoretical_black_discs: int
    moves: tuple[int, ...]


def parse_header(data: bytes, path: str = "<bytes>") -> WthorHeader:
    """Decode a WTHOR header, rejecting files that are not 8x8."""
    if len(data) < HEADER_SIZE:
        raise WthorError(f"{path}: file too short for a WTHOR header ({len(data)} bytes)")
    century, year2, month, day, n1, n2, year, size, gtype, depth, _ = struct.unpack(
        "<BBBBIHHBBBB", data[:HEADER_SIZE]
    )
    board_size = 8 if size in (0, 8) else size
    if board_size != 8:
        raise WthorError(
            f"{path}: board size {size} in the header; only 8x8 WTHOR files are supported"
        )
    return WthorHeader((century * 100 + year2, month, day), n1, n2, year, board_size, gtype, depth)


def decode_move(byte: int, path: str, game: int, number: int) -> int:
    """Square index of a WTHOR move byte ``10*row + col`` (1-based)."""
    row, col = divmod(byte, 10)
    if not (1 <= row <= 8 and 1 <= col <= 8):
        raise WthorError(f"{path}: game {game}, move {number}: invalid move byte {byte}")
    return (row - 1) * 8 + (col - 1)


def read_wtb(path: str | Path) -> Iterator[WthorGame]:
    """Stream the games of a ``.wtb`` file (1-based game numbers appear in errors)."""
    p = Path(path)
    with p.open("rb") as f:
        header = parse_header(f.read(HEADER_SIZE), str(p))
        for g in range(1, header.n_games + 1):
            rec = f.read(GAME_SIZE)
            if len(rec) != GAME_SIZE:
                raise WthorError(
                    f"{p}: game {g}: truncated record ({len(rec)} of {GAME_SIZE} bytes); "
                    f"the header announces {header.n_games} games"
                )
            trn, black, white, discs, theo = struct.unpack("<HHHBB", rec[:8])
            moves = []
            for number, byte in enumerate(rec[8:], 1):
                if byte == 0:
                    break
                moves.append(decode_move(byte, str(p), g, number))
            yield WthorGame(trn, black, white, discs, theo, tuple(moves))


def replay(game: WthorGame, *, where: str = "") -> Board:
    """Play a WTHOR game's moves from the start, inserting the passes it leaves out.

    Returns the final board; an illegal move raises ``IllegalMoveError`` naming ``where``
    (file and game) and the move number.
    """
    board = Board()
    for number, sq in enumerate(game.moves, 1):
        if board.must_pass():
            board = board.play_pass()
        try:
            board = board.play(sq)
        except IllegalMoveError as e:
            raise IllegalMoveError(f"{where}move {number} ({square_name(sq)}): {e}") from None
    return board
