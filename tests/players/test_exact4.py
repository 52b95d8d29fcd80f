"""The full 4x4 solution: the published result, the reachable positions counted by the slow
reference rules, agreement with the endgame solver, and grading."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import BLACK, Board
from othellolab.core import kernels as _k
from othellolab.players.search.endgame import solve
from othellolab.players.search.exact4 import NO_MOVE, Solution4

from oracle import OraclePosition


@pytest.fixture(scope="module")
def solution() -> Solution4:
    return Solution4.build()


def test_start_is_a_white_win_by_ten(solution: Solution4) -> None:
    # 4x4 Othello is a second-player win, 11-3 with two squares empty: -10 for Black with the
    # empties to the winner (the project's exact solver reproduces it).
    start = Board(size=4)
    assert solution.value_of(start) == -10 == solve(start).score


def test_reachable_positions_match_the_reference_rules(solution: Solution4) -> None:
    # Independent count: every (cells, side to move) reachable by legal play under the slow
    # reference rules of tests/oracle.py (passes included).
    start = OraclePosition.start(4)
    seen, stack = {start}, [start]
    while stack:
        pos = stack.pop()
        if pos.is_over():
            continue
        moves = pos.legal_moves()
        for child in [pos.play(m) for m in moves] if moves else [pos.play(None)]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    assert len(seen) == 62_789
    with_colour = int(sum(bin(int(t)).count("1") for t in solution.turns))
    assert with_colour == len(seen)
    assert len(solution) == len({p.bitboards() for p in seen}) == 58_533


def test_values_and_move_scores_agree_with_the_solver(solution: Solution4) -> None:
    rng = np.random.default_rng(0)
    for i in rng.choice(len(solution), 150, replace=False):
        board = Board.from_bitboards(int(solution.player[i]), int(solution.opponent[i]), size=4)
        assert solution.values[i] == solve(board).score, board.obf()
        for a in range(16):
            if solution.move_scores[i, a] == NO_MOVE:
                assert not board.is_legal(a)
                continue
            child = board.play(a)
            exact = solve(child.play_pass()).score if child.must_pass() else -solve(child).score
            assert solution.move_scores[i, a] == exact, (board.obf(), a)


def perfect_policy(solution: Solution4):
    def choose(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        rows = solution.index(player, opponent)
        best = solution.move_scores[rows] == solution.values[rows][:, None]
        return best.argmax(axis=1)

    return choose


def lowest_move(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
    legal = _k.legal_mask_batch(player, opponent, 4).astype(np.int64)
    return np.log2(legal & -legal).astype(np.int64)


def test_perfect_policy_grades_perfect(solution: Solution4) -> None:
    grade = solution.grade(perfect_policy(solution))
    assert grade.perfect and grade.mean_loss == 0.0
    assert (grade.score_as_black, grade.score_as_white) == (-10, 10)
    assert grade.positions == 22_191  # positions with two or more legal moves


def test_a_naive_policy_is_graded_below_perfect(solution: Solution4) -> None:
    grade = solution.grade(lowest_move)
    assert 0.3 < grade.optimal_share < 0.9 and grade.mean_loss > 0
    # A perfect opponent can only do better than the game's value against it.
    assert grade.score_as_black <= -10 and grade.score_as_white <= 10
    assert grade.score_as_white < 10  # this policy does lose discs as White


def test_grading_rejects_illegal_choices(solution: Solution4) -> None:
    with pytest.raises(ValueError, match="illegal action 0"):
        solution.grade(lambda p, o: np.zeros(p.shape, dtype=np.int64))


def test_optimal_moves_of_the_start(solution: Solution4) -> None:
    # By symmetry all four of Black's first moves are equivalent: each loses by ten.
    start = Board(size=4)
    assert solution.optimal_moves(start) == start.legal_actions()
    assert start.turn == BLACK
