"""The six long jobs of issue 64 part 5 on tiny inputs, each with the rule that compares two
finished runs (``fault_harness.Job``): supervised training, self-play, the labelled positions,
a tournament, a dataset build and a book build.

Byte for byte: every file the jobs write, but for the records of times. Supervised training's
run folder is compared whole (weights, optimiser, checkpoint, metrics, the plot); the dataset's
arrays, the book's weights and searches, the labelled shards' arrays and self-play's weights and
shards' arrays too. The JSON records that hold times or speeds (the dataset's manifest, the
book's config, the shards' meta files, the models' config.json, the labelled summary,
self-play's ``metrics.jsonl``) are compared with those fields left out, after the readers have
checked every checksum. A tournament's games are compared, not its
bytes (each record holds its times and the results come in the order games finish): every
scheduled game once with the same moves and score (its seeded players are seeded per game), every
line parsed, ``games.ggf`` holding each game once, the report and plot there.
"""

from __future__ import annotations

import json
from pathlib import Path

from fault_harness import Job, same_but_times, same_bytes

from helpers import DATA

WTHOR = DATA / "wthor"

SUPERVISED = f"""\
name = "sup"
runs_dir = "runs"
seed = 3
[model]
preset = "resnet-b1c16"
[data]
wthor_dir = "{WTHOR}"
train_years = "2004"
max_games = 6
val_years = "2005"
max_val_games = 4
[train]
epochs = 2
batch_size = 32
checkpoint_every_steps = 3
log_every_steps = 3
[runtime]
threads = 1
"""
"""About 360 positions, 11 steps an epoch, a checkpoint every 3 steps and at each epoch's end."""

SELFPLAY = """\
name = "tiny4"
size = 4
seed = 1
runs_dir = "runs"
[model]
preset = "resnet-b2c16"
[selfplay]
simulations = 16
parallel = 32
score_value = 1.0
[loop]
generations = 2
games = 32
shards = 2
workers = 1
[train]
batch_size = 64
samples_per_position = 6.0
[grade]
every = 0
[runtime]
threads = 1
"""
"""tests/training/selfplay/test_pipeline.py's 4x4 run, smaller: 2 generations of 32 games."""

LABELLED = """\
seed = 7
games_per_shard = 2
shards = 8
[openings]
source = "start"
[randomise]
random_plies = 6
temperature = 2.0
softmax_depth = 1
first_ply = 6
last_ply = 20
[search]
depth = 2
table_bits = 16
[labels]
exact_empties = 10
search_depth = 2
"""
"""tests/fitting/labelled/conftest.py's tiny config in 8 shards of 2 games."""

TOURNAMENT = """\
name = "tiny"
mode = "round-robin"
games = 24
openings = "random:6"
seed = 1
size = 6
workers = 1
[players]
mc = "montecarlo:playouts=8,seed=1"
greedy = "greedy:seed=2"
random = "random:seed=3"
"""
"""72 short 6x6 games between seeded players."""

TIMES = {"wall_seconds", "cpu_seconds", "cpu_hours", "games_per_second", "positions_per_second"}
GAME_TIMES = {"seconds", "black_time", "white_time", "finished"}


def writer(name: str, text: str):
    def prepare(folder: Path) -> None:
        (folder / name).write_text(text)

    return prepare


