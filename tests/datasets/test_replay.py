"""The replay kernel against the Board API: every row, pass and final score."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from othellolab import Board, IllegalMoveError
from othellolab.datasets.replay import replay_games
from othellolab.datasets.sources import games_to_arrays, read_wtb_arrays
from othellolab.records.game import GameRecord
from othellolab.records.wthor import read_wtb

from helpers import shared_file


def subset(ga, n: int):
    return dataclasses.replace(
        ga,
        moves=ga.moves[:n],
        start_p=ga.start_p[:n],
        start_o=ga.start_o[:n],
        start_color=ga.start_color[:n],
        year=ga.year[:n],
        recorded_score=ga.recorded_score[:n],
    )


def test_rows_equal_a_board_api_replay() -> None:
    """400 real games of 2004: rows, passes and final scores equal ``GameRecord``'s replay."""
    path = shared_file("wthor/WTH_2004.wtb")
    n = 400
    r = replay_games(subset(read_wtb_arrays(path), n))
    row = 0
    for g, wg in enumerate(list(read_wtb(path))[:n]):
        game = GameRecord.from_moves(wg.moves)
        assert r.n_rows[g] == len(game.moves)
        assert r.n_passes[g] == sum(a == 64 for a in game.moves)
        assert r.final_black[g] == game.score and r.complete[g] == game.is_complete()
        for number, (board, action) in enumerate(game.replay(), 1):
            assert (int(r.p[row]), int(r.o[row])) == (board.player, board.opponent)
            assert (r.color[row], r.move[row], r.move_number[row], r.game[row]) == (
                board.turn,
                action,
                number,
                g,
            )
            row += 1
    assert row == len(r.p)
    assert r.n_passes.sum() > 0  # the sample does exercise inserted passes


def test_explicit_passes_and_other_sizes() -> None:
    """Games with explicit passes (``GameRecord.moves``), on 6x6 and 4x4, from random play."""
    rng = np.random.default_rng(7)
    for size in (6, 4):
        games = []
        for _ in range(20):
            board, moves = Board(size=size), []
            while not board.is_game_over():
                a = int(rng.choice(board.legal_actions()))
                moves.append(a)
                board = board.play(a)
            games.append(GameRecord.from_moves(moves, start=Board(size=size)))
        r = replay_games(games_to_arrays(games))
        expected = [(b.player, b.opponent, a) for game in games for b, a in game.replay()]
        assert list(zip(r.p.tolist(), r.o.tolist(), r.move.tolist(), strict=True)) == expected
        assert r.final_black.tolist() == [g.score for g in games]
        assert (r.move == size * size).sum() == r.n_passes.sum() > 0


def test_bad_move_names_source_game_and_move() -> None:
    ga = subset(read_wtb_arrays(shared_file("wthor/WTH_2004.wtb")), 5)
    moves = ga.moves.copy()
    moves[2, 1] = 0  # game 3, move 2: a1
    bad = dataclasses.replace(ga, moves=moves)
    with pytest.raises(
        IllegalMoveError, match=r"WTH_2004.wtb: game 3, move 2 \(a1\): illegal move"
    ):
        replay_games(bad)
    lenient = replay_games(bad, strict=False)
    good = replay_games(ga)
    assert lenient.valid.tolist() == [True, True, False, True, True]
    assert len(lenient.p) == len(good.p) - good.n_rows[2]
    assert 2 not in lenient.game.tolist()


def test_pass_when_a_move_exists_is_rejected() -> None:
    ga = games_to_arrays([GameRecord.from_moves(["f5"])])
    moves = np.array([[37, 64]], dtype=np.int16)
    with pytest.raises(IllegalMoveError, match=r"game 1, move 2 \(pass\): pass while"):
        replay_games(dataclasses.replace(ga, moves=moves))


def test_positions_from_games_is_one_path_for_any_reader() -> None:
    from othellolab.datasets.replay import game_results, positions_from_games
    from othellolab.datasets.sources import NO_SCORE
    from othellolab.records.wthor import read_wthor

    path = shared_file("wthor/WTH_2004.wtb")
    fast = positions_from_games([read_wtb_arrays(path)], max_games=40, passes=False)
    games = games_to_arrays(
        g
        for _, g in zip(range(40), read_wthor(path, players=False, tournaments=False), strict=False)
    )
    slow = positions_from_games([games], passes=False)
    for name in ("player", "opponent", "move", "outcome", "score", "game", "color"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert len(np.unique(fast.game)) == 40 and not (fast.move == 64).any()
    final, complete = np.array([10, -4, 6]), np.array([True, False, False])
    recorded = np.array([8, -2, NO_SCORE])
    assert game_results(final, complete, recorded, "finished").tolist() == [10, -2, 6]
    assert game_results(final, complete, recorded, "replay").tolist() == [10, -4, 6]
