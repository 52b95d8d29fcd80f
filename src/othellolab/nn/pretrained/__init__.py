"""Trained networks shipped with the package, one directory each (``model.safetensors`` +
``config.json`` + ``TRAINING.md``), so the network players work without a training run.

This module only finds the directories; ``othellolab.nn.io.load_model`` reads them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from othellolab.core import ConfigError
from othellolab.core.games import game_for

__all__ = [
    "DEFAULT_MODEL",
    "ModelCatalog",
    "available_models",
    "describe_names",
    "model_dir",
    "model_name",
    "resolve",
]

DEFAULT_MODEL = "b8c64-all"
"""The model the ``policy``, ``value`` and ``alphazero`` players use on 8x8 Othello when no
``model=`` is given."""

_ROOT = Path(__file__).resolve().parent
_CONFIG = "config.json"
_WEIGHTS = "model.safetensors"


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
    """Which model directories a player option may name, and the one place that turns a model
    name into a directory: the shipped models, the models found under ``roots``, and, when
    ``allow_paths``, any model directory given by its path.

    Each root is a model directory, a training run (a folder holding ``config.json`` and a
    ``models/`` folder, as ``training.rundir`` writes it), a run's ``models/`` folder, or a
    folder of any of these (one level down). A model of a run is named ``RUN/NAME``, the run's
    folder name and the model's (``my-az/gen0030``), however it was given, so that two runs'
    generations never clash; any other model directory is named by its folder name. A name
    that two different directories would take, or that a shipped model has, is refused with a
    ``ConfigError`` naming both (option ``models``): a name means one model, always.

    A server builds one without paths, so that a remote client can neither load nor probe
    files outside its model directories: every unknown name gets the same answer.
    """

    def __init__(self, roots: Sequence[str | Path] = (), *, allow_paths: bool = True) -> None:
        self.allow_paths = allow_paths
        self._named: dict[str, Path] = {name: _ROOT / name for name in available_models()}
        self._shipped = frozenset(self._named)
        self._games: dict[str, str | None] = {}
        for root in roots:
            r = Path(root)
            found = _model_dirs(r)
            if not found:
                raise ConfigError(
                    f"{r}: no model directory there (a folder holding {_CONFIG} and "
                    f"{_WEIGHTS}, a run's models/ folder, or a folder of them)"
                    if r.is_dir()
                    else f"{r}: no such folder (expected a model directory, a training run, "
                    "its models/ folder, or a folder of them)",
                    option="models",
                )
            for d in found:
                self._add(model_name(d), d.resolve())

    def _add(self, name: str, path: Path) -> None:
        have = self._named.get(name)
        if have is None or have == path:
            self._named[name] = path
            return
        if name in self._shipped:
            raise ConfigError(
                f"{path} would be named {name!r}, the name of a shipped model; give its folder "
                "another name",
                option="models",
            )
        raise ConfigError(
            f"two model directories would be named {name!r}: {have} and {path}; give one of "
            "their folders (or runs) another name, or leave one out",
            option="models",
        )

    def names(self, game: str | None = None) -> list[str]:
        """The model names this catalog resolves (paths aside); with ``game`` (a game's key,
        ``core.games``: ``othello8``, ``othello6``, ``animal-shogi``) only the models that
        play it (their ``config.json`` says so)."""
        if game is None:
            return sorted(self._named)
        return [n for n in sorted(self._named) if self.game_of(n) == game]

    def user_names(self) -> list[str]:
        """The names of the models found under ``roots`` (not shipped)."""
        return [n for n in sorted(self._named) if n not in self._shipped]

    def game_of(self, name: str) -> str | None:
        """The key of the game the model ``name`` plays, read once from its ``config.json``
        (``None`` when the file does not say)."""
        if name not in self._games:
            self._games[name] = _game_key(self._named[name])
        return self._games[name]

    def describe(self) -> str:
        """The names in words, for an error or a help line: the shipped ones, then each run's
        (a run of many as its first and last name and a count)."""
        return describe_names(self.names())

    def resolve(self, model: str | Path | None) -> Path:
        """The directory of ``model`` (``None`` or ``""``: the default shipped model)."""
        if model is None or str(model) == "":
            return model_dir()
        text = str(model)
        if text in self._named:
            return self._named[text]
        known = self.describe() or "none"
        hint = self._suggest(text)
        if not self.allow_paths:
            raise ConfigError(
                f"{text[:200]!r} is not one of this server's models: {known}{hint}",
                allowed=known,
            )
        path = Path(text)
        if (path / _CONFIG).is_file():
            return path
        raise ConfigError(
            f"{text[:200]!r}: not a model directory (a folder holding {_CONFIG} and "
            f"{_WEIGHTS}) nor a model name ({known}){hint}",
            allowed=known,
        )

    def _suggest(self, text: str) -> str:
        """``"; did you mean ..."`` for a bare name that only a run's models have
        (``gen0030`` for ``my-az/gen0030``), else ``""``."""
        tail = text.rsplit("/", 1)[-1]
        near = [n for n in sorted(self._named) if "/" in n and n.rsplit("/", 1)[1] == tail]
        if not near:
            return ""
        return f"; did you mean {' or '.join(repr(n) for n in near[:5])}?"


def _is_model_dir(path: Path) -> bool:
    return (path / _CONFIG).is_file() and (path / _WEIGHTS).is_file()


def _is_run(path: Path) -> bool:
    """Whether ``path`` is a training run: its frozen ``config.json`` and a ``models/`` folder
    (``training.rundir``), and not itself a model directory."""
    return (path / _CONFIG).is_file() and (path / "models").is_dir() and not _is_model_dir(path)


def _model_dirs(root: Path) -> list[Path]:
    """The model directories that ``root`` gives (see ``ModelCatalog``), in name order."""
    if _is_model_dir(root):
        return [root]
    if _is_run(root):
        root = root / "models"
    if not root.is_dir():
        return []
    found = []
    for d in sorted(root.iterdir()):
        if _is_model_dir(d):
            found.append(d)
        elif _is_run(d):
            found += [m for m in sorted((d / "models").iterdir()) if _is_model_dir(m)]
    return found


def model_name(directory: str | Path) -> str:
    """The name a catalog gives a model directory that is not shipped: ``RUN/NAME`` for a
    model in a run's ``models/`` folder (``runs/my-az/models/gen0030`` is ``my-az/gen0030``),
    else its folder name. The path is taken as written (a linked run keeps its link's name)."""
    d = Path(os.path.abspath(directory))
    parent = d.parent
    if parent.name == "models" and _is_run(parent.parent):
        return f"{parent.parent.name}/{d.name}"
    return d.name


def describe_names(names: Sequence[str], *, most: int = 6) -> str:
    """Model names in words: the loose ones listed, a run's listed while it has at most
    ``most``, else as ``RUN/FIRST ... RUN/LAST (N models)``."""
    loose = [n for n in names if "/" not in n]
    runs: dict[str, list[str]] = {}
    for n in names:
        if "/" in n:
            runs.setdefault(n.rsplit("/", 1)[0], []).append(n)
    parts = list(loose)
    for members in runs.values():
        if len(members) <= most:
            parts += members
        else:
            parts.append(f"{members[0]} ... {members[-1]} ({len(members)} models)")
    return ", ".join(parts)


def _game_key(directory: Path) -> str | None:
    """The game key (``othello6``) that the model in ``directory`` plays, from its
    ``config.json`` without loading torch; ``None`` when it cannot be read."""
    try:
        meta = json.loads((directory / _CONFIG).read_text())
        model = meta.get("model") or {}
        return game_for(str(model.get("game", "othello")), int(meta.get("size", 8))).key
    except (OSError, ValueError, TypeError, AttributeError):
        return None
