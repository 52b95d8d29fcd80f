# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 6. Your own agent: Gymnasium, PettingZoo and vector environments
#
# To train an agent with your own code or a library, othellolab gives one environment of each
# kind for any of its games: a Gymnasium env (one agent against a player the env moves), a
# PettingZoo AEC env (two agents), and a Gymnasium vector env that steps hundreds of games in
# one compiled call. Illegal moves are masked: `info["action_mask"]` and `action_masks()`, the
# method sb3-contrib's `MaskablePPO` looks for. The reference page is `docs/envs.md`; the
# agents graded against exact play are in `docs/rl.md`.
#
# Quick mode: under 45 s on 2 CPU cores; `OTHELLOLAB_COURSE_FULL=1` trains longer.

# %%
import importlib.util
import os
import time

import gymnasium as gym
import numpy as np

import othellolab.envs  # noqa: F401 - registers the Gymnasium ids
from othellolab.envs import OthelloVectorEnv
from othellolab.envs import pettingzoo as oz
from othellolab.rl import EpsilonSchedule, make_agent, run_episode

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")

# %% [markdown]
# ## Gymnasium: one agent against a player
#
# The opponent is any player spec of the game; the agent's colour can be drawn per game. The
# observation holds the planes seen from the agent's side and the legal-action mask; the
# reward is +1, 0 or -1 at the end.

# %%
env = gym.make("othellolab/Othello6x6-v0", opponent="greedy", player_color="random")
obs, info = env.reset(seed=0)
rng = np.random.default_rng(0)
done, steps = False, 0
while not done:
    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
    obs, reward, terminated, truncated, info = env.step(action)
    done, steps = terminated or truncated, steps + 1
print(f"a random agent played {steps} moves as {info['agent_color']}: reward {reward}")

# %% [markdown]
# ## PettingZoo: two agents
#
# The AEC env names its agents by the game's sides (`black`, `white`); each takes its turn
# from `agent_iter()`. PettingZoo's own `api_test` checks the env.

# %%
from pettingzoo.test import api_test  # noqa: E402

aec = oz.env(size=6)
api_test(aec, num_cycles=200)
aec.reset(seed=1)
final = {}
for agent in aec.agent_iter():
    obs, reward, termination, truncation, info = aec.last()
    if termination or truncation:
        final[agent] = reward
        aec.step(None)
        continue
    aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
print("final rewards:", final)

# %% [markdown]
# ## Vector env: many games per call
#
# `OthelloVectorEnv` steps all its games in one Numba call against a batched random or greedy
# opponent, with auto-reset; `docs/envs.md` ("Speed") measured it hundreds of times faster
# than a `SyncVectorEnv` of single envs (3,600-5,600 agent steps/s for the latter on 8x8).

# %%
venv = OthelloVectorEnv(256, size=6, opponent="random")
obs, info = venv.reset(seed=0)
t0, n = time.perf_counter(), 0
for _ in range(200):
    masks = venv.action_masks()
    noise = rng.random(masks.shape) * masks
    obs, rewards, terminated, truncated, info = venv.step(noise.argmax(axis=1))
    n += len(rewards)
print(f"{n / (time.perf_counter() - t0):,.0f} agent steps/s with 256 games")

# %% [markdown]
# ## An agent that learns: tabular Q-learning in the Gymnasium env
#
# The tabular agents of chapter 2 work on any Gymnasium env with an action mask: keyed by the
# position's bitboards, a Q-learning agent learns 4x4 Othello against a random opponent
# (playing both colours). Its greedy play is then measured against the same opponent, beside a
# random agent's. On 4x4 a random agent wins about 45% of its games against a random opponent.

# %%
EPISODES = 50_000 if FULL else 8_000
EVAL = 1_000 if FULL else 300


def play(agent, episodes: int, learn: bool, seed: int) -> list[float]:
    env4 = gym.make("othellolab/Othello4x4-v0", opponent="random", player_color="random")
    return [run_episode(env4, agent, learn=learn, seed=seed + i).reward for i in range(episodes)]


learner = make_agent(
    "q-learning", 17, seed=0, eta=0.2, gamma=1.0, epsilon=EpsilonSchedule(0.3, 1.0, 0.3)
)
play(learner, EPISODES, True, 0)
learned = np.mean(np.array(play(learner, EVAL, False, 10**6)) > 0)
walker = make_agent("random", 17, seed=0)
baseline = np.mean(np.array(play(walker, EVAL, True, 10**6)) > 0)
print(f"wins against random: Q-learning {learned:.1%}, random agent {baseline:.1%}")

# %% [markdown]
# ## A library's agent: MaskablePPO
#
# With sb3-contrib installed (`pip install -e '.[rl]'`), `MaskablePPO` trains on the env as it
# is. The full example, graded on solved 6x6 positions: `python examples/train_maskable_ppo.py
# --steps 20000` (86% wins against random after 20,000 steps, 16 CPU s; `docs/rl.md`).

# %%
if importlib.util.find_spec("sb3_contrib") is None:
    print("sb3-contrib is not installed (pip install -e '.[rl]'): MaskablePPO skipped")
else:
    from sb3_contrib import MaskablePPO

    ppo_env = gym.make("othellolab/Othello6x6-v0", opponent="random", player_color="random")
    model = MaskablePPO(
        "MultiInputPolicy", ppo_env, n_steps=256, batch_size=64, seed=0, verbose=0, device="cpu"
    )
    model.learn(20_000 if FULL else 1_024)
    print("MaskablePPO trained", model.num_timesteps, "steps")

# %% [markdown]
# What this learned: the Q-learning agent wins clearly more often than a random agent against
# the same random opponent.

# %%
assert learned >= baseline + 0.1, (learned, baseline)
