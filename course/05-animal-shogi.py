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
# # 5. The same pipeline on animal shogi
#
# Animal shogi (dobutsu shogi) is a 3x4 shogi for children: a lion, a giraffe, an elephant and
# a chick each, captured pieces dropped back, a chick promoted to a hen on the far row, and a
# win by capturing the lion or by the lion reaching the far row and surviving a turn. It joins
# othellolab through the same game protocol as Othello, so self-play, MCTS, the arena, the
# envs and the web board run it unchanged. The reference is `docs/selfplay.md`, "A second game".
#
# Quick mode: under 45 s on 2 CPU cores; `OTHELLOLAB_COURSE_FULL=1` trains and plays longer.

# %%
import os
import sys
import tempfile
from pathlib import Path

import torch

from othellolab import get_game, make_player
from othellolab.arena import opening_set, play_match
from othellolab.core import svg
from othellolab.core.animal_shogi import AnimalShogi, perft, start_state
from othellolab.training.selfplay.pipeline import train_selfplay
from othellolab.training.selfplay.runconfig import SelfPlayRunConfig

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")
OUT = Path(os.environ.get("OTHELLOLAB_COURSE_OUT") or tempfile.mkdtemp(prefix="course-05-"))
OUT.mkdir(parents=True, exist_ok=True)
torch.set_num_threads(1)

# %% [markdown]
# ## The position and its rules
#
# `AnimalShogi.start()` is the start position (SFEN notation, as in shogi); it draws itself in
# a notebook like a `Board`. Perft checks the move generator: the published counts (lishogi's
# and Fairy-Stockfish's, cited in `tests/core/test_animal_shogi.py`) agree with ours up to
# depth 5; from depth 6 the try rule differs (ours: the lion on the far row wins at the start
# of its owner's next turn if it was not captured).

# %%
game = get_game("animal-shogi")
position = AnimalShogi.start()
print(position.sfen(), position.legal_moves())
drawing = svg.board(position, size=200)
if "ipykernel" in sys.modules:
    from IPython.display import SVG, display

    display(SVG(drawing))
else:
    (OUT / "start.svg").write_text(drawing)

PUBLISHED = {1: 4, 2: 17, 3: 123, 4: 976, 5: 8122}
p, o = start_state()
counts = {d: perft(p, o, d) for d in PUBLISHED}
print(counts)
assert counts == PUBLISHED, counts

# %% [markdown]
# ## Self-play: the same config, another game
#
# The config names the game at its top (`game = "animal-shogi"`); everything else is the
# Othello run's. The full run, `othellolab train selfplay configs/alphazero-animal-shogi.toml`
# (`experiments/az-animal-shogi/`), beat the 4-ply alpha-beta 25-6-9 after 5 generations (0.06
# CPU-hours) and 36-0-4 at generation 40, which ships as `az-animal-shogi` (`docs/selfplay.md`).

# %%
cfg = SelfPlayRunConfig.from_dict(
    {
        "name": "animal-shogi-course",
        "game": "animal-shogi",
        "runs_dir": str(OUT / "runs"),
        "model": {"preset": "resnet-b1c16"},
        "selfplay": {"simulations": 8, "parallel": 32, "resign_threshold": -1.0},
        "loop": {"generations": 3 if FULL else 1, "games": 256 if FULL else 32, "shards": 1,
                 "workers": 1},
        "train": {"batch_size": 64, "samples_per_position": 1.0},
        "runtime": {"threads": 1},
    }
)  # fmt: skip
print(train_selfplay(cfg, progress=False))

# %% [markdown]
# ## The shipped network against fixed players
#
# `alphazero:model=az-animal-shogi` searches with the shipped network; `shogi-alphabeta` is a
# plain alpha-beta with a material evaluation. Openings are two random plies, each played with
# both colours.

# %%
GAMES = 40 if FULL else 8
az = make_player("alphazero:model=az-animal-shogi,sims=50")
openings = opening_set("random:2", GAMES // 2, game=game, seed=1)
results = {}
for spec in ("random:seed=0", "shogi-alphabeta:depth=2"):
    results[spec] = play_match(az, make_player(spec), games=GAMES, openings=openings, game=game)
    print(results[spec])

# %% [markdown]
# What this measured: the shipped network wins most of its games against a random player
# (the run's generation 40 went 39-0-1 in `docs/selfplay.md`).

# %%
assert results["random:seed=0"].score >= 0.75, results["random:seed=0"]
