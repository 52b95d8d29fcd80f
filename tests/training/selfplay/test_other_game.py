"""The self-play stages on a second game: animal shogi through the game protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from othellolab.core import ConfigError
from othellolab.core.games import get_game
from othellolab.nn.io import read_model_info
from othellolab.training.selfplay.pipeline import train_selfplay
from othellolab.training.selfplay.runconfig import SelfPlayRunConfig
from othellolab.training.selfplay.shards import ShardError, list_shards, read_shard

TINY = {
    "name": "shogi",
    "game": "animal-shogi",
    "seed": 3,
    "runs_dir": "runs",
    "model": {"preset": "resnet-b1c8"},
    "selfplay": {"simulations": 8, "parallel": 32, "resign_threshold": -1.0},
    "loop": {"generations": 2, "games": 32, "shards": 2},
    "train": {"batch_size": 32, "samples_per_position": 2.0},
    "rate": {"every": 1, "games": 6, "simulations": 8, "opponents": ["random"]},
}


def test_animal_shogi_runs_through_every_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    summary = train_selfplay(SelfPlayRunConfig.from_dict(TINY), progress=False)
    root = tmp_path / "runs/shogi"
    assert summary.generation == 2
    assert read_model_info(root / "models/gen0002").config.game == "animal-shogi"
    shards = list_shards(root / "shards")
    assert len(shards) == 4
    shard = read_shard(shards[0][2], game=SelfPlayRunConfig.from_dict(TINY).rules, games=True)
    assert shard.meta["game"] == "animal-shogi" and shard.arrays["policy"].shape[1] == 132
    assert set(shard.arrays["score"].tolist()) <= {-1, 0, 1}  # results, not disc counts
    with pytest.raises(ShardError, match="the shard is animal-shogi, the run othello6"):
        read_shard(shards[0][2], game=get_game("othello", size=6))
    rate = json.loads((root / "rates/gen0002.json").read_text())
    assert rate["matches"][0]["opponent"] == "random" and rate["matches"][0]["wins"] >= 0
    assert -1.0 <= rate["start_value"] <= 1.0
    assert not (root / "grades").exists() or not list((root / "grades").iterdir())


@pytest.mark.parametrize(
    ("change", "option"),
    [
        ({"game": "chess"}, "game"),
        ({"size": 6}, "size"),
        ({"selfplay": {"solve_empties": 10}}, "solve_empties"),
        ({"model": {"preset": "resnet-b1c8", "game": "othello"}}, "game"),
    ],
)
def test_a_run_of_animal_shogi_refuses_othello_options(change: dict, option: str) -> None:
    with pytest.raises(ConfigError) as e:
        SelfPlayRunConfig.from_dict({**TINY, **change})
    assert e.value.option == option


def test_ratings_of_rated_generations() -> None:
    """The report's ratings: generations and fixed opponents on one Elo scale, random at 0, a
    generation that scores more against the same opponents rated higher."""
    from othellolab.training.selfplay.report import rating_table

    def match(opponent: str, w: int, d: int, l: int) -> dict:
        return {"opponent": opponent, "wins": w, "draws": d, "losses": l}

    rates = [
        {"generation": 0, "matches": [match("random", 12, 0, 8), match("ab", 2, 0, 18)]},
        {"generation": 5, "matches": [match("random", 19, 0, 1), match("ab", 12, 1, 7)]},
    ]
    table = rating_table(rates)
    assert table is not None
    rows = {
        line.split("|")[2].strip(): float(line.split("|")[3])
        for line in table.splitlines()[2:]
        if line.startswith("| ")
    }
    assert rows["random"] == 0 and rows["gen0005"] > rows["ab"] > rows["gen0000"] > 0
    assert rating_table([]) is None
