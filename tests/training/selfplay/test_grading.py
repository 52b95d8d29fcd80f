"""Grading move choosers against perfect play: the grader agrees with independent players
(the solver scores 100%, alpha-beta at depth 4 and flat Monte Carlo land near the figures the
issue quotes), and a network's raw policy and search choosers plug into it."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from othellolab.core.games import get_game
from othellolab.players import (
    AlphaBetaPlayer,
    MonteCarloPlayer,
    RandomRolloutEvaluator,
    UniformEvaluator,
)
from othellolab.players.evaluators import legal_priors
from othellolab.players.search.exact4 import Solution4
from othellolab.players.search.solved6 import load_graded_set
from othellolab.training.selfplay import SelfPlayConfig
from othellolab.training.selfplay.grading import (
    grade_chooser,
    grade_evaluator,
    player_chooser,
    policy_chooser,
    search_chooser,
)


@functools.cache
def subset() -> list:
    """Every other position of the graded set: all stages, half the time."""
    return load_graded_set()[::2]


class Oracle:
    """Priors on the graded set's best move (uniform elsewhere), values 0."""

    has_priors = True

    def __init__(self, entries) -> None:  # type: ignore[no-untyped-def]
        self.best = {(e.board.player, e.board.opponent): e.best_move for e in entries}

    def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
        priors = legal_priors(player, opponent, size)
        for i, (p, o) in enumerate(zip(player, opponent, strict=True)):
            best = self.best.get((int(p), int(o)))
            if best is not None:
                priors[i] *= 0.5
                priors[i, best] += 0.5
        return priors, np.zeros(len(player), np.float32)


def test_independent_players_land_where_expected() -> None:
    entries = subset()
    oracle = policy_chooser(Oracle(entries), 6)
    assert grade_chooser(oracle, 6, entries=entries).optimal_share == 1.0
    ab = grade_chooser(
        player_chooser(
            lambda: AlphaBetaPlayer(depth=4, endgame=0, evaluation="heuristic", seed=0), 6
        ),
        6,
        entries=entries,
    )
    mc = grade_chooser(
        player_chooser(lambda: MonteCarloPlayer(playouts=150, seed=0), 6), 6, entries=entries
    )
    # The issue quotes about 72% for alpha-beta at depth 4 and 57% for flat Monte Carlo (150).
    assert 0.6 < ab.optimal_share < 0.85, ab.stage_table()
    assert 0.42 < mc.optimal_share < 0.72, mc.stage_table()
    assert mc.optimal_share < ab.optimal_share


def test_search_chooser_improves_a_blind_policy() -> None:
    entries = [e for e in subset() if e.board.num_empties <= 10]
    blind = grade_chooser(policy_chooser(UniformEvaluator(), 6), 6, entries=entries)
    rollouts = RandomRolloutEvaluator(4, seed=0)
    # Finished games valued by their disc difference, as the grader counts: valued by results,
    # the tree stops at the first win it proves, whatever its margin.
    by_discs = SelfPlayConfig(score_value=1.0)
    searched = grade_chooser(search_chooser(rollouts, 6, 300, by_discs), 6, entries=entries)
    assert searched.optimal_share > blind.optimal_share + 0.15
    gumbel = search_chooser(rollouts, 6, 300, SelfPlayConfig(variant="gumbel", score_value=1.0))
    assert grade_chooser(gumbel, 6, entries=entries).optimal_share > blind.optimal_share + 0.15


def test_4x4_grades_from_the_full_solution() -> None:
    solution = Solution4.build()

    class Exact:
        has_priors = True

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            priors = np.zeros((len(player), 17), np.float32)
            for i, (p, o) in enumerate(zip(player, opponent, strict=True)):
                row = solution.move_scores[solution.index(p, o)[0]]
                if row.max() > -128:
                    priors[i, int(np.argmax(row))] = 1.0
                else:
                    priors[i, 16] = 1.0
            return priors, np.zeros(len(player), np.float32)

    grades = grade_evaluator(
        Exact(), get_game("othello", size=4), simulations=(0,), solution=solution
    )
    assert grades[0].optimal_share == 1.0 and grades[0].perfect
    with pytest.raises(ValueError, match="6x6 or 4x4"):
        grade_chooser(policy_chooser(UniformEvaluator(), 8), 8)
