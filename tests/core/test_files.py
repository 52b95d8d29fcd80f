"""Whole-file and whole-folder writes: nothing half-written is ever seen, nothing is left."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from othellolab.core.files import (
    atomic_writer,
    recover_dir,
    replace_dir,
    replacing,
    save_array,
    write_array_dir,
    write_json,
)


def test_replace_dir_leaves_nothing_on_failure(tmp_path) -> None:
    target = tmp_path / "out"
    with pytest.raises(RuntimeError), replace_dir(target) as tmp:
        (tmp / "half").write_text("x")
        raise RuntimeError("interrupted")
    assert not target.exists() and not (tmp_path / "out.tmp").exists()
    with replace_dir(target) as tmp:
        (tmp / "a").write_text("1")
    with pytest.raises(FileExistsError), replace_dir(target) as tmp:
        (tmp / "a").write_text("2")
    assert (target / "a").read_text() == "1"
    with replace_dir(target, overwrite=True) as tmp:
        (tmp / "a").write_text("3")
    assert (target / "a").read_text() == "3" and not (tmp_path / "out.old").exists()


def test_a_failed_write_keeps_the_old_file(tmp_path) -> None:
    path = tmp_path / "a.json"
    write_json(path, {"x": 1})
    with pytest.raises(RuntimeError), replacing(path) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert json.loads(path.read_text()) == {"x": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
    with pytest.raises(RuntimeError), atomic_writer(path) as f:
        f.write("half")
        raise RuntimeError("interrupted")
    assert json.loads(path.read_text()) == {"x": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_keep_suffix_and_arrays(tmp_path) -> None:
    with replacing(tmp_path / "x.png", keep_suffix=True) as tmp:
        assert tmp.name == "x.png.tmp.png"
        tmp.write_bytes(b"png")
    save_array(tmp_path / "w.npy", np.arange(3))
    assert np.array_equal(np.load(tmp_path / "w.npy"), np.arange(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.npy", "x.png"]


def test_an_interrupted_swap_is_undone(tmp_path) -> None:
    target = tmp_path / "state"
    with replace_dir(target) as tmp:
        (tmp / "a").write_text("1")
    target.rename(tmp_path / "state.old")  # killed between the two renames
    (tmp_path / "state.tmp").mkdir()
    recover_dir(target)
    assert (target / "a").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state"]


def test_a_swapped_folder_and_its_files_reach_the_disk_before_and_after_the_rename(
    tmp_path, monkeypatch
) -> None:
    """Every file of a folder written by ``write_array_dir`` is fsynced before the folder is
    renamed into place, and the parent folder after (else a power cut could publish empty
    files under a whole folder's name)."""
    synced: list[str] = []
    real = os.fsync

    def recording(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", recording)
    target = tmp_path / "shard"
    write_array_dir(target, {"a": np.arange(3), "b": np.ones(2)}, {"n": 3}, meta_file="meta.json")
    tmp = str(tmp_path / "shard.tmp")
    for name in ("a.npy", "b.npy", "meta.json"):
        assert f"{tmp}/{name}" in synced, (name, synced)
    assert tmp in synced and synced[-1] == str(tmp_path)
