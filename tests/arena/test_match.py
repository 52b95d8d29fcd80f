"""The match kernel: complete legal games, colour alternation, openings from the XOT lists."""

from __future__ import annotations

from othellolab.arena import play_game, play_match, read_openings
from othellolab.core import Board
from othellolab.players import GreedyPlayer, RandomPlayer

from helpers import shared_file


def test_play_game_is_complete_and_legal() -> None:
    game = play_game(RandomPlayer(seed=1), GreedyPlayer(seed=2))
    assert game.is_complete()
    assert game.headers["black"] == "random" and game.headers["white"] == "greedy"
    Board.from_transcript(game.transcript())  # replays legally


def test_match_alternates_colours_and_counts() -> None:
    result = play_match(
        GreedyPlayer(seed=1), RandomPlayer(seed=2), games=10, size=6, keep_games=True
    )
    assert result.n == 10 and result.wins + result.draws + result.losses == 10
    blacks = [g.headers["black"] for g in result.games]
    assert blacks[::2] == ["greedy"] * 5 and blacks[1::2] == ["random"] * 5


def test_xot_openings_are_balanced_8_move_openings() -> None:
    openings = read_openings(shared_file("xot/openingssmall.txt"))
    assert len(openings) == 3623  # the data README's count for the small XOT list
    assert all(len(o) == 8 for o in openings)
    result = play_match(
        RandomPlayer(seed=3), RandomPlayer(seed=4), games=4, openings=openings[:2], keep_games=True
    )
    assert [g.moves[:8] for g in result.games] == [
        openings[0],
        openings[0],
        openings[1],
        openings[1],
    ]
