"""Positions from real WTHOR games, and batches with symmetry augmentation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from othellolab.core import BLACK, Board
from othellolab.core import kernels as _k
from othellolab.core.features import FeatureSpec, encode_batch
from othellolab.core.kernels import action_mask_batch
from othellolab.datasets.build import build_dataset
from othellolab.datasets.feeds import (
    ArraySource,
    DatasetSource,
    PositionArrays,
    parse_years,
    positions_from_wthor,
    split_by_game,
)
from othellolab.datasets.shards import open_arrays
from othellolab.records.game import GameRecord
from othellolab.records.wthor import read_wtb

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
    # row by row, the outcome is seen from the side to move (checked through records.GameRecord,
    # which inserts the passes itself)
    rows = iter(range(len(a)))
    for wg in games[:10]:
        game = GameRecord.from_moves(wg.moves)
        black_score = game.score
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
        encode_batch(src.arrays.player[idx], src.arrays.opponent[idx], FeatureSpec(src.planes, 8)),
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


PLANES = ("player", "opponent", "legal")


@pytest.fixture(scope="module")
def built_2005(tmp_path_factory) -> Path:
    """WTHOR 2005 as built by the datasets module (hash split, forced passes kept)."""
    out = tmp_path_factory.mktemp("ds") / "wthor-2005"
    build_dataset([shared_file("wthor/WTH_2005.wtb")], out, progress=False)
    return out


def _bitboards(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Side-to-move and opponent bitboards read back from planes 0 and 1."""
    weights = np.uint64(1) << np.arange(64, dtype=np.uint64)
    bits = planes[:, :2].reshape(len(planes), 2, 64) > 0.5
    p = (bits[:, 0].astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    o = (bits[:, 1].astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    return p, o


def test_dataset_source_without_augmentation_is_the_stored_rows(built_2005: Path) -> None:
    src = DatasetSource(built_2005, "val", planes=PLANES)
    raw = open_arrays(built_2005, "val")
    assert len(src) == raw["p"].shape[0] > 1000
    seen = []
    for b in src.batches(512, np.random.default_rng(1), augment=False, shuffle=False):
        seen.append(b)
    planes = np.concatenate([b["planes"] for b in seen])
    p, o = _bitboards(planes)
    assert np.array_equal(p, raw["p"]) and np.array_equal(o, raw["o"])
    assert np.array_equal(planes, encode_batch(raw["p"], raw["o"], FeatureSpec(PLANES, 8)))
    policy = np.concatenate([b["policy"] for b in seen])
    assert np.array_equal(policy.argmax(axis=1), raw["move"]) and np.all(policy.sum(axis=1) == 1)
    legal = np.concatenate([b["legal"] for b in seen])
    assert np.array_equal(legal, action_mask_batch(raw["p"], raw["o"], 8))
    assert np.array_equal(np.concatenate([b["value"] for b in seen]), raw["outcome"])
    score = np.concatenate([b["score"] for b in seen])
    assert np.allclose(score * 64, raw["score"])
    # forced passes are rows of this dataset: pass is then the only legal action
    passes = raw["move"] == 64
    assert passes.any() and np.all(legal[passes].sum(axis=1) == 1) and legal[passes, 64].all()


def test_dataset_source_augments_board_move_and_legal_mask_together(built_2005: Path) -> None:
    src = DatasetSource(built_2005, "train", planes=PLANES, max_rows=3000)
    assert len(src) == 3000
    batches = list(src.batches(1000, np.random.default_rng(5), augment=True))
    assert sum(len(b["value"]) for b in batches) == 3000
    for b in batches:
        p, o = _bitboards(b["planes"])
        assert np.array_equal(b["legal"], action_mask_batch(p, o, 8))
        moves = b["policy"].argmax(axis=1)
        assert b["legal"][np.arange(len(moves)), moves].all()
        # the legal plane is the legal mask of the transformed board
        assert np.array_equal(b["planes"][:, 2].reshape(-1, 64) > 0.5, b["legal"][:, :64])
    # the symmetries really vary: the first batch differs from the same rows unaugmented
    plain = next(src.batches(1000, np.random.default_rng(5), augment=False))
    assert not np.array_equal(plain["planes"], batches[0]["planes"])


def test_dataset_source_same_rng_same_batches(built_2005: Path) -> None:
    src = DatasetSource(built_2005, "train", planes=PLANES, max_rows=2000)
    a = list(src.batches(700, np.random.default_rng(9), augment=True))
    b = list(src.batches(700, np.random.default_rng(9), augment=True))
    assert all(np.array_equal(x["planes"], y["planes"]) for x, y in zip(a, b, strict=True))
    assert all(np.array_equal(x["policy"], y["policy"]) for x, y in zip(a, b, strict=True))


def test_dataset_source_rejects_a_bad_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a dataset folder"):
        DatasetSource(tmp_path, "train")
