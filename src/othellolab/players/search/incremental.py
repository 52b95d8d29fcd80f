"""The pattern evaluation from pattern indices kept up to date move by move (as Edax and
Egaroucid do): a search keeps one row of indices per ply, sets the root's from the bitboards,
and derives each child's from its parent's with the placed and flipped squares alone, instead
of gathering all 46 instances from the bitboards at every evaluation.

A row holds two index vectors: ``[0]`` with the side to move's discs as digit 1 and the
opponent's as 2 (``pattern_sum``'s convention), and ``[1]`` with the colours the other way
round, which is the child's ``[0]`` once the move is made: the parent's other vector plus one
delta vector per changed square (``simd``). A float sum runs over the instances in
``pattern_sum``'s order and a sum of whole units (``evaluation.pattern_units``) is exact in any
order, so ``indexed_value`` equals ``evaluation.evaluate`` to the last bit. For an evaluation
with pattern terms (``pattern_terms.PATTERN_TERMS``) the rows are wide: the terms' instances
follow the classic set's, kept the same way (``new_indices(rows, wide=True)``).
"""

from __future__ import annotations

import numpy as np

from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import ONE, U64, popcount
from othellolab.players.search._pattern_kernel import clamp64
from othellolab.players.search._pattern_tables import (
    INSTANCE_OFFSET,
    INSTANCES,
    N_INSTANCES,
    phase_of,
    phase_row,
)
from othellolab.players.search.evaluation import EVAL_PATTERN_TERMS, EVAL_PATTERNS, evaluate
from othellolab.players.search.pattern_terms import (
    _PATTERN_TERM_BITS,
    _PT_COLUMN,
    _PT_INSTANCES,
    _PT_SQUARES,
    _PT_TERM,
    HEADER_TERMS,
    HEADER_WIDTH,
    N_WIDE_TERM_FEATURES,
    _count_terms_sum,
)
from othellolab.players.search.simd import (
    aligned_zeros,
    instances_sum,
    row_width,
    update_row_48,
    update_row_64,
)

WIDE_INSTANCES = N_INSTANCES + _PT_INSTANCES
"""Columns of a wide row: the classic instances, then the pattern terms'."""

NARROW_WIDTH = row_width(N_INSTANCES)
WIDE_WIDTH = row_width(WIDE_INSTANCES)
"""Int32 lanes of a row (``simd.row_width``): the instances, then zeros to whole vectors."""


def _square_deltas(width: int) -> np.ndarray:
    """What a disc on each square adds to a row of ``width`` lanes in the side to move's
    digits (``3**j`` in each instance holding it as its ``j``-th square; twice that for the
    opponent's): 64 uint16 rows, one vector add per square in ``simd``. The classic instances
    come first, then the pattern terms' (``N_INSTANCES + i``) where the rows are wide."""
    deltas = np.zeros((64, width), dtype=np.int64)
    for i, (_, squares) in enumerate(INSTANCES):
        for j, sq in enumerate(squares):
            deltas[sq, i] = 3**j
    if width >= WIDE_INSTANCES:
        for i, squares in enumerate(_PT_SQUARES):
            for j, sq in enumerate(squares):
                deltas[int(sq), N_INSTANCES + i] = 3**j
    if 2 * deltas.max() > np.iinfo(np.uint16).max:
        raise AssertionError("a pattern too long for uint16 deltas")
    return deltas.astype(np.uint16)


SQ_DELTA = _square_deltas(NARROW_WIDTH)
SQ_DELTA_WIDE = _square_deltas(WIDE_WIDTH)


def new_indices(rows: int, wide: bool = False) -> np.ndarray:
    """Index rows for a search of ``rows`` plies (``(2 * rows, NARROW_WIDTH)`` int32, on a cache
    line: row ``2 * ply`` is a ply's ``[0]``, ``2 * ply + 1`` its ``[1]``); ``wide`` rows keep
    the pattern terms' instances too (``WIDE_WIDTH``)."""
    return aligned_zeros((2 * rows, WIDE_WIDTH if wide else NARROW_WIDTH), np.int32)


def needs_wide_indices(weights: np.ndarray) -> bool:
    """Whether a kernel table declares a pattern term (``Evaluation`` checks that its width
    matches its header), whose search then keeps wide index rows."""
    return weights.shape[1] == N_WIDE_TERM_FEATURES


@hot_kernel(nogil=True, inline="always")
def _update(
    idx: np.ndarray, dst: int, src: int, sq: int, flips: int, place: int, sign: int
) -> None:
    """Row ``dst`` of ``idx`` from row ``src``: ``place`` times square ``sq``'s delta and
    ``sign`` times each flipped square's (``simd.update_row_*``)."""
    base = idx.ctypes.data
    step = idx.strides[0]
    if idx.shape[1] == WIDE_WIDTH:
        update_row_64(
            base + dst * step, base + src * step, SQ_DELTA_WIDE.ctypes.data, sq, flips, place, sign
        )
    else:
        update_row_48(
            base + dst * step, base + src * step, SQ_DELTA.ctypes.data, sq, flips, place, sign
        )


