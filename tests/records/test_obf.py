"""OBF: the FFO and Edax problem files parse, every listed move is legal, published FFO
answers, pass slots, formatting and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab import Board, parse_square
from othellolab.records import (
    ObfEntry,
    ReadReport,
    format_obf_line,
    parse_obf_line,
    read_obf,
    write_obf,
)
from othellolab.records.obf import ObfError

from helpers import shared_file

FFO = ["ffo/fforum-1-19.obf", "ffo/fforum-20-39.obf", "ffo/fforum-40-59.obf"]


@pytest.mark.parametrize(
    ("name", "count"), [*zip(FFO, (19, 20, 20), strict=True), ("edax_problems/hard-20.obf", 276)]
)
def test_files_parse_and_every_listed_move_is_legal(name: str, count: int) -> None:
    entries = list(read_obf(shared_file(name)))
    assert len(entries) == count
    for e in entries:
        legal = e.board.legal_actions()
        assert e.moves and all(a in legal for a, _ in e.moves)
        # The data README: every legal move is listed in the ffo files.
        if name.startswith("ffo"):
            assert sorted(a for a, _ in e.moves) == sorted(legal)


def test_hard20_has_20_empties_and_pass_slots_are_dropped() -> None:
    entries = list(read_obf(shared_file("edax_problems/hard-20.obf")))
    assert all(e.board.num_empties == 20 for e in entries)
    assert all(a != 64 for e in entries for a, _ in e.moves)  # no "--:-127" slot survives
    assert entries[0].line == 1 and entries[0].moves[-1] == (parse_square("g7"), -20)


@pytest.mark.parametrize(
    ("number", "move", "score"),
    # Published FFO endgame answers (Gunnar Andersson's FFO test suite page): #1 G8 +18,
    # #20 H5 +6, #40 A2 +38 (best move, final disc difference for the side to move).
    [(1, "g8", 18), (20, "h5", 6), (40, "a2", 38)],
)
def test_published_ffo_answers(number: int, move: str, score: int) -> None:
    name = FFO[0] if number <= 19 else FFO[1] if number <= 39 else FFO[2]
    first = 1 if number <= 19 else 20 if number <= 39 else 40
    entry = list(read_obf(shared_file(name)))[number - first]
    assert (entry.best_move, entry.best_score) == (parse_square(move), score)


def test_format_round_trip(tmp_path: Path) -> None:
    entries = list(read_obf(shared_file(FFO[0])))
    out = tmp_path / "x.obf"
    write_obf(out, entries)
    assert list(read_obf(out)) == entries
    assert format_obf_line(entries[0]).startswith(entries[0].board.obf() + "; G8:+18; H1:+12;")
    assert format_obf_line(ObfEntry(Board())) == Board().obf() + ";"


def test_pass_move_with_a_value() -> None:
    # White to move with no legal move while black has one: only a pass is legal.
    board = Board.from_obf("XXXXXXXX" * 7 + "XXXXXXO-" + " O")
    assert board.must_pass()
    entry = parse_obf_line(board.obf() + "; PS:-62;")
    assert entry.moves == ((64, -62),)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("x X;", r"p.obf: line 4: position 'x X': expected 64, 36 or 16 cells"),
        (
            "-" * 64 + " X; A1:+3;",
            r"p.obf: line 4, move 1 \(A1:\+3\): a1 is not legal here; legal moves: none",
        ),
        (Board().obf() + "; F5:x;", r"line 4, move 1 \(F5:x\): score 'x' is not a whole number"),
        (Board().obf() + "; F5:+0; Z9:+1;", r"line 4, move 2 \(Z9:\+1\): invalid square name"),
        (Board().obf() + "; F5 +0;", r"line 4, move 1 \(F5 \+0\): expected MOVE:SCORE"),
        (Board().obf() + "; F5:+70;", r"score 70 is off the -64..64 range"),
    ],
)
def test_errors_name_file_line_and_item(line: str, message: str) -> None:
    with pytest.raises(ObfError, match=message):
        parse_obf_line(line, line_number=4, source="p.obf")


def test_lenient_read(tmp_path: Path) -> None:
    path = tmp_path / "p.obf"
    path.write_text(f"% comment\n{Board().obf()}; F5:+0;\nnonsense X;\n")
    with pytest.raises(ObfError, match=r"p.obf: line 3: position"):
        list(read_obf(path))
    report = ReadReport()
    assert len(list(read_obf(path, lenient=True, report=report))) == 1
    assert report.skipped[0].line == 3
