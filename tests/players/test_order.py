"""Move priors inside the midgame search (``search(priors=...)``) and the alpha-beta player's
policy ordering (``alphabeta:order=MODEL``): the priors change which moves go first, never the
score."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab import Board
from othellolab.core import ConfigError
from othellolab.players import make_player
from othellolab.players.alphabeta import near_root
from othellolab.players.search.midgame import MovePriors, search
from othellolab.players.search.table import TranspositionTable

from helpers import FIXTURES, obf_scores


def _random_priors(boards: list[Board], seed: int) -> MovePriors:
    rng = np.random.default_rng(seed)
    return MovePriors.build(boards, rng.random((len(boards), boards[0].size ** 2)))


@pytest.mark.parametrize("number", [1, 4])
def test_any_priors_keep_the_published_ffo_score(number: int) -> None:
    """A search to the end is exact whatever order its moves take: random priors over every
    position within two plies still give the FFO endgame's published score
    (fforum-1-19.obf)."""
    board, scores = obf_scores((FIXTURES / "fforum-1-19.obf").read_text().splitlines()[number - 1])
    priors = _random_priors(near_root(board, 3), seed=number)
    assert len(priors) > 10
    r = search(board, depth=board.num_empties, priors=priors, table=TranspositionTable(20))
    assert r.exact and r.score == scores[0][1]


def test_the_priors_order_the_moves() -> None:
    """At depth 2 the positions one ply deep have no table move yet: priors that put the
    opponent's best reply first search fewer nodes than priors that put it last, to the same
    score."""
    board = Board.from_transcript("f5d6c3d3c4f4c5b3c2e6c6b4b5d2")
    replies = near_root(board, 2)[1:]
    good = np.zeros((len(replies), 64))
    for i, b in enumerate(replies):
        for m in b.legal_actions():
            good[i, m] = -search(b.play(m), depth=1).score
    results = {}
    for name, table in (("good", good), ("bad", -good)):
        results[name] = search(
            board, depth=2, priors=MovePriors.build(replies, table), table=TranspositionTable(16)
        )
    assert results["good"].score == results["bad"].score
    assert results["good"].nodes < results["bad"].nodes


def test_near_root_counts_the_positions_to_order() -> None:
    # from the start: 1 position, then its 4 children (perft 1 = 4, ../shared/data/perft)
    assert len(near_root(Board(), 1)) == 1
    assert len(near_root(Board(), 2)) == 5
    # a pass is followed: the position after it is the one with moves to order
    passing = Board.from_transcript(
        "d3c3c4c5b5f3b2b4b3a2f5a6e3b1a5f6e6d2g3a4g7f2a3h4f1e2e1g1h3d1a1g6c2g8f4f7c1d6h1h2h7h5"
        "c6g5h8d7e7c7f8e8a7b6g2"
    )
    assert passing.legal_actions() == [64]
    assert near_root(passing, 1) == [passing.play(64)]
    for b in near_root(passing, 3):
        assert b.legal_actions()[0] != b.size * b.size and not b.is_game_over()


def test_move_priors_refuse_a_bad_table() -> None:
    boards = near_root(Board(), 2)
    with pytest.raises(ValueError, match=r"shape \(5, 64\)"):
        MovePriors.build(boards, np.zeros((5, 36)))
    with pytest.raises(ValueError, match="finite"):
        MovePriors.build(boards, np.full((5, 64), np.nan))
    assert len(MovePriors.build([], np.zeros((0, 64)))) == 0


def test_the_order_network_changes_no_fixed_depth_result() -> None:
    board = Board.from_transcript("f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
    plain = make_player("alphabeta:depth=4,endgame=0").choose(board)
    ordered = make_player("alphabeta:depth=4,endgame=0,order=b6c48-all,order_plies=2")
    r = ordered.choose(board)
    assert (r.move, r.info["score"]) == (plain.move, plain.info["score"])


def test_the_order_options_are_checked() -> None:
    for spec, option in (
        ("alphabeta:order=az-animal-shogi", "order"),
        ("alphabeta:order=no-such-model", "order"),
        ("alphabeta:order=b6c48-all,order_plies=0", "order_plies"),
        ("alphabeta:order=b6c48-all,order_plies=4", "order_plies"),
        ("alphabeta:order=b6c48-all,device=tpu", "device"),
    ):
        with pytest.raises(ConfigError, match=option):
            make_player(spec)
    with pytest.raises(ConfigError, match="order"):
        make_player("alphabeta:order=az-6x6,depth=2").choose(Board())


def test_a_server_takes_only_a_shipped_order_network() -> None:
    from othellolab.nn.pretrained import ModelCatalog

    server = ModelCatalog(allow_paths=False)
    with pytest.raises(ConfigError, match="order"):
        make_player("alphabeta:order=/tmp", models=server)
    assert make_player("alphabeta:order=b6c48-all", models=server).order.endswith("b6c48-all")


def test_priors_of_another_board_size_are_refused() -> None:
    priors = MovePriors.build(near_root(Board(), 2), np.ones((5, 64)))
    with pytest.raises(ValueError, match="64 squares for a board of 36"):
        search(Board(size=6), depth=2, priors=priors)
