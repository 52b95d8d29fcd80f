"""``read_games``/``write_games``: dispatch by extension, and conversions between formats keep
the moves and the scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab.records import RecordError, format_of, read_games, read_wthor, write_games

from helpers import shared_file


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("WTH_2004.wtb", "wthor"),
        ("X.WTB", "wthor"),
        ("a.ggf", "ggf"),
        ("a.ggf.gz", "ggf"),
        ("logbook.gam.gz", "logistello"),
        ("xot.txt", "transcript"),
        ("g.transcript", "transcript"),
    ],
)
def test_format_of(name: str, fmt: str) -> None:
    assert format_of(name) == fmt


def test_unknown_and_obf_extensions_are_clear_errors() -> None:
    with pytest.raises(RecordError, match=r"a.pgn: unknown game-record extension '.pgn'"):
        format_of("a.pgn")
    with pytest.raises(RecordError, match=r"OBF files hold positions, not games"):
        read_games("x.obf")
    with pytest.raises(ValueError, match="unknown format 'pgn'"):
        read_games("x.txt", format="pgn")


@pytest.mark.parametrize("target", ["g.ggf", "g.txt", "g.gam", "g.wtb", "g.ggf.gz"])
def test_conversions_keep_moves_and_scores(tmp_path: Path, target: str) -> None:
    games = list(read_wthor(shared_file("wthor/WTH_2004.wtb")))[:300]
    out = tmp_path / target
    assert write_games(out, games) == 300
    back = list(read_games(out))
    assert [g.moves for g in back] == [g.moves for g in games]
    if not target.endswith(".txt"):
        assert [g.recorded_score for g in back] == [g.recorded_score for g in games]


def test_options_reach_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "four.txt"
    path.write_text("a2a1c4\n")
    assert next(read_games(path, size=4)).size == 4
