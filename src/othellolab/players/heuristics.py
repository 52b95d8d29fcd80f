"""A hand-written position evaluation in Numba, on the disc-difference scale of the side to move.

Features: mobility, potential mobility (empty squares next to the opponent's discs), corners,
X- and C-squares next to an empty corner, stable discs, parity, and the disc difference. Their
weights are a ``(phases, features)`` array, interpolated by the number of empty squares, so the
same kernel plays the opening (mobility first) and the late midgame (discs and parity count).

The search kernels call ``evaluate(kind, weights, p, o, n)``: ``kind`` picks the evaluation
(``EVAL_HEURISTIC`` here, ``EVAL_DISCS`` for the plain disc difference, ``EVAL_PATTERNS`` for
the learned pattern evaluation of ``players.patterns``), ``weights`` are its parameters, so
every search that takes an ``Evaluation`` can use any of them unchanged.

>>> from othellolab import Board
>>> b = Board()
>>> abs(heuristic_value(b)) < 1.0  # the start position is symmetric up to a sign
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from othellolab.core import Board, ConfigError
from othellolab.core.jit import FAST_PEXT, hot_kernel
from othellolab.core.kernels import (
    _FULL,
    _INNER,
    FULL8,
    INNER8,
    U64,
    ZERO,
    _legal,
    popcount,
)
from othellolab.players.patterns import N_FEATURES as _PATTERN_FEATURES
from othellolab.players.patterns import pattern_evaluation, pattern_value, pattern_value_pext

_pattern_value = pattern_value_pext if FAST_PEXT else pattern_value
"""The pattern evaluation the kernels call: with ``pext`` where the CPU runs it fast (the exact
solver 3-6% faster on FFO #45-#49), the portable one elsewhere; Numba binds one of the two."""

EVAL_HEURISTIC = 0
"""``evaluate`` kind: the hand-written evaluation of this module."""

EVAL_DISCS = 1
"""``evaluate`` kind: the disc difference (no weights)."""

EVAL_PATTERNS = 2
"""``evaluate`` kind: the learned pattern evaluation of ``players.patterns`` (8x8 only)."""

FEATURES = (
    "mobility",
    "potential_mobility",
    "corners",
    "x_squares",
    "c_squares",
    "stable",
    "parity",
    "discs",
)
"""Feature names, in the column order of the weight table."""

PHASE_EMPTIES = (60, 44, 30, 16, 0)
"""Empty-square counts (on 8x8) at which the rows of the weight table apply exactly."""

# Hand-set weights in discs per unit of feature (opening -> end). Mobility and corners dominate
# early; stable discs, parity and the disc count take over towards the end.
DEFAULT_WEIGHTS = np.array(
    [
        # mob  potmob corner  X     C     stable parity discs
        [1.2, 0.5, 7.0, -5.0, -1.5, 1.0, 0.0, -0.25],
        [1.2, 0.5, 7.0, -5.0, -1.5, 1.0, 0.0, -0.15],
        [1.0, 0.4, 6.0, -4.0, -1.0, 1.0, 0.5, 0.0],
        [0.7, 0.2, 4.0, -2.0, -0.5, 1.0, 1.0, 0.4],
        [0.3, 0.0, 1.0, 0.0, 0.0, 0.5, 1.0, 1.0],
    ],
    dtype=np.float64,
)

# Per board size (rows 4, 6, 8 are used): the quadrant bit of each square (parity ordering),
# the quadrant masks, the files and edges used by the stability bound, and the lines.
_QUAD_BIT = np.zeros((9, 64), dtype=np.int64)
_QUAD_MASK = np.zeros((9, 4), dtype=np.uint64)
_FILE_A = np.zeros(9, dtype=np.uint64)
_FILE_LAST = np.zeros(9, dtype=np.uint64)
_ROW_EDGES = np.zeros(9, dtype=np.uint64)
_EDGES = np.zeros(9, dtype=np.uint64)
_CORNERS = np.zeros(9, dtype=np.uint64)
_LINES = np.zeros((9, 4, 16), dtype=np.uint64)  # [size, axis, line]: rows, cols, diag, anti-diag
_N_LINES = np.zeros((9, 4), dtype=np.int64)
for _n in (4, 6, 8):
    _h = _n // 2
    for _sq in range(_n * _n):
        _r, _c = divmod(_sq, _n)
        _q = 2 * (_r >= _h) + (_c >= _h)
        _QUAD_BIT[_n, _sq] = 1 << _q
        _QUAD_MASK[_n, _q] |= np.uint64(1 << _sq)
        if _c == 0:
            _FILE_A[_n] |= np.uint64(1 << _sq)
        if _c == _n - 1:
            _FILE_LAST[_n] |= np.uint64(1 << _sq)
        if _r in (0, _n - 1):
            _ROW_EDGES[_n] |= np.uint64(1 << _sq)
        if _r in (0, _n - 1) or _c in (0, _n - 1):
            _EDGES[_n] |= np.uint64(1 << _sq)
        if _r in (0, _n - 1) and _c in (0, _n - 1):
            _CORNERS[_n] |= np.uint64(1 << _sq)
    _lines: list[list[int]] = [[], [], [], []]
    for _i in range(_n):
        _lines[0].append(sum(1 << (_i * _n + _c) for _c in range(_n)))
        _lines[1].append(sum(1 << (_r * _n + _i) for _r in range(_n)))
    for _d in range(-(_n - 1), _n):
        _lines[2].append(sum(1 << (_r * _n + _r - _d) for _r in range(_n) if 0 <= _r - _d < _n))
        _lines[3].append(
            sum(1 << (_r * _n + _d + _n - 1 - _r) for _r in range(_n) if 0 <= _d + _n - 1 - _r < _n)
        )
    for _a in range(4):
        _N_LINES[_n, _a] = len(_lines[_a])
        for _i, _m in enumerate(_lines[_a]):
            _LINES[_n, _a, _i] = np.uint64(_m)


@numba.njit(cache=True)
def _full_lines(occ: int, n: int, axis: int) -> int:
    """Union of the full lines of ``occ`` along one axis (rows, columns, diagonals, anti-)."""
    f = ZERO
    for i in range(_N_LINES[n, axis]):
        line = _LINES[n, axis, i]
        if occ & line == line:
            f |= line
    return f


@numba.njit(cache=True)
def stable_discs(p: int, o: int, n: int) -> int:
    """Discs of ``p`` that can never be flipped (a subset of them, found by a fixed point).

    A disc is stable when along each of the four axes its line is full, it touches the edge, or
    a neighbour on that axis is a stable disc of the same colour: a flip along an axis needs an
    empty square on the line and a run of discs ending on the opponent's colour on both sides.
    """
    p = U64(p)
    o = U64(o)
    occ = p | o
    not_a = ~_FILE_A[n]
    not_last = ~_FILE_LAST[n]
    edges = _EDGES[n]
    fixed_h = _full_lines(occ, n, 0) | _FILE_A[n] | _FILE_LAST[n]
    fixed_v = _full_lines(occ, n, 1) | _ROW_EDGES[n]
    fixed_d = _full_lines(occ, n, 2) | edges
    fixed_a = _full_lines(occ, n, 3) | edges
    s1 = U64(1)
    sn = U64(n)
    sd = U64(n + 1)
    sa = U64(n - 1)
    stable = p & fixed_h & fixed_v & fixed_d & fixed_a
    while True:
        h = fixed_h | ((stable << s1) & not_a) | ((stable >> s1) & not_last)
        v = fixed_v | (stable << sn) | (stable >> sn)
        d = fixed_d | ((stable << sd) & not_a) | ((stable >> sd) & not_last)
        an = fixed_a | ((stable << sa) & not_last) | ((stable >> sa) & not_a)
        new = p & h & v & d & an
        if new == stable:
            return stable
        stable = new


# Per size: the X-squares and C-squares with the corner they belong to.
_XSQ = np.zeros((9, 4, 2), dtype=np.uint64)  # [size, corner, (corner bit, X bit)]
_CSQ = np.zeros((9, 4, 2), dtype=np.uint64)  # [size, corner, (corner bit, both C bits)]
for _n in (4, 6, 8):
    for _i, (_r, _c) in enumerate(((0, 0), (0, _n - 1), (_n - 1, 0), (_n - 1, _n - 1))):
        _dr = 1 if _r == 0 else -1
        _dc = 1 if _c == 0 else -1
        _corner = 1 << (_r * _n + _c)
        _XSQ[_n, _i, 0] = np.uint64(_corner)
        _XSQ[_n, _i, 1] = np.uint64(1 << ((_r + _dr) * _n + _c + _dc))
        _CSQ[_n, _i, 0] = np.uint64(_corner)
        _CSQ[_n, _i, 1] = np.uint64((1 << ((_r + _dr) * _n + _c)) | (1 << (_r * _n + _c + _dc)))

_NOT_A = np.zeros(9, dtype=np.uint64)
_NOT_LAST = np.zeros(9, dtype=np.uint64)
for _n in (4, 6, 8):
    for _sq in range(_n * _n):
        if _sq % _n != 0:
            _NOT_A[_n] |= np.uint64(1 << _sq)
        if _sq % _n != _n - 1:
            _NOT_LAST[_n] |= np.uint64(1 << _sq)


@numba.njit(cache=True, inline="always")
def _mobility(p: int, o: int, n: int) -> int:
    if n == 8:
        return _legal(p, o, 8, INNER8, FULL8)
    return _legal(p, o, n, _INNER[n], _FULL[n])


@numba.njit(cache=True)
def neighbours(x: int, n: int) -> int:
    """Squares next to (in the 8 directions) a square of ``x`` and not in it, ``n`` x ``n``."""
    x = U64(x)
    row = x | ((x >> U64(1)) & _NOT_LAST[n]) | ((x << U64(1)) & _NOT_A[n])
    out = row | (row << U64(n)) | (row >> U64(n))
    return out & ~x & _FULL[n]


@hot_kernel()
def _features(
    p: int, o: int, n: int
) -> tuple[float, float, float, float, float, float, float, float]:
    p = U64(p)
    o = U64(o)
    empty = ~(p | o) & _FULL[n]
    mob = popcount(_mobility(p, o, n)) - popcount(_mobility(o, p, n))
    pot = popcount(neighbours(o, n) & empty) - popcount(neighbours(p, n) & empty)
    corners = _CORNERS[n]
    cor = popcount(p & corners) - popcount(o & corners)
    x = 0
    c = 0
    for i in range(4):
        if empty & _XSQ[n, i, 0]:
            xb = _XSQ[n, i, 1]
            cb = _CSQ[n, i, 1]
            x += popcount(p & xb) - popcount(o & xb)
            c += popcount(p & cb) - popcount(o & cb)
    stable = popcount(stable_discs(p, o, n)) - popcount(stable_discs(o, p, n))
    parity = 1.0 if popcount(empty) & 1 else -1.0
    discs = popcount(p) - popcount(o)
    return (
        float(mob),
        float(pot),
        float(cor),
        float(x),
        float(c),
        float(stable),
        parity,
        float(discs),
    )


@numba.njit(cache=True)
def features(p: int, o: int, n: int, out: np.ndarray) -> None:
    """Write the feature values of ``FEATURES`` (side to move minus opponent) into ``out``."""
    f = _features(p, o, n)
    for j in range(8):
        out[j] = f[j]


@hot_kernel()
def heuristic(p: int, o: int, n: int, weights: np.ndarray) -> float:
    """The hand-written evaluation: weighted features, weights interpolated by game phase."""
    p = U64(p)
    o = U64(o)
    cells = n * n
    ne = popcount(~(p | o) & _FULL[n])
    # Phase position on the 8x8 scale (0 = start, len-1 = end).
    t = (60.0 - ne * 60.0 / (cells - 4)) / 60.0 * (weights.shape[0] - 1)
    if t < 0.0:
        t = 0.0
    k = int(t)
    if k >= weights.shape[0] - 1:
        k = weights.shape[0] - 2
    frac = t - k
    feats = _features(p, o, n)
    v = 0.0
    for j in range(8):
        w = weights[k, j] * (1.0 - frac) + weights[k + 1, j] * frac
        v += w * feats[j]
    lim = cells - 1.0
    if v > lim:
        return lim
    if v < -lim:
        return -lim
    return v


@hot_kernel()
def evaluate(kind: int, weights: np.ndarray, p: int, o: int, n: int) -> float:
    """Evaluation ``kind`` with parameters ``weights`` of ``(p, o)``, disc scale, side to move."""
    if kind == EVAL_HEURISTIC:
        return heuristic(p, o, n, weights)
    if kind == EVAL_PATTERNS and n == 8:
        return _pattern_value(p, o, weights)
    # EVAL_DISCS, and the fallback for patterns off 8x8 (``Evaluation.check_size`` refuses
    # that case in Python; a raise here would slow the pattern branch down by half).
    return float(popcount(U64(p)) - popcount(U64(o)))


@dataclass(frozen=True)
class Evaluation:
    """An evaluation for the search kernels: a dispatch ``kind`` and its parameter array."""

    kind: int = EVAL_HEURISTIC
    weights: np.ndarray = field(default_factory=lambda: DEFAULT_WEIGHTS.copy())

    def __post_init__(self) -> None:
        if self.kind not in (EVAL_HEURISTIC, EVAL_DISCS, EVAL_PATTERNS):
            raise ValueError(f"unknown evaluation kind {self.kind}")
        w = self.weights
        if not (isinstance(w, np.ndarray) and w.ndim == 2 and w.dtype == np.float64):
            raise ValueError("evaluation weights must be a 2-D float64 array")
        if self.kind == EVAL_PATTERNS and w.shape[1] != _PATTERN_FEATURES:
            raise ValueError(
                f"pattern weights must have {_PATTERN_FEATURES} columns, got shape {w.shape}"
            )

    @property
    def name(self) -> str:
        """The name of this evaluation's kind: ``heuristic``, ``discs`` or ``patterns``."""
        return {EVAL_HEURISTIC: "heuristic", EVAL_DISCS: "discs", EVAL_PATTERNS: "patterns"}[
            self.kind
        ]

    def check_size(self, size: int) -> None:
        """Raise ``ValueError`` when this evaluation cannot judge ``size`` x ``size`` boards."""
        if self.kind == EVAL_PATTERNS and size != 8:
            raise ConfigError(f"the pattern evaluation is 8x8 only, not {size}x{size}")

    def __call__(self, board: Board) -> float:
        """The evaluation of ``board`` from the side to move, in discs."""
        self.check_size(board.size)
        return float(
            evaluate(self.kind, self.weights, U64(board.player), U64(board.opponent), board.size)
        )


EVALUATION_NAMES = ("heuristic", "patterns", "discs")
"""Evaluations that players and the CLI name (``patterns`` is 8x8 only)."""


def named_evaluation(name: str) -> Evaluation:
    """The evaluation called ``name`` (one of ``EVALUATION_NAMES``), with its shipped weights."""
    if name == "heuristic":
        return Evaluation()
    if name == "patterns":
        return pattern_evaluation()
    if name == "discs":
        return Evaluation(kind=EVAL_DISCS)
    raise ValueError(f"evaluation must be one of {', '.join(EVALUATION_NAMES)}, got {name!r}")


def heuristic_value(board: Board, weights: np.ndarray | None = None) -> float:
    """The hand-written evaluation of ``board`` for the side to move, in discs."""
    w = DEFAULT_WEIGHTS if weights is None else np.asarray(weights, dtype=np.float64)
    return float(heuristic(U64(board.player), U64(board.opponent), board.size, w))


def feature_values(board: Board) -> dict[str, float]:
    """The features of ``board`` by name (side to move minus opponent), to inspect or tune."""
    out = np.zeros(len(FEATURES), dtype=np.float64)
    features(U64(board.player), U64(board.opponent), board.size, out)
    return dict(zip(FEATURES, out.tolist(), strict=True))
