"""The Board API: construction, moves, errors, results, OBF, transcripts, symmetry."""

from __future__ import annotations

import itertools
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab import (
    BLACK,
    PASS,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    SquareSet,
    format_transcript,
    parse_square,
    parse_transcript,
    square_name,
)
from othellolab.testing import check_board_invariants, random_game


def test_start_position_follows_design() -> None:
    b = Board()
    assert b.turn == BLACK
    assert b.discs(WHITE).names() == ["d4", "e5"]
    assert b.discs(BLACK).names() == ["e4", "d5"]
    assert sorted(b.legal_moves.names()) == ["c4", "d3", "e6", "f5"]
    assert Board(size=6).discs(WHITE).names() == ["c3", "d4"]
    assert Board(size=6).discs(BLACK).names() == ["d3", "c4"]
    assert Board(size=4).discs(WHITE).names() == ["b2", "c3"]
    assert Board(size=4).discs(BLACK).names() == ["c2", "b3"]


def test_square_names() -> None:
    assert parse_square("f5") == 37 and square_name(37) == "f5"
    assert parse_square("A1") == 0 and square_name(63) == "h8"
    assert square_name(64) == "pass"
    assert parse_square("f6", 6) == 35 and square_name(35, 6) == "f6"
    with pytest.raises(InvalidMoveError, match="invalid square name 'i9'"):
        parse_square("i9")
    with pytest.raises(InvalidMoveError):
        parse_square("g1", 6)


def test_play_accepts_names_indices_and_pass() -> None:
    b = Board()
    assert b.play("f5") == b.play(37) == b.play("F5")
    # White to move must pass: its b1 disc cannot flank a1; black can play c1.
    board = Board.from_obf("XO" + "-" * 62 + " O")
    assert board.must_pass() and not board.legal_moves
    assert board.legal_actions() == [64]
    for spelling in (PASS, "pass", "PA", "--", 64):
        assert board.play(spelling).turn != board.turn


def test_illegal_move_error_names_move_and_legal_moves() -> None:
    b = Board()
    with pytest.raises(
        IllegalMoveError,
        match=r"illegal move a1 for black: a1 flips no disc; legal moves: d3, c4, f5, e6",
    ):
        b.play("a1")
    with pytest.raises(IllegalMoveError, match="d4 is occupied"):
        b.play("d4")
    with pytest.raises(IllegalMoveError, match="may not pass"):
        b.play("pass")
    with pytest.raises(InvalidMoveError, match="out of range"):
        b.play(65)
    with pytest.raises(InvalidMoveError):
        b.play("zz")
    assert isinstance(IllegalMoveError("x"), ValueError)
    assert b == Board()  # nothing changed


def test_board_is_immutable_and_hashable() -> None:
    b = Board()
    with pytest.raises(AttributeError):
        b.turn = WHITE  # type: ignore[misc]
    with pytest.raises(AttributeError):
        b.extra = 1  # type: ignore[attr-defined]
    assert len({Board(), Board(), Board().play("f5")}) == 2
    assert pickle.loads(pickle.dumps(b.play("f5"))) == b.play("f5")


def test_obf_round_trip_and_errors() -> None:
    line = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
    b = Board.from_obf(line + " ; G8:+18;")
    assert b.obf() == line
    assert Board.from_obf(b.obf()) == b
    with pytest.raises(
        InvalidPositionError, match=r"invalid character 'Z' at offset 3 \(square d1\)"
    ):
        Board.from_obf("---Z" + "-" * 60 + " X")
    with pytest.raises(InvalidPositionError, match="expected 64, 36 or 16 cells"):
        Board.from_obf("-" * 63 + " X")
    with pytest.raises(InvalidPositionError, match="side to move"):
        Board.from_obf("-" * 64 + " Q")
    with pytest.raises(InvalidPositionError, match="missing the side to move"):
        Board.from_obf("-" * 64)
    assert Board.from_obf("-" * 14 + "OX----XO" + "-" * 14 + " X") == Board(size=6)


def test_repr_is_evaluable() -> None:
    small = Board(size=4)
    for b in (Board(), Board(size=6), Board().play("f5"), small.play(small.legal_actions()[0])):
        assert eval(repr(b)) == b


