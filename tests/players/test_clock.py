"""Time on a game clock: the shares add up to less than the clock, never one move too many."""

from __future__ import annotations

import pytest

from othellolab.core import ConfigError, Limit
from othellolab.players.clock import MAX_SHARE, per_move, plan, with_move_time


def test_per_move_shares_never_spend_the_whole_clock() -> None:
    clock = 10.0
    for _ in range(30):  # a side's 30 moves of an Othello game, each spending its target
        share = per_move(clock, 30)
        assert 0 < share.target <= share.cap <= MAX_SHARE * clock
        clock -= share.target
    assert clock > 0


def test_the_plan_keeps_time_for_the_solve_and_spends_more_in_the_midgame() -> None:
    clock, spent = 10.0, {}
    for empties in range(59, 0, -2):  # one side's moves of a game, each spending its target
        t = plan(clock, empties, endgame=18)
        assert t.target <= t.cap <= MAX_SHARE * clock + 1e-9
        if empties <= 18:
            assert t.solve > 0
            break
        assert t.solve == 0
        spent[empties] = t.target
        clock -= t.target
    # the solve's reserve (SOLVE_WEIGHT over every weight, about a tenth) is still there
    assert 0.1 * 10.0 < clock < 0.2 * 10.0
    assert spent[35] > spent[57]  # the midgame gets more than the opening


def test_a_side_that_spends_its_targets_leaves_under_a_tenth_of_its_clock_unused() -> None:
    """Issue 61's goal: under 10% unused. Each move spends its target and the solve at 20
    empties half a second (FFO #40, 20 empties, took 0.45 s: docs/benchmarks.md)."""
    clock = 10.0
    for empties in range(59, 0, -2):
        t = plan(clock, empties, endgame=20)
        if t.solve > 0:
            assert t.solve >= 0.5  # the solve is offered what it needs
            clock -= 0.5
            break
        clock -= t.target
    assert 0 < clock < 0.1 * 10.0


def test_a_clock_becomes_a_capped_time_for_players_that_do_not_plan() -> None:
    limit = with_move_time(Limit(clock=6.0, max_time=0.05), 30)
    assert limit.clock is None and limit.time is not None and limit.max_time == 0.05
    assert with_move_time(Limit(time=1.0), 30) == Limit(time=1.0)
    for bad in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ConfigError, match="clock"):
            Limit(clock=bad)
