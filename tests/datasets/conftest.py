"""Fixtures for the dataset tests: small real WTHOR files cut from the shared data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import shared_file


def cut_wtb(source: Path, target: Path, first: int, count: int) -> Path:
    """Write games ``first .. first+count-1`` (0-based) of ``source`` as a valid .wtb file."""
    data = source.read_bytes()
    header = bytearray(data[:16])
    header[4:8] = count.to_bytes(4, "little")
    target.write_bytes(bytes(header) + data[16 + 68 * first : 16 + 68 * (first + count)])
    return target


@pytest.fixture
def small_wtb(tmp_path: Path) -> Callable[..., Path]:
    """``small_wtb(year, count, first=0, name=None)``: a cut of a real WTHOR year in tmp_path."""

    def make(year: int, count: int, first: int = 0, name: str | None = None) -> Path:
        source = shared_file(f"wthor/WTH_{year}.wtb")
        return cut_wtb(source, tmp_path / (name or f"cut_{year}_{first}_{count}.wtb"), first, count)

    return make
