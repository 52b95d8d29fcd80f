"""ONNX export of any othellolab network, and a parity check against PyTorch.

The graph has one input ``planes`` (float32 ``(batch, C, size, size)``, batch dynamic) and the
outputs ``policy_logits``, ``value`` and those of the optional heads (``ModelConfig.outputs``:
``score``, ``ownership``, ``score_logits``, ``opponent_policy_logits``). Needs the ``onnx``
extra (``pip install 'othellolab[onnx]'``: onnx and onnxruntime).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import torch

from othellolab.core.files import replacing
from othellolab.nn.io import load_model
from othellolab.nn.models import PolicyValueNet

__all__ = ["OnnxParityError", "check_onnx_parity", "export_onnx", "output_names"]

DEFAULT_OPSET = 17


class OnnxParityError(AssertionError):
    """The ONNX graph's outputs differ from PyTorch's beyond the tolerance."""


def output_names(model: PolicyValueNet) -> list[str]:
    """Names of the graph outputs, in the model's output order."""
    return list(model.config.outputs)


def export_onnx(
    model: PolicyValueNet | str | Path, path: str | Path, *, opset: int = DEFAULT_OPSET
) -> Path:
    """Write ``model`` (or the model directory it names) to ``path`` as ONNX; returns the path.

    Uses PyTorch's TorchScript-based exporter, which needs only the ``onnx`` package (the newer
    exporter also needs onnxscript); the graph is the same for these plain layers.
    """
    if not isinstance(model, PolicyValueNet):
        model, _ = load_model(model)
    model = model.to("cpu").eval()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    x = torch.zeros((2, *model.config.input_shape), dtype=torch.float32)
    names = output_names(model)
    with replacing(out) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (x,),
            str(tmp),
            dynamo=False,
            input_names=["planes"],
            output_names=names,
            dynamic_axes={"planes": {0: "batch"}, **{n: {0: "batch"} for n in names}},
            opset_version=opset,
        )
    return out


def check_onnx_parity(
    model: PolicyValueNet,
    path: str | Path,
    *,
    batch: int = 16,
    seed: int = 0,
    atol: float = 1e-4,
) -> float:
    """Run the ONNX file with onnxruntime and PyTorch on the same random 0/1 planes; return
    the largest absolute difference, raising ``OnnxParityError`` when it exceeds ``atol``."""
    try:
        import onnxruntime as ort
    except ImportError as e:
        raise ImportError(
            "check_onnx_parity needs onnxruntime: pip install 'othellolab[onnx]'"
        ) from e
    rng = np.random.default_rng(seed)
    x = (rng.random((batch, *model.config.input_shape)) < 0.4).astype(np.float32)
    model = model.to("cpu").eval()
    with torch.inference_mode():
        expected = [t.numpy() for t in model(torch.from_numpy(x))]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(output_names(model), {"planes": x})
    worst = 0.0
    for name, e, g in zip(output_names(model), expected, got, strict=True):
        if e.shape != g.shape:
            raise OnnxParityError(
                f"{path}: output {name!r} has shape {g.shape}, PyTorch gives {e.shape}"
            )
        diff = float(np.max(np.abs(e - g))) if e.size else 0.0
        if diff > atol:
            raise OnnxParityError(
                f"{path}: output {name!r} differs from PyTorch by {diff:.3g} > {atol}"
            )
        worst = max(worst, diff)
    return worst
