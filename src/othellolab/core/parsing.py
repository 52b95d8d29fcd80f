"""Numbers read from files and requests: ASCII digits only, a bounded length, a stated range.

Python's ``int``, ``float`` and ``str.isdigit`` accept more than a record format means by a
number: any Unicode digit (``int("５") == 5``; ``"²".isdigit()`` but ``int("²")`` fails),
``"inf"``, ``"nan"``, exponents and underscores, and ``int`` refuses more than 4,300 digits with
a bare ``ValueError``. Readers parse their numbers here instead, so that a bad number is a
``NumberError`` saying what was expected; the reader turns it into its own error naming the
file, the game and the field. ``clip`` shortens a value echoed in a message.

>>> parse_int("-04", lo=-64, hi=64)
-4
>>> parse_decimal(" +2.5", lo=-64, hi=64)
2.5
>>> parse_int("５", lo=0, hi=9, what="board size")
Traceback (most recent call last):
...
othellolab.core.parsing.NumberError: board size '５' is not a whole number written in ASCII digits
>>> parse_decimal("inf", lo=-64, hi=64, what="komi")
Traceback (most recent call last):
...
othellolab.core.parsing.NumberError: komi 'inf' is not a finite decimal number written in ASCII digits (like -1.5)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TypeVar

from othellolab.core.errors import OthelloError

MAX_DIGITS = 30
"""Most significant digits (leading zeros aside) before the decimal point: far more than any
field needs, far below Python's 4,300-digit limit for ``int``, and never an infinite float."""

N = TypeVar("N", int, float)

_SPACE = " \t\r\n\v\f"
_INT = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


class NumberError(OthelloError):
    """A number field that is not a number in the expected form or range; ``text`` is what was
    written, ``lo`` and ``hi`` the range; ``out_of_range`` tells a well-formed number outside
    the range from text that is no such number."""

    def __init__(
        self, what: str, *, text: str, lo: float, hi: float, out_of_range: bool = False
    ) -> None:
        self.text = text
        self.lo = lo
        self.hi = hi
        self.out_of_range = out_of_range
        super().__init__(what)


def parse_int(text: str, *, lo: int, hi: int, what: str = "value") -> int:
    """The whole number ``[+-]digits`` written in ``text`` (ASCII digits, surrounding ASCII
    white space allowed), if it lies in ``lo..hi``; else ``NumberError`` naming ``what``."""
    return _parse(
        text, lo, hi, what, _INT, "a whole number written in ASCII digits", _whole, f"{lo}..{hi}"
    )


def parse_decimal(text: str, *, lo: float, hi: float, what: str = "value") -> float:
    """The decimal number ``[+-]digits[.digits]`` written in ``text`` (ASCII digits, no
    exponent, no ``inf``/``nan``; surrounding ASCII white space allowed), if it lies in
    ``lo..hi``; else ``NumberError`` naming ``what``."""
    expected = "a finite decimal number written in ASCII digits (like -1.5)"
    return _parse(text, lo, hi, what, _DECIMAL, expected, float, f"{_num(lo)}..{_num(hi)}")


def _parse(
    text: str,
    lo: N,
    hi: N,
    what: str,
    form: re.Pattern[str],
    expected: str,
    convert: Callable[[str], N],
    bounds: str,
) -> N:
    """``convert`` of ``text`` (white space stripped) when it matches ``form``, has at most
    ``MAX_DIGITS`` digits before the point and lies in ``lo..hi`` (written ``bounds``); else a
    ``NumberError`` saying it is not ``expected`` or is off the range."""
    s = text.strip(_SPACE)
    if form.fullmatch(s) is None:
        raise NumberError(f"{what} {clip(text)!r} is not {expected}", text=text, lo=lo, hi=hi)
    whole = s.lstrip("+-").lstrip("0").split(".", 1)[0]
    value = None if len(whole) > MAX_DIGITS else convert(s)
    if value is None or not lo <= value <= hi:
        raise NumberError(
            f"{what} {clip(s)} is off the {bounds} range",
            text=text,
            lo=lo,
            hi=hi,
            out_of_range=True,
        )
    return value


def _whole(s: str) -> int:
    """``[+-]digits`` as an int, leading zeros dropped first (``int`` refuses a string of more
    than 4,300 digits, zeros included)."""
    return int(s.lstrip("+-").lstrip("0") or "0") * (-1 if s[0] == "-" else 1)


def clip(value: object, limit: int = 40) -> str:
    """``value`` (a string, or the ``repr`` of anything else) cut to ``limit`` characters with
    ``...``, for echoing user input in an error message."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except ValueError:  # an int too long for repr
        text = f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


_SPEC_INT = re.compile(r"[+-]?[0-9]{1,40}")
_SPEC_FLOAT = re.compile(
    r"[+-]?(?:[0-9]{1,400}\.?[0-9]{0,400}|\.[0-9]{1,400})(?:[eE][+-]?[0-9]{1,6})?"
)
_SPEC_SPECIAL = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def parse_number(text: str) -> int | float | None:
    """``text`` as an int or a float when it is written in ASCII digits (``12``, ``-0.5``,
    ``1e3``, ``inf``, ``nan``), else ``None``: how a player spec's values are read, before
    the option they set checks their range (so ``inf`` reads, and is then refused by name).
    Python's own ``int`` and ``float`` also accept other scripts' digits and underscores."""
    if _SPEC_INT.fullmatch(text):
        return int(text)
    if _SPEC_FLOAT.fullmatch(text):
        return float(text)
    return _SPEC_SPECIAL.get(text.lower())
