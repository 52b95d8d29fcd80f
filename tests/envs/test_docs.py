"""``docs/envs.md`` states the spaces, versions and options of every env: check them against
the code, so that the docs cannot drift."""

from __future__ import annotations

import inspect
import re

import gymnasium as gym
import pytest

from othellolab.envs import (
    ANIMAL_SHOGI_ENV_ID,
    ENV_IDS,
    AnimalShogiEnv,
    GameEnv,
    GameVectorEnv,
    OthelloVectorEnv,
)
from othellolab.envs.pettingzoo import raw_env

from helpers import REPO

DOC = REPO / "docs" / "envs.md"


def tables() -> dict[str, list[list[str]]]:
    """The first table under each heading: its body rows as lists of cells."""
    out: dict[str, list[list[str]]] = {}
    heading = ""
    for line in DOC.read_text().splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            out.setdefault(heading, []).append(cells)
    return {h: rows[2:] for h, rows in out.items()}  # drop the header and the rule


def code(cell: str) -> str:
    m = re.search(r"`([^`]*)`", cell)
    assert m, f"no code span in {cell!r}"
    return m.group(1)


def test_spaces_and_versions_table() -> None:
    rows = tables()["Spaces and versions"]
    gym_ids = [code(r[0]) for r in rows if code(r[0]) in ENV_IDS]
    assert sorted(gym_ids) == sorted(ENV_IDS), "every registered id has a row"
    assert ANIMAL_SHOGI_ENV_ID in [code(r[0]) for r in rows]
    for name, version, action, planes, mask_cell in rows:
        key = code(name)
        if key == ANIMAL_SHOGI_ENV_ID:  # a Box observation; the mask in info
            env = gym.make(key).unwrapped
            mask = env.reset(seed=0)[1]["action_mask"]
            assert str(env.spec.version) == version
            assert repr(env.action_space) == code(action)
            assert repr(env.observation_space) == code(planes)
            assert f"Box(0, 1, ({mask.shape[0]},), {mask.dtype})" == code(mask_cell)
            continue
        if key in ENV_IDS:
            env = gym.make(key).unwrapped
            assert str(env.spec.version) == version
            obs_space, act_space = env.observation_space, env.action_space
        elif key in ("othellolab_othello_v0", "othellolab_animal_shogi_v0"):
            env = raw_env(key.removeprefix("othellolab_").removesuffix("_v0").replace("_", "-"))
            assert env.metadata["name"] == key and key.endswith(f"_v{version}")
            first, second = env.possible_agents
            obs_space, act_space = env.observation_space(first), env.action_space(second)
        elif key == "OthelloVectorEnv":
            env = OthelloVectorEnv()
            obs_space, act_space = env.single_observation_space, env.single_action_space
        elif key == "GameVectorEnv":
            env = GameVectorEnv(2, game=re.search(r"game=\"([^\"]+)\"", name)[1])
            obs_space, act_space = env.single_observation_space, env.single_action_space
        else:
            raise AssertionError(f"unknown env in docs/envs.md: {key}")
        assert repr(act_space) == code(action)
        assert repr(obs_space["observation"]) == code(planes)
        assert repr(obs_space["action_mask"]) == code(mask_cell)


@pytest.mark.parametrize(
    ("heading", "cls"),
    [
        ("`GameEnv`", GameEnv),
        ("PettingZoo `raw_env` (`env()` adds PettingZoo's bounds and order wrappers)", raw_env),
        ("`GameVectorEnv`", GameVectorEnv),
        ("`AnimalShogiEnv`", AnimalShogiEnv),
    ],
)
def test_options_tables(heading: str, cls: type) -> None:
    rows = tables()[heading]
    params = {
        n: p.default for n, p in inspect.signature(cls.__init__).parameters.items() if n != "self"
    }
    assert [code(r[0]) for r in rows] == list(params), "options in the signature's order"
    for name, default, _values in rows:
        assert code(default) == repr(params[code(name)]), f"default of {code(name)}"
