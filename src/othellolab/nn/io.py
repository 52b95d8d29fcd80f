"""A model directory: ``model.safetensors`` (weights) and ``config.json`` (shape and metadata).

Loading never unpickles: weights are safetensors, the config is JSON. A file that is corrupted
or does not match its config raises ``ModelFileError`` naming the file and the tensor.

``config.json`` holds ``format`` (``"othellolab-model"``), ``format_version``, ``model`` (the
``ModelConfig`` fields), ``planes`` and ``size`` (repeated for readers that do not build the
model), ``policy_size``, ``outputs``, ``training`` (free-form metadata: run, samples, rows,
metrics) and ``weights_sha256`` (the SHA-256 of ``model.safetensors``).

Nothing is trusted before it is checked (``nn.files``): the config's size and nesting depth,
then its values (``ModelConfig`` bounds its sizes and parameter count), before a tensor is
allocated; then every tensor's name, shape, dtype and values, then the weights' checksum.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from othellolab.core.files import replacing, write_json
from othellolab.core.parsing import clip
from othellolab.nn.config import ModelConfig, ModelConfigError
from othellolab.nn.files import (
    CHECKSUM_KEY,
    ModelFileError,
    expected_checksum,
    file_sha256,
    read_config,
    verify_weights,
)
from othellolab.nn.models import PolicyValueNet, build_model

__all__ = [
    "CHECKSUM_KEY",
    "CONFIG_NAME",
    "FORMAT",
    "FORMAT_VERSION",
    "WEIGHTS_NAME",
    "ModelFileError",
    "ModelInfo",
    "load_matching",
    "load_model",
    "read_model_info",
    "save_model",
]

FORMAT = "othellolab-model"
FORMAT_VERSION = 1
WEIGHTS_NAME = "model.safetensors"
CONFIG_NAME = "config.json"


@dataclass(frozen=True)
class ModelInfo:
    """What ``config.json`` says: the model config, the training metadata and the weights'
    SHA-256 (``None`` in a directory saved before checksums)."""

    config: ModelConfig
    training: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    weights_sha256: str | None = None


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
    with replacing(d / WEIGHTS_NAME) as tmp:
        save_file(state_tensors(model), str(tmp), metadata={"format": FORMAT})
        digest = file_sha256(tmp)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "model": cfg.to_dict(),
        "planes": list(cfg.planes),
        "size": cfg.size,
        "policy_size": cfg.policy_size,
        "outputs": list(cfg.outputs),
        "training": training or {},
        CHECKSUM_KEY: digest,
    }
    write_json(d / CONFIG_NAME, meta)
    return d


def read_model_info(directory: str | Path) -> ModelInfo:
    """Read and validate ``config.json`` of a model directory (no torch tensors are loaded)."""
    d = Path(directory)
    path = d / CONFIG_NAME
    where = str(path)
    if not d.is_dir():
        raise ModelFileError("not a model directory (it does not exist or is a file)", where=str(d))
    if not path.exists():
        raise ModelFileError(
            f"missing; a model directory holds {CONFIG_NAME} and {WEIGHTS_NAME}", where=where
        )
    meta = read_config(path)
    if meta.get("format") != FORMAT:
        raise ModelFileError(
            f"not an othellolab model config (format is not {FORMAT!r})", where=where, key="format"
        )
    version = meta.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise ModelFileError(
            f"format_version {clip(version)} is not supported (this othellolab reads "
            f"{FORMAT_VERSION})",
            where=where,
            key="format_version",
        )
    try:
        cfg = ModelConfig.from_dict(meta.get("model"), where=f"{path}: model")
    except ModelConfigError as e:
        key = f"model.{e.option}" if e.option else "model"
        what = f"option {e.option}: {e.what}" if e.option else e.what
        raise ModelFileError(what, where=e.where, key=key) from None
    training = meta.get("training") or {}
    if not isinstance(training, dict):
        raise ModelFileError(
            f"training must be an object of metadata, got {type(training).__name__}",
            where=where,
            key="training",
        )
    return ModelInfo(cfg, dict(training), d, expected_checksum(meta, path))


def _read_tensors(path: Path) -> dict[str, torch.Tensor]:
    """The tensors of a safetensors file, or a ``ModelFileError`` naming it."""
    try:
        return load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        raise ModelFileError(
            f"corrupted or not a safetensors file ({e})", where=str(path)
        ) from None


def load_state(model: torch.nn.Module, path: Path) -> None:
    """Load safetensors weights into ``model``, checking every tensor's name, shape and dtype."""
    where = str(path)
    if not path.exists():
        raise ModelFileError("missing weights file", where=where)
    tensors = _read_tensors(path)
    expected = model.state_dict()
    missing = sorted(set(expected) - set(tensors))
    if missing:
        raise ModelFileError(
            f"tensor {missing[0]!r} is missing ({len(missing)} missing)", where=where
        )
    extra = sorted(set(tensors) - set(expected))
    if extra:
        raise ModelFileError(
            f"unexpected tensor {clip(extra[0])!r} ({len(extra)} not in the model of this config)",
            where=where,
        )
    for name, want in expected.items():
        got = tensors[name]
        if tuple(got.shape) != tuple(want.shape):
            raise ModelFileError(
                f"tensor {name!r} has shape {tuple(got.shape)}, the config needs "
                f"{tuple(want.shape)}",
                where=where,
            )
        if got.dtype != want.dtype:
            raise ModelFileError(
                f"tensor {name!r} has dtype {got.dtype}, expected {want.dtype}", where=where
            )
        if got.is_floating_point() and not bool(torch.isfinite(got).all()):
            raise ModelFileError(f"tensor {name!r} holds NaN or infinite values", where=where)
    model.load_state_dict(tensors, strict=True)


