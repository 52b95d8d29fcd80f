"""The shipped solved 6x6 positions: well formed, right by the solver, and grading that tells a
perfect policy from a naive one. Also: positions encoded as the envs show them."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from othellolab.core import Board
from othellolab.envs.common import action_mask, observation_planes
from othellolab.players.search import TranspositionTable
from othellolab.players.search.solved6 import (
    EXACT_EMPTIES,
    STAGES,
    UNKNOWN,
    build_graded_set,
    build_outcomes,
    canonical_key,
    grade_positions,
    load_graded_set,
    load_solved_set,
    move_scores,
    optimal_moves,
    outcome_kept,
    outcome_table,
    solve_entry,
)
from othellolab.records.obf import ObfEntry
from othellolab.rl.observe import env_observations


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


# ----------------------------------------------------------------------------------------------
# The graded set: every stage of the game, optimal moves by null-window tests above 22 empties.


@pytest.fixture(scope="module")
def graded():
    return load_graded_set()


def test_graded_set_is_well_formed(graded) -> None:
    assert len(graded) >= 250
    empties = Counter(e.board.num_empties for e in graded)
    assert set(empties) == set(range(4, 33))  # every stage, from the start to 4 empties
    assert len({canonical_key(e.board) for e in graded}) == len(graded)  # distinct up to symmetry
    for e in graded:
        legal = e.board.legal_actions()
        assert e.board.size == 6 and len(legal) >= 2 and not e.board.must_pass()
        listed = [a for a, _ in e.moves]
        assert len(set(listed)) == len(listed) and set(listed) <= set(legal)
        assert e.moves[0][1] == max(s for _, s in e.moves)
        if e.board.num_empties <= EXACT_EMPTIES:
            assert sorted(listed) == legal  # every move scored
        elif len(listed) < len(legal):
            assert {s for _, s in e.moves} == {e.best_score}  # only the optimal moves


def test_graded_set_agrees_with_the_solver(graded) -> None:
    table = TranspositionTable(20)
    cheap = [e for e in graded if e.board.num_empties <= 12][::10][:12]
    for e in cheap:
        assert list(e.moves) == move_scores(e.board, table), e.board.obf()
        # The null-window tests find the same optimal moves as the exact scores.
        optimal = sorted(a for a, s in e.moves if s == e.best_score)
        assert optimal_moves(e.board, e.best_score, table) == optimal
    above = next(e for e in graded if e.board.num_empties == EXACT_EMPTIES + 1)
    assert solve_entry(above.board, table) == ObfEntry(above.board, above.moves, None)


def test_graded_set_builds_resumably(tmp_path) -> None:
    whole = tmp_path / "whole.obf"
    assert build_graded_set(whole, per_stage=2, stages=(4, 7), seed=3) == 8
    cut = tmp_path / "cut.obf"
    assert build_graded_set(cut, per_stage=1, stages=(4, 7), seed=3) == 4
    text = cut.read_text()
    cut.write_text(text[: -len(text.splitlines()[-1]) // 2 - 1])  # killed while writing a line
    assert build_graded_set(cut, per_stage=2, stages=(4, 7), seed=3) == 5
    lines = lambda p: sorted(x for x in p.read_text().splitlines() if not x.startswith("#"))  # noqa: E731
    assert lines(cut) == lines(whole)
    assert build_graded_set(cut, per_stage=2, stages=(4, 7), seed=3) == 0  # nothing left to do


def test_grades_by_stage(graded) -> None:
    best = {(e.board.player, e.board.opponent): e.best_move for e in graded}

    def solver(player, opponent):
        return np.array([best[(int(p), int(o))] for p, o in zip(player, opponent, strict=True)])

    perfect = grade_positions(graded, solver, games=0)
    assert perfect.optimal_share == 1.0 and perfect.mean_loss == 0.0
    assert [s.empties for s in perfect.stages] == list(STAGES)
    assert sum(s.positions for s in perfect.stages) == len(graded)
    # Every position up to 22 empties is scored; above, those whose moves are all optimal.
    assert perfect.scored >= sum(e.board.num_empties <= EXACT_EMPTIES for e in graded)

    def first(player, opponent):
        return np.array(
            [
                Board.from_bitboards(int(p), int(o), size=6).legal_actions()[0]
                for p, o in zip(player, opponent, strict=True)
            ]
        )

    naive = grade_positions(graded, first, games=0)
    assert naive.optimal_share < 0.7 and naive.mean_loss > 0
    assert "| all |" in naive.stage_table()


def test_graded_outcomes_cover_every_move_and_agree_with_the_lines(graded) -> None:
    table = outcome_table()
    assert len(table) == len(graded), "examples/build_graded6x6.py --outcomes rebuilds the file"
    for e in graded:
        row = table[(e.board.player, e.board.opponent)]
        legal = e.board.legal_actions()
        assert sorted(np.flatnonzero(row != UNKNOWN).tolist()) == legal, e.board.obf()
        for a, s in e.moves:  # the line's scores, from full-window solves
            assert row[a] == np.sign(s), (e.board.obf(), a)
        # No move does better than the position's exact result.
        assert row[legal].max() == np.sign(e.best_score)


def test_outcomes_of_moves_the_lines_leave_out_agree_with_full_solves(graded) -> None:
    """Above 22 empties the line lists only the optimal moves; the outcome file's null-window
    results of the others must agree with exact full-window scores (``move_scores``)."""
    table = outcome_table()
    checked = 0
    for e in [x for x in graded if x.board.num_empties == EXACT_EMPTIES + 1][:4]:
        row = table[(e.board.player, e.board.opponent)]
        for a, s in move_scores(e.board, TranspositionTable(20)):
            assert row[a] == np.sign(s), (e.board.obf(), a)
            checked += 1
    assert checked > 8
    # And the builder itself agrees with the file on those positions.
    some = [x for x in graded if x.board.num_empties == EXACT_EMPTIES + 1][:2]
    built = build_outcomes(some)
    for e, row in zip(some, built, strict=True):
        assert np.array_equal(row, table[(e.board.player, e.board.opponent)])


def test_grades_say_how_often_the_result_is_kept(graded) -> None:
    best = {(e.board.player, e.board.opponent): e.best_move for e in graded}
    table = outcome_table()

    def solver(player, opponent):
        return np.array([best[(int(p), int(o))] for p, o in zip(player, opponent, strict=True)])

    def worst(player, opponent):
        out = []
        for p, o in zip(player, opponent, strict=True):
            row = table[(int(p), int(o))]
            legal = np.flatnonzero(row != UNKNOWN)
            out.append(int(legal[np.argmin(row[legal])]))
        return np.array(out)

    assert grade_positions(graded, solver, games=0).outcome_share == 1.0
    bad = grade_positions(graded, worst, games=0)
    # The move with the worst result keeps it only where every move has the same result.
    same = sum(
        len(set(table[(e.board.player, e.board.opponent)][e.board.legal_actions()])) == 1
        for e in graded
    )
    assert bad.outcome_share == pytest.approx(same / len(graded))
    assert all(0 <= s.outcome_share <= 1 for s in bad.stages)
    assert "result kept" in bad.stage_table()
    # Without the file, positions above 22 empties have no result for their other moves.
    entries = [e for e in graded if e.board.num_empties > EXACT_EMPTIES]
    kept = outcome_kept(entries, worst(*_bitboards(entries)))
    assert not np.isnan(kept).any()
    outcome_table.cache_clear()
    try:
        import othellolab.players.search.solved6 as solved6

        missing = solved6.outcome_table(solved6.GRADED_OUTCOMES.with_name("none.npz"))
        assert missing == {}
    finally:
        outcome_table.cache_clear()


def _bitboards(entries):
    return (
        np.array([e.board.player for e in entries], dtype=np.uint64),
        np.array([e.board.opponent for e in entries], dtype=np.uint64),
    )
