"""``action_masks()``: the convention sb3-contrib's maskable algorithms look for, on the
single-agent env and (batched) on the vector env; and MaskablePPO uses it unwrapped."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import numpy as np
import pytest

import othellolab.envs  # noqa: F401 - registers the ids
from othellolab.envs import OthelloVectorEnv


def test_single_env_mask_is_the_observations_mask() -> None:
    env = gym.make("othellolab/Othello4x4-v0", opponent="random", illegal_action_mode="raise")
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        mask = env.unwrapped.action_masks()
        assert mask.dtype == np.bool_ and mask.shape == (17,)
        assert np.array_equal(mask, obs["action_mask"].astype(bool))
        assert sorted(np.flatnonzero(mask)) == env.unwrapped.board.legal_actions()
        obs, _, done, _, _ = env.step(int(np.flatnonzero(mask)[0]))
    assert not env.unwrapped.action_masks().any()  # the game is over


def test_vector_env_masks_are_batched() -> None:
    envs = OthelloVectorEnv(5, size=6, opponent="greedy")
    obs, _ = envs.reset(seed=3)
    for _ in range(4):
        masks = envs.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (5, 37)
        assert np.array_equal(masks, obs["action_mask"].astype(bool))
        obs, *_ = envs.step(masks.argmax(axis=1))


@pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None,
    reason="sb3-contrib is not installed (optional extra: pip install -e '.[rl]')",
)
def test_maskable_ppo_trains_on_the_env_without_a_wrapper() -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    torch.set_num_threads(1)
    env = gym.make("othellolab/Othello6x6-v0", opponent="random", player_color="random")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
    assert is_masking_supported(model.get_env())
    model.learn(64)
    masks = get_action_masks(model.get_env())
    assert masks.shape == (1, 37) and masks.any()
    obs, _ = env.reset(seed=1)
    for _ in range(10):
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
        assert env.unwrapped.action_masks()[int(action)]
        obs, _, done, _, _ = env.step(int(action))
        if done:
            break
