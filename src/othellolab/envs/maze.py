"""A grid maze for the first steps of reinforcement learning, as a Gymnasium environment.

The default layout is the tutorial's 3x3 maze: cells ``S0..S8`` row-major, the start ``S0``
top-left, the goal ``S8`` bottom-right, and four walls between cells, so that the shortest
route is ``S0 -> S3 -> S4 -> S7 -> S8`` (4 moves). Any other layout comes from a small text map
(see ``parse_maze``). The agent moves up, right, down or left (actions 0-3, the tutorial's
order); a move into a wall, the edge or a blocked cell leaves it where it is.

>>> env = MazeEnv()
>>> obs, info = env.reset(seed=0)
>>> int(obs), info["action_mask"].tolist()   # from S0 only right and down are open
(0, [0, 1, 1, 0])
>>> env.layout.shortest_path_length()
4
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from othellolab.core import ConfigError, OthelloError

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
ACTION_NAMES = ("up", "right", "down", "left")
"""The four moves, in the tutorial's order (its ``theta`` columns are up, right, down, left)."""

_DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))

FLOOR, START, GOAL, TRAP, BLOCKED = ".", "S", "G", "T", "#"
CELL_CHARS = FLOOR + START + GOAL + TRAP + BLOCKED

TUTORIAL_MAP = "S . .\n  -  \n. .|.\n    -\n.|. G"
"""The tutorial's 3x3 maze as a map: walls between S1 and S4, S4 and S5, S5 and S8, S6 and S7
(its ``theta_0`` opens exactly the other moves)."""


class MazeMapError(OthelloError):
    """A maze map that cannot be read, or whose goal cannot be reached: ``line`` and ``column``
    (1-based, in the text) locate the character at fault, when there is one."""

    def __init__(self, what: str, *, line: int | None = None, column: int | None = None) -> None:
        self.line = line
        self.column = column
        where = "maze map" if line is None else f"maze map line {line}, column {column}"
        super().__init__(what, where=where)


@dataclass(frozen=True)
class MazeLayout:
    """A rectangular maze: ``cells`` row-major (``.`` floor, ``S`` start, ``G`` goal, ``T`` trap,
    ``#`` blocked) and the walls between neighbouring cells, as ``(cell, action)`` pairs that
    are closed (both directions are listed)."""

    rows: int
    cols: int
    cells: str
    walls: frozenset[tuple[int, int]]

    @property
    def n_cells(self) -> int:
        """Number of cells (the size of the observation space)."""
        return self.rows * self.cols

    @property
    def start(self) -> int:
        """The start cell."""
        return self.cells.index(START)

    @property
    def goal(self) -> int:
        """The goal cell."""
        return self.cells.index(GOAL)

    @property
    def traps(self) -> tuple[int, ...]:
        """Cells that end the episode with reward -1."""
        return tuple(i for i, c in enumerate(self.cells) if c == TRAP)

    def cell_name(self, cell: int) -> str:
        """``"S4"`` style name of a cell (the tutorial's)."""
        return f"S{cell}"

    def position(self, cell: int) -> tuple[int, int]:
        """``(row, column)`` of a cell, 0-based."""
        return divmod(cell, self.cols)

    def is_open(self, cell: int, action: int) -> bool:
        """Whether moving ``action`` from ``cell`` leaves it (no wall, edge or blocked cell)."""
        return self.target(cell, action) != cell

    def target(self, cell: int, action: int) -> int:
        """The cell reached by ``action`` from ``cell`` (itself when the way is closed)."""
        r, c = divmod(cell, self.cols)
        dr, dc = _DELTAS[action]
        r2, c2 = r + dr, c + dc
        if not (0 <= r2 < self.rows and 0 <= c2 < self.cols) or (cell, action) in self.walls:
            return cell
        nxt = r2 * self.cols + c2
        return cell if self.cells[nxt] == BLOCKED else nxt

    def open_mask(self, cell: int) -> np.ndarray:
        """``int8`` 0/1 over the four actions: the ways out of ``cell``."""
        return np.array([self.is_open(cell, a) for a in range(4)], dtype=np.int8)

    def distances(self) -> np.ndarray:
        """Fewest moves from each cell to the goal (-1 where it cannot be reached), never
        passing through a trap."""
        dist = np.full(self.n_cells, -1, dtype=np.int64)
        dist[self.goal] = 0
        queue = deque([self.goal])
        while queue:
            cell = queue.popleft()
            for a in range(4):
                prev = self.target(cell, a)  # walls are symmetric: a neighbour reaching `cell`
                if prev != cell and dist[prev] < 0 and self.cells[prev] != TRAP:
                    dist[prev] = dist[cell] + 1
                    queue.append(prev)
        return dist

    def shortest_path_length(self) -> int:
        """Fewest moves from the start to the goal."""
        return int(self.distances()[self.start])

    def text(self) -> str:
        """The layout as a map that ``parse_maze`` reads back."""
        lines = []
        for r in range(self.rows):
            row = []
            for c in range(self.cols):
                cell = r * self.cols + c
                row.append(self.cells[cell])
                if c < self.cols - 1:
                    row.append("|" if (cell, RIGHT) in self.walls else " ")
            lines.append("".join(row))
            if r < self.rows - 1:
                gaps = []
                for c in range(self.cols):
                    gaps.append("-" if (r * self.cols + c, DOWN) in self.walls else " ")
                    if c < self.cols - 1:
                        gaps.append(" ")
                lines.append("".join(gaps).rstrip())
        return "\n".join(lines)


