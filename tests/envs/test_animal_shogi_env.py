"""The animal shogi Gymnasium env: the official checker, random episodes against the rules,
illegal-action modes, seeding, opponents and rendering."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import othellolab.envs  # noqa: F401 - registers the ids
from othellolab.core import ConfigError, IllegalMoveError
from othellolab.core.animal_shogi import DRAW_PLIES, AnimalShogi
from othellolab.envs import ANIMAL_SHOGI_ENV_ID, AnimalShogiEnv
from othellolab.players import GreedyPlayer, RandomPlayer


def expected_planes(pos: AnimalShogi, side: int) -> np.ndarray:
    """The 17 planes from ``side``'s view, from the position's public API (not the kernels)."""
    out = np.zeros((17, 4, 3), np.float32)
    for sq in range(12):
        letter = pos.piece_at(sq)
        if letter is None:
            continue
        view = sq if side == 0 else 11 - sq  # the side's own back row is its row 3
        own = letter.isupper() == (side == 0)
        out["CEGLH".index(letter.upper()) + (0 if own else 5), view // 3, view % 3] = 1
    for k, color in enumerate((side, 1 - side)):
        for i, count in enumerate(pos.hand(color).values()):
            out[10 + 3 * k + i] = count / 2
    out[16] = pos.ply / DRAW_PLIES
    return out


def test_registered_id_and_spaces() -> None:
    env = gym.make(ANIMAL_SHOGI_ENV_ID)
    assert env.spec is not None and env.spec.version == 0
    assert isinstance(env.unwrapped, AnimalShogiEnv)
    assert repr(env.action_space) == "Discrete(132)"
    assert repr(env.observation_space) == "Box(0.0, 1.0, (17, 4, 3), float32)"
    assert gym.make("othellolab.envs:othellolab/AnimalShogi-v0").unwrapped.spec is not None


@pytest.mark.parametrize("mode", ["lose", "mask"])
def test_gymnasium_check_env_passes(mode: str) -> None:
    # check_env samples unmasked random actions, so it needs a mode that accepts illegal ones.
    env = gym.make(ANIMAL_SHOGI_ENV_ID, illegal_action_mode=mode, render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)


def test_start_as_first_and_as_second() -> None:
    env = AnimalShogiEnv()
    obs, info = env.reset(seed=0)
    start = AnimalShogi()
    assert info["legal_actions"] == start.legal_actions()
    assert np.flatnonzero(info["action_mask"]).tolist() == start.legal_actions()
    assert np.array_equal(obs, expected_planes(start, 0)) and obs.dtype == np.float32
    assert info["agent_color"] == "sente" and info["opponent_actions"] == []
    obs, info = env.reset(options={"player_color": "second"})
    (first,) = info["opponent_actions"]
    pos = start.play(first)
    assert env.position == pos and info["agent_color"] == "gote"
    assert np.array_equal(obs, expected_planes(pos, 1))
    assert obs[3, 3, 1] == 1  # the second player's own lion (b1) is at the bottom of its view
    assert np.array_equal(env.action_masks(), pos.legal_action_mask())


def _random_episode(env: AnimalShogiEnv, rng: np.random.Generator, seed: int) -> str:
    obs, info = env.reset(seed=seed)
    reward, done, steps = 0.0, False, 0
    while True:
        pos, side = env.position, env.agent_color
        mask = info["action_mask"]
        assert np.array_equal(obs, expected_planes(pos, side))
        assert env.observation_space.contains(obs)
        if done:
            assert pos.is_game_over() and not mask.any() and not env.action_masks().any()
            r = pos.result() if pos.turn == side else -pos.result()
            assert reward == r == info["result"]
            return str(info["termination"])
        assert pos.turn == side, "the agent is to move whenever the game goes on"
        assert np.array_equal(mask.astype(bool), pos.legal_action_mask())
        assert np.array_equal(env.action_masks(), mask.astype(bool))
        assert reward == 0
        legal = np.flatnonzero(mask)
        obs, reward, done, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        assert not truncated and not info["illegal_action"]
        steps += 1
        assert steps <= DRAW_PLIES


@settings(max_examples=20, deadline=None)
@given(color=st.sampled_from(["first", "second", "random"]), seed=st.integers(0, 2**32))
def test_random_episodes_end_and_keep_the_invariants(color: str, seed: int) -> None:
    env = AnimalShogiEnv(player_color=color)
    _random_episode(env, np.random.default_rng(seed), seed)


def test_random_episodes_reach_both_results() -> None:
    env = AnimalShogiEnv(player_color="random")
    rng = np.random.default_rng(1)
    endings = [_random_episode(env, rng, seed) for seed in range(40)]
    assert "lion captured" in endings and "try" in endings


def test_illegal_actions_raise_lose_or_are_replaced() -> None:
    illegal = 0  # a chick drop on a1: sente has nothing in hand
    env = AnimalShogiEnv()
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match=r"agent \(sente\) action 0: illegal move .*legal"):
        env.step(illegal)
    with pytest.raises(ValueError, match="outside the action space 0..131"):
        env.step(132)
    env = AnimalShogiEnv(illegal_action_mode="lose")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(illegal)
    env = AnimalShogiEnv(illegal_action_mode="mask")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert info["illegal_action"] and info["played_action"] in AnimalShogi().legal_actions()
    assert env.position.ply == 2 and not terminated


def test_seeded_episodes_replay() -> None:
    def episode(seed: int) -> list[int]:
        env = AnimalShogiEnv(player_color="random", illegal_action_mode="mask")
        _, info = env.reset(seed=seed)
        played, done = [], False
        while not done:
            _, _, done, _, info = env.step(0)  # illegal at first: the env's rng replaces it
            played += [info.get("played_action", 0), *info["opponent_actions"]]
        return played

    assert episode(5) == episode(5)
    assert episode(5) != episode(6)


def test_opponents_must_play_animal_shogi() -> None:
    with pytest.raises(ConfigError, match="player 'greedy' plays othello, not animal-shogi"):
        AnimalShogiEnv(opponent="greedy")
    with pytest.raises(ConfigError, match="player 'greedy' plays othello, not animal-shogi"):
        AnimalShogiEnv(opponent=GreedyPlayer())
    env = AnimalShogiEnv(opponent=RandomPlayer(seed=1), player_color="second")
    assert len(env.reset()[1]["opponent_actions"]) == 1


def test_function_and_search_opponents() -> None:
    def blunder(pos: AnimalShogi, rng: np.random.Generator) -> int:
        return pos.parse_move("a1a2") if pos.is_legal("a1a2") else pos.legal_actions()[0]

    env = AnimalShogiEnv(opponent=blunder)
    env.reset(seed=0)
    _, reward, done, _, info = env.step(env.position.parse_move("b3b2"))  # threatens b1
    assert not done and info["opponent_actions"] == [AnimalShogi().play("b3b2").parse_move("a1a2")]
    _, reward, done, _, info = env.step(env.position.parse_move("b2b1+"))
    assert done and reward == 1.0 and info["termination"] == "lion captured"
    assert info["result"] == 1 and info["opponent_actions"] == []
    env = AnimalShogiEnv(opponent="shogi-alphabeta:depth=2")
    env.reset(seed=0)
    env.step(env.position.parse_move("b3b2"))
    assert env.position.piece_at("b2") in ("l", "e")  # the threat on the lion is answered


def test_render_text_and_options() -> None:
    env = AnimalShogiEnv(render_mode="ansi", player_color="second")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "sente hand" in text and "gote to move" in text
    assert "last move: " in text
    human = AnimalShogiEnv(render_mode="human")
    human.reset(seed=0)
    with pytest.raises(ValueError, match="player_color='black' is not 'first' or 'second'"):
        AnimalShogiEnv(player_color="black")
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not one of"):
        AnimalShogiEnv(render_mode="rgb_array")
    with pytest.raises(ValueError, match="illegal_action_mode='skip' is not one of"):
        AnimalShogiEnv(illegal_action_mode="skip")
