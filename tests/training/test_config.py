"""Run configs: the example file loads, and mistakes are named by table and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab.training.config import ConfigError, SupervisedConfig, load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "configs" / "supervised-example.toml"


def test_example_lists_every_default() -> None:
    cfg = load_config(EXAMPLE)
    assert cfg.name == "example" and cfg.model.name == "resnet-b4c32"
    defaults = SupervisedConfig(name="example", model=cfg.model)
    assert cfg == defaults  # every value in the example is the default
    text = EXAMPLE.read_text()
    for table, values in cfg.to_dict().items():
        if isinstance(values, dict) and table != "model":
            for key in values:
                assert f"\n{key} = " in text, f"{table}.{key} missing from the example"
    for key in cfg.to_dict()["model"]:
        if key != "name":
            assert f"# {key} = " in text, f"model.{key} missing from the example"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            'name = "x"\nmodel = "mlp-classic"\n[train]\nbatchsize = 3\n',
            r"\[train\]: option batchsize: unknown key\(s\) batchsize",
        ),
        (
            'name = "x"\nmodel = "mlp-classic"\n[optim]\noptimizer = "lion"\n',
            r"\[optim\]: option optimizer: expected one of adam, adamw, sgd, got 'lion'",
        ),
        (
            'name = "x"\nmodel = "mlp-classic"\n[train]\nepochs = "3"\n',
            r"\[train\]: option epochs: must be a whole number in 1\.\.1e12, got '3'",
        ),
        (
            'name = "x"\nmodel = "mlp-classic"\n[runtime]\ndevice = "tpu"\n',
            r"\[runtime\]: option device: expected one of cpu, cuda, auto",
        ),
        ('model = "mlp-classic"\n', "'name'"),
        ('name = "x y"\nmodel = "mlp-classic"\n', "may hold only"),
        ('name = "x"\n', r"\[model\] table is required"),
        ('name = "x"\n[model]\npreset = "resnet-b2c8"\nwidth = 3\n', "unknown key"),
        ('name = "x"\nmodel = "mlp-classic"\n[extra]\n', "unknown key"),
        ('name = "x"\nmodel = "mlp-classic"\n[data]\nval_fraction = 0.0\n', "val_fraction"),
        ('name = "x"\nmodel = [1\n', "invalid TOML"),
    ],
)
def test_mistakes_are_named(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "run.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=fragment) as info:
        load_config(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    "path",
    sorted((EXAMPLE.parent).glob("supervised-*.toml"))
    + sorted((EXAMPLE.parent / "supervised-cpu").glob("*.toml")),
    ids=lambda p: p.name,
)
def test_every_supervised_config_in_the_repository_loads(path: Path) -> None:
    cfg = load_config(path)
    # the held-out test year of docs/supervised.md is never trained or validated on
    assert "2023" not in cfg.data.train_years + cfg.data.val_years
    if cfg.data.dataset:
        assert cfg.data.val_split == "val"


def test_overrides_are_merged_before_the_checks(tmp_path: Path) -> None:
    from othellolab.config import parse_overrides

    cfg = load_config(EXAMPLE, parse_overrides(["optim.lr=0.01", "train.epochs=3", "seed=2"]))
    assert (cfg.optim.lr, cfg.train.epochs, cfg.seed) == (0.01, 3, 2)
    assert cfg.optim.optimizer == load_config(EXAMPLE).optim.optimizer  # the file's other keys
    with pytest.raises(ConfigError) as info:
        load_config(EXAMPLE, {"optim": {"lr": -1.0}})
    message = str(info.value)
    assert "[optim]: option lr:" in message and "(from an override of optim.lr)" in message
    with pytest.raises(
        ConfigError, match=r"unknown key\(s\) epoch.*from an override of train\.epoch"
    ):
        load_config(EXAMPLE, {"train": {"epoch": 3}})
