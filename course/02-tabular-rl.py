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
# # 2. Tabular reinforcement learning: the maze, then 4x4 Othello graded by exact play
#
# The classic first steps of reinforcement learning: an agent in a 3x3 maze that walks at
# random, then learns with a policy gradient, SARSA and Q-learning. Then the same updates on
# 4x4 Othello, which is solved, so every move the agent learns is graded against perfect play.
# The reference page is `docs/rl.md`.
#
# Quick mode (the default) runs in under 45 seconds on 2 CPU cores;
# `OTHELLOLAB_COURSE_FULL=1` runs the budgets of `docs/rl.md`.

# %%
import os
import sys
import tempfile
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # a script draws into files, a notebook inline

from othellolab import Board
from othellolab.core import svg
from othellolab.envs.maze import MazeEnv
from othellolab.players.search.exact4 import Solution4
from othellolab.rl import EpsilonSchedule, make_agent, train_agent
from othellolab.rl.report import maze_curve_figure, othello_curve_figure
from othellolab.rl.smallboard import SmallBoardLearner

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")
OUT = Path(os.environ.get("OTHELLOLAB_COURSE_OUT") or tempfile.mkdtemp(prefix="course-02-"))
OUT.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## The maze
#
# Nine cells `S0..S8`, the agent starts top left and the goal is bottom right; walls make the
# shortest path 4 moves long (`S0 -> S3 -> S4 -> S7 -> S8`). `MazeEnv` is a Gymnasium env
# whose `info["action_mask"]` marks the open ways.

# %%
env = MazeEnv(render_mode="ansi")
env.reset(seed=0)
print(env.render())
shortest = env.layout.shortest_path_length()
print("shortest path:", shortest, "moves")

# %% [markdown]
# Every agent is driven by the same four calls (`act`, `observe`, `end_episode`,
# `greedy_action`) through `train_agent`, which also walks the greedy path after each
# episode. `docs/rl.md` ("Measured") runs ten seeds of each (`python examples/rl_tables.py`):
# the random walk takes 46.2 moves on average, Q-learning finds the 4-move path after 1 to 8
# episodes.

# %%
SEEDS = 10 if FULL else 3
EPISODES = {"random": 100, "policy-gradient": 300, "sarsa": 100, "q-learning": 100}
logs = {
    name: [
        train_agent(
            MazeEnv(),
            make_agent(name, 4, seed=s),
            episodes,
            seed=s,
            greedy_env=MazeEnv(max_steps=36),
        )
        for s in range(SEEDS)
    ]
    for name, episodes in EPISODES.items()
}
for name, runs in list(logs.items())[1:]:  # the random walk learns nothing
    firsts = [r.first_episode_at(shortest) for r in runs]
    print(f"{name:16s} first episode on the shortest path, per seed: {firsts}")
fig = maze_curve_figure(logs, shortest)
fig.savefig(OUT / "maze-curves.png")

# %%
assert all(r.first_episode_at(shortest) is not None for r in logs["q-learning"])

# %% [markdown]
# ## 4x4 Othello against its exact solution
#
# `Solution4.build()` solves 4x4 Othello (White wins by 10 with the empties to the winner) by
# a memoized negamax over all 58,533 positions in about a second; `grade()` gives a learner's
# **optimal-move share** over the 22,191 positions with a choice, and its score against a
# perfect opponent as Black and as White (perfect play: -10 and +10).
#
# `SmallBoardLearner` runs the same updates as the maze agents inside one Numba kernel, a
# million games in about a second. In self-play with uniformly random exploration
# (Q-learning is off-policy) and step 1, Q-learning reaches the exact values: `docs/rl.md`
# measured 61.2% after 10,000 games, 79.5% after 100,000, 98.3% after 1,000,000 and 100.0%
# after 10,000,000 (`othellolab rl othello4 --agent q-learning --opponent self --eta 1
# --episodes 10000000`, about 10 CPU seconds).

# %%
solution = Solution4.build()
learner = SmallBoardLearner(
    "q-learning", opponent="self", eta=1.0, epsilon=EpsilonSchedule(1.0, 1.0, 1.0),
    solution=solution,
)  # fmt: skip
marks = (10_000, 100_000, 1_000_000, 10_000_000) if FULL else (10_000, 100_000, 1_000_000)
points, done = [], 0
for mark in marks:
    learner.train(mark - done)
    done = mark
    grade = learner.grade()
    points.append((done, grade.optimal_share))
    print(
        f"{done:>10,} games: optimal moves {grade.optimal_share:.1%}, against perfect play "
        f"{grade.score_as_black:+d} as Black, {grade.score_as_white:+d} as White"
    )
fig = othello_curve_figure({"q-learning, eta 1, epsilon 1": points}, title="4x4 self-play")
fig.savefig(OUT / "othello4-curve.png")

# %% [markdown]
# The learned values on the start position: a heat map of Q for Black's four first moves
# (the disc difference at the end divided by 16, from the mover's side).

# %%
start = Board(size=4)
q = learner.q_values(start)
values = {a: float(q[a]) for a in start.legal_actions()} if q is not None else None
drawing = svg.board(start, values=values, value_format="+.2f", size=240)
if "ipykernel" in sys.modules:
    from IPython.display import SVG, display

    display(SVG(drawing))
else:
    (OUT / "q4x4.svg").write_text(drawing)

# %% [markdown]
# What this learned: after a million self-play games, the greedy move of the table is optimal
# in at least 95% of the 22,191 positions with a choice (98.3% measured in `docs/rl.md`), and
# it holds the game's value against perfect play.

# %%
assert grade.optimal_share >= 0.95, grade
assert (grade.score_as_black, grade.score_as_white) == (-10, 10), grade
