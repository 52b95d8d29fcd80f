"""The labelled-position config: shipped files load, every mistake is named by table and key,
and the hash that identifies a run ignores only the number of shards."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab.core import ConfigError
from othellolab.fitting.labelled.config import LabelledConfig, load_labelled_config

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


@pytest.mark.parametrize(
    "name", ["patterns-selfplay.toml", "patterns-selfplay-r2.toml", "patterns-heldout.toml"]
)
def test_shipped_configs_load(name: str) -> None:
    cfg = load_labelled_config(CONFIGS / name)
    assert cfg.shards * cfg.games_per_shard >= 500
    assert cfg.labels.min_empties <= cfg.labels.max_empties


def test_heldout_config_labels_20_to_24_empties_exactly() -> None:
    cfg = load_labelled_config(CONFIGS / "patterns-heldout.toml")
    train = load_labelled_config(CONFIGS / "patterns-selfplay.toml")
    assert cfg.labels.exact_empties >= cfg.labels.max_empties == 24
    assert cfg.labels.min_empties == 20
    assert cfg.seed != train.seed


def test_round_two_is_round_one_with_another_seed_and_the_fitted_evaluation() -> None:
    one = load_labelled_config(CONFIGS / "patterns-selfplay.toml")
    two = load_labelled_config(CONFIGS / "patterns-selfplay-r2.toml")
    assert two.search.evaluation == "patterns-r1" and one.search.evaluation == "auto"
    assert two.seed != one.seed
    assert two.labels == one.labels and two.openings == one.openings
    assert two.randomise == one.randomise and two.search.depth == one.search.depth


def test_defaults_and_values(tiny) -> None:
    cfg = LabelledConfig.from_dict(tiny())
    assert cfg.labels.exact_empties == 10
    assert cfg.openings.source == "start"
    assert LabelledConfig().labels.exact_empties == 20
    assert LabelledConfig.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize(
    ("changes", "option", "where"),
    [
        (dict(colour="black"), "colour", "labelled config"),
        (dict(seed=-1), "seed", "labelled config"),
        (dict(games_per_shard=0), "games_per_shard", "labelled config"),
        (dict(shards=True), "shards", "labelled config"),
        (dict(openings__source="ggf"), "source", "[openings]"),
        (dict(openings__min_ply=20, openings__max_ply=10), "max_ply", "[openings]"),
        (dict(openings__years="2020-2010"), "years", "[openings]"),
        (dict(openings__xot_share=1.5), "xot_share", "[openings]"),
        (dict(randomise__temperature=float("nan")), "temperature", "[randomise]"),
        (dict(randomise__temperature=float("inf")), "temperature", "[randomise]"),
        (dict(randomise__first_ply=30, randomise__last_ply=3), "last_ply", "[randomise]"),
        (dict(randomise__softmax_depth=0), "softmax_depth", "[randomise]"),
        (dict(search__depth=0), "depth", "[search]"),
        (dict(search__nodes=-5), "nodes", "[search]"),
        (dict(search__evaluation="net"), "evaluation", "[search]"),
        (dict(search__time=1.0), "time", "[search]"),
        (dict(labels__exact_empties=31), "exact_empties", "[labels]"),
        (dict(labels__search_depth=2.5), "search_depth", "[labels]"),
        (dict(labels__min_empties=30, labels__max_empties=20), "max_empties", "[labels]"),
        (dict(labels=3), None, "[labels]"),
    ],
)
def test_mistakes_are_named(tiny, changes: dict, option: str | None, where: str) -> None:
    with pytest.raises(ConfigError) as info:
        LabelledConfig.from_dict(tiny(**changes))
    assert info.value.option == option
    assert where in str(info.value)


def test_config_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_labelled_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = = 1\n")
    with pytest.raises(ConfigError, match="invalid TOML") as info:
        load_labelled_config(bad)
    assert str(bad) in str(info.value)


def test_hash_ignores_the_number_of_shards_only(tiny) -> None:
    base = LabelledConfig.from_dict(tiny())
    assert LabelledConfig.from_dict(tiny(shards=50)).config_hash == base.config_hash
    assert LabelledConfig.from_dict(tiny(seed=8)).config_hash != base.config_hash
    assert LabelledConfig.from_dict(tiny(labels__search_depth=3)).config_hash != base.config_hash


def test_shard_seeds_depend_on_seed_and_index(tiny) -> None:
    a, b = LabelledConfig.from_dict(tiny()), LabelledConfig.from_dict(tiny(seed=8))
    seeds = {a.shard_seed(i) for i in range(100)} | {b.shard_seed(i) for i in range(100)}
    assert len(seeds) == 200
    assert a.shard_seed(3) == LabelledConfig.from_dict(tiny(shards=9)).shard_seed(3)
