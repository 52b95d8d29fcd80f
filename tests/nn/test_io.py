"""Model directories: save/load round trip, and clear errors for broken or mismatched files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from safetensors.torch import save_file  # noqa: E402

from othellolab.nn.config import model_config  # noqa: E402
from othellolab.nn.io import ModelFileError, load_model, read_model_info, save_model  # noqa: E402
from othellolab.nn.models import build_model  # noqa: E402


def _saved(tmp_path: Path, name: str = "resnet-b1c8", **kw) -> tuple[torch.nn.Module, Path]:
    torch.manual_seed(1)
    model = build_model(model_config(name, **kw))
    model.eval()
    return model, save_model(model, tmp_path / "m", training={"run": "test", "samples": 10})


@pytest.mark.parametrize("name", ["mlp-classic", "cnn-2x8", "resnet-b1c8"])
def test_round_trip_gives_the_same_outputs(tmp_path: Path, name: str) -> None:
    model, d = _saved(tmp_path, name, size=6, score_head=True)
    loaded, info = load_model(d)
    assert info.config == model.config and info.training["samples"] == 10
    x = (torch.rand(4, 2, 6, 6) < 0.4).float()
    with torch.inference_mode():
        for a, b in zip(model(x), loaded(x), strict=True):
            assert torch.equal(a, b)


def test_config_json_describes_the_model(tmp_path: Path) -> None:
    _, d = _saved(tmp_path, planes=("player", "opponent", "legal"))
    meta = json.loads((d / "config.json").read_text())
    assert meta["format"] == "othellolab-model" and meta["format_version"] == 1
    assert meta["planes"] == ["player", "opponent", "legal"] and meta["size"] == 8
    assert meta["policy_size"] == 65 and meta["outputs"] == ["policy_logits", "value"]
    # safetensors: an 8-byte little-endian header length, then a JSON header (no pickle).
    raw = (d / "model.safetensors").read_bytes()
    n = int.from_bytes(raw[:8], "little")
    assert json.loads(raw[8 : 8 + n])["__metadata__"]["format"] == "othellolab-model"


def test_truncated_weights_name_the_file(tmp_path: Path) -> None:
    _, d = _saved(tmp_path)
    w = d / "model.safetensors"
    w.write_bytes(w.read_bytes()[:200])
    with pytest.raises(ModelFileError, match=r"model\.safetensors: corrupted"):
        load_model(d)


def test_garbage_weights_name_the_file(tmp_path: Path) -> None:
    _, d = _saved(tmp_path)
    (d / "model.safetensors").write_bytes(b"\x80\x04K\x01." * 10)  # a pickle, not safetensors
    with pytest.raises(ModelFileError, match=r"model\.safetensors"):
        load_model(d)


def test_weights_of_another_shape_name_the_tensor(tmp_path: Path) -> None:
    _, d = _saved(tmp_path)
    other = build_model(model_config("resnet-b1c16"))
    save_file(
        {k: v.contiguous() for k, v in other.state_dict().items()}, str(d / "model.safetensors")
    )
    with pytest.raises(ModelFileError, match=r"tensor 'stem\.0\.weight' has shape \(16, 2, 3, 3\)"):
        load_model(d)


def test_missing_and_extra_tensors_are_named(tmp_path: Path) -> None:
    model, d = _saved(tmp_path)
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    del state["heads.value.bias"]
    save_file(state, str(d / "model.safetensors"))
    with pytest.raises(ModelFileError, match=r"tensor 'heads\.value\.bias' is missing"):
        load_model(d)
    state["heads.value.bias"] = torch.zeros(1)
    state["heads.extra"] = torch.zeros(3)
    save_file(state, str(d / "model.safetensors"))
    with pytest.raises(ModelFileError, match=r"unexpected tensor 'heads\.extra'"):
        load_model(d)


def test_non_finite_weights_are_rejected(tmp_path: Path) -> None:
    model, d = _saved(tmp_path)
    state = {k: v.clone().contiguous() for k, v in model.state_dict().items()}
    state["heads.value.weight"][0, 0] = float("nan")
    save_file(state, str(d / "model.safetensors"))
    with pytest.raises(ModelFileError, match=r"'heads\.value\.weight' holds NaN"):
        load_model(d)


def test_bad_config_files(tmp_path: Path) -> None:
    _, d = _saved(tmp_path)
    cfg = d / "config.json"
    meta = json.loads(cfg.read_text())
    cfg.write_text(json.dumps({**meta, "format_version": 99}))
    with pytest.raises(ModelFileError, match=r"config\.json: format_version 99"):
        read_model_info(d)
    cfg.write_text(json.dumps({**meta, "model": {**meta["model"], "blocks": "two"}}))
    with pytest.raises(ModelFileError, match=r"config\.json: model: option blocks: .*, got 'two'"):
        read_model_info(d)
    cfg.write_text("{not json")
    with pytest.raises(ModelFileError, match=r"config\.json: not valid JSON"):
        read_model_info(d)
    cfg.unlink()
    with pytest.raises(ModelFileError, match=r"config\.json: missing"):
        read_model_info(d)
    with pytest.raises(ModelFileError, match="not a model directory"):
        read_model_info(tmp_path / "nowhere")
