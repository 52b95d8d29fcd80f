"""Shards and datasets written before issue 60's reshape (at 4b99df8, kept in
tests/data/written-at-4b99df8/) still load, and today's code writes them again byte for byte:
the formats and the self-play behaviour did not change while the code moved. (The run folder
of that time is tests/data/selfplay-run-2026-11, resumed by tests/training/selfplay/
test_runconfig.py.)"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from othellolab.core.games import get_game
from othellolab.datasets.shards import open_arrays, read_manifest
from othellolab.training.selfplay.shards import read_shard

OLD = Path(__file__).parent / "data" / "written-at-4b99df8"


def _run(script: str, out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [script, str(out)])
    runpy.run_path(str(OLD / script), run_name="__main__")


def test_an_old_selfplay_shard_loads_and_is_written_again_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = read_shard(OLD / "selfplay-shard", game=get_game("othello", size=6), games=True)
    assert shard.meta["games"] == 4 and shard.arrays["game_length"].shape == (4,)
    _run("make_shard.py", tmp_path / "new", monkeypatch)
    old = sorted(p.name for p in (OLD / "selfplay-shard").iterdir())
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == old
    for name in old:
        assert (tmp_path / "new" / name).read_bytes() == (
            OLD / "selfplay-shard" / name
        ).read_bytes(), name


def test_an_old_dataset_loads_and_is_written_again_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = read_manifest(OLD / "dataset")
    _run("make_dataset.py", tmp_path / "new", monkeypatch)
    new = json.loads((tmp_path / "new" / "manifest.json").read_text())
    for m in (manifest, new):
        m.pop("created")
        m["build"].pop("seconds")
    assert new == manifest
    for split in manifest["splits"]:
        old_arrays = open_arrays(OLD / "dataset", split)
        new_arrays = open_arrays(tmp_path / "new", split)
        assert sorted(old_arrays) == sorted(new_arrays)
        for name, a in old_arrays.items():
            assert np.array_equal(a, new_arrays[name]), (split, name)
