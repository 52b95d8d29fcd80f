"""ONNX export matches PyTorch on every family (needs the onnx extra)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")
pytest.importorskip("onnx", reason="the onnx extra (onnx) is not installed")
pytest.importorskip("onnxruntime", reason="the onnx extra (onnxruntime) is not installed")

from othellolab.nn.config import model_config  # noqa: E402
from othellolab.nn.io import save_model  # noqa: E402
from othellolab.nn.models import build_model  # noqa: E402
from othellolab.nn.onnx import check_onnx_parity, export_onnx  # noqa: E402


@pytest.mark.parametrize(
    ("name", "size", "score_head"),
    [("mlp-classic", 8, False), ("cnn-3x8", 6, True), ("resnet-b2c8", 8, True)],
)
def test_onnx_parity(tmp_path: Path, name: str, size: int, score_head: bool) -> None:
    torch.manual_seed(0)
    model = build_model(model_config(name, size=size, score_head=score_head)).eval()
    path = export_onnx(model, tmp_path / f"{name}.onnx")
    assert check_onnx_parity(model, path, batch=7) < 1e-4


def test_export_from_a_model_directory(tmp_path: Path) -> None:
    import onnx

    model = build_model(model_config("resnet-b1c8")).eval()
    d = save_model(model, tmp_path / "m")
    path = export_onnx(d, tmp_path / "m.onnx")
    graph = onnx.load(str(path)).graph
    assert [o.name for o in graph.output] == ["policy_logits", "value"]
    assert graph.input[0].name == "planes"
    check_onnx_parity(model, path, batch=3)
