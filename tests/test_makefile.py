"""``make setup`` and ``make play`` say what they are doing before each slow step (the first
``make play`` used to be silent for about 3 minutes: a quiet pip, then the kernel compile)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_setup_and_play_announce_each_step(tmp_path: Path) -> None:
    # -n prints the recipes without running them; -B as on a fresh checkout (every step due)
    dry = subprocess.run(
        ["make", "-n", "-B", "play", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()

    def first(text: str) -> int:
        return next(i for i, line in enumerate(dry) if text in line)

    # each announcement comes before the step it announces, and says how long it takes
    assert first("setup 1/3: installing") < first("pip install --quiet -e")
    assert "few minutes" in dry[first("setup 1/3") + 1]
    assert first("setup 2/3: compiling the board's rules") < first("othellolab.core.aot")
    assert first("setup 3/3: compiling the search") < first("othellolab warm-up")
    assert "minutes" in dry[first("setup 3/3")]
    assert first("play: starting the web board") < first("othellolab serve --open")
    assert "--quiet" in dry[first("pip install")]  # pip itself stays quiet


def test_readme_says_how_long_the_first_run_takes() -> None:
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "the first run installs the dependencies with pip (a few minutes" in text
