"""Reinforcement-learning environments for any game: Gymnasium (single agent and vector) and
PettingZoo, one class of each kind taking a game (``GameEnv``, ``GameVectorEnv``,
``pettingzoo.raw_env``).

Importing this package registers the Gymnasium ids ``othellolab/Othello-v0`` (8x8),
``othellolab/Othello6x6-v0`` and ``othellolab/Othello4x4-v0``, animal shogi's
``othellolab/AnimalShogi-v0``, ``othellolab/Game-v0`` (``GameEnv``: ``gym.make(id,
game=...)``) and the grid maze of the reinforcement-learning tutorial, ``othellolab/Maze-v0``;
``gym.make`` can also import it itself: ``gym.make("othellolab.envs:othellolab/Othello-v0")``.
The PettingZoo AEC env lives in ``othellolab.envs.pettingzoo`` (imported on demand, so that
PettingZoo stays optional).
"""

from othellolab.envs.gymnasium import (
    ANIMAL_SHOGI_ENV_ID,
    ENV_IDS,
    GAME_ENV_ID,
    AnimalShogiEnv,
    GameEnv,
    OthelloEnv,
    register_envs,
)
from othellolab.envs.maze import MazeEnv, register_maze
from othellolab.envs.opponents import Opponent
from othellolab.envs.vector import GameVectorEnv, OthelloVectorEnv

register_envs()
register_maze()

__all__ = [
    "ANIMAL_SHOGI_ENV_ID",
    "ENV_IDS",
    "GAME_ENV_ID",
    "AnimalShogiEnv",
    "GameEnv",
    "GameVectorEnv",
    "MazeEnv",
    "Opponent",
    "OthelloEnv",
    "OthelloVectorEnv",
    "register_envs",
    "register_maze",
]
