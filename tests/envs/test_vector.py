"""The vector env: Gymnasium's vector API, agreement with the single env and with ``Board``,
batched opponents, auto-reset modes, illegal actions and seeding."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import VectorEnv
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab.core import COLOR_NAMES, Board, IllegalMoveError
from othellolab.envs import OthelloEnv, OthelloVectorEnv


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def test_is_a_gymnasium_vector_env() -> None:
    envs = OthelloVectorEnv(8, size=6)
    assert isinstance(envs, VectorEnv)
    obs, info = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert obs["observation"].shape == (8, 3, 6, 6) and obs["action_mask"].dtype == np.int8
    assert envs.single_action_space.n == 37 and envs.action_space.shape == (8,)
    assert set(info) >= {"score", "_score", "opponent_action", "agent_color"}


@pytest.mark.parametrize("size", [4, 6, 8])
def test_agrees_with_the_single_env_given_the_same_actions(size: int) -> None:
    n = 6
    envs = OthelloVectorEnv(n, size=size, player_color="random", opponent="random")
    obs, info = envs.reset(seed=size)
    rng = np.random.default_rng(size)
    queues: list[list[int]] = [[] for _ in range(n)]

    def replay(i: int):
        return lambda board, _rng: queues[i].pop(0)

    singles = [OthelloEnv(size=size, opponent=replay(i)) for i in range(n)]

    def start(i: int) -> dict:
        if info["opponent_action"][i] >= 0:
            queues[i].append(int(info["opponent_action"][i]))
        color = COLOR_NAMES[info["agent_color"][i]]
        return singles[i].reset(seed=i, options={"player_color": color})[0]

    single_obs = [start(i) for i in range(n)]
    done = np.zeros(n, dtype=bool)
    finished = 0
    for _ in range(200):
        for i in range(n):
            assert np.array_equal(obs["observation"][i], single_obs[i]["observation"])
            assert np.array_equal(obs["action_mask"][i], single_obs[i]["action_mask"])
        actions = random_legal(obs["action_mask"], rng)
        obs, reward, terminated, truncated, info = envs.step(actions)
        assert not truncated.any()
        for i in range(n):
            if done[i]:  # next-step auto-reset: this step restarted game i
                single_obs[i] = start(i)
                assert reward[i] == 0 and not terminated[i]
                continue
            if info["opponent_action"][i] >= 0 and info["opponent_action"][i] != size * size:
                queues[i].append(int(info["opponent_action"][i]))
            single_obs[i], r, t, _, single_info = singles[i].step(int(actions[i]))
            assert not queues[i], "the single env used every opponent move"
            assert (reward[i], terminated[i]) == (r, t)
            assert info["score"][i] == single_info["score"]
            finished += t
        done = terminated
    assert finished >= n


@settings(max_examples=20, deadline=None)
@given(size=st.sampled_from([4, 6, 8]), seed=st.integers(0, 2**32), greedy=st.booleans())
def test_positions_agree_with_board_replays(size: int, seed: int, greedy: bool) -> None:
    opponent = "greedy" if greedy else "random"
    envs = OthelloVectorEnv(4, size=size, player_color="random", opponent=opponent)
    obs, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    boards = []
    for i in range(4):
        b = Board(size=size)
        if info["agent_color"][i] == 1:
            b = b.play(int(info["opponent_action"][i]))
        boards.append(b)
    assert envs.boards() == boards
    for _ in range(40):
        actions = random_legal(obs["action_mask"], rng)
        before = envs.boards()
        obs, reward, terminated, _, info = envs.step(actions)
        for i in range(4):
            b = before[i]
            if b.is_game_over():
                continue
            b = b.play(int(actions[i]))
            opp = int(info["opponent_action"][i])
            if opp >= 0:
                if greedy and opp < size * size:
                    flips = [len(b.flips(a)) for a in b.legal_actions()]
                    assert len(b.flips(opp)) == max(flips), "greedy flips the most discs"
                b = b.play(opp)
            assert b.is_game_over() == bool(terminated[i])
            after = envs.boards()[i]
            assert (after.player, after.opponent) == (
                (b.player, b.opponent) if b.turn == after.turn else (b.opponent, b.player)
            )
            if terminated[i]:
                outcome = b.outcome()
                color = int(info["agent_color"][i])
                assert reward[i] == outcome.result(color)
                assert info["score"][i] == outcome.score(color)


def test_same_step_autoreset_returns_the_final_observation() -> None:
    envs = OthelloVectorEnv(16, size=4, autoreset_mode="same_step", player_color="black")
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(30):
        obs, _reward, terminated, _, info = envs.step(random_legal(obs["action_mask"], rng))
        for i in np.flatnonzero(terminated):
            seen += 1
            final = info["final_obs"]
            assert info["_final_obs"][i]
            assert not final["action_mask"][i].any()
            discs = final["observation"][i, 0].sum() + final["observation"][i, 1].sum()
            assert discs > 4
            assert obs["observation"][i, :2].sum() == 4  # the new game's start position
        assert obs["action_mask"].any(axis=1).all()
    assert seen > 0


def test_illegal_actions() -> None:
    envs = OthelloVectorEnv(3)
    envs.reset(seed=0)
    before = envs.boards()
    with pytest.raises(IllegalMoveError, match=r"game 1: illegal action 0 \(a1\).*d3, c4, f5, e6"):
        envs.step(np.array([19, 0, 19]))
    assert envs.boards() == before, "a refused step changes nothing"
    envs = OthelloVectorEnv(2, illegal_action_mode="lose")
    envs.reset(seed=0)
    _, reward, terminated, _, info = envs.step(np.array([0, 19]))
    assert reward.tolist() == [-1, 0] and terminated.tolist() == [True, False]
    assert info["illegal_action"].tolist() == [True, False]
    envs = OthelloVectorEnv(2, illegal_action_mode="mask")
    envs.reset(seed=0)
    _, reward, terminated, _, info = envs.step(np.array([0, 0]))
    assert info["illegal_action"].all() and not terminated.any()
    assert all(b.disc_count(0) + b.disc_count(1) == 6 for b in envs.boards())


def test_resign_and_bad_input() -> None:
    envs = OthelloVectorEnv(2, size=6, allow_resign=True)
    obs, _ = envs.reset(seed=0)
    assert obs["action_mask"][:, 37].all()
    _, reward, terminated, _, _ = envs.step(np.array([37, 8]))
    assert reward.tolist() == [-1, 0] and terminated.tolist() == [True, False]
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="opponent='alphabeta'"):
        OthelloVectorEnv(2, opponent="alphabeta")


def test_seed_reproducibility() -> None:
    def run(seed: int) -> list[bytes]:
        envs = OthelloVectorEnv(8, size=6, player_color="random", opponent="greedy")
        obs, _ = envs.reset(seed=seed)
        out = []
        for _ in range(40):
            obs, *_ = envs.step(obs["action_mask"].argmax(axis=1))
            out.append(obs["observation"].tobytes())
        return out

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_render_and_partial_reset() -> None:
    envs = OthelloVectorEnv(2, size=4, render_mode="ansi")
    obs, _ = envs.reset(seed=0)
    obs, *_ = envs.step(obs["action_mask"].argmax(axis=1))
    frames = envs.render()
    assert len(frames) == 2 and all(isinstance(f, str) for f in frames)
    obs, _ = envs.reset(options={"reset_mask": np.array([True, False])})
    assert envs.boards()[0] == Board(size=4) and envs.boards()[1] != Board(size=4)
