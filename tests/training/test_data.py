"""Positions from real WTHOR games, and batches with symmetry augmentation."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import BLACK, Board
from othellolab.core import kernels as _k
from othellolab.nn.planes import encode_planes
from othellolab.records.game import Game
from othellolab.records.wthor import read_wtb
from othellolab.training.data import (
    ArraySource,
    PositionArrays,
    parse_years,
    positions_from_wthor,
    split_by_game,
)

from helpers import shared_file


def test_parse_years() -> None:
    assert parse_years("2001-2003,1990") == [2001, 2002, 2003, 1990]
    assert parse_years(2015) == [2015]
    assert parse_years(["2001", "2001-2002"]) == [2001, 2002]
    with pytest.raises(ValueError, match="'20x1'"):
        parse_years("20x1")
    with pytest.raises(ValueError, match="backwards"):
        parse_years("2005-2001")


@pytest.fixture(scope="module")
def wthor_2004() -> PositionArrays:
    return positions_from_wthor([shared_file("wthor/WTH_2004.wtb")], max_games=60)


def test_positions_follow_the_games(wthor_2004: PositionArrays) -> None:
    a = wthor_2004
    games = list(read_wtb(shared_file("wthor/WTH_2004.wtb")))[:60]
    assert len(np.unique(a.game)) == 60
    # every WTHOR move is one row (passes are not stored and are left out here)
    assert len(a) == sum(len(g.moves) for g in games)
    # the first position of each game is the start, and f5 is played (every WTHOR game starts f5)
    first = np.flatnonzero(np.diff(a.game, prepend=-1))
    start = Board()
    assert np.all(a.player[first] == start.player) and np.all(a.opponent[first] == start.opponent)
    assert np.all(a.move[first] == 37)
    # each move is legal in its position
    legal = _k.legal_mask_batch(a.player, a.opponent, 8)
    assert np.all((legal >> a.move.astype(np.uint64)) & np.uint64(1))


def test_results_agree_with_the_stored_disc_counts(wthor_2004: PositionArrays) -> None:
    a = wthor_2004
    games = list(read_wtb(shared_file("wthor/WTH_2004.wtb")))[:60]
    first = np.flatnonzero(np.diff(a.game, prepend=-1))
    # black moves first: the first row's score is black's final disc difference / 64
    black = np.round(a.score[first] * 64).astype(int)
    stored = np.array([2 * g.black_discs - 64 for g in games])
    assert np.mean(black == stored) > 0.95  # WTHOR stores the replayed count in all but a few games
    assert np.array_equal(np.sign(black), a.outcome[first])
    # row by row, the outcome is seen from the side to move (checked through records.Game,
    # which inserts the passes itself)
    rows = iter(range(len(a)))
    for wg in games[:10]:
        game = Game.from_moves(wg.moves)
        black_score = game.score()
        for board, action in game.replay():
            if action == 64:
                continue
            i = next(rows)
            assert a.move[i] == action and a.player[i] == board.player
            assert a.outcome[i] == np.sign(black_score if board.turn == BLACK else -black_score)


def test_split_keeps_games_whole(wthor_2004: PositionArrays) -> None:
    train, val = split_by_game(wthor_2004, 0.2, np.random.default_rng(0))
    assert len(train) + len(val) == len(wthor_2004)
    assert not set(train.game) & set(val.game)
    assert len(set(val.game)) == 12


def test_batches_cover_every_row_once(wthor_2004: PositionArrays) -> None:
    src = ArraySource(wthor_2004)
    batches = list(src.batches(100, np.random.default_rng(1), augment=False))
    assert sum(len(b["value"]) for b in batches) == len(src)
    b = batches[0]
    assert b["planes"].shape == (100, 2, 8, 8) and b["policy"].shape == (100, 65)
    assert np.all(b["policy"].sum(axis=1) == 1) and b["legal"].dtype == bool
    assert np.all(b["legal"][b["policy"] > 0])


def test_augmentation_transforms_board_and_move_together(wthor_2004: PositionArrays) -> None:
    src = ArraySource(wthor_2004, planes=("player", "opponent", "legal"))
    idx = np.arange(40)
    plain = src.batch(idx)
    for k in range(8):
        aug = src.batch(idx, np.full(40, k))
        # the planes are the numpy rotation/reflection of the plain ones (an independent path)
        assert np.array_equal(aug["planes"], _k.transform_grid(plain["planes"], k))
        moved = _k.transform_grid(plain["policy"][:, :64].reshape(-1, 8, 8), k).reshape(-1, 64)
        assert np.array_equal(aug["policy"][:, :64], moved)
        assert np.all(aug["legal"][aug["policy"] > 0])
    assert np.array_equal(
        plain["planes"],
        encode_planes(src.arrays.player[idx], src.arrays.opponent[idx], src.planes, 8),
    )


def test_same_rng_same_batches(wthor_2004: PositionArrays) -> None:
    src = ArraySource(wthor_2004)
    a = next(src.batches(64, np.random.default_rng([5, 1]), augment=True))
    b = next(src.batches(64, np.random.default_rng([5, 1]), augment=True))
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_illegal_move_names_file_game_and_move(tmp_path) -> None:
    raw = bytearray(shared_file("wthor/WTH_2004.wtb").read_bytes()[: 16 + 68 * 2])
    raw[4:8] = (2).to_bytes(4, "little")
    raw[16 + 68 + 8 + 1] = 11  # game 2, move 2: a1 is not legal
    bad = tmp_path / "bad.wtb"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"bad\.wtb: game 2, move 2 \(a1\)"):
        positions_from_wthor([bad])
