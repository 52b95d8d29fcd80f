"""The vector kernels of ``search.simd`` against the same arithmetic in numpy: a move's row
update (one delta row per changed square) and the gathered sum of the 46 instances' table
entries. The search's own agreement with the bitboard evaluation and with d708d82's nodes is
in ``test_incremental.py`` and ``test_midgame.py``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab.players.search._pattern_tables import (
    CLASS_SIZES,
    INSTANCE_CLASS,
    INSTANCE_OFFSET,
    N_FEATURES,
    N_INSTANCES,
)
from othellolab.players.search.incremental import (
    NARROW_WIDTH,
    SQ_DELTA,
    SQ_DELTA_WIDE,
    WIDE_INSTANCES,
    WIDE_WIDTH,
    _pattern_part,
    _update,
    new_indices,
)
from othellolab.players.search.simd import TABLE_SPARE, aligned_zeros


def test_rows_are_whole_vectors_on_a_cache_line() -> None:
    assert NARROW_WIDTH == 48 and WIDE_WIDTH == 64
    for wide in (False, True):
        idx = new_indices(5, wide)
        assert idx.ctypes.data % 64 == 0 and idx.flags.c_contiguous and not idx.any()
        assert idx.shape == (10, WIDE_WIDTH if wide else NARROW_WIDTH)
    assert aligned_zeros((0, 48), np.int32).shape == (0, 48)


@settings(max_examples=200, deadline=None)
@given(
    wide=st.booleans(),
    sq=st.integers(0, 63),
    flips=st.integers(0, 2**64 - 1),
    mode=st.sampled_from([(2, 1), (1, -1)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_row_update_adds_the_squares_deltas(
    wide: bool, sq: int, flips: int, mode: tuple[int, int], seed: int
) -> None:
    deltas = SQ_DELTA_WIDE if wide else SQ_DELTA
    rng = np.random.default_rng(seed)
    idx = new_indices(3, wide)
    idx[:] = rng.integers(0, 200_000, size=idx.shape, dtype=np.int32)
    before = idx.copy()
    place, sign = mode
    flips &= ~(1 << sq)
    _update(idx, 3, 2, sq, np.uint64(flips), place, sign)
    want = before[2].astype(np.int64) + place * deltas[sq].astype(np.int64)
    for s in range(64):
        if flips >> s & 1:
            want += sign * deltas[s].astype(np.int64)
    assert (idx[3] == want.astype(np.int32)).all()
    unchanged = [r for r in range(idx.shape[0]) if r != 3]
    assert (idx[unchanged] == before[unchanged]).all()  # whole rows: no lane past the row


def test_the_deltas_are_powers_of_three_in_the_instances_that_hold_a_square() -> None:
    # every square is in some instance (the pattern set covers the board); the values, the
    # instances' digits, are checked against the bitboard evaluation in test_incremental.py
    assert (SQ_DELTA[:, :N_INSTANCES] > 0).any(axis=1).all()
    assert set(np.unique(SQ_DELTA[SQ_DELTA > 0]).tolist()) <= {3**j for j in range(10)}
    assert not SQ_DELTA[:, N_INSTANCES:].any()
    assert (SQ_DELTA_WIDE[:, :N_INSTANCES] == SQ_DELTA[:, :N_INSTANCES]).all()
    assert SQ_DELTA_WIDE[:, N_INSTANCES:].any() and not SQ_DELTA_WIDE[:, WIDE_INSTANCES:].any()


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), top=st.booleans())
def test_the_gathered_sum_is_the_table_entries_sum(seed: int, top: bool) -> None:
    rng = np.random.default_rng(seed)
    table = np.zeros(N_FEATURES + TABLE_SPARE, dtype=np.int16)
    table[:N_FEATURES] = rng.integers(-32768, 32768, size=N_FEATURES, dtype=np.int16)
    sizes = CLASS_SIZES[INSTANCE_CLASS]
    idx = new_indices(2)
    idx[2, :N_INSTANCES] = sizes - 1 if top else rng.integers(0, sizes)  # top: the last entries
    idx[2, N_INSTANCES:] = 2**30  # spare lanes: never an address
    want = int(table[INSTANCE_OFFSET + idx[2, :N_INSTANCES]].astype(np.int64).sum())
    # the evaluation's own call: phase 0 of a one-phase table, row 1's [0] (idx row 2), unit 1
    got = _pattern_part(np.zeros(1), table[None, :], 1.0, 0, idx, 1)
    assert got == want
