"""Labelled shards on disk: read back whole and checked; a corrupt, truncated, missing or
foreign file is an error that names it; ``load_labelled`` gives the pattern fit's
``Positions`` with the chosen label."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from othellolab.core import ConfigError
from othellolab.core.values import NO_SCORE
from othellolab.fitting.labelled import (
    LabelledConfig,
    LabelledShardError,
    generate_labelled,
    load_labelled,
)
from othellolab.fitting.labelled.shards import list_shards, read_shard
from othellolab.fitting.patterns import Positions
from othellolab.training.selfplay.shards import ShardError


@pytest.fixture(scope="module")
def run(tiny, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("labelled") / "run"
    generate_labelled(LabelledConfig.from_dict(tiny()), root, progress=False)
    return root


def copy_of(run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(run, out)
    return out


def test_run_folder_layout(run: Path) -> None:
    assert (run / "labelled.json").is_file()
    assert (run / "summary.json").is_file()
    assert [(i, p.name) for i, p in list_shards(run)] == [(0, "s00000"), (1, "s00001")]


def test_load_labelled_gives_positions(run: Path) -> None:
    final = load_labelled(run)
    arrays = [read_shard(p).arrays for _, p in list_shards(run)]
    assert isinstance(final, Positions)
    assert len(final.score) == sum(len(a["player"]) for a in arrays)
    assert final.score.dtype == np.float64
    assert final.p.dtype == np.uint64
    want = np.concatenate([a["final"] for a in arrays]).astype(np.float64)
    assert np.array_equal(final.score, want)
    exact = load_labelled(run, label="exact")
    assert 0 < len(exact.score) < len(final.score)
    assert (exact.empties <= 10).all()
    assert (exact.score != NO_SCORE).all()
    searched = load_labelled(run, label="search", empties=(20, 30))
    assert ((searched.empties >= 20) & (searched.empties <= 30)).all()
    assert np.isfinite(searched.score).all()
    one = load_labelled(run, empties=12)
    assert len(one.score) == 6 and (one.empties == 12).all()  # six games, one position each


def test_bad_label_or_empties(run: Path) -> None:
    with pytest.raises(ConfigError, match="unknown label") as info:
        load_labelled(run, label="outcome")
    assert info.value.option == "label"
    with pytest.raises(ConfigError) as info:
        load_labelled(run, empties=(30, 20))
    assert info.value.option == "empties"


def test_no_search_labels(tiny, tmp_path: Path) -> None:
    root = tmp_path / "r"
    data = tiny(shards=1, games_per_shard=1, labels__search_depth=0)
    generate_labelled(LabelledConfig.from_dict(data), root, progress=False)
    with pytest.raises(ConfigError, match="no search labels"):
        load_labelled(root, label="search")


def test_corrupt_file_is_named(run: Path, tmp_path: Path) -> None:
    root = copy_of(run, tmp_path)
    path = root / "shards" / "s00001" / "final.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(LabelledShardError, match="checksum mismatch") as info:
        load_labelled(root)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ShardError)


def test_truncated_file_is_named(run: Path, tmp_path: Path) -> None:
    root = copy_of(run, tmp_path)
    path = root / "shards" / "s00000" / "player.npy"
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(LabelledShardError, match="checksum mismatch") as info:
        load_labelled(root)
    assert str(path) in str(info.value)


def test_missing_file_is_named(run: Path, tmp_path: Path) -> None:
    root = copy_of(run, tmp_path)
    path = root / "shards" / "s00000" / "exact.npy"
    path.unlink()
    with pytest.raises(LabelledShardError, match="missing array file") as info:
        load_labelled(root)
    assert str(path) in str(info.value)


def test_foreign_shard_is_named(run: Path, tiny, tmp_path: Path) -> None:
    other = tmp_path / "other"
    generate_labelled(LabelledConfig.from_dict(tiny(seed=99, shards=1)), other, progress=False)
    root = copy_of(run, tmp_path)
    shutil.copytree(other / "shards" / "s00000", root / "shards" / "s00002")
    with pytest.raises(LabelledShardError, match="another config") as info:
        load_labelled(root)
    assert str(root / "shards" / "s00002" / "shard.json") in str(info.value)


def test_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(LabelledShardError, match="not a labelled-position run folder") as info:
        load_labelled(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_committed_sample() -> None:
    """The sample under tests/data, for the pattern fit's tests, reads back whole and its labels
    hold: the game's result equals the exact score on the solved tail, and the solver agrees."""
    from othellolab import Board
    from othellolab.players.search import solve

    from helpers import FIXTURES

    root = FIXTURES / "labelled-sample"
    final = load_labelled(root)
    exact = load_labelled(root, label="exact")
    assert 300 <= len(final.score) <= 400
    assert len(exact.score) == 160 and (exact.empties <= 20).all()
    a = read_shard(root / "shards" / "s00000").arrays
    tail = a["exact"] != NO_SCORE
    assert (a["final"][tail] == a["exact"][tail]).all()
    for i in np.flatnonzero(tail & (a["empties"] == 12))[:3]:
        board = Board.from_bitboards(int(a["player"][i]), int(a["opponent"][i]))
        assert solve(board).score == a["exact"][i]
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) < 100_000


def test_the_first_shards_only(run: Path) -> None:
    """``shards=N`` reads shards 0..N-1 (a fit that stays the same while the run grows) and
    refuses to go on with fewer of them than asked."""
    first = read_shard(list_shards(run)[0][1]).arrays
    one = load_labelled(run, shards=1)
    assert np.array_equal(one.score, first["final"].astype(np.float64))
    assert len(load_labelled(run, shards=2)) == len(load_labelled(run))
    with pytest.raises(LabelledShardError, match="first 3 shards are asked for, 2 of them"):
        load_labelled(run, shards=3)
