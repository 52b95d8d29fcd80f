"""Learning targets of a game (``core.targets``): Othello's final ownership on hand-made
endings, the score range, and the defaults of a game without ownership."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core.games import get_game

# 4x4 endings (bit i = square row*4+col), each checked against the rules' own final score
ENDINGS = [
    # a full board, 10 discs to 6
    (0b1111_1111_1100_0000, 0b0000_0000_0011_1111, 4),
    # the side to move alone has discs: the 13 empties are its own, 3 + 13
    (0b0111, 0, 16),
    # a1 against d4, no move for either: a draw, the empties are no one's
    (1, 1 << 15, 0),
    # the opponent alone: the side to move loses 0 - 2 - 14
    (0, (1 << 5) | (1 << 6), -16),
]


@pytest.mark.parametrize(("p", "o", "score"), ENDINGS)
def test_othello_ownership_sums_to_the_final_disc_difference(p: int, o: int, score: int) -> None:
    game = get_game("othello", size=4)
    assert game.result(p, o) == score  # the rules agree that it is over, at this score
    own = game.ownership(p, o)
    assert own is not None and own.shape == (16,) and own.dtype == np.float32
    assert own.sum() == score
    for square in range(16):
        bit = 1 << square
        if p & bit:
            assert own[square] == 1
        elif o & bit:
            assert own[square] == -1
        else:  # an empty square goes to the winner
            assert own[square] == np.sign(score)
    # from the other side, everything turns over
    assert np.array_equal(game.ownership(o, p), -own)


def test_ownership_batch_matches_one_at_a_time() -> None:
    game = get_game("othello", size=4)
    p = np.array([e[0] for e in ENDINGS], np.uint64)
    o = np.array([e[1] for e in ENDINGS], np.uint64)
    batch = game.ownership_batch(p, o)
    assert batch.shape == (len(ENDINGS), 16)
    for i, (a, b, _) in enumerate(ENDINGS):
        assert np.array_equal(batch[i], game.ownership(a, b))


@pytest.mark.parametrize("size", [4, 6, 8])
def test_othello_score_range_is_every_disc_difference(size: int) -> None:
    game = get_game("othello", size=size)
    assert game.has_ownership
    assert game.score_range == (-size * size, size * size)


def test_a_game_without_ownership_has_none() -> None:
    shogi = get_game("animal-shogi")
    assert shogi.ownership(*shogi.start()) is None
    assert not shogi.has_ownership
    assert shogi.score_range == (-1, 1)  # its final scores are results: +1, 0, -1
    with pytest.raises(ValueError, match="no ownership"):
        shogi.ownership_batch(np.zeros(1, np.uint64), np.zeros(1, np.uint64))
