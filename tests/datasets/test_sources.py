"""Vectorised WTHOR decoding against the streaming reader of ``records.wthor``."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab import Board
from othellolab.datasets.sources import (
    NO_SCORE,
    NO_YEAR,
    expand_sources,
    games_to_arrays,
    read_wtb_arrays,
    sha256_arrays,
)
from othellolab.records.game import GameRecord
from othellolab.records.wthor import WthorError, read_wtb

from helpers import shared_file


def test_wtb_arrays_equal_the_streaming_reader() -> None:
    path = shared_file("wthor/WTH_2004.wtb")
    ga = read_wtb_arrays(path)
    games = list(read_wtb(path))
    assert ga.n_games == len(games) == 9113 and ga.moves.shape == (9113, 60)
    assert (ga.year == 2004).all() and ga.size == 8
    for row, game in zip(ga.moves, games, strict=True):
        assert tuple(row[row >= 0].tolist()) == game.moves
    black = np.array([g.black_discs for g in games])
    assert np.array_equal(ga.recorded_score, 2 * black - 64)
    start = Board()
    assert (ga.start_p == start.player).all() and (ga.start_o == start.opponent).all()
    assert (ga.start_color == 0).all()


def test_truncated_file_names_file_and_game(tmp_path) -> None:
    bad = tmp_path / "cut.wtb"
    bad.write_bytes(shared_file("wthor/WTH_2004.wtb").read_bytes()[: 16 + 68 * 3 + 10])
    with pytest.raises(WthorError, match=r"cut.wtb: game 4: truncated record \(10 of 68"):
        read_wtb_arrays(bad)


def test_invalid_move_byte_names_game_and_move(tmp_path) -> None:
    data = bytearray(shared_file("wthor/WTH_2004.wtb").read_bytes())
    data[16 + 68 * 5 + 8 + 3] = 91  # game 6, move 4: row 9 does not exist
    bad = tmp_path / "bad.wtb"
    bad.write_bytes(bytes(data))
    with pytest.raises(WthorError, match=r"bad.wtb: game 6, move 4: invalid move byte 91"):
        read_wtb_arrays(bad)


def test_games_to_arrays_keeps_passes_start_and_headers() -> None:
    g1 = GameRecord.from_moves(["f5", "d6"], headers={"year": 1999}, recorded_score=4)
    start = Board().play("f5")
    g2 = GameRecord.from_moves(["d6", "c3"], start=start)
    ga = games_to_arrays([g1, g2], name="mine")
    assert ga.name == "mine" and ga.moves.tolist() == [[37, 43], [43, 18]]
    assert ga.year.tolist() == [1999, NO_YEAR] and ga.recorded_score.tolist() == [4, NO_SCORE]
    assert ga.start_color.tolist() == [0, 1] and int(ga.start_p[1]) == start.player
    assert sha256_arrays(ga) != sha256_arrays(games_to_arrays([g1], name="mine"))
    # g2 records no score: the hash is the one it had when that was stored as OLD_NO_SCORE,
    # so the cache keys and manifests of in-memory sources stay what they were
    assert sha256_arrays(ga) == "078551fcea29cc490177d9fb680235d2554df560eac2064bb43800260646efd1"
    with pytest.raises(ValueError, match="game 2 is 6x6"):
        games_to_arrays([g1, GameRecord.from_moves([], start=Board(size=6))])


def test_expand_sources(tmp_path) -> None:
    (tmp_path / "b.wtb").write_bytes(b"")
    (tmp_path / "a.WTB").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in expand_sources([tmp_path])] == ["a.WTB", "b.wtb"]
    with pytest.raises(FileNotFoundError, match="no such file"):
        expand_sources([tmp_path / "missing.wtb"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no .wtb files"):
        expand_sources([empty])
