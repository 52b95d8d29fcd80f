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
# # 4. AlphaZero on 6x6, graded against perfect play
#
# AlphaZero learns from its own games: the best network plays games with a tree search
# (MCTS), the search's visit counts and the games' results become training targets, the
# network trains on a window of recent games, and the next generation plays. On 6x6 Othello
# every move can be checked: a set of 2,478 positions from every stage of the game, each
# with its optimal moves found by the exact solver, grades a network against perfect play.
# The reference page is `docs/selfplay.md`.
#
# Quick mode: under 45 s on 2 CPU cores; `OTHELLOLAB_COURSE_FULL=1` runs the repository's
# first-run config (`configs/alphazero-6x6-quick.toml`, about 5 minutes).

# %%
import os
import sys
import tempfile
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # a script draws into files, a notebook inline
import matplotlib.pyplot as plt
import torch

from othellolab import Board, make_player
from othellolab.arena import play_match
from othellolab.core import svg
from othellolab.nn.inference import NetworkEvaluator
from othellolab.nn.pretrained import resolve
from othellolab.players.search.solved6 import load_graded_set
from othellolab.training.selfplay.grading import grade_evaluator
from othellolab.training.selfplay.pipeline import read_metrics, train_selfplay
from othellolab.training.selfplay.runconfig import SelfPlayRunConfig, load_run_config

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")
OUT = Path(os.environ.get("OTHELLOLAB_COURSE_OUT") or tempfile.mkdtemp(prefix="course-04-"))
OUT.mkdir(parents=True, exist_ok=True)
torch.set_num_threads(1)

# %% [markdown]
# ## A short run from random weights
#
# A run is a TOML config (here a dict with the same tables) and a run folder: `start` writes
# the random generation 0, then each generation is **selfplay** (games into shards),
# **train** (on the window of recent shards, under the 8 symmetries), **grade** (against
# perfect play). Every stage writes its output by one rename, so a killed run resumes.
#
# The full budget: `othellolab train selfplay configs/alphazero-6x6.toml` (2 CPU-hours). Its
# measured curve (`docs/selfplay.md`, "Measured"; `experiments/az-6x6/`): the raw policy picks
# an optimal move in 34.2% of the graded positions at generation 0, 52.5% at generation 5,
# 61.5% at generation 250, the shipped `az-6x6`.

# %%
GRADE_POSITIONS = 300  # the first run's config grades on the same 300 positions
if FULL:
    quick = next(
        root / "configs" / "alphazero-6x6-quick.toml"
        for root in (Path.cwd(), *Path.cwd().parents)
        if (root / "configs" / "alphazero-6x6-quick.toml").is_file()
    )  # the checkout's config, from course/ (a notebook) or the checkout's root (a script)
    cfg, _ = load_run_config(quick, {"runs_dir": str(OUT / "runs")})
else:
    cfg = SelfPlayRunConfig.from_dict(
        {
            "name": "az-6x6-course",
            "size": 6,
            "runs_dir": str(OUT / "runs"),
            "model": {"preset": "resnet-b1c16"},
            "selfplay": {"simulations": 16, "parallel": 64, "resign_threshold": -1.0},
            "loop": {"generations": 1, "games": 64, "shards": 1, "workers": 1, "window": 2},
            "train": {"batch_size": 64, "samples_per_position": 2.0},
            "optim": {"lr": 0.003},
            "grade": {"every": 1, "simulations": [0], "positions": GRADE_POSITIONS},
            "runtime": {"threads": 1},
        }
    )
summary = train_selfplay(cfg, progress=False)
print(summary)
grades = [m for m in read_metrics(Path(cfg.runs_dir) / cfg.name) if m.get("kind") == "grade"]
share = {g["generation"]: g["simulations"]["0"]["optimal_share"] for g in grades}
for gen, s in share.items():
    print(f"generation {gen}: raw policy optimal on {s:.1%} of {GRADE_POSITIONS} positions")
random_share = share[0]

# %% [markdown]
# One generation of 64 games teaches a network little (the quick config's 12 generations of
# 256 games took its raw policy from 31% to 50% on these 300 positions, `docs/selfplay.md`, "A
# first run"). The shipped generation shows what two CPU-hours bought: graded on the same
# positions, its raw policy (the network alone) and with 32 simulations of search.

# %%
entries = load_graded_set()[:GRADE_POSITIONS]
shipped = NetworkEvaluator.from_dir(resolve("az-6x6"))
shipped_grades = grade_evaluator(shipped, "othello6", simulations=(0, 32), entries=entries)
for sims, g in shipped_grades.items():
    print(f"az-6x6, {sims} simulations: optimal on {g.optimal_share:.1%}")

# %% [markdown]
# ## What the network sees
#
# The shipped network's policy on a 6x6 position, drawn as a heat map over the legal moves
# (`svg.board(values=policy)`), and a few games of the `alphazero` player against `random`.
# To play it yourself in the browser: `othellolab serve --open`, choose 6x6 and the opponent
# `alphazero:model=az-6x6` (or in the terminal: `othellolab play --opponent
# alphazero:model=az-6x6 --size 6`).

# %%
board = Board(size=6).play("d5").play("e5")
seen = shipped.evaluate_boards([board])
drawing = svg.board(board, values=seen.priors[0], size=260)
if "ipykernel" in sys.modules:
    from IPython.display import SVG, display

    display(SVG(drawing))
else:
    (OUT / "policy6x6.svg").write_text(drawing)
print(f"value for the side to move: {float(seen.values[0]):+.2f}")
az = make_player("alphazero:model=az-6x6,sims=32")
print(play_match(az, make_player("random:seed=0"), games=20 if FULL else 4, size=6))

# %%
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(["random net", "az-6x6 raw", "az-6x6 + 32 sims"],
       [random_share, shipped_grades[0].optimal_share, shipped_grades[32].optimal_share])  # fmt: skip
ax.set_ylabel("optimal-move share")
fig.tight_layout()
fig.savefig(OUT / "grades.png")

# %% [markdown]
# What this measured: the shipped network picks an optimal move far more often than a
# random network (61.5% against 34.2% over the whole set in `docs/selfplay.md`).

# %%
assert shipped_grades[0].optimal_share > random_share + 0.2, (shipped_grades, random_share)
