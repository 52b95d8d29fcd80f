"""The shortcuts ``Board`` takes for speed give what the general paths give: the start
position's cached legal moves, the legal moves a pass carries to the next board, and the
byte-table ``mask_squares``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from othellolab import Board
from othellolab.core.errors import IllegalMoveError
from othellolab.core.squareset import mask_squares


@pytest.mark.parametrize("size", [8, 6, 4])
def test_start_position_is_the_same_however_made(size: int) -> None:
    made = [Board(size=size), Board(size=np.int64(size)), Board(size=size)]
    fresh = Board.from_obf(Board(size=size).obf())  # legal moves computed from the discs
    for board in made:
        assert board == fresh
        assert board.legal_actions() == fresh.legal_actions()
        assert board.legal_mask == fresh.legal_mask


@pytest.mark.parametrize("size", [True, 8.0, 5, "8"])
def test_start_position_refuses_a_bad_size(size: object) -> None:
    with pytest.raises(ValueError, match="unsupported board size"):
        Board(size=size)  # type: ignore[arg-type]


def test_a_pass_carries_the_next_legal_moves() -> None:
    rng = random.Random(7)
    passes = 0
    for _ in range(200):
        board = Board(size=6)
        while not board.is_game_over():
            actions = board.legal_actions()
            if actions == [board.pass_action]:
                after = board.play(board.pass_action)
                passes += 1
                again = Board.from_bitboards(after.player, after.opponent, after.turn, size=6)
                assert after.legal_actions() == again.legal_actions()
                assert after.legal_mask == again.legal_mask
                with pytest.raises(IllegalMoveError):
                    after.play(after.pass_action)  # the side to move now has moves
                board = after
            else:
                board = board.play(rng.choice(actions))
        with pytest.raises(IllegalMoveError, match="the game is over"):
            board.play(board.pass_action)
    assert passes > 0  # the games did pass


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_mask_squares_lists_the_set_bits(mask: int) -> None:
    assert mask_squares(mask) == [i for i in range(64) if mask >> i & 1]
