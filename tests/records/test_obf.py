"""OBF problem lines: positions and scored moves, including hard-20's pass slots, and errors."""

from __future__ import annotations

import pytest

from othellolab import Board
from othellolab.records.obf import ObfError, parse_obf_line

from helpers import FIXTURES


def test_ffo_lines() -> None:
    lines = (FIXTURES / "fforum-1-19.obf").read_text().splitlines()
    board, scores = parse_obf_line(lines[0])
    assert board.num_empties == 14 and board.turn == 0
    assert scores[0] == (62, 18)  # G8:+18 (g8 = row 8, column g)
    assert len(scores) == len(board.legal_actions())
    for line in lines:
        b, s = parse_obf_line(line)
        assert {m for m, _ in s} == set(b.legal_actions())


def test_pass_slot_and_errors() -> None:
    start = Board().obf()
    board, scores = parse_obf_line(start + "; F5:+0; --:-127;")
    assert board == Board() and scores == [(37, 0), (None, -127)]
    with pytest.raises(ObfError, match="line 7: item 'F5' is not MOVE:SCORE"):
        parse_obf_line(start + "; F5;", where="line 7: ")
    with pytest.raises(ObfError, match="not an integer"):
        parse_obf_line(start + "; F5:x;")
    with pytest.raises(ObfError, match="invalid square"):
        parse_obf_line(start + "; Z9:+2;")
    with pytest.raises(ObfError, match="expected 64, 36 or 16 cells"):
        parse_obf_line("XO- X; F5:+0;")
