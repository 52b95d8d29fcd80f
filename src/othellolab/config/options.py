"""Declared player options: each one's type and documented range, checked in one place.

A player class lists its options in ``OPTIONS`` and decorates ``__init__`` with
``@checked_options``, so a player built from Python and one built from a spec string (the
registry) pass through the same checks: numbers finite and in range, integers whole, choices
among the allowed names, and a ``ConfigError`` naming the option and its range otherwise.

>>> from othellolab.players import make_player
>>> make_player("alphabeta:time=nan")
Traceback (most recent call last):
...
othellolab.core.errors.ConfigError: player 'alphabeta': option time: must be a finite number in 0.001..3600 (seconds), got nan
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

from othellolab.core import ConfigError

__all__ = ["SEED", "CheckedTable", "Option", "checked_options", "device_option"]

F = TypeVar("F", bound=Callable[..., Any])


def _number(x: float) -> str:
    """A bound or value in few characters: ``1e7`` for ten million, ``2^63-1`` for the seeds
    (a number that is not a round power of ten keeps all its digits)."""
    if x == 2**63 - 1:
        return "2^63-1"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:g}"
    digits = str(int(x)).lstrip("-")
    if len(digits) > 6 and digits.rstrip("0") in tuple("123456789"):
        return ("-" if x < 0 else "") + f"{digits[0]}e{len(digits) - 1}"
    return str(int(x)) if isinstance(x, int) or abs(x) < 1e16 else f"{x:g}"


def _shown(value: Any) -> str:
    """A value in an error, at most 80 characters of its ``repr``."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Option:
    """One option: its ``kind`` (``int``, ``float``, ``bool``, ``str``), the closed range
    ``low..high`` of a number, the ``choices`` of a string, whether ``None`` is allowed
    (``optional``), a ``unit`` and a ``help`` line. ``spec=False`` marks an option that only
    Python code can pass (an object), never a spec string. ``check`` is an extra test of the
    converted value (a device that must exist) returning it or raising ``ConfigError``.
    ``model`` marks a model name or directory, which the registry resolves through the
    caller's ``ModelCatalog`` (a server allows only its own models). ``switch`` marks a
    string option that also reads ``on``/``off`` (which a spec parses as true/false) as those
    words. ``path`` marks a string option that names shipped data or a local folder (pattern
    weights, an opening book): a caller that allows no paths (a server's ``ModelCatalog``)
    takes only names there."""

    kind: type
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    optional: bool = False
    unit: str = ""
    help: str = ""
    spec: bool = True
    check: Callable[[Any], Any] | None = None
    model: bool = False
    switch: bool = False
    path: bool = False
    shown: str = ""
    """The values as the docs' tables write them, where ``describe`` cannot (a list)."""
    digits: bool = False
    """A text option that also takes a whole number as its digits: WTHOR years, where
    ``--set fit.years=2023`` and ``years = 2023`` mean the text ``"2023"``."""
    items: Option | None = None
    """A list option: each item is checked by this option, the whole read as a tuple."""
    max_items: int | None = None
    """Most items a list option takes."""

    def describe(self) -> str:
        """The allowed values in a few words: ``int 1..60 or none``."""
        if self.items is not None:
            most = "" if self.max_items is None else f" (at most {self.max_items})"
            text = f"list{most} of {self.items.describe()}"
        elif not self.spec:
            text = "Python object"
        elif self.choices:
            text = "one of " + ", ".join(self.choices)
        elif self.kind is bool:
            text = "true or false"
        elif self.model:
            text = "a model name or directory"
        elif self.kind in (int, float):
            text = self.kind.__name__
            if self.low is not None or self.high is not None:
                low = "" if self.low is None else _number(self.low)
                high = "" if self.high is None else _number(self.high)
                text += f" {low}..{high}"
            if self.unit:
                text += f" ({self.unit})"
        else:
            text = "text"
        return text + (" or none" if self.optional else "")

    def convert(self, value: Any, name: str) -> Any:
        """``value`` checked and converted to the option's type (a whole float to an int)."""
        if value is None:
            if self.optional:
                return None
            raise ConfigError(f"needs a value ({self.describe()})", option=name)
        if self.items is not None:
            return self._list(value, name)
        if not self.spec and self.kind is object:
            return value
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            raise ConfigError(f"expected true or false, got {value!r}", option=name)
        if self.kind in (int, float):
            return self._number(value, name)
        if self.switch and isinstance(value, bool):
            value = "on" if value else "off"
        if self.digits and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise ConfigError(f"expected {self.describe()}, got {value!r}", option=name)
        if len(value) > 1000:
            raise ConfigError(f"{len(value)} characters is too long (1000 at most)", option=name)
        if "\x00" in value:
            raise ConfigError("contains a NUL character", option=name)
        if self.choices and value.lower() not in self.choices:
            raise ConfigError(
                f"expected {self.describe()}, got {value!r}",
                option=name,
                allowed=", ".join(self.choices),
            )
        value = value.lower() if self.choices else value
        if self.check is None:
            return value
        try:
            return self.check(value)
        except ConfigError as e:
            if e.option is not None:
                raise
            raise ConfigError(e.what, where=e.where, option=name, allowed=e.allowed) from None

    def _list(self, value: Any, name: str) -> tuple[Any, ...]:
        """A list or tuple whose every item ``items`` converts, as a tuple."""
        assert self.items is not None
        if not isinstance(value, list | tuple):
            raise ConfigError(
                f"expected a list, got {type(value).__name__} {_shown(value)}", option=name
            )
        if self.max_items is not None and len(value) > self.max_items:
            raise ConfigError(f"{len(value)} items; at most {self.max_items}", option=name)
        return tuple(self.items.convert(item, name) for item in value)

    def _number(self, value: Any, name: str) -> int | float:
        ranged = self.describe().removesuffix(" or none").split(" ", 1)
        bounds = f" in {ranged[1]}" if len(ranged) > 1 else ""
        noun = "a whole number" if self.kind is int else "a finite number"
        if isinstance(value, bool) or type(value).__name__ == "bool_":  # true is not 1
            raise ConfigError(f"must be {noun}{bounds}, got {value!r}", option=name)
        if not isinstance(value, int | float):
            if hasattr(value, "__index__") or hasattr(value, "__float__"):
                value = value.item() if hasattr(value, "item") else float(value)
            else:
                raise ConfigError(f"must be {noun}{bounds}, got {value!r}", option=name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"must be {noun}{bounds}, got {value!r}", option=name)
        given = value
        if self.kind is int:
            if isinstance(value, float):
                if not value.is_integer():
                    raise ConfigError(f"must be {noun}{bounds}, got {value!r}", option=name)
                value = int(value)
        else:
            value = float(value)
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise ConfigError(
                f"must be {noun}{bounds}, got {_number(given)}",
                option=name,
                allowed=self.describe(),
            )
        return value


