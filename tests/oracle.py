"""A slow, obviously-correct reference for the rules (test-only): a grid of cells and
square-by-square walks along the eight directions, written without bit tricks."""

from __future__ import annotations

from dataclasses import dataclass

EMPTY, BLACK, WHITE = ".", "X", "O"
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


@dataclass(frozen=True)
class OraclePosition:
    size: int
    cells: tuple[str, ...]  # row-major, a1 first
    to_move: str  # BLACK or WHITE

    @staticmethod
    def start(size: int) -> OraclePosition:
        cells = [EMPTY] * (size * size)
        h = size // 2
        cells[(h - 1) * size + (h - 1)] = WHITE
        cells[h * size + h] = WHITE
        cells[(h - 1) * size + h] = BLACK
        cells[h * size + (h - 1)] = BLACK
        return OraclePosition(size, tuple(cells), BLACK)

    def other(self, color: str) -> str:
        return WHITE if color == BLACK else BLACK

    def flips(self, square: int, color: str | None = None) -> list[int]:
        color = color or self.to_move
        if self.cells[square] != EMPTY:
            return []
        n = self.size
        row, col = divmod(square, n)
        result = []
        for dr, dc in DIRECTIONS:
            line = []
            r, c = row + dr, col + dc
            while 0 <= r < n and 0 <= c < n and self.cells[r * n + c] == self.other(color):
                line.append(r * n + c)
                r, c = r + dr, c + dc
            if line and 0 <= r < n and 0 <= c < n and self.cells[r * n + c] == color:
                result.extend(line)
        return sorted(result)

    def legal_moves(self, color: str | None = None) -> list[int]:
        return [sq for sq in range(self.size * self.size) if self.flips(sq, color)]

    def is_over(self) -> bool:
        return not self.legal_moves(BLACK) and not self.legal_moves(WHITE)

    def play(self, square: int | None) -> OraclePosition:
        """Play a square, or pass with ``None``."""
        if square is None:
            assert not self.legal_moves() and not self.is_over()
            return OraclePosition(self.size, self.cells, self.other(self.to_move))
        flips = self.flips(square)
        assert flips, "illegal move"
        cells = list(self.cells)
        cells[square] = self.to_move
        for f in flips:
            cells[f] = self.to_move
        return OraclePosition(self.size, tuple(cells), self.other(self.to_move))

    def count(self, color: str) -> int:
        return self.cells.count(color)

    def final_score(self) -> int:
        """Disc difference for the side to move, empty squares to the winner."""
        mine, theirs = self.count(self.to_move), self.count(self.other(self.to_move))
        empties = self.cells.count(EMPTY)
        if mine > theirs:
            return mine - theirs + empties
        if theirs > mine:
            return mine - theirs - empties
        return 0

    def obf(self) -> str:
        return "".join(self.cells) + " " + self.to_move

    def bitboards(self) -> tuple[int, int]:
        """(side to move, opponent) as bitboards."""
        p = sum(1 << i for i, c in enumerate(self.cells) if c == self.to_move)
        o = sum(1 << i for i, c in enumerate(self.cells) if c == self.other(self.to_move))
        return p, o


def perft(pos: OraclePosition, depth: int) -> int:
    if depth == 0:
        return 1
    moves = pos.legal_moves()
    if not moves:
        if pos.is_over():
            return 1
        return perft(pos.play(None), depth - 1)
    return sum(perft(pos.play(m), depth - 1) for m in moves)
