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
# # 7. The engine: alpha-beta, the pattern evaluation, ProbCut and the exact solver
#
# othellolab's strongest player is a classic Othello engine: alpha-beta search (negascout
# with a transposition table and iterative deepening) over a learned **pattern evaluation**,
# **multi-ProbCut** to prune moves a shallow search already condemns, an opening **book**,
# and an **exact solver** for the last 18-30 empty squares. The reference pages are
# `docs/players.md` and `docs/engine-training.md`; the Elo of each part comes from
# `docs/arena.md`.
#
# Quick mode: under 45 s on 2 CPU cores; `OTHELLOLAB_COURSE_FULL=1` plays a longer match.

# %%
import os
from pathlib import Path

from othellolab import COLOR_NAMES, Board, make_player, square_name
from othellolab.arena import play_match, read_openings
from othellolab.players.search.endgame import solve
from othellolab.players.search.evaluation import named_evaluation
from othellolab.records import read_obf

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")


def repository_file(relative: str) -> Path:
    """A file of the othellolab checkout, found from the working folder or one above it (a
    notebook runs in course/, a script from the checkout's root)."""
    for root in (Path.cwd(), *Path.cwd().parents):
        if (root / relative).is_file():
            return root / relative
    raise FileNotFoundError(f"{relative}: run this chapter from an othellolab checkout")


# %% [markdown]
# ## The evaluations
#
# An evaluation scores a position for the side to move in discs. `heuristic` is hand-written
# (mobility, corners, stable discs); `patterns` sums learned weights of 46 square patterns
# (edges, corners, diagonals), fitted by least squares to game results
# (`othellolab train engine-fit`). At equal time, the learned `patterns-r1` is worth +76 Elo
# (0 to 152) over the first fit `patterns-wthor`, and ProbCut at 1.5 +214 Elo (130 to 299)
# over none (`docs/arena.md`, "Engine settings", 100 games at 4 s a side each).

# %%
board = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
for name in ("heuristic", "patterns"):
    print(f"{name:10s} {named_evaluation(name)(board):+.1f} discs for {COLOR_NAMES[board.turn]}")
print(board)

# %% [markdown]
# A match at equal depth shows what the evaluation alone is worth (the ladder of
# `docs/arena.md`: at depth 4, 620 Elo with patterns against 425 with the heuristic).

# %%
GAMES = 100 if FULL else 12
openings = read_openings("xot-small")[:GAMES]
match = play_match(
    make_player("alphabeta:depth=2,evaluation=patterns,endgame=8"),
    make_player("alphabeta:depth=2,evaluation=heuristic,endgame=8"),
    games=GAMES, openings=openings,
)  # fmt: skip
print(match)

# %% [markdown]
# ## The exact solver on FFO positions
#
# The FFO endgame suite is the standard test of Othello solvers: positions with their exact
# scores and best moves. `tests/data/fforum-1-19.obf` holds #1-#19 with every move's exact
# score, copied from Edax's problem files (the source is in `tests/data/README.md`). The solver
# must find each published score. The full benchmark, FFO #40-#59 (20-30 empties):
# `python benchmarks/bench_search.py --ffo 40-59`, all 20 solved in about 810 s on 2 cores
# (`docs/players.md`, "Speed").

# %%
entries = list(read_obf(repository_file("tests/data/fforum-1-19.obf")))  # 14-16 empties
solved = []
for e in entries:
    result = solve(e.board)
    published = max(score for _, score in e.moves)
    solved.append((result.score, published))
    print(
        f"{e.board.num_empties} empties: {square_name(result.best_move)} {result.score:+d} "
        f"(published {published:+d}), {result.nodes:,} nodes, {result.seconds:.2f} s"
    )

# %% [markdown]
# What this measured: the solver's score equals the published one on all 19 positions.

# %%
assert all(ours == published for ours, published in solved), solved