def parse_maze(text: str) -> MazeLayout:
    """Read a maze map: cells on the even lines and columns, the gaps between them between.

    A cell is ``.`` (floor), ``S`` (start, exactly one), ``G`` (goal, exactly one), ``T`` (a
    trap: reward -1 and the episode ends) or ``#`` (blocked). Between two cells of a row, ``|``
    is a wall and a space is open; on the line between two rows, ``-`` under a cell is a wall
    below it and a space is open; the corners between gaps may hold anything of `` +-|``. Lines
    may be shorter than the longest (missing gaps are open); blank lines at the ends and a
    common indentation are ignored. Raises ``MazeMapError`` naming the line and column of the
    first bad character, or the start and goal when no path joins them.

    >>> parse_maze(TUTORIAL_MAP).shortest_path_length()
    4
    """
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise MazeMapError("the map is empty")
    indent = min(len(line) - len(line.lstrip(" ")) for line in lines if line.strip())
    first_line = text.splitlines().index(lines[0]) + 1
    lines = [line[indent:].rstrip() for line in lines]
    if len(lines) % 2 == 0:
        raise MazeMapError(
            f"{len(lines)} lines: a map has an odd number (cell rows, with a gap line between "
            "each two)",
            line=first_line + len(lines) - 1,
            column=1,
        )
    width = max(len(line) for line in lines)
    if width % 2 == 0:
        width += 1
    rows, cols = (len(lines) + 1) // 2, (width + 1) // 2
    cells: list[str] = []
    walls: set[tuple[int, int]] = set()
    for i, raw in enumerate(lines):
        line = raw.ljust(width)
        for j, ch in enumerate(line):
            where = {"line": first_line + i, "column": indent + j + 1}
            r, c = divmod(i, 2)[0], divmod(j, 2)[0]
            if i % 2 == 0 and j % 2 == 0:
                if ch not in CELL_CHARS:
                    raise MazeMapError(
                        f"cell (row {r + 1}, column {c + 1}) is {ch!r}; a cell is one of "
                        f"'.' floor, 'S' start, 'G' goal, 'T' trap, '#' blocked",
                        **where,
                    )
                cells.append(ch)
            elif i % 2 == 0 or j % 2 == 0:  # the gap beside a cell (i even) or below it
                across = i % 2 == 0
                wall = "|" if across else "-"
                if ch not in (" ", wall):
                    between = (
                        f"row {r + 1}, columns {c + 1} and {c + 2}"
                        if across
                        else f"rows {r + 1} and {r + 2}, column {c + 1}"
                    )
                    raise MazeMapError(
                        f"{ch!r} between cells ({between}); expected '{wall}' (wall) or ' ' (open)",
                        **where,
                    )
                if ch == wall:
                    cell = r * cols + c
                    walls |= (
                        {(cell, RIGHT), (cell + 1, LEFT)}
                        if across
                        else {(cell, DOWN), (cell + cols, UP)}
                    )
            elif ch not in " +-|":
                raise MazeMapError(
                    f"{ch!r} at a corner between gaps; expected ' ', '+', '-' or '|'", **where
                )
    grid = "".join(cells)
    for mark, name in ((START, "start"), (GOAL, "goal")):
        if grid.count(mark) != 1:
            raise MazeMapError(
                f"the map needs exactly one {name} {mark!r}, found {grid.count(mark)}"
            )
    layout = MazeLayout(rows, cols, grid, frozenset(walls))
    if layout.shortest_path_length() < 0:
        (sr, sc), (gr, gc) = layout.position(layout.start), layout.position(layout.goal)
        raise MazeMapError(
            f"no path from the start (row {sr + 1}, column {sc + 1}) to the goal "
            f"(row {gr + 1}, column {gc + 1}) that avoids walls, blocked cells and traps",
            line=first_line + 2 * sr,
            column=indent + 2 * sc + 1,
        )
    return layout


