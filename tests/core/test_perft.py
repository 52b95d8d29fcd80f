"""Perft from the start position against Aart Bik's published counts ("Perft for Reversi")."""

from __future__ import annotations

import json

import pytest

from othellolab.core import kernels as k

from helpers import FIXTURES

# Copied from ../shared/data/perft/perft_start_position.json (convention A_bik: a pass
# consumes a ply; a game over before the last ply is one leaf).
PUBLISHED = json.loads((FIXTURES / "perft_start_position.json").read_text())["A_bik"]["values"]


@pytest.mark.parametrize("depth", range(1, 10))
def test_perft_matches_published(depth: int) -> None:
    p, o = k.start_position(8)
    assert k.perft(p, o, depth) == PUBLISHED[str(depth)]


def test_perft_depth_zero_is_one_leaf() -> None:
    p, o = k.start_position(8)
    assert k.perft(p, o, 0) == 1
