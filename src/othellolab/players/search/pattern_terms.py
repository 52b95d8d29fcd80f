"""The extra terms a pattern-weights file may declare beyond the classic patterns
(``search.patterns``): counts (each side's mobility and potential mobility, the parity of the
empties per quadrant, each side's frontier discs, the side to move's disc count), each a small
table per phase indexed by the count, and more pattern classes (``PATTERN_TERMS``), each a
table of ``3**10`` configurations per phase.

A kernel table with terms has ``N_TERM_FEATURES`` columns (``N_WIDE_TERM_FEATURES`` when it
declares a pattern term): the patterns', then two header columns (the phase width and a bit
mask of the declared terms, the same in every row), then every term's table; the kernel skips
the terms the mask leaves out. One sum (``_terms_sum``) serves the bitboard and the kept-index
evaluations, so both add in one order.
"""

from __future__ import annotations

import numba
import numpy as np

from othellolab.core.jit import FAST_PEXT, hot_kernel, pext
from othellolab.core.kernels import U64, popcount
from othellolab.players.search._pattern_kernel import clamp64, pattern_sum, pattern_sum_pext
from othellolab.players.search._pattern_tables import (
    N_FEATURES,
    PatternClass,
    _instances,
    canonical_configuration,
    phase_row,
    squares_of,
)
from othellolab.players.search.geometry import gen_moves

PATTERN_TERMS = (
    PatternClass("triangle", squares_of("a1 b1 c1 d1 a2 b2 c2 a3 b3 a4")),
    PatternClass("corner_block", squares_of("a1 c1 d1 e1 f1 h1 c2 d2 e2 f2")),
    PatternClass("cross", squares_of("a1 b2 c3 d4 b1 c2 d3 a2 b3 c4")),
)
"""Pattern classes a weights file may add to the classic set as terms (Egaroucid's triangle,
corner-plus-block and cross): each instance's configuration indexes a table per phase, tied
under the class's own symmetries like the classic set's, read with ``pext`` or square by
square instead of kept move by move."""

COUNT_TERMS = ("mobility", "potential_mobility", "parity", "frontier", "discs")
"""The terms that are counts (``all`` in an engine config's ``terms``)."""

TERMS = (*COUNT_TERMS, *(c.name for c in PATTERN_TERMS))
"""The terms a weights file may declare beyond the patterns, in their column order: the
counts, then the ``PATTERN_TERMS``."""

_N_COUNT_TERMS = len(COUNT_TERMS)

MOBILITY_ENTRIES = 36
"""Mobility table entries per side: legal move counts 0..35 (more share the last)."""

POTENTIAL_ENTRIES = 61
"""Potential-mobility table entries per side: empty squares next to the other side's discs."""

PARITY_ENTRIES = 5
"""Parity table entries: how many of the four quadrants hold an odd number of empties."""

FRONTIER_ENTRIES = 65
"""Frontier table entries per side: the side's discs next to an empty square (Egaroucid's
"surround" feature), 0..64."""

DISC_ENTRIES = 65
"""Disc-count table entries: the side to move's discs, 0..64 (with the phase's empties, the
disc difference)."""

_TERM_SIZES = {
    "mobility": 2 * MOBILITY_ENTRIES,
    "potential_mobility": 2 * POTENTIAL_ENTRIES,
    "parity": PARITY_ENTRIES,
    "frontier": 2 * FRONTIER_ENTRIES,
    "discs": DISC_ENTRIES,
}
_TERM_INSTANCES = {"mobility": 2, "potential_mobility": 2, "parity": 1, "frontier": 2, "discs": 1}