def json_lines(path: Path, drop: set[str]) -> list[dict]:
    """The records of a JSON-lines file without the fields in ``drop`` (every line must parse)."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [{k: v for k, v in r.items() if k not in drop} for r in records]


def compare_supervised(a: Path, b: Path) -> list[str]:
    """The whole run folder byte for byte, but for the kept previous checkpoint, which only has
    to be a good one: which checkpoint it is depends on where a kill landed (a kill between the
    swap's two renames leaves the one before)."""
    from othellolab.training.rundir import checkpoint_problem

    diffs = same_bytes(a, b, skip=("train/state.prev/*",))
    problem = checkpoint_problem(b / "train/state.prev")
    return diffs + ([problem] if problem else [])


def compare_selfplay(a: Path, b: Path) -> list[str]:
    from othellolab.core.games import get_game
    from othellolab.training.selfplay.shards import list_shards, read_shard

    drop = TIMES | {"worker_pid"}
    timed = {"shards/*/shard.json": drop, "models/*/config.json": drop}
    diffs = same_but_times(a, b, timed, skip=("metrics.jsonl", "*.png", "report.md"))
    if json_lines(a / "metrics.jsonl", TIMES) != json_lines(b / "metrics.jsonl", TIMES):
        diffs.append("metrics.jsonl differs beyond its times")
    for _g, _k, path in list_shards(b / "shards"):  # every checksum
        read_shard(path, game=get_game("othello", size=4), games=True)
    return diffs


def compare_labelled(a: Path, b: Path) -> list[str]:
    from othellolab.fitting.labelled.shards import list_shards, read_shard

    timed = {
        "shards/*/shard.json": {"cpu_seconds", "seconds"},
        "summary.json": {"cpu_seconds", "positions_per_cpu_hour"},
    }
    diffs = same_but_times(a, b, timed)
    for _i, path in list_shards(b):
        read_shard(path)
    return diffs


def compare_dataset(a: Path, b: Path) -> list[str]:
    return same_but_times(a, b, {"manifest.json": {"created", "seconds"}})


def compare_book(a: Path, b: Path) -> list[str]:
    return same_but_times(a, b, {"config.json": {"created", "build_seconds"}})


def compare_tournament(a: Path, b: Path) -> list[str]:
    from othellolab.arena.results import load_results
    from othellolab.records.ggf import read_ggf

    diffs = same_bytes(a, b, skip=("results.jsonl", ".lock", "report.md", "*.png", "games.ggf"))
    ra, rb = load_results(a), load_results(b)
    # Every scheduled game once, with the same moves: a seeded player is seeded per game from
    # the game's key, so a resumed tournament plays the games an uninterrupted one plays.
    key = ("pairing", "round", "black", "white", "opening", "moves", "score")
    if sorted(tuple(str(r[k]) for k in key) for r in ra) != sorted(
        tuple(str(r[k]) for k in key) for r in rb
    ):
        diffs.append("results.jsonl holds other games")
    if len(rb) != len(list(read_ggf(b / "games.ggf"))):
        diffs.append("games.ggf does not hold every game once")
    diffs += [f"missing {name}" for name in ("report.md", "ratings.png") if not (b / name).exists()]
    return diffs


JOBS = [
    Job(
        "supervised",
        ["train", "supervised", "sup.toml", "--quiet"],
        "runs/sup",
        compare_supervised,
        writer("sup.toml", SUPERVISED),
    ),
    Job(
        "selfplay",
        ["train", "selfplay", "tiny4.toml", "--quiet"],
        "runs/tiny4",
        compare_selfplay,
        writer("tiny4.toml", SELFPLAY),
    ),
    Job(
        "engine-data",
        ["train", "engine-data", "labelled.toml", "--out", "labelled", "--quiet"],
        "labelled",
        compare_labelled,
        writer("labelled.toml", LABELLED),
    ),
    Job(
        "tournament",
        ["arena", "tournament", "tiny.toml", "--out", "arena", "--quiet"],
        "arena",
        compare_tournament,
        writer("tiny.toml", TOURNAMENT),
    ),
    Job(
        "dataset",
        [
            "dataset",
            "build",
            str(WTHOR / "WTH_2004.wtb"),
            str(WTHOR / "WTH_2005.wtb"),
            "--out",
            "dataset",
        ],
        "dataset",
        compare_dataset,
    ),
    Job(
        "book",
        [
            "book",
            "build",
            "--out",
            "book",
            "--wthor",
            str(WTHOR),
            "--years",
            "2004",
            "--max-games",
            "40",
            "--depth",
            "2",
            "--max-plies",
            "10",
            "--quiet",
        ],
        "book",
        compare_book,
    ),
]
"""The jobs, in the order the tests run them."""
