"""The Numba 4x4 learners: exact values in an endgame, perfect play on the whole game, fixed
opponents, replay under a seed, checked options."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import Board, ConfigError
from othellolab.players.search.endgame import solve
from othellolab.players.search.exact4 import Solution4
from othellolab.rl.smallboard import SmallBoardLearner
from othellolab.rl.tabular import EpsilonSchedule

# White to move, 7 empties; its 166 reachable positions include 24 forced passes.
ENDGAME = "-X---XX-OXOO-X-X O"
RANDOM_PLAY = EpsilonSchedule(1.0, 1.0, 1.0)


@pytest.fixture(scope="module")
def solution() -> Solution4:
    return Solution4.build()


def decisions(start: Board) -> list[Board]:
    seen: dict[tuple[int, int], Board] = {}
    stack = [start]
    while stack:
        b = stack.pop()
        if (b.player, b.opponent) in seen:
            continue
        seen[b.player, b.opponent] = b
        if not b.is_game_over():
            stack.extend(b.play(a) for a in b.legal_actions())
    return [b for b in seen.values() if b.legal_mask]


def exact_move_score(board: Board, action: int) -> int:
    """From the endgame solver: the mover's final score after ``action`` (passes followed)."""
    child = board.play(action)
    return solve(child.play_pass()).score if child.must_pass() else -solve(child).score


def test_self_play_q_learning_learns_the_exact_scores_of_an_endgame(solution) -> None:
    start = Board.from_obf(ENDGAME)
    learner = SmallBoardLearner(
        "q-learning", eta=1.0, epsilon=RANDOM_PLAY, start=start, solution=solution
    )
    learner.train(20_000)
    boards = decisions(start)
    assert len(boards) > 100
    for board in boards:
        q = learner.q_values(board)
        assert q is not None, board.obf()
        for a in board.legal_actions():
            assert q[a] * 16 == pytest.approx(exact_move_score(board, a)), (board.obf(), a)


@pytest.mark.parametrize("algorithm", ["sarsa", "monte-carlo"])
def test_on_policy_learners_play_an_endgame_perfectly(algorithm: str, solution) -> None:
    start = Board.from_obf(ENDGAME)
    learner = SmallBoardLearner(
        algorithm, epsilon=EpsilonSchedule(1.0, 0.9995, 0.0), start=start, solution=solution
    )
    learner.train(20_000)
    # With exploration gone, both sides' greedy moves keep the exact score on the played line.
    board = start
    while not board.is_game_over():
        if board.must_pass():
            board = board.play_pass()
            continue
        q = learner.q_values(board)
        move = max(board.legal_actions(), key=lambda a: (q[a], -a))
        assert move in solution.optimal_moves(board), board.obf()
        board = board.play(move)


def test_self_play_q_learning_approaches_perfect_play(solution) -> None:
    learner = SmallBoardLearner("q-learning", eta=1.0, epsilon=RANDOM_PLAY, solution=solution)
    stats = learner.train(300_000)
    grade = learner.grade()
    assert grade.optimal_share > 0.85, grade
    assert (grade.score_as_black, grade.score_as_white) == (-10, 10)
    assert stats.episodes == 300_000 and stats.episodes_per_second > 0


@pytest.mark.parametrize("opponent", ["random", "greedy", "perfect"])
def test_learning_against_a_fixed_opponent_raises_the_score(opponent: str, solution) -> None:
    learner = SmallBoardLearner("q-learning", opponent=opponent, seed=1, solution=solution)
    first = learner.train(2_000)
    learner.train(50_000)
    last = learner.train(10_000)
    assert last.mean_score > first.mean_score, (first, last)
    if opponent == "perfect":
        # Perfect play holds Black to -10 and White to +10: the agent, a colour each game,
        # cannot average more than 0 (and nearly reaches it, exploring half its moves).
        assert -10 < last.mean_score <= 0


def test_seeded_runs_replay_exactly(solution) -> None:
    runs = []
    for _ in range(2):
        learner = SmallBoardLearner("sarsa", opponent="greedy", seed=5, solution=solution)
        learner.train(3_000)
        runs.append(learner.q.copy())
    assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"algorithm": "td-lambda"}, "agent"),
        ({"opponent": "alphabeta"}, "opponent"),
        ({"eta": 0.0}, "eta"),
        ({"gamma": float("nan")}, "gamma"),
        ({"start": Board(size=6)}, "start"),
        ({"seed": -1}, "seed"),
    ],
)
def test_options_are_checked(options: dict, option: str) -> None:
    with pytest.raises(ConfigError, match=f"option {option}"):
        SmallBoardLearner(**options)
