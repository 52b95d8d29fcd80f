"""The single-agent Gymnasium env: the official checker, the rules through random episodes,
illegal-action modes, seeding, opponents and rendering."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import othellolab.envs  # noqa: F401 - registers the ids
from othellolab.core import BLACK, Board, IllegalMoveError, parse_square
from othellolab.envs import ENV_IDS, OthelloEnv
from othellolab.players import RandomPlayer


def make(size: int = 8, **kwargs) -> OthelloEnv:
    return OthelloEnv(size=size, **kwargs)


@pytest.mark.parametrize(("env_id", "size"), sorted(ENV_IDS.items()))
def test_registered_ids_make_the_right_size(env_id: str, size: int) -> None:
    env = gym.make(env_id)
    assert env.unwrapped.size == size
    assert env.action_space.n == size * size + 1
    assert env.spec is not None and env.spec.version == 0


def test_make_imports_the_module_itself() -> None:
    env = gym.make("othellolab.envs:othellolab/Othello4x4-v0")
    assert env.unwrapped.size == 4


@pytest.mark.parametrize("mode", ["lose", "mask"])
@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_gymnasium_check_env_passes(env_id: str, mode: str) -> None:
    # check_env samples unmasked random actions, so it needs a mode that accepts illegal ones.
    env = gym.make(env_id, illegal_action_mode=mode, render_mode="rgb_array")
    check_env(env.unwrapped, skip_render_check=False)


def test_start_observation_of_black() -> None:
    # Black's four legal first moves are d3, c4, f5, e6 (the rules; DESIGN.md).
    env = make(8)
    obs, info = env.reset(seed=0)
    legal = sorted(parse_square(s) for s in ("d3", "c4", "f5", "e6"))
    assert np.flatnonzero(obs["action_mask"]).tolist() == legal
    assert info["legal_actions"] == legal
    own, opp, moves = obs["observation"]
    assert own[3, 4] == own[4, 3] == 1 and opp[3, 3] == opp[4, 4] == 1  # e4, d5 / d4, e5
    assert moves.sum() == 4 and obs["observation"].dtype == np.uint8


def _random_episode(env: OthelloEnv, rng: np.random.Generator, seed: int) -> dict[str, int]:
    seen = {"passes": 0, "draws": 0, "early_end": 0}
    obs, info = env.reset(seed=seed)
    done, reward = False, 0.0
    while True:
        board = env.board
        color = env.agent_color
        mask = obs["action_mask"]
        planes = obs["observation"]
        n = env.size
        black, white = board.black, board.white
        own, opp = (black, white) if color == BLACK else (white, black)
        bits = [(own >> i & 1, opp >> i & 1) for i in range(n * n)]
        assert planes[0].ravel().tolist() == [b[0] for b in bits]
        assert planes[1].ravel().tolist() == [b[1] for b in bits]
        if done:
            assert board.is_game_over()
            assert not mask.any() and not planes[2].any()
            outcome = board.outcome()
            assert outcome is not None
            assert reward == outcome.result(color)
            assert info["score"] == outcome.score(color)
            seen["draws"] += outcome.winner is None
            seen["early_end"] += outcome.empties > 0
            return seen
        assert board.turn == color, "the agent is to move whenever the game goes on"
        assert np.array_equal(mask.astype(bool), board.legal_action_mask())
        assert np.array_equal(planes[2].ravel(), mask[: n * n])
        assert reward == 0
        legal = np.flatnonzero(mask)
        a = int(legal[rng.integers(len(legal))])
        seen["passes"] += a == env.pass_action
        obs, reward, done, truncated, info = env.step(a)
        assert not truncated


@settings(max_examples=30, deadline=None)
@given(
    size=st.sampled_from([4, 6, 8]),
    color=st.sampled_from(["black", "white", "random"]),
    seed=st.integers(0, 2**32),
)
def test_random_episodes_keep_the_invariants(size: int, color: str, seed: int) -> None:
    env = make(size, player_color=color, opponent="random")
    _random_episode(env, np.random.default_rng(seed), seed)


def test_small_boards_reach_passes_draws_and_early_ends() -> None:
    env = make(4, player_color="random")
    rng = np.random.default_rng(1)
    total = {"passes": 0, "draws": 0, "early_end": 0}
    for seed in range(150):
        for k, v in _random_episode(env, rng, seed).items():
            total[k] += v
    assert total["passes"] > 0 and total["draws"] > 0 and total["early_end"] > 0, total


def test_disc_diff_reward_is_the_final_score_over_the_cells() -> None:
    env = make(4, reward="disc_diff")
    rng = np.random.default_rng(3)
    for seed in range(10):
        obs, _ = env.reset(seed=seed)
        done, reward = False, 0.0
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, done, _, _info = env.step(int(rng.choice(legal)))
        outcome = env.board.outcome()
        assert reward == outcome.score(env.agent_color) / 16
        assert -1 <= reward <= 1


def test_illegal_action_raise_names_the_move_and_the_legal_ones() -> None:
    env = make(8)
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match=r"a1.*legal moves: d3, c4, f5, e6"):
        env.step(0)
    with pytest.raises(IllegalMoveError, match="may not pass"):
        env.step(64)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(65)


def test_illegal_action_lose_ends_the_game() -> None:
    env = make(8, illegal_action_mode="lose")
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(0)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(19)


def test_illegal_action_mask_plays_a_random_legal_one() -> None:
    env = make(8, illegal_action_mode="mask")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)
    assert info["illegal_action"] and info["played_action"] in (19, 26, 37, 44)
    assert (reward, terminated) == (0.0, False)
    assert env.board.disc_count(BLACK) >= 3  # black moved (and white replied)


def test_resign_action() -> None:
    env = make(6, allow_resign=True)
    obs, _ = env.reset(seed=0)
    assert env.action_space.n == 38 and obs["action_mask"][37] == 1
    _, reward, terminated, _, info = env.step(37)
    assert (reward, terminated, info["resigned"]) == (-1.0, True, True)


def _trajectory(env: OthelloEnv, seed: int, episodes: int = 3) -> list:
    out = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        done = False
        while not done:
            a = int(np.flatnonzero(obs["action_mask"])[0])
            out.append((obs["observation"].tobytes(), a, info["agent_color"]))
            obs, reward, done, _, info = env.step(a)
        out.append(reward)
        obs, info = env.reset()
    return out


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_seed_makes_episodes_reproducible(opponent: str) -> None:
    a = _trajectory(make(6, opponent=opponent, player_color="random"), 11)
    b = _trajectory(make(6, opponent=opponent, player_color="random"), 11)
    c = _trajectory(make(6, opponent=opponent, player_color="random"), 12)
    assert a == b
    assert a != c


def test_function_opponent_gets_a_seeded_generator() -> None:
    def first_or_random(board: Board, rng: np.random.Generator) -> int:
        actions = board.legal_actions()
        return actions[int(rng.integers(len(actions)))]

    a = _trajectory(make(6, opponent=first_or_random), 5)
    b = _trajectory(make(6, opponent=first_or_random), 5)
    assert a == b


def test_player_instance_opponent() -> None:
    a = _trajectory(make(6, opponent=RandomPlayer(seed=1)), 5, episodes=1)
    b = _trajectory(make(6, opponent=RandomPlayer(seed=1)), 5, episodes=1)
    assert a == b


def test_an_illegal_opponent_move_is_a_clear_error() -> None:
    env = make(8, opponent=lambda board, rng: 0, player_color="white")
    with pytest.raises(IllegalMoveError, match="opponent .* chose illegal action 0"):
        env.reset(seed=0)


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError, match="illegal_action_mode='oops'"):
        make(8, illegal_action_mode="oops")
    with pytest.raises(ValueError, match="purple"):
        make(8, player_color="purple")
    with pytest.raises(ValueError, match="unknown player"):
        make(8, opponent="nobody")


def test_render_ansi_and_rgb() -> None:
    env = make(8, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and " X " in text and " O " in text and " * " in text
    env = make(8, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.shape == (321, 321, 3) and img.dtype == np.uint8
    cell = 40
    centre = lambda sq: img[(sq // 8) * cell + cell // 2, (sq % 8) * cell + cell // 2]  # noqa: E731
    assert centre(parse_square("e4")).tolist() == [20, 20, 20]  # a black disc
    assert centre(parse_square("d4")).tolist() == [240, 240, 240]  # a white disc
    assert centre(parse_square("d3")).tolist() == [0, 60, 30]  # a legal-move dot
    assert centre(parse_square("a1")).tolist() == [0, 110, 60]  # the green board
    assert img[0, 5].tolist() == [0, 50, 25]  # a grid line
