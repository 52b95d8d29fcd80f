"""Overrides of run-config keys: ``parse_overrides`` reads KEY=VALUE items as TOML values, and
``load_with_overrides`` merges them over a file's tables before the config is checked."""

from __future__ import annotations

import pytest

from othellolab.config import load_with_overrides, merge_overrides, parse_overrides
from othellolab.core import ConfigError


def test_values_are_read_as_toml_values() -> None:
    got = parse_overrides(
        [
            "train.lr=0.01",
            "loop.generations=3",
            "seed=2",
            "runtime.compile=true",
            'name="quoted run"',
            "data.dataset=runs/data",
            "rate.opponents=['greedy', 'random']",
            " grade.every = 2 ",
        ]
    )
    assert got == {
        "train": {"lr": 0.01},
        "loop": {"generations": 3},
        "seed": 2,
        "runtime": {"compile": True},
        "name": "quoted run",
        "data": {"dataset": "runs/data"},
        "rate": {"opponents": ["greedy", "random"]},
        "grade": {"every": 2},
    }
    assert type(got["loop"]["generations"]) is int
    assert type(got["train"]["lr"]) is float


def test_two_keys_of_one_table_share_it() -> None:
    assert parse_overrides(["train.lr=0.1", "train.epochs=2"]) == {
        "train": {"lr": 0.1, "epochs": 2}
    }


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("train.lr", "expected KEY=VALUE"),
        ("=3", "the key must be"),
        ("train..lr=3", "the key must be"),
        ("train.l r=3", "the key must be"),
        ('name="open', "is not a TOML value"),
        ("opponents=[1,", "is not a TOML value"),
    ],
)
def test_a_malformed_item_is_named(item: str, said: str) -> None:
    with pytest.raises(ConfigError, match=said) as info:
        parse_overrides([item])
    assert repr(item) in str(info.value)


def test_a_key_set_twice_or_under_a_value_is_refused() -> None:
    with pytest.raises(ConfigError, match="set twice"):
        parse_overrides(["seed=1", "seed=2"])
    with pytest.raises(ConfigError, match="set to a value by another override"):
        parse_overrides(["train=1", "train.lr=2"])
    with pytest.raises(ConfigError, match="a list of KEY=VALUE"):
        parse_overrides("seed=1")  # type: ignore[arg-type]


def test_merge_keeps_the_file_keys_an_override_leaves_alone() -> None:
    data = {"name": "x", "train": {"lr": 0.1, "epochs": 3}}
    merged, paths = merge_overrides(data, {"train": {"lr": 0.5}, "loop": {"games": 4}})
    assert merged == {"name": "x", "train": {"lr": 0.5, "epochs": 3}, "loop": {"games": 4}}
    assert paths == {("train", "lr"), ("loop", "games")}
    assert data["train"]["lr"] == 0.1  # the file's tables are not changed
    with pytest.raises(ConfigError, match="must be a mapping"):
        merge_overrides(data, ["train.lr=1"])  # type: ignore[arg-type]


def _build(data: dict) -> dict:
    """A stand-in loader that checks one key the way the real ones do."""
    if data.get("train", {}).get("lr", 1) <= 0:
        raise ConfigError("must be positive", where="run.toml: [train]", option="lr")
    return data


def test_an_error_about_an_overridden_key_says_so() -> None:
    with pytest.raises(ConfigError) as info:
        load_with_overrides(_build, {"train": {"lr": 0.1}}, {"train": {"lr": -1}})
    assert str(info.value) == (
        "run.toml: [train]: option lr: must be positive (from an override of train.lr)"
    )
    with pytest.raises(ConfigError) as info:
        load_with_overrides(_build, {"train": {"lr": -1}}, {"train": {"epochs": 2}})
    assert "override" not in str(info.value)  # the file's own bad key stays the file's