@hot_kernel(nogil=True)
def set_indices(idx: np.ndarray, row: int, p: int, o: int) -> None:
    """Row ``row`` of ``idx`` from the bitboards (the root's)."""
    deltas = SQ_DELTA_WIDE if idx.shape[1] == WIDE_WIDTH else SQ_DELTA
    for j in range(idx.shape[1]):
        idx[2 * row, j] = 0
        idx[2 * row + 1, j] = 0
    for sq in range(64):
        bit = ONE << U64(sq)
        if U64(p) & bit:
            mine, theirs = 1, 2
        elif U64(o) & bit:
            mine, theirs = 2, 1
        else:
            continue
        for j in range(idx.shape[1]):
            idx[2 * row, j] += mine * np.int32(deltas[sq, j])
            idx[2 * row + 1, j] += theirs * np.int32(deltas[sq, j])


@hot_kernel(nogil=True)
def play_indices(idx: np.ndarray, row: int, sq: int, flips: int) -> None:
    """Row ``row + 1`` for the child where the side to move of row ``row`` plays ``sq``,
    flipping ``flips``: that side's discs are the child's opponent's (digit 2 in the child's
    ``[0]``, 1 in its ``[1]``)."""
    _update(idx, 2 * row + 2, 2 * row + 1, sq, flips, 2, 1)
    _update(idx, 2 * row + 3, 2 * row, sq, flips, 1, -1)


@hot_kernel(nogil=True, inline="always")
def child_indices(idx: np.ndarray, row: int, sq: int, flips: int) -> None:
    """``play_indices`` for a child that is only evaluated, never searched below: its ``[0]``
    alone (the ``[1]`` serves its own children), half the work."""
    _update(idx, 2 * row + 2, 2 * row + 1, sq, flips, 2, 1)


@hot_kernel(nogil=True)
def pass_indices(idx: np.ndarray, row: int) -> None:
    """Row ``row + 1`` for the child where the side to move of row ``row`` passes."""
    for j in range(idx.shape[1]):
        idx[2 * row + 2, j] = idx[2 * row + 1, j]
        idx[2 * row + 3, j] = idx[2 * row, j]


@hot_kernel(nogil=True, inline="always")
def indexed_sum(idx: np.ndarray, row: int, w: np.ndarray) -> float:
    """``pattern_sum`` of row ``row``'s position in the weight row ``w``, unclamped."""
    v = 0.0
    for j in range(N_INSTANCES):
        v += w[INSTANCE_OFFSET[j] + idx[2 * row, j]]
    return v


@hot_kernel(nogil=True, inline="always")
def _pattern_part(
    w: np.ndarray, units: np.ndarray, unit: float, phase: int, idx: np.ndarray, row: int
) -> float:
    """``indexed_sum`` in the weight row ``w``, phase ``phase`` of the table: from the table
    in whole ``unit``s where the evaluation has one (``evaluation.pattern_units``: the same
    value to the last bit), else in float."""
    if units.shape[0]:
        table = units.ctypes.data + phase * units.strides[0]
        return float(instances_sum(table, idx.ctypes.data + 2 * row * idx.strides[0])) * unit
    return indexed_sum(idx, row, w)


@hot_kernel(nogil=True, inline="always")
def _indexed_terms_sum(
    p: int, o: int, w: np.ndarray, moves: int, idx: np.ndarray, row: int
) -> float:
    """``pattern_terms._terms_sum`` with the pattern terms' configurations from row ``row`` of
    wide ``idx``: the same parts added in the same order."""
    mask = int(w[HEADER_TERMS])
    v = _count_terms_sum(U64(p), U64(o), w, U64(moves), mask)
    if mask & _PATTERN_TERM_BITS:
        s = 0.0
        for i in range(_PT_INSTANCES):
            if mask >> _PT_TERM[i] & 1:
                s += w[_PT_COLUMN[i] + idx[2 * row, N_INSTANCES + i]]
        v += s
    return v


@hot_kernel(nogil=True, inline="always")
def indexed_value(
    kind: int,
    weights: np.ndarray,
    p: int,
    o: int,
    n: int,
    idx: np.ndarray,
    row: int,
    moves: int,
    units: np.ndarray,
    unit: float,
) -> float:
    """``evaluate(kind, weights, p, o, n)`` with the pattern part from row ``row`` of ``idx``
    (which must hold ``(p, o)``'s indices) for the pattern kinds on 8x8 (``moves``: the side to
    move's moves where the caller has them, else 0; ``units`` and ``unit``: the evaluation's
    ``Evaluation.units``, or ``NO_UNITS`` and 0); other kinds as ``evaluate``."""
    if n == 8 and kind == EVAL_PATTERNS:
        k = phase_of(64 - popcount(U64(p) | U64(o)), weights.shape[0])
        return clamp64(_pattern_part(weights[k], units, unit, k, idx, row))
    if n == 8 and kind == EVAL_PATTERN_TERMS:
        empties = 64 - popcount(U64(p) | U64(o))
        k = phase_row(empties, int(weights[0, HEADER_WIDTH]), weights.shape[0])
        w = weights[k]
        v = _pattern_part(w, units, unit, k, idx, row)
        return clamp64(v + _indexed_terms_sum(p, o, w, moves, idx, row))
    return evaluate(kind, weights, p, o, n)
