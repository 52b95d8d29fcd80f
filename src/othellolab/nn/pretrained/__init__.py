"""Trained networks shipped with the package, one directory each (``model.safetensors`` +
``config.json`` + ``TRAINING.md``), so the network players work without a training run.

This module only finds the directories; ``othellolab.nn.io.load_model`` reads them.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DEFAULT_MODEL", "available_models", "model_dir", "resolve"]

DEFAULT_MODEL = "b6c48-wthor"
"""The model the ``policy`` and ``value`` players use when no ``model=`` is given."""

_ROOT = Path(__file__).resolve().parent


def available_models() -> list[str]:
    """Names of the shipped models (directories holding a ``config.json``)."""
    return sorted(p.name for p in _ROOT.iterdir() if (p / "config.json").is_file())


def model_dir(name: str | None = None) -> Path:
    """The directory of shipped model ``name`` (the default model if ``None``)."""
    name = name or DEFAULT_MODEL
    path = _ROOT / name
    if not (path / "config.json").is_file():
        raise ValueError(
            f"no shipped model {name!r} in {_ROOT}; shipped: {', '.join(available_models()) or 'none'}"
        )
    return path


def resolve(model: str | Path | None) -> Path:
    """A model given by the user as a directory: ``None`` or ``""`` means the default shipped
    model, a name that is not an existing path names a shipped model, anything else is a path."""
    if model is None or str(model) == "":
        return model_dir()
    path = Path(model)
    if not path.exists() and str(model) in available_models():
        return model_dir(str(model))
    return path
