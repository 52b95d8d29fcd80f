"""Trained networks shipped with the package, one directory each (``model.safetensors`` +
``config.json`` + ``TRAINING.md``), so the network players work without a training run.

This module only finds the directories; ``othellolab.nn.io.load_model`` reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from othellolab.core import ConfigError

__all__ = ["DEFAULT_MODEL", "ModelCatalog", "available_models", "model_dir", "resolve"]

DEFAULT_MODEL = "b8c64-all"
"""The model the ``policy``, ``value`` and ``alphazero`` players use on 8x8 Othello when no
``model=`` is given."""

_ROOT = Path(__file__).resolve().parent


def available_models() -> list[str]:
    """Names of the shipped models (directories holding a ``config.json``)."""
    return sorted(p.name for p in _ROOT.iterdir() if (p / "config.json").is_file())


def model_dir(name: str | None = None) -> Path:
    """The directory of shipped model ``name`` (the default model if ``None``)."""
    name = name or DEFAULT_MODEL
    path = _ROOT / name
    if not (path / "config.json").is_file():
        raise ConfigError(
            f"no shipped model {name!r} in {_ROOT}; shipped: {', '.join(available_models()) or 'none'}"
        )
    return path


def resolve(model: str | Path | None) -> Path:
    """A model given by the user: ``None`` or ``""`` means the default shipped model, a
    shipped model's name that model, anything else must be a model directory (``ConfigError``
    otherwise)."""
    return ModelCatalog().resolve(model)


class ModelCatalog:
    """Which model directories a player option may name: the shipped models, the model
    directories in ``roots`` (a model directory itself, or a folder of them, named by their
    folder name), and, when ``allow_paths``, any model directory given by its path.

    A server builds one without paths, so that a remote client can neither load nor probe
    files outside its model directories: every unknown name gets the same answer.
    """

    def __init__(self, roots: Sequence[str | Path] = (), *, allow_paths: bool = True) -> None:
        self.allow_paths = allow_paths
        self._named: dict[str, Path] = {name: _ROOT / name for name in available_models()}
        for root in roots:
            r = Path(root)
            if (r / "config.json").is_file():
                self._named[r.name] = r.resolve()
            elif r.is_dir():
                for d in sorted(r.iterdir()):
                    if (d / "config.json").is_file():
                        self._named[d.name] = d.resolve()
            else:
                raise ConfigError(
                    f"{r} is neither a model directory nor a folder of model directories",
                    option="models",
                )

    def names(self) -> list[str]:
        """The model names this catalog resolves (paths aside)."""
        return sorted(self._named)

    def resolve(self, model: str | Path | None) -> Path:
        """The directory of ``model`` (``None`` or ``""``: the default shipped model)."""
        if model is None or str(model) == "":
            return model_dir()
        text = str(model)
        if text in self._named:
            return self._named[text]
        known = ", ".join(self.names()) or "none"
        if not self.allow_paths:
            raise ConfigError(
                f"{text[:200]!r} is not one of this server's models: {known}", allowed=known
            )
        path = Path(text)
        if (path / "config.json").is_file():
            return path
        raise ConfigError(
            f"{text[:200]!r}: not a model directory (a folder holding config.json and "
            f"model.safetensors) nor a shipped model ({known})",
            allowed=known,
        )
