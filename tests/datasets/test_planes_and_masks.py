"""The one encoder's planes and the one legal-action mask agree with the Board API on
real and random games."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import Board
from othellolab.core.features import FeatureSpec, encode_batch
from othellolab.core.kernels import action_mask_batch
from othellolab.testing import random_game


def _positions(size: int, seeds: range) -> list[Board]:
    return [b for s in seeds for b in random_game(size, seed=s)]


@pytest.mark.parametrize("size", [8, 6, 4])
def test_planes_match_the_board(size: int) -> None:
    boards = _positions(size, range(3))
    p = np.array([b.player for b in boards], np.uint64)
    o = np.array([b.opponent for b in boards], np.uint64)
    x = encode_batch(p, o, FeatureSpec(("player", "opponent", "legal", "empty", "ones"), size))
    assert x.shape == (len(boards), 5, size, size) and x.dtype == np.float32
    for b, planes in zip(boards, x, strict=True):
        for sq in range(size * size):
            r, c = divmod(sq, size)
            who = b.piece_at(sq)
            assert planes[0, r, c] == (who == b.turn)
            assert planes[1, r, c] == (who is not None and who != b.turn)
            assert planes[2, r, c] == bool(b.legal_mask >> sq & 1)
            assert planes[3, r, c] == (who is None)
        assert planes[4].min() == 1


@pytest.mark.parametrize("size", [8, 6, 4])
def test_legal_action_masks_match_the_board(size: int) -> None:
    boards = _positions(size, range(5))
    p = np.array([b.player for b in boards], np.uint64)
    o = np.array([b.opponent for b in boards], np.uint64)
    masks = action_mask_batch(p, o, size)
    expected = np.array([b.legal_action_mask() for b in boards])
    assert np.array_equal(masks, expected)
    assert masks[:, -1].any() or size == 8  # small boards pass often enough to check pass
