"""A labelled-position run: resumed after ``kill -9`` it holds the very shards of an
uninterrupted run, worker processes write the same shards as this process, another config is
refused by name, and raising ``shards`` extends a run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from othellolab.core import ConfigError
from othellolab.fitting.labelled import LabelledConfig, generate_labelled, summarise
from othellolab.fitting.labelled.generate import ARRAYS
from othellolab.fitting.labelled.shards import list_shards, read_shard


def same_shards(a: Path, b: Path) -> None:
    """Runs ``a`` and ``b`` hold the same complete shards, array for array."""
    sa, sb = list_shards(a), list_shards(b)
    assert [i for i, _ in sa] == [i for i, _ in sb]
    for (_, pa), (_, pb) in zip(sa, sb, strict=True):
        x, y = read_shard(pa), read_shard(pb)
        assert x.meta["sha256"] == y.meta["sha256"], pa.name
        for name in ARRAYS:
            assert np.array_equal(x.arrays[name], y.arrays[name], equal_nan=True), (pa, name)


def test_resume_after_kill_9_equals_an_uninterrupted_run(tiny, toml_text, tmp_path: Path) -> None:
    data = tiny(shards=40, games_per_shard=2, search__depth=3, labels__exact_empties=12)
    config = tmp_path / "tiny.toml"
    config.write_text(toml_text(data))
    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "othellolab.cli", "train", "engine-data"]
    cmd += [str(config), "--out", str(killed), "--quiet"]
    proc = subprocess.Popen(cmd, env=os.environ.copy(), stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        # Whole shards only: a folder being filled (sNNNNN.tmp) holds its shard.json while
        # its files are flushed, before the rename that makes it a shard.
        while len(list((killed / "shards").glob("s[0-9][0-9][0-9][0-9][0-9]/shard.json"))) < 2:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "no shard written in 180 s"
            time.sleep(0.01)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    before = len(list_shards(killed))
    assert 2 <= before < 40, "the run should have been killed in the middle"
    # A write cut short leaves a temporary folder; the resumed run removes it.
    (killed / "shards" / "s00039.tmp").mkdir(exist_ok=True)
    (killed / "shards" / "s00039.tmp" / "player.npy").write_bytes(b"half")
    cfg = LabelledConfig.from_dict(data)
    summary = generate_labelled(cfg, killed, text=config.read_text(), progress=False)
    assert summary["shards"] == 40
    assert not (killed / "shards" / "s00039.tmp").exists()
    whole = tmp_path / "whole"
    generate_labelled(cfg, whole, progress=False)
    same_shards(killed, whole)
    assert summarise(whole)["positions"] == summary["positions"]
    assert (killed / "config.toml").read_text() == config.read_text()


def test_worker_processes_write_the_same_shards(tiny, tmp_path: Path) -> None:
    cfg = LabelledConfig.from_dict(tiny(shards=3, games_per_shard=2))
    generate_labelled(cfg, tmp_path / "one", progress=False)
    generate_labelled(cfg, tmp_path / "two", workers=2, progress=False)
    same_shards(tmp_path / "one", tmp_path / "two")


def test_ray_writes_the_same_shards(tiny, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    cfg = LabelledConfig.from_dict(tiny(shards=2, games_per_shard=1))
    generate_labelled(cfg, tmp_path / "one", progress=False)
    generate_labelled(cfg, tmp_path / "ray", workers=1, ray="local", progress=False)
    same_shards(tmp_path / "one", tmp_path / "ray")


def test_another_config_is_refused_by_name(tiny, tmp_path: Path) -> None:
    root = tmp_path / "run"
    generate_labelled(
        LabelledConfig.from_dict(tiny(shards=1, games_per_shard=1)), root, progress=False
    )
    other = LabelledConfig.from_dict(tiny(shards=1, games_per_shard=1, search__depth=3))
    with pytest.raises(ConfigError, match=r"another config; changed: search\.depth \(2 -> 3\)"):
        generate_labelled(other, root, progress=False)


def test_raising_shards_extends_a_run(tiny, tmp_path: Path) -> None:
    root = tmp_path / "run"
    small = LabelledConfig.from_dict(tiny(shards=1, games_per_shard=1))
    first = generate_labelled(small, root, progress=False)
    assert (first["shards"], first["shards_wanted"], first["games"]) == (1, 1, 1)
    bigger = LabelledConfig.from_dict(tiny(shards=3, games_per_shard=1))
    summary = generate_labelled(bigger, root, progress=False)
    assert (summary["shards"], summary["shards_wanted"], summary["games"]) == (3, 3, 3)
    assert json.loads((root / "labelled.json").read_text())["config"]["shards"] == 3
    whole = tmp_path / "whole"
    generate_labelled(bigger, whole, progress=False)
    same_shards(root, whole)


def test_summary_counts_and_rates(tiny, tmp_path: Path) -> None:
    summary = generate_labelled(LabelledConfig.from_dict(tiny()), tmp_path / "r", progress=False)
    assert sum(row["positions"] for row in summary["phases"]) == summary["positions"]
    assert sum(row["exact"] for row in summary["phases"]) == summary["exact_positions"]
    assert all(row["exact"] == 0 for row in summary["phases"][2:])  # exact from 10 empties
    assert set(summary["positions_per_cpu_hour"]) == {"final", "exact", "search", "all labels"}
    assert json.loads((tmp_path / "r" / "summary.json").read_text()) == summary


def test_bad_workers(tiny, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        generate_labelled(LabelledConfig.from_dict(tiny()), tmp_path, workers=0, progress=False)
    assert info.value.option == "--workers"


def test_changed_or_missing_opening_files_are_refused(tiny, tmp_path: Path) -> None:
    xot = tmp_path / "xot.txt"
    xot.write_text("f5d6c3d3c4f4f6f3\n")
    data = tiny(shards=1, games_per_shard=1, openings__source="xot", openings__xot=str(xot))
    root = tmp_path / "run"
    generate_labelled(LabelledConfig.from_dict(data), root, progress=False)
    xot.write_text("f5f6e6f4e3c5c4e7\n")
    with pytest.raises(ConfigError, match="data files or weights changed") as info:
        generate_labelled(LabelledConfig.from_dict(data), root, progress=False)
    assert str(xot) in str(info.value)
    xot.unlink()
    with pytest.raises(ConfigError, match="no such opening list") as info:
        generate_labelled(LabelledConfig.from_dict(data), tmp_path / "new", progress=False)
    assert info.value.option == "xot"
