"""core.parsing: numbers are ASCII digits within a range, or a NumberError; nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab.core import OthelloError
from othellolab.core.parsing import MAX_DIGITS, NumberError, clip, parse_decimal, parse_int


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**40), 10**40), st.integers(0, 3))
def test_integers_round_trip_within_the_range(value: int, zeros: int) -> None:
    text = ("-" if value < 0 else "") + "0" * zeros + str(abs(value))
    if abs(value) <= 10**20:
        assert parse_int(text, lo=-(10**20), hi=10**20) == value
    else:
        with pytest.raises(NumberError, match="is off the") as info:
            parse_int(text, lo=-(10**20), hi=10**20)
        assert info.value.out_of_range


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_any_text_is_a_number_or_a_number_error(text: str) -> None:
    for parse in (parse_int, parse_decimal):
        try:
            value = parse(text, lo=-64, hi=64)
        except NumberError as e:
            assert isinstance(e, OthelloError) and e.text == text
            continue
        assert -64 <= value <= 64
        assert all(c in "+-.0123456789 \t\r\n\v\f" for c in text)


@pytest.mark.parametrize(
    "text",
    ["５", "²", "٣", "໒", "1_0", "inf", "-inf", "nan", "1e3", "0x10", "", "+", "1.5.", "\u30001"],
)
def test_what_python_would_take_is_refused(text: str) -> None:
    with pytest.raises(NumberError, match="not a (whole|finite decimal) number"):
        parse_decimal(text, lo=-64, hi=64)
    with pytest.raises(NumberError, match="not a whole number written in ASCII digits"):
        parse_int(text, lo=-64, hi=64)


def test_huge_numbers_are_out_of_range_not_crashes() -> None:
    for text in ("9" * 5000, "1" + "0" * (MAX_DIGITS + 1) + ".5"):
        with pytest.raises(NumberError, match="is off the"):
            parse_decimal(text, lo=-64, hi=64)
    assert parse_int("0" * 5000 + "7", lo=0, hi=9) == 7
    assert parse_decimal(" -3.133 ", lo=-64, hi=64) == -3.133


def test_clip() -> None:
    assert clip("short") == "short"
    assert clip("x" * 100, 10) == "xxxxxxx..."
    assert clip(10**5000).startswith("<int too large")
