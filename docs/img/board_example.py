"""Draws ``docs/img/board-example.svg``, the picture of ``docs/drawing.md``: white to move after
the tiger opening, each legal move shaded by how many discs it flips, an arrow along the line
that g6 turns, the last move marked. Run from the repository root:

    .venv/bin/python docs/img/board_example.py
"""

from __future__ import annotations

from pathlib import Path

from othellolab.core import Board, square_name, svg

OUT = Path(__file__).resolve().parent / "board-example.svg"


def example() -> str:
    """The example drawing as SVG text."""
    board = Board.from_transcript("f5d6c3d3c4")
    flips = {square_name(m): len(board.flips(m)) for m in board.legal_actions()}
    return svg.board(board, last="c4", values=flips, arrows=[("g6", "e4")], size=360)


if __name__ == "__main__":
    OUT.write_text(example() + "\n")
    print(f"wrote {OUT}")
