"""``GameRecord``: the compiled replay of ``from_moves`` agrees with move-by-move ``Board.play``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab import Board, IllegalMoveError
from othellolab.records import GameRecord


def _random_game(seed: int, size: int) -> tuple[list[int], list[int]]:
    """(all actions with passes, placing moves only) of a random game through Board.play."""
    rng = np.random.default_rng(seed)
    board = Board(size=size)
    actions = []
    while not board.is_game_over():
        a = int(rng.choice(board.legal_actions()))
        actions.append(a)
        board = board.play(a)
    return actions, [a for a in actions if a != size * size]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([8, 6, 4]))
def test_from_moves_inserts_passes_like_board_play(seed: int, size: int) -> None:
    actions, placed = _random_game(seed, size)
    for moves in (placed, actions, np.array(placed), tuple(placed)):
        game = GameRecord.from_moves(moves, start=Board(size=size))
        assert list(game.moves) == actions
        board = Board(size=size)
        for a in actions:
            board = board.play(a)
        assert game.final_board == board == GameRecord(tuple(actions), Board(size=size)).final_board
        assert game.is_complete()


def test_string_and_int_moves_agree_and_errors_name_the_move() -> None:
    assert GameRecord.from_moves(["f5", "d6"]) == GameRecord.from_moves([37, 43])
    with pytest.raises(IllegalMoveError, match=r"w: move 2 \(a1\): illegal move a1 for white"):
        GameRecord.from_moves([37, 0], where="w: ")
    with pytest.raises(IllegalMoveError, match=r"move 2 \('a1'\): illegal move a1"):
        GameRecord.from_moves(["f5", "a1"])
    with pytest.raises(ValueError, match=r"move 1 \(99\): action 99 is out of range"):
        GameRecord.from_moves([99])
    with pytest.raises(IllegalMoveError, match=r"move 2 \(pass\): illegal move pass for white"):
        GameRecord.from_moves([37, 64])


def test_with_headers_adds_replaces_and_removes() -> None:
    game = GameRecord.from_moves(["f5"], headers={"black": "a", "white": "b"})
    changed = game.with_headers(black="c", white=None, year=2001)
    assert dict(changed.headers) == {"black": "c", "year": 2001}
    assert changed.moves == game.moves and changed.final_board == game.final_board


def test_scores_point_of_view() -> None:
    """``score`` is black's disc difference with the empties to the leader."""
    game = GameRecord.from_moves(["f5", "d6", "c3", "d3", "c4"])
    final = game.final_board
    diff = final.disc_count(0) - final.disc_count(1)
    assert game.score == diff + final.num_empties * (1 if diff > 0 else -1 if diff < 0 else 0)


def test_facts_are_properties_like_the_boards() -> None:
    """As on ``Board`` (``legal_moves``), what a record is reads as a property: the final board
    prints as a board, ``boards`` slices as a tuple, ``result`` and ``score`` are values."""
    game = GameRecord.from_moves(["f5", "d6", "c3"])
    assert isinstance(game.final_board, Board) and "X" in str(game.final_board)
    assert game.boards[:0] == () and game.boards[0] == game.start == Board()
    assert len(game.boards) == len(game.moves) + 1 and game.boards[-1] == game.final_board
    assert game.boards[1] == Board().play("f5") and game.boards is game.boards  # kept
    final = game.final_board
    assert (game.result.black_discs, game.result.white_discs) == (
        final.disc_count(0),
        final.disc_count(1),
    )
    assert game.score == game.result.score(0)
    assert not game.is_complete()  # a predicate, a method, as Board.is_game_over()


def test_replay_pairs_each_position_with_its_move() -> None:
    actions, _ = _random_game(7, 6)
    game = GameRecord(tuple(actions), Board(size=6))
    pairs = list(game.replay())
    assert [m for _, m in pairs] == actions
    assert [b for b, _ in pairs] == list(game.boards[:-1])
    assert all(b.play(m) == after for (b, m), after in zip(pairs, game.boards[1:], strict=True))


def test_an_unchecked_record_names_its_bad_move_from_every_view() -> None:
    game = GameRecord((37, 0))  # not from_moves: nothing checked it
    for view in (lambda: game.final_board, lambda: game.boards, lambda: list(game.replay())):
        with pytest.raises(IllegalMoveError, match=r"move 2: illegal move a1"):
            view()
