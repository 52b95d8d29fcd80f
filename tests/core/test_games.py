"""The game protocol: each game's methods and the search kernels' dispatch agree with the
game's own people-facing position class (``Board``, ``AnimalShogi``) over random games."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import Board, ConfigError
from othellolab.core import animal_shogi as shogi
from othellolab.core.animal_shogi.game import AnimalShogiGame
from othellolab.core.games import (
    get_game,
    rules_child,
    rules_children,
    rules_result,
    rules_value,
)
from othellolab.core.othello_game import Othello
from othellolab.testing import random_game


def _shogi_games(n: int, seed: int) -> list[shogi.AnimalShogi]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        pos = shogi.AnimalShogi()
        while not pos.is_game_over() and pos.ply < 120:
            out.append(pos)
            pos = pos.play(int(rng.choice(pos.legal_actions())))
        out.append(pos)
    return out


def _check_kernels(game, p: int, o: int, legal: list[int], child_of, finished, score) -> None:  # type: ignore[no-untyped-def]
    actions = np.empty(game.max_children, np.int64)
    cp = np.empty(game.max_children, np.uint64)
    co = np.empty(game.max_children, np.uint64)
    p, o = np.uint64(p), np.uint64(o)
    n = rules_children(game.rules, p, o, actions, cp, co)
    assert actions[:n].tolist() == legal
    for i, a in enumerate(legal):
        assert (int(cp[i]), int(co[i])) == child_of(a) == game.step(p, o, a)
        child = rules_child(game.rules, p, o, a, actions.copy(), cp.copy(), co.copy())
        assert tuple(int(x) for x in child) == child_of(a)
    done, s = rules_result(game.rules, p, o)
    assert done == finished and (not done or s == score)
    assert game.result(p, o) == (score if finished else None)
    assert game.legal_actions(p, o) == ([] if finished else legal)


@pytest.mark.parametrize("size", [4, 6, 8])
def test_othello_behind_the_protocol(size: int) -> None:
    game = get_game("othello", size)
    assert (game.n_actions, game.rows, game.score_scale, game.key) == (
        size * size + 1,
        size,
        size * size,
        f"othello{size}",
    )
    start = Board(size=size)
    assert game.start() == (start.player, start.opponent)
    for seed in range(6):
        for board in random_game(size, seed=seed):
            p, o = board.player, board.opponent
            over = board.is_game_over()
            _check_kernels(
                game,
                p,
                o,
                board.legal_actions(),
                lambda a, b=board: (b.play(a).player, b.play(a).opponent),
                over,
                board.score() if over else 0,
            )
            assert game.position(p, o, board.turn) == board


def test_animal_shogi_behind_the_protocol() -> None:
    game = get_game("animal-shogi")
    assert isinstance(game, AnimalShogiGame) and game.n_actions == 132
    assert game.start() == shogi.AnimalShogi().state
    for pos in _shogi_games(30, seed=1):
        p, o = pos.state
        r = pos.result()
        _check_kernels(
            game,
            p,
            o,
            pos.legal_actions(),
            lambda a, q=pos: q.play(a).state,
            r is not None,
            r,
        )
        assert game.position(p, o, pos.turn) == pos


def test_values_of_final_scores() -> None:
    six, eight = Othello(6).rules, Othello(8).rules
    assert rules_value(six, 8.0, 1.0) == pytest.approx(8 / 36)
    assert rules_value(six, 8.0, 0.0) == 1.0 and rules_value(eight, -2.0, 0.0) == -1.0
    assert rules_value(six, 0.0, 0.5) == 0.0 and Othello(6).value(8.0, 1.0) == pytest.approx(8 / 36)
    shogi_rules = get_game("animal-shogi").rules
    for w in (0.0, 0.5, 1.0):  # a shogi score is already a result
        assert rules_value(shogi_rules, -1.0, w) == -1.0 and rules_value(shogi_rules, 1.0, w) == 1.0


def test_games_by_name_and_errors() -> None:
    assert get_game("othello6") == Othello(6) and get_game("OTHELLO") == Othello(8)
    assert get_game(Othello(4)) == Othello(4) and hash(Othello(4)) == hash(get_game("othello4"))
    assert get_game("dobutsu") == AnimalShogiGame()
    for bad, what in (("chess", "unknown game"), (3.0, "expected a game name")):
        with pytest.raises(ConfigError, match=what):
            get_game(bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="4, 6 or 8"):
        get_game("othello", 5)
    with pytest.raises(ConfigError, match="one board"):
        get_game("animal-shogi", 8)


def test_the_search_forest_holds_animal_shogi() -> None:
    """The batched search runs on animal shogi through the protocol: its trees expand to the
    legal actions, and a blind search finds (and proves) the capture of the lion."""
    from othellolab.players import UniformEvaluator
    from othellolab.players.mcts.batch import SearchConfig
    from othellolab.training.selfplay import search_positions

    game = get_game("animal-shogi")
    # the first player's giraffe on b2 can take the lion on b1 (gote's lion, row 1)
    pos = shogi.AnimalShogi.from_sfen("gle/1G1/3/EL1 b - 1")
    p, o = pos.state
    moves, targets, values = search_positions(
        UniformEvaluator(),
        np.array([p], np.uint64),
        np.array([o], np.uint64),
        game,
        SearchConfig(simulations=64, seed=0),
    )
    assert pos.move_name(int(moves[0])) == "b2b1" and values[0] == 1.0
    assert targets[0, moves[0]] == 1.0  # the proven win is the whole target
