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
        ("x:a=1,,b=2,", {"a": 1, "b": 2}),  # empty items are still skipped
    ],
)
def test_quoted_values_are_literal_strings(spec: str, expected: dict[str, object]) -> None:
    assert parse_spec(spec)[1] == expected


def test_unclosed_quote_is_an_error() -> None:
    with pytest.raises(ValueError, match="unclosed ' quote"):
        parse_spec("nboard:cmd='edax -n 1,depth=8")
