"""A model directory: ``model.safetensors`` (weights) and ``config.json`` (shape and metadata).

Loading never unpickles: weights are safetensors, the config is JSON. A file that is corrupted
or does not match its config raises ``ModelFileError`` naming the file and the tensor.

``config.json`` holds ``format`` (``"othellolab-model"``), ``format_version``, ``model`` (the
``ModelConfig`` fields), ``planes`` and ``size`` (repeated for readers that do not build the
model), ``policy_size``, ``outputs`` and ``training`` (free-form metadata: run, samples, rows,
metrics).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from othellolab.core import OthelloError
from othellolab.nn.config import ModelConfig, ModelConfigError
from othellolab.nn.models import PolicyValueNet, build_model

__all__ = [
    "CONFIG_NAME",
    "FORMAT",
    "FORMAT_VERSION",
    "WEIGHTS_NAME",
    "ModelFileError",
    "ModelInfo",
    "load_model",
    "read_model_info",
    "save_model",
]

FORMAT = "othellolab-model"
FORMAT_VERSION = 1
WEIGHTS_NAME = "model.safetensors"
CONFIG_NAME = "config.json"


class ModelFileError(OthelloError):
    """A model directory that cannot be loaded; the message names the file (and tensor)."""


@dataclass(frozen=True)
class ModelInfo:
    """What ``config.json`` says: the model config and the training metadata."""

    config: ModelConfig
    training: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def state_tensors(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The model's state as contiguous CPU tensors, ready for safetensors."""
    return {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}


def save_model(
    model: PolicyValueNet, directory: str | Path, *, training: dict[str, Any] | None = None
) -> Path:
    """Write ``model`` to ``directory`` (created), each file atomically; returns the directory."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    cfg = model.config
    tmp = d / (WEIGHTS_NAME + ".tmp")
    save_file(state_tensors(model), str(tmp), metadata={"format": FORMAT})
    os.replace(tmp, d / WEIGHTS_NAME)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "model": cfg.to_dict(),
        "planes": list(cfg.planes),
        "size": cfg.size,
        "policy_size": cfg.policy_size,
        "outputs": ["policy_logits", "value", *(["score"] if cfg.score_head else [])],
        "training": training or {},
    }
    _atomic_write_bytes(d / CONFIG_NAME, (json.dumps(meta, indent=2) + "\n").encode())
    return d


def read_model_info(directory: str | Path) -> ModelInfo:
    """Read and validate ``config.json`` of a model directory (no torch tensors are loaded)."""
    d = Path(directory)
    path = d / CONFIG_NAME
    if not d.is_dir():
        raise ModelFileError(f"{d}: not a model directory (it does not exist or is a file)")
    if not path.exists():
        raise ModelFileError(
            f"{path}: missing; a model directory holds {CONFIG_NAME} and {WEIGHTS_NAME}"
        )
    try:
        meta = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ModelFileError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not an othellolab model config (format is not {FORMAT!r})")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: format_version {version!r} is not supported (this othellolab reads {FORMAT_VERSION})"
        )
    try:
        cfg = ModelConfig.from_dict(meta.get("model"), where=f"{path}: model")
    except ModelConfigError as e:
        raise ModelFileError(str(e)) from None
    return ModelInfo(cfg, dict(meta.get("training") or {}), d)


def load_state(model: torch.nn.Module, path: Path) -> None:
    """Load safetensors weights into ``model``, checking every tensor's name, shape and dtype."""
    if not path.exists():
        raise ModelFileError(f"{path}: missing weights file")
    try:
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        raise ModelFileError(f"{path}: corrupted or not a safetensors file ({e})") from None
    expected = model.state_dict()
    missing = sorted(set(expected) - set(tensors))
    if missing:
        raise ModelFileError(f"{path}: tensor {missing[0]!r} is missing ({len(missing)} missing)")
    extra = sorted(set(tensors) - set(expected))
    if extra:
        raise ModelFileError(
            f"{path}: unexpected tensor {extra[0]!r} ({len(extra)} not in the model of this config)"
        )
    for name, want in expected.items():
        got = tensors[name]
        if tuple(got.shape) != tuple(want.shape):
            raise ModelFileError(
                f"{path}: tensor {name!r} has shape {tuple(got.shape)}, the config needs {tuple(want.shape)}"
            )
        if got.dtype != want.dtype:
            raise ModelFileError(
                f"{path}: tensor {name!r} has dtype {got.dtype}, expected {want.dtype}"
            )
        if got.is_floating_point() and not bool(torch.isfinite(got).all()):
            raise ModelFileError(f"{path}: tensor {name!r} holds NaN or infinite values")
    model.load_state_dict(tensors, strict=True)


def load_model(directory: str | Path, *, device: str = "cpu") -> tuple[PolicyValueNet, ModelInfo]:
    """Build the model of a directory's config, load its weights, and put it in eval mode."""
    info = read_model_info(directory)
    model = build_model(info.config)
    load_state(model, Path(directory) / WEIGHTS_NAME)
    model.to(device).eval()
    return model, info
