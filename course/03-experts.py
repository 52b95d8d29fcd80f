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
# # 3. Learning from experts: records, a dataset, an MLP and a ResNet policy
#
# The supervised path: game records become a dataset of positions (the move played, the final
# result), a network learns to predict the expert's move, its accuracy is measured on held-out
# games by phase, and the network plays as a player. The reference pages are
# `docs/formats.md`, `docs/datasets.md` and `docs/supervised.md`.
#
# The real experts are the WTHOR database (`othellolab data download wthor`, about 130,000
# tournament games); it does not ship with othellolab, so the quick mode makes its own expert
# games: the alpha-beta engine with the learned pattern evaluation, one ply deep, playing itself
# from the balanced XOT openings that do ship. A network that learns nothing fails the last
# cell. Quick mode: under 45 s on 2 CPU cores; `OTHELLOLAB_COURSE_FULL=1` plays more and deeper
# games and trains longer.

# %%
import os
import sys
import tempfile
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # a script draws into files, a notebook inline
import matplotlib.pyplot as plt
import numpy as np
import torch

from othellolab import make_player
from othellolab.arena import play_game, play_match, read_openings
from othellolab.datasets.build import build_dataset
from othellolab.datasets.heldout import load_positions
from othellolab.measure.model import measure_model
from othellolab.records import read_games, write_games
from othellolab.training.config import SupervisedConfig
from othellolab.training.supervised import train_supervised

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")
OUT = Path(os.environ.get("OTHELLOLAB_COURSE_OUT") or tempfile.mkdtemp(prefix="course-03-"))
OUT.mkdir(parents=True, exist_ok=True)
torch.manual_seed(0)

# %% [markdown]
# ## Expert games as records
#
# `play_game` returns a `GameRecord`; `write_games` writes records in the format its file's
# extension names (GGF here) and `read_games` reads them back, strictly: a bad move is an
# error naming the file, the game and the move.

# %%
GAMES = 1500 if FULL else 240
EXPERT = (
    "alphabeta:depth=2,evaluation=patterns,endgame=10"
    if FULL
    else ("alphabeta:depth=1,evaluation=patterns,endgame=6")
)
expert = make_player(EXPERT)
openings = read_openings("xot-small")[:GAMES]
records = [play_game(expert, expert, opening=op, headers={"round": i}) for i, op in
           enumerate(openings)]  # fmt: skip
games_file = OUT / "expert.ggf"
write_games(games_file, records)
print(f"{sum(1 for _ in read_games(games_file))} games of {EXPERT} written to {games_file}")

# %% [markdown]
# ## A dataset
#
# `build_dataset` replays every game into positions seen from the side to move (planes, the
# move, the result and final disc difference) and splits them by game into train, validation
# and test, so that no held-out position comes from a game seen in training.

# %%
report = build_dataset(
    [games_file], OUT / "dataset", val_fraction=0.1, test_fraction=0.1, progress=False,
    overwrite=True,
)  # fmt: skip
print(report)

# %% [markdown]
# ## Two networks
#
# The classic MLP (`mlp-classic`: two hidden layers of 100) and a small ResNet (`resnet-b2c16`)
# learn the expert's move (cross-entropy over the legal moves) and the result (mean squared
# error). The run lives in a run directory that a second start resumes; its exported model is
# a folder of safetensors weights and a JSON config.
#
# Full budget on WTHOR: `othellolab train supervised configs/supervised-example.toml`. The
# shipped `b6c48-all` reaches 0.574 top-1 on all 2,478 held-out games of WTHOR 2023, against
# 0.207 for a uniform choice among the legal moves (`docs/supervised.md`, "Held-out test";
# `experiments/wthor-2023/report.md`).

# %%
EPOCHS = 20 if FULL else 3


def train(name: str, model: dict) -> Path:
    cfg = SupervisedConfig.from_dict(
        {
            "name": name,
            "runs_dir": str(OUT / "runs"),
            "model": model,
            "data": {"dataset": str(OUT / "dataset")},
            "optim": {"lr": 0.003},
            "train": {"batch_size": 256, "epochs": EPOCHS, "log_every_steps": 10**6},
            "runtime": {"threads": 1, "mixed_precision": False},
        }
    )
    result = train_supervised(cfg, progress=False)
    print(name, {k: round(v, 3) for k, v in result.metrics.items()})
    return result.model_dir


models = {
    "mlp-classic": train("mlp", {"preset": "mlp-classic"}),
    "resnet-b2c16": train("resnet", {"preset": "resnet-b2c16"}),
}

# %% [markdown]
# ## Accuracy on held-out games, by phase
#
# `measure_model` reads the test split (games never trained on) and reports move prediction
# overall and per ten empties, beside the uniform chooser's odds (one over the number of legal
# moves, counting moves a symmetry of the position makes equal).

# %%
held_out = load_positions([OUT / "dataset"], split="test")
measured = {name: measure_model(path, held_out, progress=False) for name, path in models.items()}
fig, ax = plt.subplots(figsize=(6, 3.5))
for name, m in measured.items():
    phases = m.metrics["phases"]
    ax.plot([p["empties"][0] for p in phases], [p["top1"] for p in phases], "o-", label=name)
    print(f"{name}: top-1 {m.metrics['overall']['top1']:.3f}")
ax.plot(
    [p["empties"][0] for p in phases], [p["uniform_top1"] for p in phases], "k:",
    label="uniform among legal moves",
)  # fmt: skip
ax.set_xlabel("empty squares (phase start)")
ax.set_ylabel("top-1 accuracy on held-out games")
ax.invert_xaxis()
ax.legend()
fig.tight_layout()
fig.savefig(OUT / "accuracy-by-phase.png")
uniform = measured["mlp-classic"].metrics["overall"]["uniform_top1"]
print(f"uniform chooser: top-1 {uniform:.3f}")

# %% [markdown]
# ## The network as a player
#
# `policy:model=DIR` plays the network's most likely legal move; `alphazero:model=DIR` would
# search with it. Against `greedy` and the one-ply alpha-beta. The shipped `b6c48-all` scores
# 78.8% against greedy and 73.8% against `alphabeta:depth=1,endgame=0` over 200 games
# (`docs/supervised.md`, "strength table").

# %%
MATCH = 100 if FULL else 10
net = make_player(f"policy:model={models['resnet-b2c16']}")
for spec in ("greedy:seed=1", "alphabeta:depth=1,endgame=0"):
    print(play_match(net, make_player(spec), games=MATCH, openings=openings[-MATCH:]))

# %% [markdown]
# What this learned: the MLP predicts the expert's move on held-out games clearly better than
# a uniform choice among the legal moves.

# %%
top1 = measured["mlp-classic"].metrics["overall"]["top1"]
assert top1 > uniform + 0.05, (top1, uniform)
assert np.isfinite(measured["resnet-b2c16"].metrics["overall"]["top1"])
