"""One public face (issue 60): the top-level names, one resolver of games that refuses a bare
board size, and each board size's own pass action."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import othellolab
from othellolab import Board, Game, InvalidMoveError, get_game, make_player, parse_move
from othellolab.core.games import game_for
from othellolab.records.game import GameRecord


def test_the_top_level_has_game_get_game_and_make_player() -> None:
    assert isinstance(get_game("othello", size=6), Game)
    assert get_game() is get_game(None) is get_game("othello", size=8)
    player = make_player("greedy:seed=1")
    assert player.choose(Board()).move in Board().legal_actions()
    assert {"Game", "get_game", "make_player"} <= set(othellolab.__all__)
    assert not hasattr(othellolab, "move_name")


def test_make_player_is_lazy() -> None:
    code = "import sys, othellolab; print('othellolab.players' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("size", [6, np.int64(4), 8])
def test_a_board_size_is_not_a_game(size: int) -> None:
    with pytest.raises(TypeError, match=rf'pass get_game\("othello", size={int(size)}\)'):
        get_game(size)


def test_a_size_given_with_a_game_must_be_its_own() -> None:
    six = get_game("othello", size=6)
    assert get_game(six, 6) is six
    with pytest.raises(ValueError, match="contradicts"):
        get_game(six, 8)
    # a config's (game, size) pair: the size is a default for a game of several sizes
    assert game_for("animal-shogi", 8) is get_game("animal-shogi")
    assert game_for(None, 4) is get_game("othello4")


def test_self_play_and_grading_take_a_game_not_a_size() -> None:
    from othellolab.players import UniformEvaluator
    from othellolab.training.selfplay import play_games
    from othellolab.training.selfplay.grading import grade_evaluator

    with pytest.raises(TypeError):
        play_games(UniformEvaluator(), 1, size=6)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r'get_game\("othello", size=6\)'):
        play_games(UniformEvaluator(), 1, game=6)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r'get_game\("othello", size=4\)'):
        grade_evaluator(UniformEvaluator(), 4)  # type: ignore[arg-type]


def test_make_player_with_a_game_refuses_a_player_of_another() -> None:
    from othellolab.core import ConfigError

    assert make_player("random:seed=1", "othello6").name
    with pytest.raises(ConfigError, match="not animal-shogi"):
        make_player("alphabeta", "animal-shogi")


@pytest.mark.parametrize("size", [6, 4])
def test_pass_is_each_boards_own_action(size: int) -> None:
    n = size * size
    assert parse_move(n, size) == n
    assert parse_move("pass", size) == n
    with pytest.raises(InvalidMoveError, match=rf"64 is 8x8's pass; pass_action\({size}\) is {n}"):
        parse_move(64, size)
    board = next(b for b in _boards(size) if b.must_pass())
    assert board.play(n) == board.play_pass() == board.play("pass")
    with pytest.raises(InvalidMoveError, match="out of range"):
        board.play(64)


def test_a_record_of_a_small_board_refuses_64() -> None:
    start = Board(size=6)
    moves = [start.legal_actions()[0], 64]
    with pytest.raises(InvalidMoveError):
        GameRecord.from_moves(moves, start=start)


def _boards(size: int):  # type: ignore[no-untyped-def]
    from othellolab.testing import random_game

    for seed in range(200):
        yield from random_game(size, seed=seed)