SEED = Option(int, 0, 2**63 - 1, optional=True, help="random seed (none: fresh randomness)")
"""The ``seed`` option every seeded player shares."""


def device_option(value: str) -> str:
    """``value`` if it names a torch device this machine has (``cpu``, ``cuda``, ``cuda:N``,
    ``mps``), else a ``ConfigError`` that lists the devices it has."""
    text = value.strip().lower()
    if text == "cpu":
        return "cpu"
    import torch

    available = ["cpu"]
    if torch.cuda.is_available():
        available += ["cuda"] + [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        available.append("mps")
    if text in available:
        return text
    raise ConfigError(
        f"device {value!r} is not available here; available: {', '.join(available)}",
        option="device",
        allowed=", ".join(available),
    )


def checked_options(init: F) -> F:
    """Decorate a player's ``__init__``: its keyword options are checked against the class's
    ``OPTIONS`` (and converted: ``1e3`` to ``1000``) before the body runs; a bad one raises a
    ``ConfigError`` that names the player and the option."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        declared: dict[str, Option] = type(self).OPTIONS
        bound = signature.bind(self, *args, **kwargs)
        for name, value in list(bound.arguments.items())[1:]:
            option = declared.get(name)
            if option is None:
                continue
            try:
                bound.arguments[name] = option.convert(value, name)
            except ConfigError as e:
                raise ConfigError(
                    e.what,
                    where=f"player {type(self).name!r}",
                    option=e.option,
                    allowed=e.allowed,
                ) from None
        init(*bound.args, **bound.kwargs)

    return wrapper  # type: ignore[return-value]


class CheckedTable:
    """A frozen dataclass of options whose every field is checked and converted by its
    ``OPTIONS`` when it is built; errors name the option and ``TABLE``. The one way to declare
    a config table: each field's default is the dataclass field's, its type, range and doc its
    ``Option``; ``from_dict`` reads a TOML table, ``to_dict`` writes one, and
    ``config.reference`` renders the docs' table of it."""

    OPTIONS: ClassVar[dict[str, Option]] = {}
    TABLE: ClassVar[str] = ""
    ERROR: ClassVar[type[ConfigError]] = ConfigError
    """The error a bad value raises: ``ConfigError`` or a subclass of it (``ModelConfigError``)."""
    SECTIONS: ClassVar[dict[str, type]] = {}
    """Fields that hold another ``CheckedTable`` whose keys this table reads flat, beside its
    own (self-play's ``search``): composed, not copied."""

    @classmethod
    def keys(cls) -> list[str]:
        """The table's keys as a file writes them: its own and, flat, those of its sections."""
        out = []
        for f in fields(cls):  # type: ignore[arg-type]
            section = cls.SECTIONS.get(f.name)
            out += section.keys() if section is not None else [f.name]  # type: ignore[attr-defined]
        return out

    @classmethod
    def from_dict(cls, data: Any, *, where: str | None = None) -> Any:
        """The table built from a mapping (a TOML table): unknown keys and bad values are
        ``ConfigError``s located at ``where`` (default ``TABLE``) that name the key."""
        from othellolab.config.tables import table_from_dict

        return table_from_dict(cls, data, cls.TABLE if where is None else where)

    def to_dict(self) -> dict[str, Any]:
        """The options as plain TOML/JSON data (tuples as lists, sections flat); ``from_dict``
        reads it back."""
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self.SECTIONS:
                out.update(value.to_dict())
            else:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            section = self.SECTIONS.get(f.name)
            if section is not None:
                if not isinstance(getattr(self, f.name), section):
                    raise TypeError(f"{f.name} must be a {section.__name__}")
                continue
            try:
                value = self.OPTIONS[f.name].convert(getattr(self, f.name), f.name)
            except ConfigError as e:
                raise self.ERROR(
                    e.what, where=self.TABLE, option=e.option, allowed=e.allowed
                ) from None
            object.__setattr__(self, f.name, value)
