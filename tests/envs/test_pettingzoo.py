"""The PettingZoo AEC env: PettingZoo's own API, seed and render tests, and the rules."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from othellolab.core import Board, IllegalMoveError
from othellolab.envs.pettingzoo import env, raw_env


@pytest.mark.parametrize("size", [8, 6, 4])
def test_pettingzoo_api_test(size: int) -> None:
    api_test(env(size=size), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda **kw: env(size=6, **kw), num_cycles=100)


def test_pettingzoo_render_test() -> None:
    render_test(lambda **kw: env(size=4, **kw))


@pytest.mark.parametrize("size", [4, 6, 8])
def test_random_games_follow_the_rules(size: int) -> None:
    rng = np.random.default_rng(size)
    passes = 0
    for _ in range(15):
        game = raw_env(size=size)
        game.reset()
        board = Board(size=size)
        final = {}
        for agent in game.agent_iter():
            obs, reward, terminated, truncated, _info = game.last()
            if terminated or truncated:
                final[agent] = reward
                game.step(None)
                continue
            assert agent == ("black", "white")[board.turn]
            assert np.array_equal(obs["action_mask"].astype(bool), board.legal_action_mask())
            other = "white" if agent == "black" else "black"
            assert not game.observe(other)["action_mask"].any()
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            passes += a == size * size
            board = board.play(a)
            game.step(a)
        outcome = board.outcome()
        assert outcome is not None and game.board == board
        for name, color in (("black", 0), ("white", 1)):
            assert final[name] == outcome.result(color)
    if size == 4:
        assert passes > 0


def test_illegal_move_loses_for_the_offender_only() -> None:
    game = raw_env()
    game.reset()
    game.step(0)  # a1 is not legal for black at the start
    assert game.rewards == {"black": -1.0, "white": 1.0}
    assert all(game.terminations.values())
    assert game.infos["black"]["illegal_action"]


def test_illegal_move_can_raise() -> None:
    game = raw_env(illegal_action_mode="raise")
    game.reset()
    with pytest.raises(IllegalMoveError, match=r"'black' action 0.*legal moves: d3, c4, f5, e6"):
        game.step(0)


def test_disc_diff_rewards_sum_to_zero() -> None:
    game = raw_env(size=4, reward="disc_diff")
    game.reset()
    rng = np.random.default_rng(0)
    final = {}
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, _ = game.last()
        if terminated or truncated:
            final[agent] = reward
            game.step(None)
        else:
            game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    outcome = game.board.outcome()
    assert final["black"] == outcome.score(0) / 16 == -final["white"]
