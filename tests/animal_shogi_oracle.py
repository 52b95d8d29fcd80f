"""A slow, obviously-correct reference for animal shogi (test-only), written from the published
rules: a 4x3 grid of ``(owner, letter)`` cells in board coordinates (row 0 = row 1, the second
player's back row), hands as dicts, and each piece's steps listed as (forward, sideways) pairs.
Nothing here knows the kernels' side-to-move view or bit layout, except the converters at the
end (``state``, ``action``, ``planes``), which follow the module's documented spec.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SENTE, GOTE = 0, 1
DRAW_PLIES = 300
FILES = "abc"
DROPPABLE = "CEG"

# Steps as (forward, sideways); forward is towards the opponent's side.
STEPS = {
    "L": [(f, s) for f in (-1, 0, 1) for s in (-1, 0, 1) if (f, s) != (0, 0)],
    "G": [(1, 0), (-1, 0), (0, 1), (0, -1)],
    "E": [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    "C": [(1, 0)],
    "H": [(1, 0), (1, 1), (1, -1), (0, 1), (0, -1), (-1, 0)],
}

Cell = tuple[int, str] | None
Square = tuple[int, int]  # (row, col), row 0 = row "1"


@dataclass(frozen=True)
class Move:
    """A move from ``src`` to ``dst``, or a drop of ``piece`` (``src`` is ``None``) on ``dst``."""

    dst: Square
    src: Square | None = None
    piece: str = ""


def name(square: Square) -> str:
    return f"{FILES[square[1]]}{square[0] + 1}"


def forward(owner: int) -> int:
    """The row step of one square forward for ``owner``: sente moves up the page."""
    return -1 if owner == SENTE else 1


def far_row(owner: int) -> int:
    return 0 if owner == SENTE else 3


@dataclass
class Position:
    board: list[list[Cell]]
    hands: list[dict[str, int]]
    turn: int = SENTE
    ply: int = 0

    @staticmethod
    def start() -> Position:
        return Position.from_sfen("gle/1c1/1C1/ELG b - 1")

    @staticmethod
    def from_sfen(text: str) -> Position:
        fields = text.split()
        board: list[list[Cell]] = []
        for row in fields[0].split("/"):
            cells: list[Cell] = []
            for ch in row:
                if ch.isdigit():
                    cells.extend([None] * int(ch))
                else:
                    cells.append((SENTE if ch.isupper() else GOTE, ch.upper()))
            board.append(cells)
        hands = [dict.fromkeys(DROPPABLE, 0), dict.fromkeys(DROPPABLE, 0)]
        count = 1
        for ch in fields[2].replace("-", ""):
            if ch.isdigit():
                count = int(ch)
                continue
            hands[SENTE if ch.isupper() else GOTE][ch.upper()] = count
            count = 1
        ply = int(fields[3]) - 1 if len(fields) > 3 else 0
        return Position(board, hands, SENTE if fields[1] == "b" else GOTE, ply)

    def sfen(self) -> str:
        rows = []
        for row in self.board:
            text, empty = "", 0
            for cell in row:
                if cell is None:
                    empty += 1
                    continue
                text += str(empty) if empty else ""
                empty = 0
                text += cell[1] if cell[0] == SENTE else cell[1].lower()
            rows.append(text + (str(empty) if empty else ""))
        hands = ""
        for owner in (SENTE, GOTE):
            for piece in DROPPABLE:
                n = self.hands[owner][piece]
                letter = piece if owner == SENTE else piece.lower()
                hands += "" if n == 0 else letter if n == 1 else f"{n}{letter}"
        return f"{'/'.join(rows)} {'bw'[self.turn]} {hands or '-'} {self.ply + 1}"

    def copy(self) -> Position:
        return Position(
            [list(row) for row in self.board], [dict(h) for h in self.hands], self.turn, self.ply
        )

    def squares(self) -> list[Square]:
        return [(r, c) for r in range(4) for c in range(3)]

    def at(self, square: Square) -> Cell:
        return self.board[square[0]][square[1]]

    def lion(self, owner: int) -> Square | None:
        for sq in self.squares():
            if self.at(sq) == (owner, "L"):
                return sq
        return None

    def targets(self, square: Square) -> list[Square]:
        """The squares the piece on ``square`` steps to (on the board, not onto its own side)."""
        owner, piece = self.at(square)  # type: ignore[misc]
        out = []
        for f, s in STEPS[piece]:
            r, c = square[0] + f * forward(owner), square[1] + s
            if 0 <= r < 4 and 0 <= c < 3:
                cell = self.board[r][c]
                if cell is None or cell[0] != owner:
                    out.append((r, c))
        return out

    def attacked(self, square: Square, by: int) -> bool:
        return any(
            square in self.targets(sq)
            for sq in self.squares()
            if self.at(sq) is not None and self.at(sq)[0] == by  # type: ignore[index]
        )

    def moves(self) -> list[Move]:
        """Every move the pieces and the hand allow, whatever the game's state."""
        out = []
        for sq in self.squares():
            cell = self.at(sq)
            if cell is not None and cell[0] == self.turn:
                out += [Move(dst, sq) for dst in self.targets(sq)]
        for piece in DROPPABLE:
            if self.hands[self.turn][piece] > 0:
                out += [Move(sq, None, piece) for sq in self.squares() if self.at(sq) is None]
        return out

    def status(self, try_rule: str = "survive") -> int | None:
        """+1 / 0 / -1 for the side to move once the game is over, else ``None``.

        ``try_rule="survive"`` is othellolab's: a lion on its far row wins at the start of its
        owner's turn. ``"safe"`` is lishogi's and Fairy-Stockfish's (for their published perft
        counts): the game ends as soon as a lion stands on its far row unattacked."""
        me, other = self.turn, 1 - self.turn
        mine = self.lion(me)
        if mine is None:
            return -1
        if try_rule == "survive":
            if mine[0] == far_row(me):
                return 1
        else:
            theirs = self.lion(other)
            if theirs is not None and theirs[0] == far_row(other) and not self.attacked(theirs, me):
                return -1
            if mine[0] == far_row(me) and not self.attacked(mine, other):
                return 1
        if self.ply >= DRAW_PLIES:
            return 0
        if not self.moves():
            return -1
        return None

    def legal_moves(self, try_rule: str = "survive") -> list[Move]:
        return [] if self.status(try_rule) is not None else self.moves()

    def play(self, move: Move) -> Position:
        pos = self.copy()
        owner = self.turn
        r, c = move.dst
        if move.src is None:
            pos.hands[owner][move.piece] -= 1
            pos.board[r][c] = (owner, move.piece)
        else:
            piece = self.at(move.src)[1]  # type: ignore[index]
            taken = self.at(move.dst)
            if taken is not None and taken[1] != "L":
                pos.hands[owner]["C" if taken[1] == "H" else taken[1]] += 1
            if piece == "C" and r == far_row(owner):
                piece = "H"
            pos.board[move.src[0]][move.src[1]] = None
            pos.board[r][c] = (owner, piece)
        pos.turn = 1 - owner
        pos.ply += 1
        return pos

    def move_name(self, move: Move) -> str:
        if move.src is None:
            return f"{move.piece}*{name(move.dst)}"
        promotes = self.at(move.src)[1] == "C" and move.dst[0] == far_row(self.turn)  # type: ignore[index]
        return f"{name(move.src)}{name(move.dst)}{'+' if promotes else ''}"

    # ------------------------------------------------------------------------------------------
    # The kernels' encoding, from the module's documented spec.

    def view(self, square: Square) -> int:
        """The kernels' square index of a board square: turned 180 degrees for the second
        player, so that row 0 is always the side to move's far row."""
        r, c = square
        if self.turn == GOTE:
            r, c = 3 - r, 2 - c
        return r * 3 + c

    def state(self) -> tuple[int, int]:
        codes = {"C": 1, "E": 2, "G": 3, "L": 4, "H": 5}
        p = 0
        for sq in self.squares():
            cell = self.at(sq)
            if cell is not None:
                code = codes[cell[1]] + (0 if cell[0] == self.turn else 8)
                p |= code << (4 * self.view(sq))
        for i, piece in enumerate(DROPPABLE):
            p |= self.hands[self.turn][piece] << (48 + 2 * i)
            p |= self.hands[1 - self.turn][piece] << (54 + 2 * i)
        return p, self.ply

    def action(self, move: Move) -> int:
        dst = self.view(move.dst)
        if move.src is None:
            return dst * 11 + 8 + DROPPABLE.index(move.piece)
        src = self.view(move.src)
        step = (dst // 3 - src // 3, dst % 3 - src % 3)
        directions = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
        return dst * 11 + directions.index(step)

    def planes(self) -> np.ndarray:
        out = np.zeros((17, 4, 3), dtype=np.float32)
        order = "CEGLH"
        for sq in self.squares():
            cell = self.at(sq)
            if cell is not None:
                v = self.view(sq)
                plane = order.index(cell[1]) + (0 if cell[0] == self.turn else 5)
                out[plane, v // 3, v % 3] = 1
        for i, piece in enumerate(DROPPABLE):
            out[10 + i] = self.hands[self.turn][piece] / 2
            out[13 + i] = self.hands[1 - self.turn][piece] / 2
        out[16] = self.ply / DRAW_PLIES
        return out


def perft(pos: Position, depth: int, try_rule: str = "survive") -> int:
    """Leaves ``depth`` plies deep; a game that ends earlier adds none (the chess convention)."""
    moves = pos.legal_moves(try_rule)
    if depth == 1:
        return len(moves)
    return sum(perft(pos.play(m), depth - 1, try_rule) for m in moves)
