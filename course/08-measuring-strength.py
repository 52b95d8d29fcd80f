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
# # 8. Measuring strength: tournaments, Elo with intervals, NBoard and external engines
#
# "Is it stronger?" needs games, many of them, on balanced openings with colours swapped, and
# an interval around every rating. This chapter runs a resumable round-robin tournament,
# fits maximum-likelihood Elo ratings with 95% intervals, writes the report, and drives an
# engine through the NBoard protocol, the way any external engine (Edax, NTest) is measured.
# The reference page is `docs/arena.md`.
#
# Quick mode: under 45 s on 2 CPU cores; `OTHELLOLAB_COURSE_FULL=1` plays 40 games a pairing.

# %%
import os
import shlex
import sys
import tempfile
from pathlib import Path

from othellolab import make_player
from othellolab.arena import (
    TournamentConfig,
    fit_ratings,
    pairing_results,
    play_match,
    read_openings,
    run_tournament,
    write_report,
)
from othellolab.arena.ratings import games_from_records

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")
OUT = Path(os.environ.get("OTHELLOLAB_COURSE_OUT") or tempfile.mkdtemp(prefix="course-08-"))
OUT.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## A tournament
#
# A tournament is a TOML file (here the same keys as a dict): the entrants by label and player
# spec, the games per pairing, the openings, the worker processes (`workers`: worker
# processes are started afresh, so from a notebook keep 1 or run the command line). Every finished game is
# appended to `results.jsonl` (and `games.ggf`), so the same call resumes after a kill. From
# the command line: `othellolab arena tournament configs/ladder.toml` (the project's ladder of
# every shipped player, 1,152 games, `docs/arena.md`).

# %%
config = TournamentConfig.from_dict(
    {
        "name": "course",
        "games": 40 if FULL else 8,
        "openings": "xot-small",
        "workers": 1,  # more need a script with a main guard, or the command line
        # a seed makes each game's moves the same on every run (each game reseeds the player
        # from it and the game's key), so the ratings below are too
        "players": {
            "random": "random:seed=1",
            "greedy": "greedy:seed=2",
            "ab2": "alphabeta:depth=2,evaluation=patterns,endgame=8,seed=3",
        },
    }
)
run = run_tournament(config, OUT / "tournament")
print(f"{run.played} games played in {run.seconds:.1f} s")
for _, result in sorted(pairing_results(run.records).items()):
    print(result)

# %% [markdown]
# ## Ratings with intervals
#
# `fit_ratings` fits Bradley-Terry ratings with draws and a first-move advantage by maximum
# likelihood, anchored at `random` = 0 Elo; each interval comes from the curvature of the
# likelihood (or `bootstrap=N` refits). `write_report` writes `report.md`, `ratings.json` and
# a plot; `othellolab arena ratings FOLDER` does the same from the command line.

# %%
ratings = fit_ratings(games_from_records(run.records), anchor="random")
print(ratings.table())
print(ratings.summary())
write_report(ratings, OUT / "tournament", title="Course tournament")
print(sorted(p.name for p in (OUT / "tournament").iterdir()))

# %% [markdown]
# ## An engine over NBoard
#
# `othellolab nboard --player SPEC` serves any player to the NBoard GUI or any program that
# speaks the protocol; the player `nboard:cmd='COMMAND'` drives an external NBoard engine in a
# subprocess (Edax: `nboard:cmd='edax -n 1',depth=10`). Here both sides are ours: the greedy
# player served over NBoard, measured against the greedy player in this process, so the
# two should score about evenly over many games.

# %%
command = shlex.join([sys.executable, "-m", "othellolab.cli", "nboard", "--player", "greedy"])
external = make_player(f'nboard:cmd="{command}",name=greedy-nboard')
GAMES = 20 if FULL else 4
print(play_match(external, make_player("greedy"), games=GAMES, openings=read_openings("xot-small")))
external.close()

# %% [markdown]
# What this measured: the 2-ply alpha-beta is rated above random with a 95% interval that
# excludes 0 (the ladder of `docs/arena.md` puts `alphabeta:evaluation=patterns,depth=2` at
# 444 Elo, 329 to 559).

# %%
assert ratings["ab2"].low > 0, ratings.table()
assert ratings.rows[0].label == "ab2", ratings.table()
