"""Augmented batches: boards, moves and policies transform together; the sampler's epochs."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab import Board
from othellolab.core.features import FeatureSpec, encode_batch, transform_planes
from othellolab.datasets.batches import BatchSampler, DatasetSplit, iterate_batches
from othellolab.datasets.build import build_dataset
from othellolab.datasets.shards import open_arrays

SPEC = FeatureSpec(planes=("player", "opponent", "legal", "empty"))


@pytest.fixture
def datasets(small_wtb, tmp_path):
    src = small_wtb(2004, 300)
    build_dataset([src], tmp_path / "plain", progress=False)
    build_dataset([src], tmp_path / "dedup", dedup=True, progress=False)
    return tmp_path / "plain", tmp_path / "dedup"


def test_identity_batch_is_the_stored_rows(datasets) -> None:
    plain, _ = datasets
    arrays = DatasetSplit(plain, "train", spec=SPEC)
    raw = open_arrays(plain, "train")
    idx = np.array([5, 0, len(arrays) - 1, 17])
    b = arrays.batch(idx)
    assert np.array_equal(b.planes, encode_batch(raw["p"][idx], raw["o"][idx], SPEC))
    assert b.move.tolist() == raw["move"][idx].tolist() and (b.symmetry == 0).all()
    assert np.array_equal(b.outcome, raw["outcome"][idx].astype(np.float32))
    assert np.array_equal(b.score, raw["score"][idx].astype(np.float32))
    assert (b.weight == 1).all() and np.array_equal(b.policy.argmax(1), b.move)


def test_augmented_batch_transforms_everything_together(datasets) -> None:
    plain, _ = datasets
    arrays = DatasetSplit(plain, "val", spec=SPEC)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(arrays), size=256)
    syms = rng.integers(0, 8, size=256)
    base, aug = arrays.batch(idx), arrays.batch(idx, syms)
    raw = open_arrays(plain, "val")
    for i in range(256):
        s = int(syms[i])
        assert np.array_equal(aug.planes[i], transform_planes(base.planes[i], s))
        board = Board.from_bitboards(int(raw["p"][idx[i]]), int(raw["o"][idx[i]])).transform(s)
        m = int(aug.move[i])
        if m == 64:
            assert not aug.planes[i, 2].any() and board.must_pass()
        else:
            assert aug.planes[i, 2, m // 8, m % 8] == 1 and board.is_legal(m)
        assert aug.policy[i, m] == 1 and aug.policy[i].sum() == 1
    assert np.array_equal(aug.symmetry, syms)


def test_dedup_batches_carry_policy_distributions(datasets) -> None:
    _, dedup = datasets
    arrays = DatasetSplit(dedup, "train")
    raw = open_arrays(dedup, "train")
    assert arrays.deduplicated
    idx = np.arange(len(arrays))
    b = arrays.batch(idx, np.full(len(idx), 6))
    assert np.allclose(b.policy.sum(1), 1.0)
    assert np.array_equal(b.weight, raw["count"].astype(np.float32))
    start = int(np.flatnonzero(raw["p"] == Board().player)[0])
    # Every game starts with f5 (data README): the start row's policy is all on f5's image.
    image = Board().transform(6)
    assert b.policy[start].max() == 1 and image.play(int(b.policy[start].argmax())) == Board().play(
        "f5"
    ).transform(6)
    lo, hi = raw["policy_offsets"][1], raw["policy_offsets"][2]
    c = raw["policy_counts"][lo:hi]
    plain = arrays.batch(np.array([1]))
    assert np.allclose(plain.policy[0, raw["policy_moves"][lo:hi]], c / c.sum())


def test_sampler_epochs_and_errors(datasets) -> None:
    plain, _ = datasets
    arrays = DatasetSplit(plain, "train")
    sampler = BatchSampler(len(arrays), 1000, seed=5)
    first = list(sampler)
    second = list(sampler)
    seen = np.concatenate([i for i, _ in first])
    assert sorted(seen.tolist()) == list(range(len(arrays))) and len(first) == len(sampler)
    assert not np.array_equal(seen, np.concatenate([i for i, _ in second]))
    sampler.set_epoch(0)
    assert all(
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        for a, b in zip(first, sampler, strict=True)
    )
    assert set(np.concatenate([s for _, s in first]).tolist()) == set(range(8))
    dropped = BatchSampler(len(arrays), 1000, drop_last=True, augment=False, shuffle=False)
    assert len(dropped) == len(arrays) // 1000 and all(
        len(i) == 1000 and not s.any() for i, s in dropped
    )
    assert sum(len(b.move) for b in iterate_batches(plain, "val", batch_size=100)) == len(
        DatasetSplit(plain, "val")
    )
    with pytest.raises(IndexError, match="out of range"):
        arrays.batch(np.array([len(arrays)]))
    with pytest.raises(ValueError, match="symmetries must be"):
        arrays.batch(np.array([0]), np.array([8]))
    with pytest.raises(ValueError, match="unknown split"):
        DatasetSplit(plain, "dev")
    with pytest.raises(ValueError, match="size-6 spec"):
        DatasetSplit(plain, "train", spec=FeatureSpec(size=6))
