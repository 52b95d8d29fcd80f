"""The hand-written evaluation: symmetry, sign, features, and soundness of the stable discs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab import Board
from othellolab.core.kernels import U64
from othellolab.players.search.evaluation import EVAL_DISCS, Evaluation
from othellolab.players.search.geometry import neighbours, stable_discs
from othellolab.players.search.heuristic import feature_values, heuristic_value
from othellolab.testing import random_game


def random_position(seed: int, size: int) -> Board:
    games = list(random_game(size, seed=seed))
    return games[np.random.default_rng(seed).integers(len(games))]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([8, 6, 4]))
def test_evaluation_is_symmetric(seed: int, size: int) -> None:
    board = random_position(seed, size)
    v = heuristic_value(board)
    assert abs(v) <= size * size
    for k in range(8):
        assert abs(heuristic_value(board.transform(k)) - v) < 1e-9


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([8, 6, 4]))
def test_stable_discs_never_flip(seed: int, size: int) -> None:
    """Discs the stability bound calls stable keep their colour in a random continuation."""
    rng = np.random.default_rng(seed)
    board = random_position(seed, size)
    black_stable = stable_discs(U64(board.black), U64(board.white), size)
    white_stable = stable_discs(U64(board.white), U64(board.black), size)
    assert int(black_stable) & ~board.black == 0 and int(white_stable) & ~board.white == 0
    while not board.is_game_over():
        actions = board.legal_actions()
        board = board.play(actions[int(rng.integers(len(actions)))])
        assert int(black_stable) & ~board.black == 0 and int(white_stable) & ~board.white == 0


def test_stable_discs_known_cases() -> None:
    # A full board: every disc is stable.
    full = Board.from_obf("X" * 32 + "O" * 32 + " X")
    assert int(stable_discs(U64(full.player), U64(full.opponent), 8)) == full.player
    # A lone corner disc is stable; a lone centre disc is not.
    corner = Board.from_discs(["a1", "d4"], ["e5"])
    assert int(stable_discs(U64(corner.player), U64(corner.opponent), 8)) == 1


def test_features_and_sign() -> None:
    board = Board.from_discs(["a1", "h1", "d4", "e5"], ["d5", "e4"])
    f = feature_values(board)
    assert f["corners"] == 2 and f["discs"] == 2
    swapped = Board.from_bitboards(board.opponent, board.player, 1 - board.turn)
    assert heuristic_value(board) > 0 and heuristic_value(swapped) < 0
    x = Board.from_discs(["b2", "d4", "e5"], ["d5", "e4"])
    assert feature_values(x)["x_squares"] == 1 and heuristic_value(x) < heuristic_value(Board())


def test_neighbours() -> None:
    assert int(neighbours(U64(1), 8)) == (1 << 1) | (1 << 8) | (1 << 9)
    assert int(neighbours(U64(1 << 63), 8)) == (1 << 62) | (1 << 55) | (1 << 54)


def test_disc_evaluation_kind() -> None:
    board = Board.from_transcript("f5d6")
    assert (
        Evaluation(kind=EVAL_DISCS)(board) == board.player.bit_count() - board.opponent.bit_count()
    )
