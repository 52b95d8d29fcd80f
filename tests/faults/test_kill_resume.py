"""Every long job killed with SIGKILL at seeded random moments and resumed ends as an
uninterrupted run (issue 64, part 5): ``OTHELLOLAB_FAULT_KILLS`` kills per job (2 here, 20 in
``make faults``); ``fault_jobs`` says what is compared byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from fault_harness import KILLS, kill_and_resume
from fault_jobs import JOBS

from helpers import shared_file


@pytest.mark.parametrize("job", JOBS, ids=lambda job: job.name)
def test_killed_and_resumed_ends_as_an_uninterrupted_run(job, tmp_path: Path) -> None:
    shared_file("wthor/WTH_2005.wtb")
    report = kill_and_resume(job, tmp_path)
    print(report.line(), "kill moments (s):", report.moments)
    assert report.kills == KILLS
    assert not report.mismatches, "\n".join(report.mismatches)
