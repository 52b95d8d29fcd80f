"""Pattern indices kept move by move (``search.incremental``): the evaluation they give is the
bitboard evaluation to the last bit along whole games, summed in float or in whole units of the
weights (``evaluation.pattern_units``), and the midgame search with them visits the same nodes
and finds the same scores and moves as with the bitboard evaluation (issue 61, part 1: the
speedup must be speed, not pruning)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from othellolab import Board
from othellolab.core.kernels import U64, _flips
from othellolab.players.search import midgame
from othellolab.players.search.evaluation import (
    EVAL_PATTERN_TERMS,
    EVAL_PATTERNS,
    NO_UNITS,
    Evaluation,
    evaluate,
    pattern_units,
    weights_evaluation,
)
from othellolab.players.search.incremental import (
    child_indices,
    indexed_value,
    needs_wide_indices,
    new_indices,
    pass_indices,
    play_indices,
    set_indices,
)
from othellolab.players.search.midgame import search
from othellolab.players.search.patterns import TERMS, compact_to_full, full_to_compact, term_columns
from othellolab.players.search.simd import TABLE_SPARE
from othellolab.players.search.table import TranspositionTable

from helpers import FIXTURES, obf_scores

# patterns-r1 has extra terms (EVAL_PATTERN_TERMS), patterns-wthor is plain (EVAL_PATTERNS)
WEIGHTS = ["patterns-r1", "patterns-wthor"]


def _every_term(unit: float = 0.0) -> Evaluation:
    """Random weights declaring every term (no shipped set has frontier or discs yet), in
    whole multiples of ``unit`` where it is not 0."""
    rng = np.random.default_rng(3)
    compact = rng.normal(0, 0.3, size=(12, full_to_compact()[1] + term_columns(TERMS)))
    if unit:
        compact = np.rint(compact / unit) * unit
    return Evaluation(EVAL_PATTERN_TERMS, compact_to_full(compact, terms=TERMS, phase_width=5))


def _evaluation(weights: str) -> Evaluation:
    if weights == "every term":
        return _every_term()
    if weights == "every term, whole units":
        return _every_term(2.0**-14)
    if weights == "plain, whole units":
        plain = weights_evaluation("patterns-wthor").weights
        return Evaluation(EVAL_PATTERNS, np.rint(plain * 2.0**10) * 2.0**-10)
    return weights_evaluation(weights)


def test_the_default_weights_are_whole_units_and_random_ones_are_not() -> None:
    units, unit = weights_evaluation("patterns-r1").units
    assert unit == 2.0**-9 and units.dtype == np.int16  # its config's scale
    assert units.shape == (12, 167265 + TABLE_SPARE)  # the spare: what a gather reads past
    assert not units[:, 167265:].any()
    assert _every_term().units[1] == 0.0 and _every_term().units[0] is NO_UNITS
    # the smallest power of two whose int16 multiples hold the largest weight
    assert pattern_units(np.array([[3.0, -0.5, 0.25, 32767 * 2.0**-3]]))[1] == 2.0**-3
    assert pattern_units(np.array([[3.0, -0.5, 0.2]]))[1] == 0.0


@pytest.mark.parametrize(
    "weights", [*WEIGHTS, "every term", "every term, whole units", "plain, whole units"]
)
def test_indices_kept_move_by_move_evaluate_exactly_as_the_bitboards(weights: str) -> None:
    ev = _evaluation(weights)
    units, unit = ev.units
    assert (unit > 0) == (weights not in ("every term", "patterns-wthor"))
    rng = random.Random(7)
    checked = 0
    for _ in range(20):
        board, row = Board(), 0
        idx = new_indices(130, needs_wide_indices(ev.weights))
        set_indices(idx, 0, U64(board.player), U64(board.opponent))
        while not board.is_game_over():
            p, o = U64(board.player), U64(board.opponent)
            want = evaluate(ev.kind, ev.weights, p, o, 8)
            assert indexed_value(ev.kind, ev.weights, p, o, 8, idx, row, 0, NO_UNITS, 0.0) == want
            assert indexed_value(ev.kind, ev.weights, p, o, 8, idx, row, 0, units, unit) == want
            move = rng.choice(board.legal_actions())
            if move == 64:
                pass_indices(idx, row)
            else:
                f = _flips(p, o, move, 8)
                child_indices(idx, row, move, f)  # a leaf's row: its own view alone
                leaf = idx[2 * row + 2].copy()
                play_indices(idx, row, move, f)
                assert (idx[2 * row + 2] == leaf).all()
            board, row = board.play(move), row + 1
            checked += 1
    assert checked > 1000


def _positions() -> list[Board]:
    lines = (FIXTURES / "fforum-1-19.obf").read_text().splitlines()
    games = ["f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1", "f5f6e6f4e3c5c4e7f7d3c3d6"]
    return [Board.from_transcript(g) for g in games] + [obf_scores(x)[0] for x in lines[:4]]


@pytest.mark.parametrize(
    ("probcut", "depth", "weights"),
    [
        (0.0, 6, "patterns-r1"),
        (1.5, 9, "patterns-r1"),
        (0.0, 5, "every term"),
        (0.0, 5, "every term, whole units"),
        (0.0, 6, "plain, whole units"),
    ],
)
def test_the_search_with_kept_indices_visits_the_reference_nodes(
    probcut: float, depth: int, weights: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ev = _evaluation(weights)
    runs = {}
    for incremental in (False, True):
        monkeypatch.setattr(midgame, "INCREMENTAL", incremental)
        runs[incremental] = [
            search(b, depth=depth, evaluation=ev, table=TranspositionTable(16), probcut=probcut)
            for b in _positions()
        ]
    for ref, new in zip(runs[False], runs[True], strict=True):
        assert (new.nodes, new.score, new.best_move, new.pv) == (
            ref.nodes,
            ref.score,
            ref.best_move,
            ref.pv,
        )


@pytest.mark.parametrize("number", [1, 3])
def test_the_search_with_kept_indices_finds_the_published_exact_score(number: int) -> None:
    board, scores = obf_scores((FIXTURES / "fforum-1-19.obf").read_text().splitlines()[number - 1])
    ev = weights_evaluation("patterns-r1")
    result = search(board, depth=board.num_empties, evaluation=ev)
    assert result.exact and result.score == scores[0][1]
