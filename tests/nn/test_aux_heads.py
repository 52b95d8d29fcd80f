"""Auxiliary heads, global pooling blocks, partial loading (``nn.io.load_matching``) and the
score-aware utility of ``nn.inference``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from othellolab.core import ConfigError
from othellolab.core.games import get_game
from othellolab.nn.config import ModelConfigError, model_config, parameter_count
from othellolab.nn.inference import NetworkEvaluator, utility
from othellolab.nn.io import ModelFileError, load_matching, load_model, save_model
from othellolab.nn.models import build_model, count_parameters, named_outputs

ALL_HEADS = {"ownership_head": True, "score_distribution": True, "opponent_policy_head": True}


@pytest.mark.parametrize("name", ["resnet-b2c8", "cnn-2x8", "mlp-1x16"])
def test_aux_heads_shapes_and_parameter_count(name: str) -> None:
    cfg = model_config(name, size=6, score_head=True, **ALL_HEADS)
    model = build_model(cfg).eval()
    assert count_parameters(model) == parameter_count(cfg)
    out = named_outputs(cfg, model(torch.zeros(3, *cfg.input_shape)))
    assert list(out) == [
        "policy_logits",
        "value",
        "score",
        "ownership",
        "score_logits",
        "opponent_policy_logits",
    ]
    assert out["ownership"].shape == (3, 36)
    assert out["score_logits"].shape == (3, 73)  # -36 .. 36
    assert out["opponent_policy_logits"].shape == (3, 37)
    assert float(out["ownership"].detach().abs().max()) <= 1


def test_heads_only_for_targets_the_game_has() -> None:
    with pytest.raises(ModelConfigError) as e:
        model_config("resnet-b1c8", game="animal-shogi", ownership_head=True)
    assert e.value.option == "ownership_head" and "animal-shogi" in str(e.value)
    # the score distribution of animal shogi is over its results, -1 .. 1
    cfg = model_config("resnet-b1c8", game="animal-shogi", score_distribution=True)
    assert cfg.score_bins == 3


@pytest.mark.parametrize(
    ("name", "every", "pooled"),
    [("resnet-b4c16", 2, [False, True, False, True]), ("resnet-b3c16", 1, [True] * 3)],
)
def test_global_pooling_blocks(name: str, every: int, pooled: list[bool], tmp_path: Path) -> None:
    cfg = model_config(name, size=6, global_pool_every=every)
    assert [cfg.pools(b) for b in range(cfg.blocks)] == pooled
    torch.manual_seed(0)
    model = build_model(cfg)
    assert count_parameters(model) == parameter_count(cfg)
    for p in model.parameters():  # train the zero-started bias layers away from zero
        p.data.add_(0.05 * torch.randn_like(p))
    model.eval()
    x = (torch.rand(4, *cfg.input_shape) < 0.4).float()
    save_model(model, tmp_path / "m")
    loaded, info = load_model(tmp_path / "m")
    assert info.config.global_pool_every == every
    for a, b in zip(model(x), loaded(x), strict=True):
        assert torch.equal(a, b)
    # the pooling changes what the network computes: the board's summary reaches each square
    plain = build_model(model_config(name, size=6))
    plain.load_state_dict({k: v for k, v in model.state_dict().items() if ".pool." not in k})
    plain.eval()
    assert not torch.allclose(plain(x)[1], model(x)[1])


def test_global_pooling_needs_a_resnet() -> None:
    with pytest.raises(ModelConfigError) as e:
        model_config("cnn-2x8", size=6, global_pool_every=1)
    assert e.value.option == "global_pool_every"


def test_load_matching_keeps_the_saved_tensors_and_names_the_new(tmp_path: Path) -> None:
    torch.manual_seed(1)
    base = build_model(model_config("resnet-b2c8", size=6)).eval()
    save_model(base, tmp_path / "base")
    extended = build_model(model_config("resnet-b2c8", size=6, global_pool_every=2, **ALL_HEADS))
    loaded, new = load_matching(extended, tmp_path / "base")
    assert set(loaded) == set(base.state_dict())
    assert new and all(
        k.startswith(("blocks.1.pool.", "heads.ownership", "heads.score_logits", "heads.opponent"))
        for k in new
    )
    extended.eval()
    x = (torch.rand(5, 2, 6, 6) < 0.4).float()
    # the pooling bias starts at zero: the extended network plays as the one it started from
    mine, theirs = extended(x), base(x)
    assert torch.allclose(mine[0], theirs[0], atol=1e-6)
    assert torch.allclose(mine[1], theirs[1], atol=1e-6)


def test_load_matching_refuses_a_tensor_of_another_shape_by_name(tmp_path: Path) -> None:
    save_model(build_model(model_config("resnet-b2c8", size=6)), tmp_path / "base")
    wider = build_model(model_config("resnet-b2c16", size=6))
    with pytest.raises(ModelFileError, match=r"'stem\.0\.weight'.*shapes differ"):
        load_matching(wider, tmp_path / "base")


def test_utility_with_weight_zero_is_the_value_itself() -> None:
    values = np.array([0.5, -0.25, 1.0], np.float32)
    scores = np.array([0.3, -0.1, 0.9], np.float32)
    assert utility(values, scores, 0.0, 0.25) is values
    got = utility(values, scores, 0.5, 0.25)
    expected = (values + 0.5 * (2 / np.pi) * np.arctan(scores / 0.25)) / 1.5  # KataGo's form
    assert np.allclose(got, expected) and np.all(np.abs(got) <= 1)


def test_evaluator_backs_up_the_utility_of_the_expected_score() -> None:
    torch.manual_seed(2)
    model = build_model(model_config("resnet-b1c8", size=4, score_distribution=True)).eval()
    game = get_game("othello", size=4)
    p, o = (np.array([s], np.uint64) for s in game.start())
    plain = NetworkEvaluator(model, cache_size=0)
    full = plain.evaluate_full(p, o, game)
    assert full.scores is not None
    with torch.inference_mode():
        logits = named_outputs(model.config, model(torch.from_numpy(game.encode(p, o))))
    probs = torch.softmax(logits["score_logits"], dim=1)[0].numpy()
    assert np.isclose(full.scores[0], (probs * np.arange(-16, 17)).sum() / 16, atol=1e-5)
    _, values = plain.evaluate(p, o, game)
    assert np.array_equal(values, full.values)
    scored = NetworkEvaluator(model, cache_size=0, score_utility=1.0, score_utility_scale=0.5)
    _, values = scored.evaluate(p, o, game)
    assert np.allclose(values, utility(full.values, full.scores, 1.0, 0.5))


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"score_utility": -0.1}, "score_utility"),
        ({"score_utility": float("nan")}, "score_utility"),
        ({"score_utility_scale": 0.0}, "score_utility_scale"),
        ({"score_utility": 1.0}, "score_utility"),  # the model has no score to weigh
    ],
)
def test_utility_options_are_checked(options: dict[str, float], option: str) -> None:
    model = build_model(model_config("resnet-b1c8", size=4))
    with pytest.raises(ConfigError) as e:
        NetworkEvaluator(model, **options)
    assert e.value.option == option


def test_onnx_export_of_the_aux_heads_and_pooling(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="the onnx extra (onnx) is not installed")
    pytest.importorskip("onnxruntime", reason="the onnx extra (onnxruntime) is not installed")
    from othellolab.nn.onnx import check_onnx_parity, export_onnx, output_names

    torch.manual_seed(0)
    model = build_model(model_config("resnet-b2c8", size=6, global_pool_every=1, **ALL_HEADS))
    for p in model.parameters():
        p.data.add_(0.05 * torch.randn_like(p))
    model.eval()
    path = export_onnx(model, tmp_path / "aux.onnx")
    assert output_names(model)[2:] == ["ownership", "score_logits", "opponent_policy_logits"]
    assert check_onnx_parity(model, path, batch=5) < 1e-4
