"""Quoted option values in player specs: commas, ``=`` and spaces survive inside quotes."""

from __future__ import annotations

import pytest

from othellolab.players import parse_spec


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("nboard:cmd='edax -n 1',depth=8", {"cmd": "edax -n 1", "depth": 8}),
        ('nboard:cmd="a,b=c d",depth=2', {"cmd": "a,b=c d", "depth": 2}),
        ("nboard:cmd='say \"hi\", then go'", {"cmd": 'say "hi", then go'}),
        ("x:name='12'", {"name": "12"}),  # quoted: a string, not an int
        ("x:name=12", {"name": 12}),
        ("x:", {}),  # a colon with nothing after it: no options, as "x"
        ("x: ", {}),
        ("x", {}),
    ],
)
def test_quoted_values_are_literal_strings(spec: str, expected: dict[str, object]) -> None:
    assert parse_spec(spec)[1] == expected


def test_unclosed_quote_is_an_error() -> None:
    with pytest.raises(ValueError, match="unclosed ' quote"):
        parse_spec("nboard:cmd='edax -n 1,depth=8")


@pytest.mark.parametrize(
    "spec",
    [
        "alphabeta:depth=3,,",
        "alphabeta:,depth=3",
        "alphabeta:depth=3,",
        "x:a=1,,b=2",
        "x:,",
        "x: , ",
    ],
)
def test_empty_options_are_refused(spec: str) -> None:
    """Empty items used to be skipped silently (``alphabeta:depth=3,,`` played as
    ``alphabeta:depth=3``); a stray comma is a typo, refused with the spec named."""
    with pytest.raises(ValueError, match="is empty \\(a stray comma\\?\\)") as info:
        parse_spec(spec)
    assert f"player spec {spec!r}" in str(info.value)
