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
        assert (
            game.final_board()
            == board
            == GameRecord(tuple(actions), Board(size=size)).final_board()
        )
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
    assert changed.moves == game.moves and changed.final_board() == game.final_board()


def test_scores_point_of_view() -> None:
    """``score()`` is black's disc difference with the empties to the leader."""
    game = GameRecord.from_moves(["f5", "d6", "c3", "d3", "c4"])
    final = game.final_board()
    diff = final.disc_count(0) - final.disc_count(1)
    assert game.score() == diff + final.num_empties * (1 if diff > 0 else -1 if diff < 0 else 0)
