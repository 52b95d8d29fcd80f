"""Fault injection for othellolab's long jobs: SIGKILL at random moments, then resume; a full
disk; a corrupt checkpoint.

``kill_and_resume`` runs a job (an ``othellolab`` command in a subprocess, on tiny inputs) once
uninterrupted as the reference, measuring its wall time, then in rounds: each round starts the
job in a fresh folder and kills it with SIGKILL after a time drawn (seeded) uniformly over the
reference's duration, starts it again, and so on until the job ends by itself; the finished
outputs are then compared with the reference by the job's own rule (``Job.compare``: bytes for
what is deterministic, complete and checksummed records for what holds times). Rounds go on
until ``kills`` kills have landed; a start that outlives its drawn moment ends its round.

``enospc_env`` returns the environment of a run whose ``N``-th write fails with ENOSPC, as a
full disk makes it: a ``sitecustomize`` module on ``PYTHONPATH`` makes ``os.fsync``,
``numpy.save`` and safetensors' ``save_file`` raise ``OSError(ENOSPC)`` (no file name, as the
system call reports it) from the ``N``-th call on.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

KILLS = int(os.environ.get("OTHELLOLAB_FAULT_KILLS", "2"))
"""Kills per job: 2 in ``make test``, ``make faults`` sets 20."""

SEED = int(os.environ.get("OTHELLOLAB_FAULT_SEED", "64"))
"""Seed of the kill moments (a failure names it, so that a run can be repeated)."""

TIMEOUT = 600.0
"""Seconds a single start may take before the harness gives up on it."""


@dataclass
class Job:
    """One long job: its inputs, its command and how two finished runs of it are compared.

    ``prepare(folder)`` writes the inputs into an empty working folder; ``args`` follow
    ``python -m othellolab.cli`` there; ``out`` is the output folder, relative to it;
    ``compare(reference, other)`` returns the differences (empty when they agree)."""

    name: str
    args: list[str]
    out: str
    compare: Callable[[Path, Path], list[str]]
    prepare: Callable[[Path], None] = lambda folder: None


@dataclass
class FaultReport:
    """What ``kill_and_resume`` did: kills landed, starts, rounds and the mismatches."""

    job: str
    reference_seconds: float
    kills: int = 0
    starts: int = 0
    rounds: int = 0
    moments: list[float] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for a log or a report."""
        return (
            f"{self.job}: {self.kills} kills, {self.starts - self.rounds} resumes over "
            f"{self.rounds} rounds, {len(self.mismatches)} mismatches "
            f"(reference {self.reference_seconds:.1f} s, seed {SEED})"
        )


def command(job: Job) -> list[str]:
    """The job's command line."""
    return [sys.executable, "-m", "othellolab.cli", *job.args]


