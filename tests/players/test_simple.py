"""Random and greedy players, the registry, and the check_player conformance check."""

from __future__ import annotations

import pytest

from othellolab import Board
from othellolab.core import kernels as k
from othellolab.players import (
    GreedyPlayer,
    Player,
    RandomPlayer,
    available_players,
    make_player,
    parse_spec,
    strongest_player_spec,
)
from othellolab.testing import check_player


@pytest.mark.parametrize("spec", ["random:seed=1", "greedy:seed=2"])
def test_builtin_players_conform(spec: str) -> None:
    check_player(make_player(spec), games=2)


def test_greedy_plays_a_move_with_most_flips() -> None:
    board = Board.from_transcript("f5d6c3d3c4f4c5b3c2")
    result = GreedyPlayer(seed=0).choose(board)
    counts = {
        m: k.popcount(k.flip_mask(board.player, board.opponent, m)) for m in board.legal_moves
    }
    assert counts[result.move] == max(counts.values())
    assert result.info["flips"] == max(counts.values())


def test_seeded_players_are_reproducible() -> None:
    def moves(seed: int) -> list[int]:
        p, board, out = RandomPlayer(seed=seed), Board(), []
        while not board.is_game_over():
            m = p.choose(board).move
            out.append(m)
            board = board.play(m)
        return out

    assert moves(3) == moves(3) and moves(3) != moves(4)


def test_greedy_beats_random_more_often_than_not() -> None:
    """A sanity check of strength, not a benchmark: greedy wins most of 40 games."""
    wins = 0
    for g in range(40):
        greedy, rnd = GreedyPlayer(seed=g), RandomPlayer(seed=1000 + g)
        black, white = (greedy, rnd) if g % 2 == 0 else (rnd, greedy)
        board = Board()
        while not board.is_game_over():
            board = board.play((black if board.turn == 0 else white).choose(board).move)
        outcome = board.outcome()
        assert outcome is not None
        wins += outcome.result(0 if g % 2 == 0 else 1) == 1
    assert wins >= 22


def test_registry_specs_and_errors() -> None:
    assert parse_spec("Greedy:seed=3,x=1.5,flag=true,name=abc") == (
        "greedy",
        {"seed": 3, "x": 1.5, "flag": True, "name": "abc"},
    )
    assert isinstance(make_player("greedy"), GreedyPlayer)
    p = RandomPlayer()
    assert make_player(p) is p
    with pytest.raises(ValueError, match="unknown player 'nope'; known players: .*greedy"):
        make_player("nope")
    with pytest.raises(ValueError, match="has no option depth; its options: seed=None"):
        make_player("greedy:depth=3")
    with pytest.raises(ValueError, match="is not KEY=VALUE"):
        make_player("greedy:seed")
    names = [e.name for e in available_players()]
    assert {"random", "greedy"} <= set(names)
    assert isinstance(make_player(strongest_player_spec()), Player)


def test_check_player_catches_an_illegal_player() -> None:
    class Bad(Player):
        name = "bad"

        def choose(self, board, limit=None):  # type: ignore[no-untyped-def]
            from othellolab import PlayResult

            return PlayResult(0)

    with pytest.raises(AssertionError, match="illegal action"):
        check_player(Bad(), sizes=(8,))
