"""WTHOR: every real game replays, names resolve, files round-trip byte for byte, errors name
file, game and move."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from othellolab import Board
from othellolab.records import (
    GameRecord,
    ReadReport,
    WthorError,
    name_table,
    read_header,
    read_names,
    read_wthor,
    write_names,
    write_wthor,
)
from othellolab.records.wthor import GAME_SIZE, HEADER_SIZE, read_wtb, replay

from helpers import DATA, shared_file


@pytest.fixture(scope="module")
def all_wthor() -> dict[str, object]:
    """Read every real .wtb file once: games per file, mismatching games, report."""
    shared_file("wthor/WTHOR.JOU")
    report = ReadReport()
    per_file: dict[str, int] = {}
    mismatched: list[GameRecord] = []
    for path in sorted((DATA / "wthor").glob("WTH_*.wtb")):
        n = 0
        for game in read_wthor(path, report=report):
            n += 1
            if game.result_mismatch() is not None:
                mismatched.append(game)
        per_file[path.name] = n
    return {"per_file": per_file, "mismatched": mismatched, "report": report}


def test_every_game_of_every_file_replays(all_wthor) -> None:
    counts = {
        r["file"]: int(r["n_games"])
        for r in csv.DictReader(shared_file("wthor/games_per_year.csv").open())
    }
    assert all_wthor["per_file"] == counts
    assert sum(counts.values()) == 131_737  # the data README's total
    report = all_wthor["report"]
    assert report.games == 131_737 and not report.skipped


def test_mismatches_are_unfinished_games(all_wthor) -> None:
    """Stored counts equal the replay except in games stopped early (adjudicated/resigned):
    382 of them on this data (the data README calls them "a few dozen")."""
    mismatched = all_wthor["mismatched"]
    assert len(mismatched) == len(all_wthor["report"].mismatches) == 382
    assert all(not g.is_complete() for g in mismatched)


def test_names_resolve_for_a_2004_game() -> None:
    # Bytes 16..23 of WTH_2004.wtb are 74 00 5f 00 01 08 29 19: tournament 116, black 95,
    # white 2049, 41 black discs, 25 theoretical; records 95 and 2049 of WTHOR.JOU read
    # "Vecchi Elisabetta" and "Halvorsen Luke", record 116 of WTHOR.TRN "Australian National"
    # (checked with xxd on the files).
    game = next(read_wthor(shared_file("wthor/WTH_2004.wtb")))
    h = game.headers
    assert (h["black"], h["white"], h["tournament"]) == (
        "Vecchi Elisabetta",
        "Halvorsen Luke",
        "Australian National",
    )
    assert (h["black_id"], h["white_id"], h["tournament_id"]) == (95, 2049, 116)
    assert (h["year"], h["source"], h["game"], h["theoretical_depth"]) == (
        2004,
        "WTH_2004.wtb",
        1,
        24,
    )
    assert game.recorded_score == 2 * 41 - 64 == game.score
    assert game.theoretical_score == 2 * 25 - 64
    assert game.transcript().startswith("f5f6e6f4")


def test_name_files() -> None:
    players = read_names(shared_file("wthor/WTHOR.JOU"))
    tournaments = read_names(shared_file("wthor/WTHOR.TRN"))
    assert len(players) == 4448 and len(tournaments) == 492  # the data README's counts
    assert players[0] == "???"


def test_name_tables_can_be_turned_off_or_given() -> None:
    path = shared_file("wthor/WTH_2004.wtb")
    game = next(read_wthor(path, players=False, tournaments=False))
    assert "black" not in game.headers and game.headers["black_id"] == 95
    game = next(read_wthor(path, players=["x"] * 4448, tournaments=False))
    assert game.headers["black"] == "x"


def test_files_round_trip_byte_for_byte(tmp_path: Path) -> None:
    src = shared_file("wthor/WTH_2004.wtb")
    header = read_header(src)
    games = list(read_wthor(src))
    out = tmp_path / "copy.wtb"
    assert write_wthor(out, games, created=header.created) == 9113
    assert out.read_bytes() == src.read_bytes()
    # With name tables the indices come from the names; read back, the games are identical.
    jou, trn = shared_file("wthor/WTHOR.JOU"), shared_file("wthor/WTHOR.TRN")
    write_wthor(out, games, created=header.created, players=jou, tournaments=trn)
    assert out.read_bytes() == src.read_bytes()
    back = list(read_wthor(out, players=jou, tournaments=trn))
    assert [g.with_headers(source=None) for g in back] == [
        g.with_headers(source=None) for g in games
    ]
    for a, b in zip(back[:50], games[:50], strict=True):
        assert (a.recorded_score, a.theoretical_score) == (b.recorded_score, b.theoretical_score)


def test_name_files_round_trip_byte_for_byte(tmp_path: Path) -> None:
    for name, created in (("WTHOR.JOU", (2026, 2, 16)), ("WTHOR.TRN", (2026, 2, 19))):
        src = shared_file(f"wthor/{name}")
        out = tmp_path / name
        write_names(out, read_names(src), created=created)
        assert out.read_bytes() == src.read_bytes()


def test_latin1_names_and_new_tables(tmp_path: Path) -> None:
    game = GameRecord.from_moves(
        ["f5", "d6"], headers={"black": "Léa Ørsted", "white": "B", "tournament": "T"}
    )
    players = name_table([game], "black,white")
    assert players == ["???", "Léa Ørsted", "B"]
    write_names(tmp_path / "p.JOU", players)
    write_names(tmp_path / "t.TRN", name_table([game], "tournament"))
    write_wthor(tmp_path / "g.wtb", [game], year=2020, players=players, tournaments=["???", "T"])
    back = next(read_wthor(tmp_path / "g.wtb"))  # finds p.JOU and t.TRN next to it
    assert back.headers["black"] == "Léa Ørsted" and back.headers["tournament"] == "T"
    assert back.moves == game.moves and back.headers["year"] == 2020
    with pytest.raises(WthorError, match=r"g.wtb: game 1: black name 'Zed' is not in the name"):
        write_wthor(tmp_path / "g.wtb", [game.with_headers(black="Zed")], players=players)
    with pytest.raises(WthorError, match="not Latin-1"):
        write_names(tmp_path / "bad.JOU", ["Ĳssel"])


def test_writer_rejects_what_wthor_cannot_hold(tmp_path: Path) -> None:
    small = GameRecord.from_moves(["b1"], start=Board(size=4))
    with pytest.raises(WthorError, match="only 8x8 games from the standard start"):
        write_wthor(tmp_path / "s.wtb", [small])
    odd = GameRecord.from_moves(["f5"], recorded_score=3)
    with pytest.raises(WthorError, match=r"game 1: recorded score \+3 cannot be stored"):
        write_wthor(tmp_path / "s.wtb", [odd])
    assert not (tmp_path / "s.wtb").exists() and not list(tmp_path.glob("*.tmp"))


def _games_bytes(n: int) -> bytearray:
    src = shared_file("wthor/WTH_2004.wtb").read_bytes()
    data = bytearray(src[: HEADER_SIZE + GAME_SIZE * n])
    data[4:8] = n.to_bytes(4, "little")
    return data


def _write(tmp_path: Path, data: bytes, name: str = "bad.wtb") -> Path:
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


def test_truncated_file_names_file_and_game(tmp_path: Path) -> None:
    data = shared_file("wthor/WTH_2004.wtb").read_bytes()[: HEADER_SIZE + GAME_SIZE * 3 + 10]
    bad = _write(tmp_path, data, "cut.wtb")
    with pytest.raises(WthorError, match=r"cut.wtb: game 4: truncated record \(10 of 68 bytes\)"):
        list(read_wthor(bad))
    with pytest.raises(WthorError, match=r"cut.wtb: game 4: truncated record"):
        list(read_wtb(bad))
    report = ReadReport()
    assert len(list(read_wthor(bad, lenient=True, report=report))) == 3
    assert len(report.skipped) == 1 and "truncated" in report.skipped[0].reason


def test_illegal_move_names_file_game_and_move(tmp_path: Path) -> None:
    data = _games_bytes(3)
    data[HEADER_SIZE + GAME_SIZE + 8 + 1] = 11  # game 2, move 2: a1, never legal that early
    bad = _write(tmp_path, data)
    with pytest.raises(
        WthorError, match=r"bad.wtb: game 2, move 2 \(a1\): illegal move a1 for white"
    ):
        list(read_wthor(bad))
    report = ReadReport()
    games = list(read_wthor(bad, lenient=True, report=report))
    assert [g.headers["game"] for g in games] == [1, 3]
    assert report.skipped[0].game == 2 and "illegal move a1" in report.skipped[0].reason
    raw = list(read_wtb(bad))
    replay(raw[0])
    with pytest.raises(ValueError, match=r"game 2: move 2 \(a1\): illegal move a1"):
        replay(raw[1], where="bad.wtb game 2: ")


def test_lenient_without_report_warns(tmp_path: Path) -> None:
    data = _games_bytes(2)
    data[HEADER_SIZE + 8] = 11
    bad = _write(tmp_path, data)
    with pytest.warns(RuntimeWarning, match=r"bad.wtb: skipped 1 bad game"):
        assert len(list(read_wthor(bad, lenient=True))) == 1


def test_bad_move_bytes(tmp_path: Path) -> None:
    data = _games_bytes(1)
    data[HEADER_SIZE + 8 + 3] = 99
    with pytest.raises(WthorError, match=r"bad.wtb: game 1, move 4: invalid move byte 99"):
        list(read_wthor(_write(tmp_path, data)))
    data = _games_bytes(1)
    data[HEADER_SIZE + 8 + 50 : HEADER_SIZE + 8 + 60] = bytes(10)
    data[HEADER_SIZE + 8 + 55] = 11
    with pytest.raises(
        WthorError, match=r"bad.wtb: game 1, move 56: move byte 11 after the end-of-game 0"
    ):
        list(read_wthor(_write(tmp_path, data)))


def test_bad_counts_and_indices(tmp_path: Path) -> None:
    data = _games_bytes(1)
    data[HEADER_SIZE + 6] = 65
    with pytest.raises(WthorError, match=r"bad.wtb: game 1: bad disc count \(black 65"):
        list(read_wthor(_write(tmp_path, data)))
    data = _games_bytes(1)
    data[HEADER_SIZE + 2 : HEADER_SIZE + 4] = (4448).to_bytes(2, "little")
    with pytest.raises(
        WthorError, match=r"bad.wtb: game 1: black player index 4448 is not in the name file"
    ):
        list(read_wthor(_write(tmp_path, data), players=shared_file("wthor/WTHOR.JOU")))


def test_bad_headers(tmp_path: Path) -> None:
    data = _games_bytes(1)
    data[12] = 10
    with pytest.raises(
        WthorError, match=r"bad.wtb: bad header: board size byte 10 .*10x10 games are not supported"
    ):
        list(read_wthor(_write(tmp_path, data)))
    with pytest.raises(WthorError, match=r"short.wtb: file too short for a WTHOR header \(5 of 16"):
        list(read_wthor(_write(tmp_path, b"\x14\x04\0\0\0", "short.wtb")))
    data = _games_bytes(2)
    data[4:8] = (1).to_bytes(4, "little")  # the count says 1 but 2 games follow
    with pytest.raises(WthorError, match=r"game 2: 68 bytes after the 1 games the header"):
        list(read_wthor(_write(tmp_path, data)))
    with pytest.raises(WthorError, match=r"cannot tell the record size from the extension"):
        read_names(_write(tmp_path, bytes(16), "names.bin"))


def test_fixture_file_with_size_byte_zero() -> None:
    """fixtures/nboard_test.WTB stores the board size as 0 (= 8x8) and holds one game."""
    path = shared_file("wthor/fixtures/nboard_test.WTB")
    games = list(read_wthor(path, players=False, tournaments=False))
    assert len(games) == 1 and games[0].headers["year"] == 1980
    assert read_header(path).board_size == 8
