"""Transcript files: the XOT opening lists, case, pass tokens, round trips, errors by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab import Board
from othellolab.records import (
    GameRecord,
    ReadReport,
    parse_transcript_line,
    read_transcripts,
    write_transcripts,
)
from othellolab.records.transcript import TranscriptError

from helpers import shared_file


@pytest.mark.parametrize(
    ("name", "count"), [("openingssmall.txt", 3623), ("openingslarge.txt", 10784)]
)
def test_xot_lists_parse(name: str, count: int) -> None:
    """Counts from the data README; every XOT opening is 8 legal moves from the start."""
    games = list(read_transcripts(shared_file(f"xot/{name}")))
    assert len(games) == count
    assert all(len(g.moves) == 8 and not g.is_complete() for g in games)
    assert games[0].headers == {"source": name, "game": 1, "line": 1}


def test_case_spaces_and_pass_tokens_agree() -> None:
    plain = parse_transcript_line("f5d6c3d3c4")
    for text in ("F5D6C3D3C4", "f5 d6 c3 d3 c4", "F5 d6, C3 d3 c4"):
        assert parse_transcript_line(text) == plain


def test_passes_explicit_or_implicit() -> None:
    # A 4x4 game with a forced pass (the 4x4 GGF game of nboard_test2.ggf, whose black passes
    # before move 12).
    implicit = parse_transcript_line("a2a1c4d2d1d4d3a3b1c1b4a4", size=4)
    for token in ("PA", "--", "pa", "PS", "pass", "Pass"):
        explicit = parse_transcript_line(f"a2a1c4d2d1d4d3a3b1c1{token}b4a4", size=4)
        assert explicit == implicit
    assert implicit.moves.count(16) == 1 and implicit.is_complete()


def test_round_trip(tmp_path: Path) -> None:
    games = list(read_transcripts(shared_file("xot/openingssmall.txt")))[:200]
    games.append(
        parse_transcript_line("a2a1c4d2d1d4d3a3b1c1b4a4", size=4).with_headers(
            source="openingssmall.txt", game=201, line=201
        )
    )
    for passes, upper, name in ((False, False, "t.txt"), (True, True, "t.txt.gz")):
        out = tmp_path / name
        eight = [g for g in games if g.size == 8]
        write_transcripts(out, eight, passes=passes, upper=upper)
        back = list(read_transcripts(out))
        assert [g.with_headers(source=None) for g in back] == [
            g.with_headers(source=None) for g in eight
        ]
    out = tmp_path / "four.txt"
    write_transcripts(out, games[-1:], passes=True)
    assert out.read_text() == "a2a1c4d2d1d4d3a3b1c1PAb4a4\n"
    assert next(read_transcripts(out, size=4)).moves == games[-1].moves


def test_comments_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("# openings\n\nf5d6\n  \nf5f6\n")
    games = list(read_transcripts(path))
    assert [(g.headers["game"], g.headers["line"]) for g in games] == [(1, 3), (2, 5)]


def test_errors_name_file_line_and_move(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("f5d6\nf5d6a1\nf5zz\n")
    with pytest.raises(
        TranscriptError, match=r"bad.txt: game 2 \(line 2\), move 3: illegal move a1 for black"
    ):
        list(read_transcripts(path))
    report = ReadReport()
    assert len(list(read_transcripts(path, lenient=True, report=report))) == 1
    assert [p.line for p in report.skipped] == [2, 3]
    assert "game 3 (line 3), move 2 (zz): invalid square name 'zz'" in str(report.skipped[1])


def test_writer_needs_standard_start(tmp_path: Path) -> None:
    board = Board.from_transcript("f5d6")
    with pytest.raises(TranscriptError, match=r"x.txt: game 1: a transcript can only hold"):
        write_transcripts(tmp_path / "x.txt", [GameRecord.from_moves(["c3"], start=board)])
