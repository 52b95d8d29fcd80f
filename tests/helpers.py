"""Test helpers: where the real data lives, and skipping with a reason when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("OTHELLOLAB_DATA", REPO.parent / "shared" / "data"))
FIXTURES = Path(__file__).resolve().parent / "data"


def shared_file(relative: str) -> Path:
    """A file of ../shared/data, or skip the test saying which file is missing."""
    path = DATA / relative
    if not path.exists():
        pytest.skip(f"real data file {path} is absent (set OTHELLOLAB_DATA to the data folder)")
    return path


def obf_scores(line: str) -> tuple:
    """(board, [(move, score), ...]) of an OBF line, through the records reader."""
    from othellolab.records.obf import parse_obf_line

    entry = parse_obf_line(line)
    return entry.board, list(entry.moves)


def fuzz_examples(default: int) -> int:
    """How many inputs a fuzz test tries: ``default`` (small, for ``make test``), or the number
    in ``OTHELLOLAB_FUZZ_EXAMPLES`` for a long run (see docs/limits.md)."""
    text = os.environ.get("OTHELLOLAB_FUZZ_EXAMPLES", "")
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else default