def load_matching(model: torch.nn.Module, directory: str | Path) -> tuple[list[str], list[str]]:
    """Load into ``model`` every tensor of the model directory ``directory`` whose name it
    has, keeping the fresh initialisation of the others (the heads and pooling layers a
    network extends the saved one with); returns ``(loaded, new)`` tensor names. A tensor of
    the file that the model lacks, or of another shape or dtype, is a ``ModelFileError``
    naming it; the weights are checked against their checksum first."""
    d = Path(directory)
    info = read_model_info(d)
    path = d / WEIGHTS_NAME
    verify_weights(path, info.weights_sha256, config_path=d / CONFIG_NAME)
    tensors = _read_tensors(path)
    state = model.state_dict()
    extra = sorted(set(tensors) - set(state))
    if extra:
        raise ModelFileError(
            f"tensor {clip(extra[0])!r} is not in the new model ({len(extra)} not in it)",
            where=str(path),
        )
    for name, want in state.items():
        got = tensors.get(name)
        if got is None:
            continue
        if tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype:
            raise ModelFileError(
                f"tensor {name!r} is {tuple(got.shape)} {got.dtype}, the new model's "
                f"{tuple(want.shape)} {want.dtype}: the shapes differ",
                where=str(path),
            )
        if got.is_floating_point() and not bool(torch.isfinite(got).all()):
            raise ModelFileError(f"tensor {name!r} holds NaN or infinite values", where=str(path))
    model.load_state_dict(tensors, strict=False)
    loaded = [name for name in state if name in tensors]
    return loaded, [name for name in state if name not in tensors]


def load_model(directory: str | Path, *, device: str = "cpu") -> tuple[PolicyValueNet, ModelInfo]:
    """Build the model of a directory's config, load its weights, and put it in eval mode.

    The config is checked before the model is built; the weights are checked tensor by tensor
    (a missing, misshapen or non-finite tensor is named), then against the config's
    ``weights_sha256``; a directory saved without one loads with an
    ``UnverifiedWeightsWarning``."""
    info = read_model_info(directory)
    d = Path(directory)
    model = build_model(info.config)
    load_state(model, d / WEIGHTS_NAME)
    verify_weights(d / WEIGHTS_NAME, info.weights_sha256, config_path=d / CONFIG_NAME)
    model.to(device).eval()
    return model, info
