"""The shipped solved 6x6 positions: well formed, right by the solver, and grading that tells a
perfect policy from a naive one. Also: positions encoded as the envs show them."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import Board
from othellolab.envs.common import action_mask, observation_planes
from othellolab.training.rl.observe import env_observations
from othellolab.training.rl.solved6 import grade_positions, load_solved_set, move_scores


@pytest.fixture(scope="module")
def entries():
    return load_solved_set()


def test_shipped_set_is_well_formed(entries) -> None:
    assert len(entries) == 400
    assert len({e.board for e in entries}) == 400
    for e in entries:
        assert e.board.size == 6 and 8 <= e.board.num_empties <= 20
        assert sorted(a for a, _ in e.moves) == e.board.legal_actions()  # every move scored
        assert e.moves[0][1] == max(s for _, s in e.moves)  # best first


def test_scores_agree_with_the_solver(entries) -> None:
    small = [e for e in entries if e.board.num_empties <= 12][:15]
    assert small
    for e in small:
        assert list(e.moves) == move_scores(e.board), e.board.obf()


def by_table(entries, pick):
    table = {(e.board.player, e.board.opponent): e for e in entries}

    def choose(player, opponent):
        out = []
        for p, o in zip(player, opponent, strict=True):
            e = table.get((int(p), int(o)))
            board = Board.from_bitboards(int(p), int(o), size=6)
            out.append(pick(e, board))
        return np.array(out)

    return choose


def test_perfect_and_naive_policies(entries) -> None:
    def perfect(e, board):
        return e.moves[0][0] if e is not None else move_scores(board)[0][0]

    grade = grade_positions(entries, by_table(entries, perfect), games=5)
    assert grade.optimal_share == 1.0 and grade.mean_loss == 0.0
    assert grade.mean_game_loss == 0.0 and grade.perfect_games == 1.0
    naive = grade_positions(entries, by_table(entries, lambda e, b: b.legal_actions()[0]), games=5)
    assert naive.optimal_share < 0.8 and naive.mean_loss > 0


def test_env_observations_match_the_env(entries) -> None:
    boards = [e.board for e in entries[:20]]
    obs = env_observations(
        np.array([b.player for b in boards], dtype=np.uint64),
        np.array([b.opponent for b in boards], dtype=np.uint64),
        6,
    )
    for i, b in enumerate(boards):
        assert np.array_equal(
            obs["observation"][i], observation_planes(b, b.turn, legal_plane=True)
        )
        assert np.array_equal(obs["action_mask"][i], action_mask(b, b.turn))