TUTORIAL_MAZE = parse_maze(TUTORIAL_MAP)
"""The tutorial's maze (shortest path 4 moves: S0, S3, S4, S7, S8)."""


class MazeEnv(gym.Env[np.int64, np.int64]):
    """The agent walks a maze from the start to the goal.

    Observation: the agent's cell (``Discrete(rows*cols)``, row-major). Actions: 0 up, 1
    right, 2 down, 3 left; a closed way leaves the agent in place (the step still counts).
    Reward: ``goal_reward`` on reaching the goal, ``trap_reward`` on a trap (both end the
    episode), ``step_reward`` otherwise. ``info["action_mask"]`` (and ``action_masks()``) marks
    the open ways, as the tutorial's ``theta_0`` does; the episode is truncated after
    ``max_steps``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        *,
        layout: MazeLayout | str = TUTORIAL_MAZE,
        goal_reward: float = 1.0,
        trap_reward: float = -1.0,
        step_reward: float = 0.0,
        max_steps: int = 1000,
        render_mode: str | None = None,
    ) -> None:
        self.layout = parse_maze(layout) if isinstance(layout, str) else layout
        for name, value in (
            ("goal_reward", goal_reward),
            ("trap_reward", trap_reward),
            ("step_reward", step_reward),
        ):
            if not np.isfinite(value):
                raise ConfigError(f"must be finite, got {value!r}", where="MazeEnv", option=name)
        if (
            isinstance(max_steps, bool)
            or not isinstance(max_steps, int | np.integer)
            or max_steps < 1
        ):
            raise ConfigError(
                f"must be a whole number >= 1, got {max_steps!r}",
                where="MazeEnv",
                option="max_steps",
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ConfigError(
                f"{render_mode!r} is not one of None, 'ansi', 'rgb_array'",
                where="MazeEnv",
                option="render_mode",
            )
        self.goal_reward = float(goal_reward)
        self.trap_reward = float(trap_reward)
        self.step_reward = float(step_reward)
        self.max_steps = int(max_steps)
        self.render_mode = render_mode
        n = self.layout.n_cells
        self.observation_space = spaces.Discrete(n)
        self.action_space = spaces.Discrete(4)
        self._next = np.array(
            [[self.layout.target(s, a) for a in range(4)] for s in range(n)], dtype=np.int64
        )
        self._masks = np.array([self.layout.open_mask(s) for s in range(n)], dtype=np.int8)
        self.cell = self.layout.start
        self.steps = 0
        self._done = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.int64, dict[str, Any]]:
        """Put the agent on the start cell."""
        super().reset(seed=seed)
        self.cell = self.layout.start
        self.steps = 0
        self._done = False
        return np.int64(self.cell), self._info()

    def step(self, action: Any) -> tuple[np.int64, SupportsFloat, bool, bool, dict[str, Any]]:
        """Move one cell (or bump into a wall and stay)."""
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        a = int(action)
        if not 0 <= a < 4:
            raise ValueError(f"action {action!r} is outside the action space 0..3")
        nxt = int(self._next[self.cell, a])
        bumped = nxt == self.cell
        self.cell = nxt
        self.steps += 1
        kind = self.layout.cells[nxt]
        terminated = kind in (GOAL, TRAP)
        reward = (
            self.goal_reward
            if kind == GOAL
            else self.trap_reward
            if kind == TRAP
            else self.step_reward
        )
        truncated = not terminated and self.steps >= self.max_steps
        self._done = terminated or truncated
        return np.int64(nxt), reward, terminated, truncated, self._info(bumped=bumped)

    def action_masks(self) -> np.ndarray:
        """Boolean vector of the open ways out of the current cell (the convention that
        sb3-contrib's maskable algorithms look for)."""
        return self._masks[self.cell].astype(bool)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The maze with the agent (``A``) as text, or as an RGB image."""
        if self.render_mode == "ansi":
            return render_maze_text(self.layout, agent=self.cell)
        if self.render_mode == "rgb_array":
            return render_maze_rgb(self.layout, agent=self.cell)
        gym.logger.warn("render() called without a render_mode: pass render_mode= to the env")
        return None

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"action_mask": self._masks[self.cell].copy(), "steps": self.steps, **extra}


def render_maze_text(layout: MazeLayout, *, agent: int | None = None) -> str:
    """The map with a border, the agent's cell shown as ``A``."""
    cells = list(layout.cells)
    if agent is not None:
        cells[agent] = "A"
    inner = MazeLayout(layout.rows, layout.cols, "".join(cells), layout.walls).text().splitlines()
    width = 2 * layout.cols - 1
    border = "+" + "-" * (width + 2) + "+"
    return "\n".join([border, *(f"| {line.ljust(width)} |" for line in inner), border]) + "\n"


_CELL_PX = 48
_WALL_PX = 3
_COLOURS = {
    FLOOR: (245, 245, 240),
    START: (200, 225, 255),
    GOAL: (190, 240, 190),
    TRAP: (250, 190, 190),
    BLOCKED: (90, 90, 90),
}


def render_maze_rgb(
    layout: MazeLayout,
    *,
    agent: int | None = None,
    values: np.ndarray | None = None,
    value_range: tuple[float, float] = (0.0, 1.0),
) -> np.ndarray:
    """The maze as an RGB image ``(rows*48+3, cols*48+3, 3)`` uint8: walls in red (as the
    tutorial draws them), start blue, goal green, traps pink, the agent a dark disc. With
    ``values`` (one per cell), each free cell is shaded from white (``value_range[0]``) to
    dark green (``value_range[1]``): the value map whose spreading the tutorial watches."""
    h, w = layout.rows * _CELL_PX + _WALL_PX, layout.cols * _CELL_PX + _WALL_PX
    img = np.empty((h, w, 3), dtype=np.uint8)
    img[:] = (200, 200, 200)  # the grid lines between open cells
    lo, hi = value_range
    span = hi - lo if hi > lo else 1.0
    inner = _CELL_PX - _WALL_PX
    for cell, kind in enumerate(layout.cells):
        y, x = (k * _CELL_PX + _WALL_PX for k in layout.position(cell))
        colour = np.array(_COLOURS[kind], dtype=np.float64)
        if values is not None and kind in (FLOOR, START) and np.isfinite(values[cell]):
            t = float(np.clip((values[cell] - lo) / span, 0.0, 1.0))
            colour = (1 - t) * np.array([250, 250, 250]) + t * np.array([20, 110, 50])
        img[y : y + inner, x : x + inner] = colour.astype(np.uint8)
    red = (210, 30, 30)
    img[:_WALL_PX], img[-_WALL_PX:], img[:, :_WALL_PX], img[:, -_WALL_PX:] = red, red, red, red
    for cell in range(layout.n_cells):
        y, x = (k * _CELL_PX for k in layout.position(cell))
        if (cell, RIGHT) in layout.walls:
            img[y : y + _CELL_PX + _WALL_PX, x + _CELL_PX : x + _CELL_PX + _WALL_PX] = red
        if (cell, DOWN) in layout.walls:
            img[y + _CELL_PX : y + _CELL_PX + _WALL_PX, x : x + _CELL_PX + _WALL_PX] = red
    if agent is not None:
        y, x = (k * _CELL_PX + _WALL_PX for k in layout.position(agent))
        yy, xx = np.mgrid[0:inner, 0:inner] - (inner - 1) / 2
        img[y : y + inner, x : x + inner][yy * yy + xx * xx <= (0.3 * inner) ** 2] = (40, 40, 40)
    return img


MAZE_ENV_ID = "othellolab/Maze-v0"
"""The Gymnasium id of ``MazeEnv`` (the tutorial's layout unless ``layout=`` is given)."""


def register_maze() -> None:
    """Register ``othellolab/Maze-v0`` with Gymnasium (idempotent)."""
    if MAZE_ENV_ID not in gym.registry:
        gym.register(id=MAZE_ENV_ID, entry_point="othellolab.envs.maze:MazeEnv")
