"""Strength checks from the literature, as matches through the arena kernel on XOT openings."""

from __future__ import annotations

from othellolab.arena import play_match, read_openings
from othellolab.players import make_player

from helpers import shared_file


def test_alphabeta_depth4_beats_monte_carlo() -> None:
    """Issue 4's claim: a depth-4 alpha-beta (no endgame solver) beats Monte Carlo with 150
    playouts per move, over colour-swapped pairs of balanced XOT openings."""
    openings = read_openings(shared_file("xot/openingssmall.txt"))[:6]
    result = play_match(
        make_player("alphabeta:depth=4,endgame=0,seed=1"),
        make_player("montecarlo:playouts=150,seed=2"),
        games=12,
        openings=openings,
    )
    assert result.score > 0.5, str(result)
