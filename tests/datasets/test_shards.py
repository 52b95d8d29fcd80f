"""The on-disk format: manifest checks, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from othellolab.core.files import write_json
from othellolab.datasets.shards import (
    FORMAT,
    FORMAT_VERSION,
    DatasetFormatError,
    open_arrays,
    read_manifest,
    write_arrays,
)


def make(root, arrays) -> None:
    desc = write_arrays(root / "train", arrays)
    write_json(
        root / "manifest.json",
        {"format": FORMAT, "format_version": FORMAT_VERSION, "splits": {"train": {"arrays": desc}}},
    )


def test_round_trip_memory_mapped(tmp_path) -> None:
    a = np.arange(10, dtype=np.uint64) << np.uint64(60)
    make(tmp_path, {"p": a, "move": np.arange(10, dtype=np.uint8)})
    got = open_arrays(tmp_path, "train")
    assert isinstance(got["p"], np.memmap) and np.array_equal(got["p"], a)
    with pytest.raises(DatasetFormatError, match="no split 'val'"):
        open_arrays(tmp_path, "val")


def test_errors_name_the_path(tmp_path) -> None:
    with pytest.raises(DatasetFormatError, match="not a dataset folder"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{")
    with pytest.raises(DatasetFormatError, match="invalid JSON"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": FORMAT, "format_version": 99}))
    with pytest.raises(DatasetFormatError, match="format_version 99 is not supported"):
        read_manifest(tmp_path)
    make(tmp_path, {"p": np.zeros(3, dtype=np.uint64)})
    np.save(tmp_path / "train" / "p.npy", np.zeros(4, dtype=np.uint64))
    with pytest.raises(DatasetFormatError, match=r"p.npy: <u8 \[4\], manifest says <u8 \[3\]"):
        open_arrays(tmp_path, "train")
