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

import numba
import numpy as np

from othellolab.core import Board
from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import _FULL, U64, popcount
from othellolab.players.search.geometry import CORNERS, gen_moves, neighbours, stable_discs

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


@hot_kernel()
def _features(
    p: int, o: int, n: int
) -> tuple[float, float, float, float, float, float, float, float]:
    p = U64(p)
    o = U64(o)
    empty = ~(p | o) & _FULL[n]
    mob = popcount(gen_moves(p, o, n)) - popcount(gen_moves(o, p, n))
    pot = popcount(neighbours(o, n) & empty) - popcount(neighbours(p, n) & empty)
    corners = CORNERS[n]
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


def heuristic_value(board: Board, weights: np.ndarray | None = None) -> float:
    """The hand-written evaluation of ``board`` for the side to move, in discs."""
    w = DEFAULT_WEIGHTS if weights is None else np.asarray(weights, dtype=np.float64)
    return float(heuristic(U64(board.player), U64(board.opponent), board.size, w))


def feature_values(board: Board) -> dict[str, float]:
    """The features of ``board`` by name (side to move minus opponent), to inspect or tune."""
    out = np.zeros(len(FEATURES), dtype=np.float64)
    features(U64(board.player), U64(board.opponent), board.size, out)
    return dict(zip(FEATURES, out.tolist(), strict=True))
