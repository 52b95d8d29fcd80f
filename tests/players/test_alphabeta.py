"""Alpha-beta search and player: conformance, limits, reported info, exactness at the end."""

from __future__ import annotations

import time

import pytest

from othellolab import Board, Limit
from othellolab.players import AlphaBetaPlayer, make_player, solve, strongest_player_spec
from othellolab.players.search.midgame import search
from othellolab.testing import check_player

from helpers import FIXTURES, obf_scores

MIDGAME = Board.from_transcript("f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")


def test_conforms_on_all_sizes() -> None:
    check_player(AlphaBetaPlayer(depth=2, endgame=8), sizes=(8, 6, 4))


def test_registry_names_and_strongest() -> None:
    assert isinstance(make_player("ab:depth=2,seed=3"), AlphaBetaPlayer)
    assert isinstance(make_player("alphabeta:time=0.1,nodes=1000,endgame=10"), AlphaBetaPlayer)
    assert strongest_player_spec().startswith("alphabeta")


def test_depth_limit_and_reported_info() -> None:
    result = AlphaBetaPlayer(depth=4, endgame=0).choose(MIDGAME)
    info = result.info
    assert info["depth"] == 4 and info["nodes"] > 0 and len(info["pv"]) >= 1
    assert result.score is not None and not result.score.exact
    assert result.move in MIDGAME.legal_actions()


def test_time_limit_is_honoured() -> None:
    player = AlphaBetaPlayer(endgame=0)
    player.choose(MIDGAME, Limit(depth=1))  # compile outside the timing
    t0 = time.perf_counter()
    result = player.choose(MIDGAME, Limit(time=0.2))
    assert time.perf_counter() - t0 < 0.9
    assert result.info["depth"] >= 1


def test_node_limit_is_honoured() -> None:
    result = search(MIDGAME, max_nodes=2000)
    assert result.nodes <= 2000 + 64 and result.depth >= 1


def test_deeper_search_is_at_least_as_deep() -> None:
    a = search(MIDGAME, depth=2)
    b = search(MIDGAME, depth=5)
    assert (a.depth, b.depth) == (2, 5) and b.nodes > a.nodes


@pytest.mark.parametrize("number", [2, 5, 9])
def test_search_to_the_end_is_exact(number: int) -> None:
    """A search as deep as the empties agrees with FFO's published best score."""
    board, scores = obf_scores((FIXTURES / "fforum-1-19.obf").read_text().splitlines()[number - 1])
    result = search(board, depth=board.num_empties)
    assert result.exact and result.score == scores[0][1]


def test_hands_over_to_the_solver() -> None:
    board, scores = obf_scores((FIXTURES / "fforum-1-19.obf").read_text().splitlines()[3])
    result = AlphaBetaPlayer(depth=2, endgame=14).choose(board)
    assert result.info["solved"] and result.score is not None and result.score.exact
    assert result.score.value == scores[0][1] == solve(board).score


def test_seed_is_deterministic() -> None:
    moves = {AlphaBetaPlayer(depth=3, seed=s).choose(Board()).move for s in (1, 1)}
    assert len(moves) == 1


def test_beats_greedy() -> None:
    """A sanity check of strength: depth-3 alpha-beta wins both colours against greedy."""
    for black_is_ab in (True, False):
        ab, greedy = AlphaBetaPlayer(depth=3, endgame=10), make_player("greedy:seed=1")
        board = Board()
        while not board.is_game_over():
            mover = ab if (board.turn == 0) == black_is_ab else greedy
            board = board.play(mover.choose(board).move)
        outcome = board.outcome()
        assert outcome is not None and outcome.result(0 if black_is_ab else 1) == 1
