"""GGF: the real test files replay and their results equal the replay; 4x4 and random-start
boards, passes, komi and suffixes; round trips; errors name file, game, line and move."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab import Board
from othellolab.records import GameRecord, ReadReport, format_ggf, parse_ggf, read_ggf, write_ggf
from othellolab.records.ggf import GgfError, result_suffix

from helpers import shared_file

FILES = ["ggf/nboard_test.ggf", "ggf/nboard_test2.ggf", "ggf/novello_TestGames.ggf"]
START_8 = "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]"


@pytest.mark.parametrize("name", FILES)
def test_real_files_replay_and_results_equal_replay(name: str) -> None:
    report = ReadReport()
    games = list(read_ggf(shared_file(name), report=report))
    assert games and not report.skipped and not report.mismatches
    for game in games:
        assert game.is_complete()
        assert game.recorded_score == game.score


def test_counts_and_kinds_of_the_real_files() -> None:
    """The data README: 14 standard 8x8 games, one 4x4 game, one random-start game."""
    games = [g for name in FILES for g in read_ggf(shared_file(name))]
    sizes = [g.size for g in games]
    random_start = [g for g in games if g.size == 8 and g.start != Board()]
    assert len(games) == 16 and sizes.count(4) == 1 and len(random_start) == 1
    assert random_start[0].start.num_empties == 64 - 20  # TY[8kr20]: a random 20-disc start


def test_4x4_game_with_pass() -> None:
    four = next(g for g in read_ggf(shared_file("ggf/nboard_test2.ggf")) if g.size == 4)
    assert four.headers["black"] == "james" and four.headers["white"] == "anton"
    assert four.moves.count(16) == 1  # B[pass//4.23]
    assert four.transcript(passes=True).lower() == "a2a1c4d2d1d4d3a3b1c1pab4a4"
    assert four.recorded_score == -2 and four.result.final_counts() == (7, 9)


def test_komi_game() -> None:
    """RE[-22.87] with KM[-3.133]: black's disc difference is RE + KM = -26 (the replay)."""
    game = list(read_ggf(shared_file("ggf/nboard_test2.ggf")))[1]
    assert game.headers["komi"] == "-3.133" and game.headers["result"] == "-22.87"
    assert game.recorded_score == game.score == -26
    assert game.headers["KB"] == "B3/2.00/27.23"  # unknown properties are kept


def test_match_count_prefix_and_pass_spellings() -> None:
    games = list(read_ggf(shared_file("ggf/novello_TestGames.ggf")))
    assert len(games) == 12 and [g.headers["line"] for g in games] == list(range(1, 13))
    assert sum(g.moves.count(64) for g in games) == 5  # 3 B[pass], 1 W[pass]... and B[PA//0.38]


@pytest.mark.parametrize("name", FILES)
def test_round_trip(tmp_path: Path, name: str) -> None:
    games = list(read_ggf(shared_file(name)))
    for match_count in (False, True):
        out = tmp_path / ("out.ggf" if not match_count else "out.ggf.gz")
        assert write_ggf(out, games, match_count=match_count) == len(games)
        back = list(read_ggf(out))
        assert [g.with_headers(source=None) for g in back] == [
            g.with_headers(source=None) for g in games
        ]


def test_suffix_and_6x6_and_escapes() -> None:
    text = (
        "(;GM[Othello]PB[a\\]b]PW[c]TY[6]RE[+4.000:r]BO[6 ------ ------ --O*-- --*O-- ------ "
        "------ *]B[c2]W[b2/1.0/2];)"
    )
    game = next(parse_ggf(text))
    assert game.size == 6 and game.headers["black"] == "a]b"
    assert result_suffix(game) == "r" and game.recorded_score == 4
    assert game.result_mismatch() is not None  # resigned: the replay is not over
    again = next(parse_ggf(format_ggf(game)))
    assert again == game


def test_writer_defaults() -> None:
    game = GameRecord.from_moves(["f5", "d6"], recorded_score=-2)
    text = format_ggf(game)
    assert text.startswith("(;GM[Othello]TY[8]RE[-2]" + START_8 + "B[f5]W[d6];)")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            f"(;GM[Othello]{START_8}B[d3]B[c5];)",
            r"t.ggf: game 1 \(line 1\), move 2: B\[c5\] but white",
        ),
        (
            f"(;GM[Othello]{START_8}B[d3]W[c5]\nB[a1];)",
            r"game 1 \(line 1\), move 3 \('a1'\): illegal move a1",
        ),
        ("(;GM[Chess];)", r"game 1 \(line 1\): GM\[Chess\]: not an Othello game"),
        ("(;GM[Othello]B[d3]", r"game 1 \(line 1\): truncated game"),
        (
            "(;GM[Othello];)\n\n xx",
            r"game 2 \(line 3\): expected '\(;' to start a game, found 'xx'",
        ),
        ("(;GM[Othello]TY[10];)", r"board size 10 is not supported"),
        ("(;GM[Othello]RE[abc];)", r"RE\[abc\]: expected black's disc difference"),
        ("(;GM[Othello]BO[8 ---- *];)", r"BO: 4 cells for a 8x8 board"),
        ("(;GM[Othello]BO[4 ---- -O*- -*O- ---x *];)", r"BO: invalid cell 'x' at square d4"),
        ("(;GM[Othello]TY[8]BO[4 ---- -O*- -*O- ---- *];)", r"TY\[8\] disagrees with the 4x4"),
        ("(;GM[Othello] junk;)", r"expected a property KEY\[value\] or ';\)', found 'junk;\)'"),
    ],
)
def test_errors_name_file_game_line_and_move(text: str, message: str) -> None:
    with pytest.raises(GgfError, match=message):
        list(parse_ggf(text, source="t.ggf"))


def test_lenient_skips_bad_games(tmp_path: Path) -> None:
    path = tmp_path / "mixed.ggf"
    path.write_text(
        f"(;GM[Othello]{START_8}B[d3];)\n(;GM[Othello]{START_8}B[a1];)\n(;GM[Othello];)\n"
    )
    report = ReadReport()
    games = list(read_ggf(path, lenient=True, report=report))
    assert [g.headers["game"] for g in games] == [1, 3]
    assert report.skipped[0].game == 2 and report.skipped[0].line == 2
    assert "illegal move a1" in str(report.skipped[0])


def test_long_properties_across_read_blocks(tmp_path: Path) -> None:
    """The reader scans 1 MiB blocks: a property crossing a block boundary is read whole (one
    longer than 64 characters was a false syntax error), and one over the limit is an error."""
    game = f"(;GM[Othello]PB[a]PW[b]C[{'x' * 300}]{START_8}B[d3]W[c3];)\n"
    path = tmp_path / "big.ggf"
    path.write_text(game * ((3 << 20) // len(game)))
    games = list(read_ggf(path))
    assert len(games) == (3 << 20) // len(game) and games[-1].headers["C"] == "x" * 300
    path.write_text(f"(;GM[Othello]C[{'x' * 70_000}];)")
    with pytest.raises(GgfError, match=r"big.ggf: game 1 \(line 1\): property C\[...\] is longer"):
        list(read_ggf(path))
    with pytest.raises(GgfError, match=r"property C\[...\] is longer than 65536 characters"):
        list(parse_ggf(f"(;GM[Othello]C[{'x' * 70_000}];)"))
    path.write_text("(;GM[Othello]B[d3")
    with pytest.raises(GgfError, match=r"truncated game \(the file ends inside B\[...\]\)"):
        list(read_ggf(path))
