"""The maze environment: the tutorial's layout, maps read and written back, errors that locate
the fault, Gymnasium's checker, rendering."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import othellolab.envs  # noqa: F401 - registers the ids
from othellolab.core import ConfigError, OthelloError
from othellolab.envs.maze import (
    DOWN,
    LEFT,
    RIGHT,
    TUTORIAL_MAP,
    TUTORIAL_MAZE,
    UP,
    MazeEnv,
    MazeMapError,
    parse_maze,
    render_maze_rgb,
)

# The tutorial's theta_0: for S0..S7 the open moves (up, right, down, left); S8 is the goal.
TUTORIAL_THETA0_OPEN = [
    [0, 1, 1, 0],
    [0, 1, 0, 1],
    [0, 0, 1, 1],
    [1, 1, 1, 0],
    [0, 0, 1, 1],
    [1, 0, 0, 0],
    [1, 0, 0, 0],
    [1, 1, 0, 0],
]


def test_tutorial_layout_opens_exactly_the_tutorials_moves() -> None:
    masks = [TUTORIAL_MAZE.open_mask(s).tolist() for s in range(8)]
    assert masks == TUTORIAL_THETA0_OPEN
    assert (TUTORIAL_MAZE.start, TUTORIAL_MAZE.goal) == (0, 8)


def test_tutorial_shortest_path_is_s0_s3_s4_s7_s8() -> None:
    # The tutorial's solved walk visits S0, S3, S4, S7, S8: 4 moves.
    env = MazeEnv()
    env.reset(seed=0)
    cells = [0]
    for a in (DOWN, RIGHT, DOWN, RIGHT):
        obs, reward, terminated, truncated, _ = env.step(a)
        cells.append(int(obs))
    assert cells == [0, 3, 4, 7, 8]
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert TUTORIAL_MAZE.shortest_path_length() == 4


def test_walls_and_edges_leave_the_agent_in_place() -> None:
    env = MazeEnv()
    env.reset()
    obs, reward, terminated, _, info = env.step(UP)  # the top edge
    assert int(obs) == 0 and reward == 0.0 and not terminated and info["bumped"]
    env.step(RIGHT)  # S1: the wall below it
    obs, *_, info = env.step(DOWN)
    assert int(obs) == 1 and info["bumped"]
    assert env.action_masks().tolist() == [False, True, False, True]


def test_map_round_trip_traps_and_blocked_cells() -> None:
    text = "S . . .\n  - -\n. T # .\n\n. . . G"
    layout = parse_maze(text)
    assert parse_maze(layout.text()) == layout
    assert parse_maze(TUTORIAL_MAZE.text()) == TUTORIAL_MAZE
    assert layout.traps == (5,) and layout.cells[6] == "#"
    # S(0,0) -> down (1,0) -> down (2,0) -> right x3 = 5 moves; the trap and block are avoided.
    assert layout.shortest_path_length() == 5
    env = MazeEnv(layout=text)
    env.reset()
    env.step(DOWN)
    obs, reward, terminated, _, _ = env.step(RIGHT)  # into the trap
    assert int(obs) == 5 and reward == -1.0 and terminated


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("S . x\n\n. . G", 1, 5, "cell (row 1, column 3) is 'x'"),
        ("S . .\n  =\n. . G", 2, 3, "'=' between cells (rows 1 and 2, column 2)"),
        ("S-. .\n\n. . G", 1, 2, "'-' between cells (row 1, columns 1 and 2)"),
        ("S|.|.\n- - -\n. .|G\n    -\n. . .", 1, 1, "no path from the start (row 1, column 1)"),
        ("S . .\n. . G", 2, 1, "2 lines"),
        (
            "  . . .\n    -\n  .|S|.\n    -\n  . . G",
            3,
            5,
            "no path from the start (row 2, column 2)",
        ),
    ],
)
def test_bad_maps_name_the_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(MazeMapError) as info:
        parse_maze(text)
    assert isinstance(info.value, OthelloError)
    assert words in str(info.value)
    assert (info.value.line, info.value.column) == (line, column), str(info.value)


def test_start_and_goal_must_be_unique() -> None:
    with pytest.raises(MazeMapError, match="exactly one goal 'G', found 2"):
        parse_maze("S G\n\nG .")
    with pytest.raises(MazeMapError, match="exactly one start 'S', found 0"):
        parse_maze(". G")


@pytest.mark.parametrize(
    ("option", "value"),
    [("max_steps", 0), ("max_steps", 2.5), ("goal_reward", float("nan")), ("render_mode", "human")],
)
def test_options_are_checked(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"option {option}"):
        MazeEnv(**{option: value})


def test_passes_gymnasiums_checker_and_renders() -> None:
    env = gym.make("othellolab/Maze-v0", render_mode="rgb_array")
    check_env(env.unwrapped, skip_render_check=False)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (3 * 48 + 3, 3 * 48 + 3, 3) and frame.dtype == np.uint8
    text = MazeEnv(render_mode="ansi")
    text.reset()
    assert "A . ." in text.render()


def test_truncation_after_max_steps() -> None:
    env = MazeEnv(max_steps=3)
    env.reset()
    results = [env.step(LEFT) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(LEFT)


def test_value_map_shades_cells_by_value() -> None:
    values = np.zeros(9)
    values[4] = 1.0
    img = render_maze_rgb(TUTORIAL_MAZE, values=values)
    centre = img[48 + 24, 48 + 24]  # S4, the highest value: dark green
    corner = img[24, 24]  # S0, value 0: near white
    assert centre[1] > centre[0] and centre.sum() < corner.sum()


def test_tutorial_map_constant_is_the_default_layout() -> None:
    assert MazeEnv().layout == parse_maze(TUTORIAL_MAP)


def doc_tables() -> list[list[list[str]]]:
    """The body rows of each table of docs/rl.md's maze section."""
    from helpers import REPO

    text = (REPO / "docs" / "rl.md").read_text().split("## 2.")[0]
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            tables.append(current[2:])
            current = []
    return tables


def test_docs_spec_and_options_tables_match_the_env() -> None:
    import inspect
    import re

    spec, options = doc_tables()[:2]
    env = gym.make("othellolab/Maze-v0").unwrapped
    (row,) = spec
    assert row[0] == "`othellolab/Maze-v0`"
    assert row[1] == f"`{env.observation_space!r}`" and row[2] == f"`{env.action_space!r}`"
    params = {
        n: p.default
        for n, p in inspect.signature(MazeEnv.__init__).parameters.items()
        if n != "self"
    }
    names = [re.search(r"`([^`]*)`", r[0]).group(1) for r in options]
    assert names == list(params), "options in the signature's order"
    for name, default, _ in options:
        key = re.search(r"`([^`]*)`", name).group(1)
        shown = re.search(r"`([^`]*)`", default).group(1)
        expected = "TUTORIAL_MAZE" if params[key] is TUTORIAL_MAZE else repr(params[key])
        assert shown == expected, key
