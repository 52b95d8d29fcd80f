"""Typed, validated model configs: the family, its sizes, the board size and the input planes.

A config is plain data (no torch), so it can be read, validated and written without building a
model. Named sizes follow KataGo's habit of short names that say the shape:

>>> model_config("resnet-b6c64").blocks, model_config("resnet-b6c64").filters
(6, 64)
>>> model_config("cnn-13x128", size=6).layers
13
>>> model_config("mlp-classic").hidden
(100, 100)
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from othellolab.core import ConfigError

FAMILIES = ("mlp", "cnn", "resnet")
"""Model families: a multilayer perceptron, a plain convolution stack, a residual network."""

PLANE_NAMES = ("player", "opponent", "legal", "empty", "ones")
"""Input planes a model may read (the same names as the datasets feature encoder): discs of the
side to move, of the opponent, legal moves of the side to move, empty squares, all ones."""

MLP_INPUTS = ("planes", "board")
"""How an MLP reads the position: the planes flattened, or one value per square (0 empty,
1 side to move, 2 opponent), as in the classic 64-100-100-65 policy network."""

SIZES = (8, 6, 4)


class ModelConfigError(ConfigError):
    """A model config that is malformed; the message names the key and what was expected."""


@dataclass(frozen=True)
class ModelConfig:
    """One policy/value network's shape.

    ``layers`` is the depth of a ``cnn`` (3x3 convolutions), ``blocks`` the residual blocks of
    a ``resnet``, ``hidden`` the hidden widths of an ``mlp``; ``filters`` the width of the
    convolutional trunks. Every model has a policy head over ``size*size + 1`` actions (pass
    last) and a tanh value head; ``score_head`` adds a tanh head for the final disc difference
    divided by ``size*size``.
    """

    family: str
    size: int = 8
    planes: tuple[str, ...] = ("player", "opponent")
    layers: int = 0
    blocks: int = 0
    filters: int = 0
    hidden: tuple[int, ...] = ()
    mlp_input: str = "planes"
    batch_norm: bool = True
    policy_channels: int = 2
    value_channels: int = 1
    value_hidden: int = 64
    score_head: bool = False
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "planes", tuple(self.planes))
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))
        self.validate()

    def validate(self) -> None:
        """Raise ``ModelConfigError`` naming the first bad field."""
        _choice("family", self.family, FAMILIES)
        _choice("size", self.size, SIZES)
        if self.planes[:2] != ("player", "opponent"):
            raise ModelConfigError(
                f"model config: planes must start with 'player', 'opponent'; got {list(self.planes)}"
            )
        for plane in self.planes:
            _choice("planes", plane, PLANE_NAMES)
        if len(set(self.planes)) != len(self.planes):
            raise ModelConfigError(f"model config: planes repeat a name: {list(self.planes)}")
        for key in ("policy_channels", "value_channels", "value_hidden"):
            _positive(key, getattr(self, key))
        if self.family == "mlp":
            if not self.hidden:
                raise ModelConfigError("model config: an mlp needs at least one 'hidden' width")
            for h in self.hidden:
                _positive("hidden", h)
            _choice("mlp_input", self.mlp_input, MLP_INPUTS)
        else:
            _positive("filters", self.filters)
            if self.family == "cnn":
                _positive("layers", self.layers)
            else:
                _positive("blocks", self.blocks)

    @property
    def channels(self) -> int:
        """Number of input planes."""
        return len(self.planes)

    @property
    def policy_size(self) -> int:
        """Number of actions: ``size*size`` squares and pass."""
        return self.size * self.size + 1

    @property
    def input_shape(self) -> tuple[int, int, int]:
        """Shape ``(C, size, size)`` of one input."""
        return (self.channels, self.size, self.size)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (tuples become lists)."""
        d = asdict(self)
        d["planes"] = list(self.planes)
        d["hidden"] = list(self.hidden)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "model config") -> ModelConfig:
        """Build from a dict, rejecting unknown keys; a ``preset`` key (a named size) supplies
        defaults that the other keys override."""
        if not isinstance(data, dict):
            raise ModelConfigError(
                f"{where}: expected a table of options, got {type(data).__name__}"
            )
        data = dict(data)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known - {"preset"})
        if unknown:
            raise ModelConfigError(
                f"{where}: unknown key(s) {', '.join(unknown)}; known: preset, {', '.join(sorted(known))}"
            )
        preset = data.pop("preset", None)
        try:
            if preset is not None:
                base = model_config(str(preset))
                if set(data) & _SHAPE_KEYS and "name" not in data:
                    data["name"] = ""
                return replace(base, **data)
            if "family" not in data:
                raise ModelConfigError(f"{where}: give 'preset' (a named size) or 'family'")
            return cls(**data)
        except ModelConfigError as e:
            raise ModelConfigError(f"{where}: {e}") from None
        except TypeError as e:
            raise ModelConfigError(f"{where}: {e}") from None


def _choice(key: str, value: Any, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        raise ModelConfigError(f"model config: {key}={value!r}; expected one of {list(allowed)}")


def _positive(key: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ModelConfigError(f"model config: {key}={value!r}; expected a positive integer")


_SHAPE_KEYS = frozenset({"family", "layers", "blocks", "filters", "hidden", "mlp_input"})

_NAMED = {
    "mlp-classic": dict(family="mlp", hidden=(100, 100), mlp_input="board", batch_norm=False),
}
_PATTERNS = (
    (re.compile(r"resnet-b(\d+)c(\d+)"), lambda b, c: dict(family="resnet", blocks=b, filters=c)),
    (
        re.compile(r"cnn-(\d+)x(\d+)"),
        lambda n, c: dict(family="cnn", layers=n, filters=c, batch_norm=False),
    ),
    (re.compile(r"mlp-(\d+)x(\d+)"), lambda d, w: dict(family="mlp", hidden=(w,) * d)),
)

PRESETS = (
    "mlp-classic",
    "mlp-<depth>x<width>",
    "cnn-<layers>x<filters>",
    "resnet-b<blocks>c<filters>",
)
"""The forms a named size takes."""


def model_config(name: str, **overrides: Any) -> ModelConfig:
    """The config of a named size (``"resnet-b6c64"``, ``"cnn-13x128"``, ``"mlp-classic"``),
    with field overrides (``size=6``, ``planes=(...)``, ``score_head=True``)."""
    key = name.strip().lower()
    if key in _NAMED:
        base: dict[str, Any] = dict(_NAMED[key])
    else:
        for pattern, make in _PATTERNS:
            m = pattern.fullmatch(key)
            if m:
                base = make(*(int(g) for g in m.groups()))
                break
        else:
            raise ModelConfigError(
                f"unknown model name {name!r}; expected one of: {', '.join(PRESETS)}"
            )
    base["name"] = key
    base.update(overrides)
    return ModelConfig(**base)
