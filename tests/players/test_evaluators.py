"""Evaluators: priors masked to the legal actions, values in [-1, 1] from the side to move."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab import Board
from othellolab.players.evaluators import (
    Evaluator,
    RandomRolloutEvaluator,
    UniformEvaluator,
    evaluate_boards,
    legal_priors,
)
from othellolab.testing import random_game


def _positions(size: int, games: int = 3) -> list[Board]:
    return [b for g in range(games) for b in random_game(size, seed=100 * size + g)]


@pytest.mark.parametrize("size", [8, 6, 4])
@pytest.mark.parametrize("evaluator", [UniformEvaluator(), RandomRolloutEvaluator(2, seed=1)])
def test_priors_are_uniform_over_legal_actions(size: int, evaluator: Evaluator) -> None:
    boards = _positions(size)
    priors, values = evaluate_boards(evaluator, boards)
    assert priors.shape == (len(boards), size * size + 1) and priors.dtype == np.float32
    assert values.shape == (len(boards),) and values.dtype == np.float32
    assert np.all(np.abs(values) <= 1)
    for board, row, value in zip(boards, priors, values, strict=True):
        legal = board.legal_action_mask()
        assert not row[~legal].any(), board.obf()
        if board.is_game_over():
            assert not row.any()
            assert value == board.result()  # a finished game is worth its exact result
        else:
            assert row.sum() == pytest.approx(1.0, abs=1e-6)
            assert np.allclose(row[legal], 1.0 / legal.sum())
        if board.must_pass():
            assert row[board.pass_action] == 1.0


def test_uniform_evaluator_knows_nothing_but_the_end() -> None:
    boards = _positions(6)
    _, values = evaluate_boards(UniformEvaluator(), boards)
    expected = [b.result() if b.is_game_over() else 0 for b in boards]
    assert values.tolist() == expected
    assert isinstance(UniformEvaluator(), Evaluator) and not UniformEvaluator.has_priors


def _exact_result(board: Board) -> int:
    """Perfect-play result (+1/0/-1) for the side to move, by brute force over ``Board``."""
    actions = board.legal_actions()
    if not actions:
        return board.result()
    return max(-_exact_result(board.play(a)) for a in actions)


def test_rollouts_are_exact_one_move_from_the_end() -> None:
    """With one empty square left every playout is forced, so the value is the exact result."""
    boards = [b for b in _positions(8, games=20) if b.num_empties == 1]
    assert len(boards) >= 10
    _, values = evaluate_boards(RandomRolloutEvaluator(3, seed=0), boards)
    assert values.tolist() == [_exact_result(b) for b in boards]


def test_rollout_value_matches_random_games_through_the_board_api() -> None:
    """The kernel's playouts agree with random games played through ``Board`` (independent)."""
    board = list(random_game(6, seed=3))[6]
    n = 3000
    _, values = evaluate_boards(RandomRolloutEvaluator(n, seed=5), [board])
    rng = np.random.default_rng(7)
    total = 0
    for _ in range(n):
        b = board
        while actions := b.legal_actions():
            b = b.play(actions[int(rng.integers(len(actions)))])
        total += b.outcome().result(board.turn)  # type: ignore[union-attr]
    # Each mean has a standard deviation below 1/sqrt(3000) ~ 0.018: 0.1 is over 3.8 sigma.
    assert abs(values[0] - total / n) < 0.1


def test_rollouts_reproduce_with_a_seed() -> None:
    boards = _positions(8, games=1)[:30]
    a = evaluate_boards(RandomRolloutEvaluator(4, seed=3), boards)[1]
    b = evaluate_boards(RandomRolloutEvaluator(4, seed=3), boards)[1]
    c = evaluate_boards(RandomRolloutEvaluator(4, seed=4), boards)[1]
    assert a.tolist() == b.tolist() and a.tolist() != c.tolist()
    assert set((a * 4).tolist()) <= {-4, -3, -2, -1, 0, 1, 2, 3, 4}


def test_batched_numpy_evaluators_satisfy_the_protocol() -> None:
    """A network-like evaluator (numpy in, numpy out) is an Evaluator with no adapter."""

    class Net:
        has_priors = True

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            priors = legal_priors(player, opponent, size)
            return priors, np.zeros(len(player), dtype=np.float32)

    assert isinstance(Net(), Evaluator)
    priors, _ = evaluate_boards(Net(), [Board(), Board().play("f5")])
    assert priors[0, [19, 26, 37, 44]].tolist() == [0.25] * 4  # d3, c4, f5, e6


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="several games"):
        evaluate_boards(UniformEvaluator(), [Board(), Board(size=6)])
    with pytest.raises(ValueError, match="no boards"):
        evaluate_boards(UniformEvaluator(), [])
    with pytest.raises(ValueError, match="playouts must be at least 1"):
        RandomRolloutEvaluator(0)
