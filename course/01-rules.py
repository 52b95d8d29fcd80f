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
# # 1. The rules, perft, random and Monte Carlo players, a match with ratings
#
# This chapter plays Othello with othellolab's `Board`, counts the game tree (perft) and
# checks the counts against the published ones, then pits a random player, a greedy one and a
# flat Monte Carlo player against each other and rates them with Elo intervals.
#
# It runs as a script (`python course/01-rules.py`) in a quick mode of under 45 seconds on 2
# CPU cores; `OTHELLOLAB_COURSE_FULL=1` runs the full budget written beside each cell.

# %%
import os
import sys
import tempfile
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # a script draws into files, a notebook inline
import matplotlib.pyplot as plt

from othellolab import Board, make_player, square_name
from othellolab.arena import fit_ratings, play_match, read_openings
from othellolab.core import svg
from othellolab.core.kernels import perft

FULL = os.environ.get("OTHELLOLAB_COURSE_FULL", "") not in ("", "0")
OUT = Path(os.environ.get("OTHELLOLAB_COURSE_OUT") or tempfile.mkdtemp(prefix="course-01-"))
OUT.mkdir(parents=True, exist_ok=True)


def show(drawing: str, name: str) -> None:
    """An SVG drawing shown inline in a notebook, written to OUT when run as a script."""
    if "ipykernel" in sys.modules:
        from IPython.display import SVG, display

        display(SVG(drawing))
    else:
        (OUT / name).write_text(drawing)
        print(f"drew {OUT / name}")


# %% [markdown]
# ## A board
#
# `Board()` is the 8x8 start position; a `Board` never changes, `play` returns the next one.
# Squares are named `a1` (top left) to `h8`; an action is the square's index `row * 8 + col`,
# and `64` is a pass. In a notebook a board draws itself (`Board._repr_svg_`); `svg.board`
# draws it with options: the last move, the legal moves, a value per square.

# %%
board = Board()
print(board.legal_moves)
board = board.play("f5").play("d6").play("c3")
print(board)
show(svg.board(board, last="c3", size=300), "board.svg")

# %% [markdown]
# ## Perft: counting the game tree
#
# Perft counts the positions `depth` plies from the start (a pass counts as a ply). Aart Bik
# published the counts ("Perft for Reversi", http://www.aartbik.com/MISC/reversi.html; copied
# with their source in `tests/data/perft_start_position.json`). Matching them checks the move
# generator on millions of positions. The full budget counts 11 plies (212,258,800 leaves,
# about 3 s with the compiled kernels: `othellolab perft 11`, speed in `docs/benchmarks.md`).

# %%
PUBLISHED = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1396, 6: 8200, 7: 55092, 8: 390216, 9: 3005288}
if FULL:
    PUBLISHED.update({10: 24571284, 11: 212258800})
start = Board()
counts = {d: perft(start.player, start.opponent, d) for d in PUBLISHED}
for d, n in counts.items():
    print(f"perft({d}) = {n:,}")
assert counts == PUBLISHED, counts

# %% [markdown]
# ## Players
#
# Every way to choose a move is a `Player`, named by a spec string (`othellolab players` lists
# them with their options). `random` plays a uniformly random legal move, `greedy` the move
# that flips the most discs, `montecarlo` plays random games after each move and keeps the
# move that wins most of them.

# %%
players = {
    "random": make_player("random:seed=1"),
    "greedy": make_player("greedy:seed=2"),
    "montecarlo": make_player("montecarlo:playouts=30,seed=3"),
}
result = players["montecarlo"].choose(board)
print(f"Monte Carlo plays {square_name(result.move)}: {result.score}")

# %% [markdown]
# ## A round robin and ratings
#
# `play_match` plays games with colours alternating, each opening twice (once per colour);
# the openings come from the XOT list shipped with othellolab (balanced 8-move starts).
# `fit_ratings` fits maximum-likelihood Elo ratings (Bradley-Terry with draws and a colour
# advantage), anchored at `random` = 0, with 95% intervals. The full budget plays 200 games a
# pairing; the project's own ladder of every shipped player is in `docs/arena.md`
# (`othellolab arena tournament configs/ladder.toml`).

# %%
openings = read_openings("xot-small")  # a named list shipped inside the package
GAMES = 200 if FULL else 24
games = []
names = list(players)
for i, a in enumerate(names):
    for b in names[i + 1 :]:
        match = play_match(players[a], players[b], games=GAMES, openings=openings, keep_games=True)
        print(match)
        games += [(g.headers["black"], g.headers["white"], g.score) for g in match.games]
ratings = fit_ratings(games, anchor="random")
print(ratings.table())

# %%
fig, ax = plt.subplots(figsize=(5, 2.5))
rows = list(reversed(ratings.rows))
ax.errorbar(
    [r.rating for r in rows],
    range(len(rows)),
    xerr=[[r.rating - r.low for r in rows], [r.high - r.rating for r in rows]],
    fmt="o",
)
ax.set_yticks(range(len(rows)), [r.label for r in rows])
ax.set_xlabel("Elo (random = 0), 95% interval")
fig.tight_layout()
fig.savefig(OUT / "ratings.png")

# %% [markdown]
# What this measured: Monte Carlo with 30 playouts a move is far stronger than random (the
# interval of its rating lies above 0). The project's ladder (`docs/arena.md`, 1,152 games)
# puts `montecarlo:playouts=150` at 205 Elo (92 to 318) and `greedy` at 79 (-37 to 195) above
# `random`, and the default alpha-beta at 1 s a move at 1126.

# %%
assert ratings["montecarlo"].low > 0, ratings.table()
assert ratings.rows[0].label == "montecarlo", ratings.table()