def test_outcome_and_score_give_empties_to_winner() -> None:
    # White wiped out: black has 4 discs, 60 empties.
    b = Board.from_obf("XXXX" + "-" * 60 + " O")
    assert b.is_game_over()
    out = b.outcome()
    assert out is not None and out.winner == BLACK
    assert out.score(BLACK) == 64 and out.score(WHITE) == -64
    assert out.final_counts() == (64, 0)
    assert b.score() == -64 and b.result() == -1
    draw = Board.from_obf("X" * 32 + "O" * 32 + " X")
    assert draw.outcome() is not None and draw.outcome().winner is None and draw.score() == 0
    assert Board().outcome() is None


def test_transcript_helpers() -> None:
    b = Board.from_transcript("f5d6c3d3c4")
    assert b == Board().play("f5").play("d6").play("c3").play("d3").play("c4")
    assert format_transcript(parse_transcript("F5 D6 c3")) == "f5d6c3"
    with pytest.raises(IllegalMoveError, match="transcript move 2"):
        parse_transcript("f5f5")
    # Pass spellings, including "pass" spelled out between moves.
    white_must_pass = Board.from_obf("XO" + "-" * 62 + " O")
    for spelling in ("pass", "PASS", "PA", "--", "ps"):
        assert parse_transcript(f"{spelling}c1", start=white_must_pass) == [64, 2]


def test_transcript_inserts_implied_passes() -> None:
    """Replay a random game with passes, drop them, and parse it back."""
    for seed in range(40):
        boards = list(random_game(6, seed=seed))
        actions = [
            next(a for a in [*range(36), 36] if prev.is_legal(a) and prev.play(a) == nxt)
            for prev, nxt in itertools.pairwise(boards)
        ]
        if 36 not in actions:
            continue
        text = format_transcript(actions, size=6)
        assert "pass" not in text and "PA" not in text
        assert parse_transcript(text, size=6) == actions
        assert format_transcript(actions, size=6, passes=True).count("PA") == actions.count(36)
        spelled = "".join("pass" if a == 36 else square_name(a, 6) for a in actions)
        assert parse_transcript(spelled, size=6) == actions
        return
    pytest.fail("no 6x6 random game with a pass in 40 seeds")


def test_squareset_protocol() -> None:
    s = Board().legal_moves
    assert repr(s) == "SquareSet(['d3', 'c4', 'f5', 'e6'])"
    assert "f5" in s and 37 in s and "a1" not in s and "zz" not in s and 99 not in s
    assert len(s) == 4 and list(s) == [19, 26, 37, 44]
    assert s == SquareSet(["f5", "e6", "d3", "c4"]) and eval(repr(s)) == s
    assert (s & SquareSet(["f5"])) == SquareSet(["f5"])
    assert (s - SquareSet(["f5"])).names() == ["d3", "c4", "e6"]
    assert len(~s) == 60
    assert str(SquareSet(["a1"], size=4)).splitlines()[0] == "1 . . ."


@pytest.mark.parametrize("size", (8, 6, 4))
def test_invariants_along_random_games(size: int) -> None:
    for seed in range(3):
        for board in random_game(size, seed=seed):
            check_board_invariants(board)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 7))
def test_symmetry_commutes_with_play(seed: int, k: int) -> None:
    boards = list(random_game(8, seed=seed))
    for board in boards[::7]:
        t = board.transform(k)
        assert sorted(t.legal_moves) == sorted(
            __import__("othellolab.core.kernels", fromlist=["x"]).transform_square(m, k, 8)
            for m in board.legal_moves
        )
        assert t.disc_count(BLACK) == board.disc_count(BLACK)
    assert boards[0].symmetries()[0] == boards[0]
    assert len(set(Board().symmetries())) == 2  # the start position has 4 symmetries


def test_ascii_shows_discs_and_legal_moves() -> None:
    text = str(Board())
    assert text.splitlines()[4] == "4 . . * O X . . ."
    assert "black to move" in text


def test_diagram_marks_last_move_and_status() -> None:
    board = Board().play("f5")
    text = board.diagram(last=37)
    assert text.splitlines()[5] == " 5 .  .  .  X  X [X] .  . "
    assert text.splitlines()[-1] == "   black (X) 4  white (O) 1  white to move"
    assert "*" not in board.diagram(legal=False)