def _pattern_term_tables() -> tuple[
    tuple[list[np.ndarray], np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray
]:
    """For each pattern term, every configuration's tied (compact) rank; for each of their
    instances, its square mask, its start in ``_PT_PEXT`` (gathered bits in ascending square
    order -> base-3 index), its squares in digit order, and its term's number."""
    ranks: list[np.ndarray] = []
    masks: list[int] = []
    starts: list[int] = []
    squares: list[tuple[int, ...]] = []
    terms: list[int] = []
    parts: list[np.ndarray] = []
    size = 0
    for k, cls in enumerate(PATTERN_TERMS):
        images, perms = _instances(cls.squares)
        n = len(cls.squares)
        canon = canonical_configuration(np.arange(3**n), n, perms)
        ranks.append(np.unique(canon, return_inverse=True)[1].astype(np.int64))
        for img in images:
            ascending = sorted(img)
            digit = np.array([3 ** img.index(s) for s in ascending])
            bits = np.arange(1 << n)[:, None] >> np.arange(n) & 1
            parts.append((bits @ digit).astype(np.int32))
            starts.append(size)
            size += 1 << n
            masks.append(sum(1 << s for s in img))
            squares.append(img)
            terms.append(_N_COUNT_TERMS + k)
    return (
        ranks,
        np.array(masks, dtype=np.uint64),
        np.array(starts, dtype=np.int64),
        np.array(squares, dtype=np.int64),
        np.array(terms, dtype=np.int64),
    ), np.concatenate(parts)


(_PT_RANKS, _PT_MASK, _PT_START, _PT_SQUARES, _PT_TERM), _PT_PEXT = _pattern_term_tables()
_PT_INSTANCES = len(_PT_MASK)
_PT_LENGTH = _PT_SQUARES.shape[1]
"""Squares of every pattern term's instances (all ten): one full block of ``3**10`` columns
each."""
for _k, _cls in enumerate(PATTERN_TERMS):
    _TERM_SIZES[_cls.name] = int(_PT_RANKS[_k].max()) + 1
    _TERM_INSTANCES[_cls.name] = int((_N_COUNT_TERMS + _k == _PT_TERM).sum())
assert all(len(c.squares) == _PT_LENGTH for c in PATTERN_TERMS)

HEADER_WIDTH = N_FEATURES
"""Column of the phase width in a table with terms."""
HEADER_TERMS = N_FEATURES + 1
"""Column of the declared terms' bit mask (bit ``i`` for ``TERMS[i]``) in a table with terms."""
_MOB = N_FEATURES + 2
_POT = _MOB + 2 * MOBILITY_ENTRIES
_PAR = _POT + 2 * POTENTIAL_ENTRIES
_FRO = _PAR + PARITY_ENTRIES
_DSC = _FRO + 2 * FRONTIER_ENTRIES

N_TERM_FEATURES = _DSC + DISC_ENTRIES
"""Columns of a weight row with count terms: the patterns', two header columns, every count
term's table. A table that declares pattern terms has ``N_WIDE_TERM_FEATURES``."""

_PT0 = N_TERM_FEATURES
_PT_BLOCK = 3**_PT_LENGTH

N_WIDE_TERM_FEATURES = _PT0 + len(PATTERN_TERMS) * _PT_BLOCK
"""Columns of a weight row that declares a pattern term: ``N_TERM_FEATURES``, then a full
``3**10`` block per pattern term (the declared ones filled)."""

_PATTERN_TERM_BITS = sum(1 << (_N_COUNT_TERMS + k) for k in range(len(PATTERN_TERMS)))

_FULL_START = {
    "mobility": _MOB,
    "potential_mobility": _POT,
    "parity": _PAR,
    "frontier": _FRO,
    "discs": _DSC,
    **{c.name: _PT0 + k * _PT_BLOCK for k, c in enumerate(PATTERN_TERMS)},
}
_PT_COLUMN = np.array([_FULL_START[TERMS[t]] for t in _PT_TERM], dtype=np.int64)
"""The first column of each pattern-term instance's block in a wide row."""
_NOT_A = U64(0xFEFEFEFEFEFEFEFE)
_NOT_H = U64(0x7F7F7F7F7F7F7F7F)
_QUADRANTS = (U64(0x0F0F0F0F), U64(0xF0F0F0F0), U64(0x0F0F0F0F00000000), U64(0xF0F0F0F000000000))


def check_terms(terms: object) -> tuple[str, ...]:
    """``terms`` as a tuple, after checking they are distinct names of ``TERMS`` in its order."""
    if isinstance(terms, str) or not isinstance(terms, list | tuple):
        raise ValueError(f"terms must be a list of {', '.join(TERMS)}, got {terms!r}")
    bad = [t for t in terms if t not in TERMS]
    if bad:
        raise ValueError(f"unknown term {bad[0]!r}: the terms are {', '.join(TERMS)}")
    if list(terms) != [t for t in TERMS if t in terms]:
        raise ValueError(
            f"terms {list(terms)} must be distinct and in the order {', '.join(TERMS)}"
        )
    return tuple(terms)


def check_phase_width(width: object) -> int:
    """``width`` after checking it is a whole number of empties in 1..60."""
    if isinstance(width, bool) or not isinstance(width, int | np.integer) or not 1 <= width <= 60:
        raise ValueError(f"phase_width must be a whole number in 1..60, got {width!r}")
    return int(width)


def term_columns(terms: tuple[str, ...]) -> int:
    """Compact columns of the declared ``terms`` (after the patterns' in a stored row)."""
    return sum(_TERM_SIZES[t] for t in terms)


def _term_mask(terms: tuple[str, ...]) -> int:
    return sum(1 << TERMS.index(t) for t in terms)


def term_table_width(mask: int) -> int:
    """Columns of a kernel table whose header declares the terms of bit mask ``mask``."""
    return N_WIDE_TERM_FEATURES if int(mask) & _PATTERN_TERM_BITS else N_TERM_FEATURES


def expand_terms(compact: np.ndarray, terms: tuple[str, ...], table: np.ndarray) -> None:
    """Write the declared ``terms``' compact columns (``compact``, the block after the
    patterns' in a stored row) into their places in the kernel ``table``, and its header
    (but the phase width): a pattern term's tied configurations take their one weight."""
    terms = check_terms(terms)
    table[:, HEADER_TERMS] = _term_mask(terms)
    start = 0
    for t in terms:
        size = _TERM_SIZES[t]
        block = compact[:, start : start + size]
        if t in COUNT_TERMS:
            table[:, _FULL_START[t] : _FULL_START[t] + size] = block
        else:
            ranks = _PT_RANKS[TERMS.index(t) - _N_COUNT_TERMS]
            table[:, _FULL_START[t] : _FULL_START[t] + _PT_BLOCK] = block[:, ranks]
        start += size


@hot_kernel(inline="always")
def _gather_pext(x: int, i: int) -> int:
    """Instance ``i``'s base-3 index part of the squares of ``x`` (``pext``)."""
    return np.int64(_PT_PEXT[_PT_START[i] + pext(x, _PT_MASK[i])])


@hot_kernel(inline="always")
def _gather_loop(x: int, i: int) -> int:
    """``_gather_pext`` square by square, for CPUs without a fast ``pext``."""
    v = 0
    d = 1
    for j in range(_PT_LENGTH):
        v += d * np.int64((U64(x) >> U64(_PT_SQUARES[i, j])) & U64(1))
        d *= 3
    return v


_gather = _gather_pext if FAST_PEXT else _gather_loop
"""How the pattern terms read an instance's squares; Numba binds one of the two."""


@hot_kernel(inline="always")
def _pattern_terms_sum(p: int, o: int, w: np.ndarray, mask: int) -> float:
    """The declared pattern terms' sum for ``(p, o)`` in the wide weight row ``w``."""
    v = 0.0
    for i in range(_PT_INSTANCES):
        if mask >> _PT_TERM[i] & 1:
            v += w[_PT_COLUMN[i] + _gather(p, i) + 2 * _gather(o, i)]
    return v


@hot_kernel(inline="always")
def _around(x: int) -> int:
    """Squares next to a square of ``x`` (8x8), ``x``'s own included."""
    row = x | ((x >> U64(1)) & _NOT_H) | ((x << U64(1)) & _NOT_A)
    return row | (row << U64(8)) | (row >> U64(8))


@hot_kernel(inline="always")
def _term_counts(p: int, o: int, mask: int) -> tuple[int, int, int, int, int, int, int, int]:
    """Each term's count for ``(p, o)``: mobility of each side, potential mobility of each side,
    odd quadrants, frontier discs of each side, the side to move's discs (0 for a term the mask
    leaves out)."""
    empty = ~(p | o)
    mp = mo = pp = po = odd = fp = fo = dp = 0
    if mask & 1:
        mp = min(popcount(gen_moves(p, o, 8)), MOBILITY_ENTRIES - 1)
        mo = min(popcount(gen_moves(o, p, 8)), MOBILITY_ENTRIES - 1)
    if mask & 2:
        pp = popcount(_around(o) & empty)
        po = popcount(_around(p) & empty)
    if mask & 4:
        for q in _QUADRANTS:
            odd += popcount(empty & q) & 1
    if mask & 8:
        near = _around(empty)
        fp = popcount(p & near)
        fo = popcount(o & near)
    if mask & 16:
        dp = popcount(p)
    return mp, mo, pp, po, odd, fp, fo, dp


@hot_kernel(inline="always")
def _terms_sum(p: int, o: int, w: np.ndarray, moves: int) -> float:
    """The declared terms' sum for ``(p, o)`` in the weight row ``w``, the side to move's legal
    moves given (``moves``, or 0 to generate them: the search has them at its leaves); the
    kept-index evaluation (``incremental``) adds the same parts in the same order."""
    mask = int(w[HEADER_TERMS])
    v = _count_terms_sum(p, o, w, moves, mask)
    if mask & _PATTERN_TERM_BITS:
        v += _pattern_terms_sum(p, o, w, mask)
    return v


@hot_kernel(inline="always")
def _count_terms_sum(p: int, o: int, w: np.ndarray, moves: int, mask: int) -> float:
    """The declared count terms' part of ``_terms_sum``."""
    empty = ~(p | o)
    v = 0.0
    if mask & 1:
        mine = moves if moves else gen_moves(p, o, 8)
        mp = min(popcount(mine), MOBILITY_ENTRIES - 1)
        mo = min(popcount(gen_moves(o, p, 8)), MOBILITY_ENTRIES - 1)
        v += w[_MOB + mp] + w[_MOB + MOBILITY_ENTRIES + mo]
    if mask & 2:
        pp = popcount(_around(o) & empty)
        po = popcount(_around(p) & empty)
        v += w[_POT + pp] + w[_POT + POTENTIAL_ENTRIES + po]
    if mask & 4:
        odd = 0
        for q in _QUADRANTS:
            odd += popcount(empty & q) & 1
        v += w[_PAR + odd]
    if mask & 8:
        near = _around(empty)
        v += w[_FRO + popcount(p & near)] + w[_FRO + FRONTIER_ENTRIES + popcount(o & near)]
    if mask & 16:
        v += w[_DSC + popcount(p)]
    return v


@hot_kernel()
def pattern_terms_value(p: int, o: int, weights: np.ndarray) -> float:
    """The pattern evaluation with its phase width and extra terms read from the table's header
    (a float64 ``(phases, N_TERM_FEATURES)`` table), in discs for the side to move."""
    p = U64(p)
    o = U64(o)
    k = phase_row(64 - popcount(p | o), int(weights[0, HEADER_WIDTH]), weights.shape[0])
    w = weights[k]
    return clamp64(pattern_sum(p, o, w) + _terms_sum(p, o, w, U64(0)))


@hot_kernel()
def pattern_terms_value_pext(p: int, o: int, weights: np.ndarray) -> float:
    """``pattern_terms_value`` with ``pext`` (only where ``core.jit.FAST_PEXT``)."""
    p = U64(p)
    o = U64(o)
    k = phase_row(64 - popcount(p | o), int(weights[0, HEADER_WIDTH]), weights.shape[0])
    w = weights[k]
    return clamp64(pattern_sum_pext(p, o, w) + _terms_sum(p, o, w, U64(0)))


@numba.njit(cache=True)
def _term_indices(p: np.ndarray, o: np.ndarray, mask: int, out: np.ndarray) -> None:
    for i in range(p.shape[0]):
        mp, mo, pp, po, odd, fp, fo, dp = _term_counts(U64(p[i]), U64(o[i]), mask)
        j = 0
        start = 0
        if mask & 1:
            out[i, 0] = mp
            out[i, 1] = MOBILITY_ENTRIES + mo
            j = 2
            start = 2 * MOBILITY_ENTRIES
        if mask & 2:
            out[i, j] = start + pp
            out[i, j + 1] = start + POTENTIAL_ENTRIES + po
            j += 2
            start += 2 * POTENTIAL_ENTRIES
        if mask & 4:
            out[i, j] = start + odd
            j += 1
            start += PARITY_ENTRIES
        if mask & 8:
            out[i, j] = start + fp
            out[i, j + 1] = start + FRONTIER_ENTRIES + fo
            j += 2
            start += 2 * FRONTIER_ENTRIES
        if mask & 16:
            out[i, j] = start + dp


def term_indices_batch(p: np.ndarray, o: np.ndarray, terms: tuple[str, ...]) -> np.ndarray:
    """The columns, counted from the first term column of a compact row, that the declared
    ``terms`` set to one for each position: an ``(N, instances)`` int32 array (two per side
    term, one for parity and for discs)."""
    terms = check_terms(terms)
    p = np.ascontiguousarray(p, dtype=np.uint64)
    o = np.ascontiguousarray(o, dtype=np.uint64)
    counts = [t for t in terms if t in COUNT_TERMS]
    width = sum(_TERM_INSTANCES[t] for t in counts)
    out = np.zeros((len(p), sum(_TERM_INSTANCES[t] for t in terms)), dtype=np.int32)
    if counts:
        _term_indices(p, o, _term_mask(tuple(counts)), out[:, :width])
    start = sum(_TERM_SIZES[t] for t in counts)
    for t in terms[len(counts) :]:
        k = TERMS.index(t) - _N_COUNT_TERMS
        full = _pattern_term_configurations(p, o, np.flatnonzero(_N_COUNT_TERMS + k == _PT_TERM))
        n = full.shape[1]
        out[:, width : width + n] = start + _PT_RANKS[k][full]
        width += n
        start += _TERM_SIZES[t]
    return out


@numba.njit(cache=True)
def _pattern_term_configurations(p: np.ndarray, o: np.ndarray, instances: np.ndarray) -> np.ndarray:
    """Each position's configuration (``0 .. 3**10 - 1``) of each of ``instances``."""
    out = np.empty((p.shape[0], instances.shape[0]), dtype=np.int64)
    for n in range(p.shape[0]):
        for k in range(instances.shape[0]):
            i = instances[k]
            out[n, k] = _gather_loop(U64(p[n]), i) + 2 * _gather_loop(U64(o[n]), i)
    return out
