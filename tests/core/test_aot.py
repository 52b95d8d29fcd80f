"""The ahead-of-time build of the scalar kernels agrees with the JIT kernels it comes from."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core import _fast
from othellolab.core import kernels as k

from oracle import OraclePosition


def test_board_uses_the_aot_build_when_current() -> None:
    if not _fast.USING_AOT:
        pytest.skip(
            "no current AOT build (run `python -m othellolab.core.aot`); Board uses the JIT"
        )
    from othellolab.core.aot import source_checksum

    assert _fast.rules.source_tag() == source_checksum()


@pytest.mark.parametrize("size", (8, 6, 4))
def test_aot_matches_jit(size: int) -> None:
    if not _fast.USING_AOT:
        pytest.skip("no current AOT build; nothing to compare")
    aot = _fast.rules
    rng = np.random.default_rng(size)
    for _ in range(300):
        cells = rng.choice(list(".XO"), size=size * size, p=[0.4, 0.3, 0.3])
        p, o = OraclePosition(size, tuple(cells), "X").bitboards()
        assert aot.legal_mask(p, o, size) == k.legal_mask(p, o, size)
        assert aot.hash_position(p, o) == k.hash_position(p, o)
        for s in range(8):
            assert aot.transform(p, s, size) == k.transform(p, s, size)
        for sq in range(size * size):
            assert aot.flip_mask(p, o, sq, size) == k.flip_mask(p, o, sq, size)
            assert tuple(aot.play_with_moves(p, o, sq, size)) == tuple(
                k.play_with_moves(p, o, sq, size)
            )