def run(job: Job, folder: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``job`` to its end in ``folder`` (inputs prepared if the folder is new)."""
    if not folder.exists():
        folder.mkdir(parents=True)
        job.prepare(folder)
    return subprocess.run(
        command(job), cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )


def leftovers(out: Path) -> list[str]:
    """Temporary files or folders a finished run must not leave behind."""
    return [
        str(p) for p in out.rglob("*") if p.name.endswith((".tmp", ".old")) or ".tmp." in p.name
    ]


def kill_and_resume(job: Job, folder: Path, *, kills: int = KILLS, seed: int = SEED) -> FaultReport:
    """Kill ``job`` ``kills`` times at seeded random moments, resuming each time, and compare
    every finished round with an uninterrupted reference run (see the module's docstring)."""
    reference = folder / "reference"
    start = time.perf_counter()
    done = run(job, reference)
    seconds = time.perf_counter() - start
    assert done.returncode == 0, f"{job.name} reference run failed:\n{done.stderr[-3000:]}"
    report = FaultReport(job.name, seconds)
    rng = random.Random(f"{seed}:{job.name}")
    while report.kills < kills:
        report.rounds += 1
        work = folder / f"round{report.rounds}"
        work.mkdir()
        job.prepare(work)
        while True:
            report.starts += 1
            proc = subprocess.Popen(
                command(job), cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            moment = rng.uniform(0.0, seconds) if report.kills < kills else None
            try:
                proc.wait(timeout=moment if moment is not None else TIMEOUT)
            except subprocess.TimeoutExpired:
                if moment is None:
                    proc.kill()
                    raise
                os.kill(proc.pid, signal.SIGKILL)
                proc.communicate()
                report.kills += 1
                report.moments.append(round(moment, 3))
                continue
            _, err = proc.communicate()
            if proc.returncode != 0:
                report.mismatches.append(
                    f"round {report.rounds}: start {report.starts} failed "
                    f"(after kills at {report.moments}):\n{err.decode()[-3000:]}"
                )
            break
        if not report.mismatches:
            report.mismatches += [
                f"round {report.rounds}: {m}"
                for m in job.compare(reference / job.out, work / job.out)
            ]
            report.mismatches += [
                f"round {report.rounds}: left behind {p}" for p in leftovers(work / job.out)
            ]
        if report.mismatches:
            break
    return report


# ---- comparisons ------------------------------------------------------------------------------


def files_of(root: Path, skip: tuple[str, ...] = ()) -> dict[str, Path]:
    """Every file under ``root`` by its relative path, without those matching ``skip`` (globs)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and not any(rel.match(pattern) for pattern in skip):
            out[str(rel)] = p
    return out


def same_bytes(a: Path, b: Path, skip: tuple[str, ...] = ()) -> list[str]:
    """The files that differ between two output folders (missing, extra or other bytes)."""
    fa, fb = files_of(a, skip), files_of(b, skip)
    diffs = [f"missing {name}" for name in sorted(set(fa) - set(fb))]
    diffs += [f"extra {name}" for name in sorted(set(fb) - set(fa))]
    diffs += [
        f"{name} differs"
        for name in sorted(set(fa) & set(fb))
        if fa[name].read_bytes() != fb[name].read_bytes()
    ]
    return diffs


def without(data: object, drop: set[str]) -> object:
    """``data`` (parsed JSON) without the keys in ``drop``, at any depth."""
    if isinstance(data, dict):
        return {k: without(v, drop) for k, v in data.items() if k not in drop}
    if isinstance(data, list):
        return [without(v, drop) for v in data]
    return data


def same_json(a: Path, b: Path, pattern: str, drop: set[str]) -> list[str]:
    """The JSON files matching ``pattern`` that differ beyond the keys in ``drop`` (times)."""
    fa, fb = ({k: v for k, v in files_of(x).items() if Path(k).match(pattern)} for x in (a, b))
    if sorted(fa) != sorted(fb):
        return [f"{pattern}: {sorted(fa)} != {sorted(fb)}"]
    return [
        f"{name} differs beyond {sorted(drop)}"
        for name in sorted(fa)
        if without(json.loads(fa[name].read_text()), drop)
        != without(json.loads(fb[name].read_text()), drop)
    ]


def same_but_times(
    a: Path, b: Path, timed: dict[str, set[str]], skip: tuple[str, ...] = ()
) -> list[str]:
    """``same_bytes`` for every file but the JSON files matching a pattern of ``timed``,
    compared without the keys (times) it maps to."""
    diffs = same_bytes(a, b, skip=(*skip, *timed))
    return diffs + [d for pattern, drop in timed.items() for d in same_json(a, b, pattern, drop)]


# ---- a full disk -------------------------------------------------------------------------------

SITECUSTOMIZE = '''\
"""Injected by tests/fault_harness.py: from the N-th write on, fail as a full disk does."""
import errno
import os

_AFTER = int(os.environ["OTHELLOLAB_ENOSPC_AFTER"])
_calls = [0]


def _full(original):
    def write(*args, **kwargs):
        _calls[0] += 1
        if _calls[0] >= _AFTER:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return original(*args, **kwargs)

    return write


os.fsync = _full(os.fsync)

import numpy  # noqa: E402

numpy.save = _full(numpy.save)
try:
    import safetensors.torch  # noqa: E402
except ImportError:
    pass
else:
    safetensors.torch.save_file = _full(safetensors.torch.save_file)
'''


def enospc_env(folder: Path, after: int) -> dict[str, str]:
    """The environment of a run whose ``after``-th write (fsync, ``numpy.save`` or
    ``save_file``) and every later one fails with ENOSPC."""
    site = folder / "enospc-site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    env["OTHELLOLAB_ENOSPC_AFTER"] = str(after)
    return env
