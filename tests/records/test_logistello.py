"""Logistello's book: all 121,123 games replay; the score convention counted in the data
README; passes as repeated signs; round trips; errors name file, line and move."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from othellolab import BLACK, WHITE
from othellolab.records import ReadReport, read_logistello, write_logistello
from othellolab.records.logistello import LogistelloError, format_logistello_line

from helpers import shared_file


def test_every_game_replays_and_scores_follow_the_readme() -> None:
    """The data README: 121,123 games starting d3; SCORE gives the empties to the winner in
    119,646 games and not in the other 1,477 (there it is the plain disc difference)."""
    report = ReadReport()
    n = 0
    plain = 0
    for game in read_logistello(shared_file("logistello/logbook.gam.gz"), report=report):
        n += 1
        assert game.moves[0] == 19  # d3
        if game.result_mismatch() is not None:
            final = game.final_board
            assert game.recorded_score == final.disc_count(BLACK) - final.disc_count(WHITE)
            plain += 1
    assert n == report.games == 121_123 and not report.skipped
    assert plain == len(report.mismatches) == 1_477


def test_repeated_sign_is_a_pass(tmp_path: Path) -> None:
    # The book's second game: "...+a2-b1-g1+h1: +00 10": black passes between b1 and g1.
    line = (
        "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5"
        "+g6-c6+c5-c7+b6-b5+f8-a6+b4-a5+a4-e8+b8-h7+g8-b7+g2-g3+h2-a1+f1-e2+h3-a3+a8-a7+h8-g7"
        "+a2-b1-g1+h1: +00 10"
    )
    path = tmp_path / "book.gam"
    path.write_text(line + "\n")
    game = next(read_logistello(path))
    assert game.moves[-3:] == (64, 6, 7)  # pass, g1, h1
    assert game.headers == {"source": "book.gam", "game": 1, "line": 1, "depth": 10}
    assert game.recorded_score == 0 == game.score
    assert format_logistello_line(game) == line


def test_round_trip_gzip(tmp_path: Path) -> None:
    src = shared_file("logistello/logbook.gam.gz")
    with gzip.open(src, "rt") as f:
        head = [next(f) for _ in range(300)]
    path = tmp_path / "book.gam.gz"
    with gzip.open(path, "wt") as f:
        f.writelines(head)
    games = list(read_logistello(path))
    out = tmp_path / "copy.gam.gz"
    assert write_logistello(out, games) == 300
    with gzip.open(out, "rt") as f:
        assert f.read().splitlines() == [h.rstrip("\n") for h in head]
    back = list(read_logistello(out))
    assert [g.with_headers(source=None) for g in back] == [
        g.with_headers(source=None) for g in games
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "+d3-c3+a1: +00 10",
            r"bad.gam: game 2 \(line 2\), move 3 \(a1\): illegal move a1 for black",
        ),
        ("-d3+c3: +00 10", r"game 2 \(line 2\), move 1 \(-d3\): the first move is white's"),
        ("+d3-c3 +00 10", r"game 2 \(line 2\): expected '\+d3-c3...: SCORE DEPTH'"),
        ("+d3+c3: +00 10", r"game 2 \(line 2\), move 2 \(pass\): illegal move pass for white"),
    ],
)
def test_errors_name_file_line_and_move(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.gam"
    path.write_text("+d3-c3: +00 10\n" + line + "\n+d3: +00 10\n")
    with pytest.raises(LogistelloError, match=message):
        list(read_logistello(path))
    report = ReadReport()
    assert len(list(read_logistello(path, lenient=True, report=report))) == 2
    assert report.skipped[0].line == 2
