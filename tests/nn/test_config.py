"""Model configs: named sizes, validation, dict round trip."""

from __future__ import annotations

import pytest

from othellolab.nn.config import ModelConfig, ModelConfigError, model_config


@pytest.mark.parametrize(
    ("name", "family", "shape"),
    [
        ("resnet-b6c64", "resnet", {"blocks": 6, "filters": 64}),
        ("cnn-13x128", "cnn", {"layers": 13, "filters": 128}),
        ("mlp-classic", "mlp", {"hidden": (100, 100), "mlp_input": "board"}),
        ("mlp-3x256", "mlp", {"hidden": (256, 256, 256)}),
    ],
)
def test_named_sizes(name: str, family: str, shape: dict) -> None:
    cfg = model_config(name)
    assert cfg.family == family and cfg.name == name
    for key, value in shape.items():
        assert getattr(cfg, key) == value


def test_overrides_and_derived_shapes() -> None:
    cfg = model_config("resnet-b2c16", size=6, planes=("player", "opponent", "legal"))
    assert cfg.input_shape == (3, 6, 6)
    assert cfg.policy_size == 37


def test_round_trip_through_dict() -> None:
    cfg = model_config("cnn-3x8", size=6, score_head=True)
    assert ModelConfig.from_dict(cfg.to_dict()) == cfg


def test_preset_with_overrides_clears_the_name_when_the_shape_changes() -> None:
    cfg = ModelConfig.from_dict({"preset": "resnet-b6c64", "blocks": 2})
    assert (cfg.blocks, cfg.filters, cfg.name) == (2, 64, "")
    assert ModelConfig.from_dict({"preset": "resnet-b6c64", "size": 6}).name == "resnet-b6c64"


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (
            {"family": "resnet", "blocks": 2, "filters": 8, "dropout": 0.1},
            "option dropout: unknown key(s) dropout",
        ),
        (
            {"family": "transformer"},
            "option family: expected one of mlp, cnn, resnet, got 'transformer'",
        ),
        (
            {"family": "resnet", "blocks": 0, "filters": 8},
            "option blocks: a resnet needs at least 1, got 0",
        ),
        (
            {"family": "cnn", "layers": 2, "filters": 8, "size": 10},
            "option size: must be a whole number in 4..8, got 10",
        ),
        (
            {"family": "mlp", "hidden": []},
            "option hidden: an mlp needs at least one 'hidden' width",
        ),
        (
            {"family": "cnn", "layers": 2, "filters": 8, "planes": ["opponent", "player"]},
            "option planes: planes must start",
        ),
        (
            {"family": "cnn", "layers": 2, "filters": 8, "planes": ["player", "opponent", "x"]},
            "option planes: unknown plane 'x'",
        ),
        ({"blocks": 2}, "give 'preset'"),
    ],
)
def test_bad_configs_are_rejected_with_the_key(data: dict, fragment: str) -> None:
    with pytest.raises(ModelConfigError, match="where-it-is") as info:
        ModelConfig.from_dict(data, where="where-it-is")
    assert fragment in str(info.value)


def test_unknown_name() -> None:
    with pytest.raises(ModelConfigError, match="unknown model name 'resnet-6'"):
        model_config("resnet-6")
