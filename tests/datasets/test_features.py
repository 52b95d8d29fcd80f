"""The feature encoder: planes against the Board API, symmetries against the rules kernels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab import Board
from othellolab.core import kernels as k
from othellolab.core.features import (
    INVERSE_SYMMETRY,
    FeatureSpec,
    encode_batch,
    encode_board,
    index_to_move,
    move_to_index,
    policy_size,
    symmetry_table,
    transform_action,
    transform_actions,
    transform_bitboards,
    transform_planes,
    transform_policy,
)

ALL_PLANES = FeatureSpec(planes=("player", "opponent", "legal", "empty", "ones"))


def random_board(seed: int, plies: int, size: int = 8) -> Board:
    """A position reached by uniformly random legal moves (passes when forced)."""
    rng = np.random.default_rng(seed)
    board = Board(size=size)
    for _ in range(plies):
        actions = board.legal_actions()
        if not actions:
            break
        board = board.play(int(rng.choice(actions)))
    return board


def grid(mask: int, size: int = 8) -> np.ndarray:
    return np.array([(mask >> sq) & 1 for sq in range(size * size)], dtype=np.float32).reshape(
        size, size
    )


def test_start_position_planes() -> None:
    planes = encode_board(Board(), ALL_PLANES)
    assert planes.shape == (5, 8, 8) and planes.dtype == np.float32
    # Black to move: e4 (row 3, col 4) and d5 (row 4, col 3) are the mover's discs.
    assert planes[0, 3, 4] == planes[0, 4, 3] == 1 and planes[0].sum() == 2
    assert planes[1, 3, 3] == planes[1, 4, 4] == 1 and planes[1].sum() == 2
    legal = {(int(r), int(c)) for r, c in zip(*np.nonzero(planes[2]), strict=True)}
    assert legal == {(2, 3), (3, 2), (4, 5), (5, 4)}  # d3, c4, f5, e6 (DESIGN.md)
    assert planes[3].sum() == 60 and planes[4].sum() == 64


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 70), size=st.sampled_from([8, 6, 4]))
def test_planes_match_the_board_api(seed: int, plies: int, size: int) -> None:
    board = random_board(seed, plies, size)
    spec = FeatureSpec(planes=ALL_PLANES.planes, size=size)
    planes = encode_board(board, spec)
    assert np.array_equal(planes[0], grid(board.player, size))
    assert np.array_equal(planes[1], grid(board.opponent, size))
    assert np.array_equal(planes[2], grid(board.legal_mask, size))
    assert np.array_equal(planes[3], grid(board.empties.mask, size))
    assert planes[4].all()


def test_batch_encoding_equals_one_by_one() -> None:
    boards = [random_board(s, s % 61) for s in range(50)]
    p = np.array([b.player for b in boards], dtype=np.uint64)
    o = np.array([b.opponent for b in boards], dtype=np.uint64)
    batch = encode_batch(p, o, ALL_PLANES, dtype=np.uint8)
    assert batch.dtype == np.uint8 and batch.shape == (50, 5, 8, 8)
    for b, planes in zip(boards, batch, strict=True):
        assert np.array_equal(planes, encode_board(b, ALL_PLANES, dtype=np.uint8))
    # The h8 bit (63) survives: uint64 all the way.
    full = encode_batch(np.array([2**63], dtype=np.uint64), np.array([1], dtype=np.uint64))
    assert full[0, 0, 7, 7] == 1 and full[0, 1, 0, 0] == 1


def test_spec_validation_and_round_trip() -> None:
    assert FeatureSpec.from_dict(ALL_PLANES.to_dict()) == ALL_PLANES
    assert ALL_PLANES.channels == 5 and ALL_PLANES.policy_size == 65
    with pytest.raises(ValueError, match="must start with 'player', 'opponent'"):
        FeatureSpec(planes=("opponent", "player"))
    with pytest.raises(ValueError, match="unknown plane names"):
        FeatureSpec(planes=("player", "opponent", "mobility"))
    with pytest.raises(ValueError, match="unknown keys"):
        FeatureSpec.from_dict({"planes": ["player", "opponent"], "colour": 1})
    with pytest.raises(ValueError, match="a 6x6 board with a size-8 spec"):
        encode_board(Board(size=6), FeatureSpec())


def test_moves_and_policy_indices() -> None:
    assert policy_size(8) == 65 and policy_size(6) == 37 and policy_size(4) == 17
    assert move_to_index("a1") == 0 and move_to_index("h8") == 63 and move_to_index("f5") == 37
    assert move_to_index("pass") == 64 and move_to_index("PA", 6) == 36
    for size in (8, 6, 4):
        for i in range(policy_size(size)):
            assert move_to_index(index_to_move(i, size), size) == i
    with pytest.raises(ValueError, match="out of range"):
        index_to_move(65)


@pytest.mark.parametrize("size", [8, 6, 4])
def test_fast_bitboard_symmetries_equal_the_core_kernel(size: int) -> None:
    rng = np.random.default_rng(size)
    x = rng.integers(0, 2**63, size=500, dtype=np.uint64) * np.uint64(2) + rng.integers(
        0, 2, size=500, dtype=np.uint64
    )
    x &= np.uint64((1 << size * size) - 1) if size < 8 else np.uint64(2**64 - 1)
    ks = rng.integers(0, 8, size=500)
    got = transform_bitboards(x, ks, size)
    want = [k.transform(int(v), int(s), size) for v, s in zip(x, ks, strict=True)]
    assert got.tolist() == want
    for s in range(8):
        assert (
            transform_bitboards(transform_bitboards(x, s, size), INVERSE_SYMMETRY[s], size).tolist()
            == x.tolist()
        )


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 58), size=st.sampled_from([8, 6, 4]))
def test_symmetry_equivariance(seed: int, plies: int, size: int) -> None:
    """Planes, moves and policies transform together, and commute with the rules."""
    board = random_board(seed, plies, size)
    spec = FeatureSpec(planes=ALL_PLANES.planes, size=size)
    planes = encode_board(board, spec)
    legal = board.legal_actions() or [size * size]
    policy = np.zeros(policy_size(size), dtype=np.float32)
    policy[legal] = np.arange(1, len(legal) + 1)
    for s in range(8):
        image = board.transform(s)
        assert np.array_equal(encode_board(image, spec), transform_planes(planes, s))
        moved = transform_policy(policy, s, size)
        assert sorted(np.flatnonzero(moved)) == sorted(image.legal_actions() or [size * size])
        assert np.array_equal(transform_policy(moved, INVERSE_SYMMETRY[s], size), policy)
        for a in legal:
            b = transform_action(a, s, size)
            assert moved[b] == policy[a]
            if a != size * size:
                assert image.is_legal(b)
                assert image.play(b) == board.play(a).transform(s)
        assert transform_actions(np.array(legal), s, size).tolist() == [
            transform_action(a, s, size) for a in legal
        ]


def test_batched_policy_transform_per_row() -> None:
    rng = np.random.default_rng(0)
    pol = rng.random((16, 65)).astype(np.float32)
    ks = rng.integers(0, 8, size=16)
    got = transform_policy(pol, ks)
    for i in range(16):
        assert np.array_equal(got[i], transform_policy(pol[i], int(ks[i])))
    table = symmetry_table(8)
    assert (table[:, 64] == 64).all() and all(sorted(t) == list(range(65)) for t in table)
    # Identity plus the published layout: rot90 in numpy's sense maps h1 (top right) to a1.
    assert transform_action(move_to_index("h1"), 1) == move_to_index("a1")


def test_moves_that_a_symmetry_of_the_position_maps_together_are_equivalent() -> None:
    from othellolab.core.features import equivalent_actions

    start = Board()
    f5 = move_to_index("f5")
    # The four first moves of Othello are one move up to symmetry (every WTHOR game is written
    # from f5 for that reason).
    same = equivalent_actions(np.array([start.player]), np.array([start.opponent]), np.array([f5]))[
        0
    ]
    assert {index_to_move(int(a)) for a in np.flatnonzero(same)} == {"d3", "c4", "f5", "e6"}
    # After f5 the three replies are three openings (perpendicular d6, diagonal f6, parallel
    # f4): each is equivalent only to itself, although the position keeps a symmetry.
    after = start.play(f5)
    replies = np.array(after.legal_actions())
    same = equivalent_actions(
        np.full(len(replies), after.player, dtype=np.uint64),
        np.full(len(replies), after.opponent, dtype=np.uint64),
        replies,
    )
    assert (same.sum(axis=1) == 1).all() and same[np.arange(len(replies)), replies].all()
    # A position without a symmetry: every move alone; the pass maps to itself.
    rng = np.random.default_rng(3)
    board = Board()
    for _ in range(9):
        board = board.play(board.legal_actions()[int(rng.integers(len(board.legal_actions())))])
    moves = np.array([*board.legal_actions(), board.pass_action])
    same = equivalent_actions(
        np.full(len(moves), board.player, dtype=np.uint64),
        np.full(len(moves), board.opponent, dtype=np.uint64),
        moves,
    )
    assert (same.sum(axis=1) == 1).all()
