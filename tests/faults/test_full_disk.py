"""A full disk (issue 64, part 5): ENOSPC raised in the write path of a long job stops it with
an error naming the file, never a traceback; nothing is left half-written, and once the disk
has room the same command completes to an uninterrupted run's outputs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from fault_harness import KILLS, command, enospc_env, leftovers, run
from fault_jobs import JOBS
from othellolab.datasets.batches import DatasetSplit

from helpers import shared_file

BY_NAME = {job.name: job for job in JOBS}

ALL_CASES = [("supervised", 3), ("supervised", 9), ("engine-data", 4), ("dataset", 2), ("book", 2)]
"""(job, the write that fails first): a checkpoint's files, the second checkpoint, a labelled
shard, the dataset's arrays, the book's searches."""

CASES = ALL_CASES if KILLS >= 20 else [c for c in ALL_CASES if c not in (("supervised", 9),)]
"""``make faults`` (20 kills a job) runs every case; ``make test`` leaves out the second
checkpoint's, so that the fault tests stay near their 3 minutes in the suite."""


@pytest.mark.parametrize(("name", "after"), CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_a_full_disk_is_named_and_the_rerun_completes(name: str, after: int, tmp_path) -> None:
    shared_file("wthor/WTH_2005.wtb")
    job = BY_NAME[name]
    reference = run(job, tmp_path / "reference")
    assert reference.returncode == 0, reference.stderr[-2000:]
    full = run(job, tmp_path / "full", env=enospc_env(tmp_path, after))
    out = tmp_path / "full" / job.out
    assert full.returncode == 1, full.stderr[-2000:]
    assert "Traceback" not in full.stderr
    message = full.stderr.strip().splitlines()[-1]
    assert message.startswith("Error: ") and "No space left on device" in message, message
    assert str(Path(job.out)) in message, message  # names a file in the output folder
    assert not leftovers(out)
    again = run(job, tmp_path / "full")
    assert again.returncode == 0, again.stderr[-2000:]
    assert not job.compare(tmp_path / "reference" / job.out, out)


def test_a_dataset_rebuilt_on_a_full_disk_leaves_the_old_one_whole(tmp_path: Path) -> None:
    shared_file("wthor/WTH_2005.wtb")
    job = BY_NAME["dataset"]
    assert run(job, tmp_path / "work").returncode == 0
    out = tmp_path / "work" / job.out
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    redo = subprocess.run(
        [*command(job), "--dedup", "--overwrite"],
        cwd=tmp_path / "work",
        env=enospc_env(tmp_path, 3),
        capture_output=True,
        text=True,
    )
    assert redo.returncode == 1 and "No space left on device" in redo.stderr, redo.stderr
    after = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before and not leftovers(out)
    assert len(DatasetSplit(out, "train")) > 0
