"""Pattern set and index tables of the 8x8 pattern evaluation (see ``players.patterns``).

Kept apart from ``patterns`` so that the generated kernel module ``_pattern_kernel`` can import
the tables that ``patterns`` re-exports, without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from othellolab.core.kernels import _SYM_DST, U64
from othellolab.core.squares import parse_square

PHASE_WIDTH = 5
"""Empty squares per phase: phase ``k`` covers ``5k+1 .. 5k+5`` empties (0 empties -> phase 0)."""


def squares_of(names: str) -> tuple[int, ...]:
    """The squares named in ``names`` (``"a1 b1 c1"``), in order."""
    return tuple(parse_square(s) for s in names.split())


@dataclass(frozen=True)
class PatternClass:
    """A pattern class: its name and the squares of its base instance, in digit order."""

    name: str
    squares: tuple[int, ...]


CLASSES = (
    PatternClass("edge_x", squares_of("a1 b1 c1 d1 e1 f1 g1 h1 b2 g2")),
    PatternClass("corner_3x3", squares_of("a1 b1 c1 a2 b2 c2 a3 b3 c3")),
    PatternClass("corner_2x5", squares_of("a1 b1 c1 d1 e1 a2 b2 c2 d2 e2")),
    PatternClass("row_2", tuple(parse_square(f"{c}2") for c in "abcdefgh")),
    PatternClass("row_3", tuple(parse_square(f"{c}3") for c in "abcdefgh")),
    PatternClass("row_4", tuple(parse_square(f"{c}4") for c in "abcdefgh")),
    PatternClass("diag_8", tuple(parse_square(f"{'abcdefgh'[i]}{i + 1}") for i in range(8))),
    PatternClass("diag_7", tuple(parse_square(f"{'abcdefgh'[i + 1]}{i + 1}") for i in range(7))),
    PatternClass("diag_6", tuple(parse_square(f"{'abcdefgh'[i + 2]}{i + 1}") for i in range(6))),
    PatternClass("diag_5", tuple(parse_square(f"{'abcdefgh'[i + 3]}{i + 1}") for i in range(5))),
    PatternClass("diag_4", tuple(parse_square(f"{'abcdefgh'[i + 4]}{i + 1}") for i in range(4))),
)
"""The classic 8x8 pattern set: edges with X-squares, corner 3x3 and 2x5 blocks, rows 2-4
(and the matching columns), and the diagonals of length 4 to 8."""


def _instances(base: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """The distinct images of ``base`` under the 8 symmetries (squares in transported order),
    and the permutations of digit positions under which the base instance maps to itself."""
    images: list[tuple[int, ...]] = []
    perms: list[tuple[int, ...]] = []
    pos = {s: j for j, s in enumerate(base)}
    for k in range(8):
        img = tuple(int(_SYM_DST[8, k, s]) for s in base)
        if set(img) == set(base):
            perms.append(tuple(pos[s] for s in img))
        if all(set(img) != set(i) for i in images):
            images.append(img)
    return images, sorted(set(perms))


def canonical_configuration(
    index: np.ndarray, length: int, perms: list[tuple[int, ...]]
) -> np.ndarray:
    """The smallest configuration tied to each ``index`` of a pattern of ``length`` squares
    under the digit permutations ``perms`` (its instance's own symmetries, ``_instances``)."""
    index = np.asarray(index, dtype=np.int64)
    digits = (index[..., None] // 3 ** np.arange(length)) % 3
    best = index.copy()
    for perm in perms:
        best = np.minimum(best, (digits * 3 ** np.asarray(perm)).sum(-1))
    return best


INSTANCES: list[tuple[int, tuple[int, ...]]] = []
"""Every pattern instance as ``(class number, squares)``, class by class."""
_CLASS_PERMS: list[list[tuple[int, ...]]] = []
for _c, _cls in enumerate(CLASSES):
    _imgs, _perms = _instances(_cls.squares)
    INSTANCES += [(_c, _i) for _i in _imgs]
    _CLASS_PERMS.append(_perms)

N_INSTANCES = len(INSTANCES)
"""Number of pattern instances summed by one evaluation (46)."""

CLASS_SIZES = np.array([3 ** len(c.squares) for c in CLASSES], dtype=np.int64)
"""Configurations per class (``3**squares``)."""

CLASS_OFFSETS = np.concatenate([[0], np.cumsum(CLASS_SIZES)[:-1]]).astype(np.int64)
"""Column of each class's first configuration in a weight row."""

N_FEATURES = int(CLASS_SIZES.sum())
"""Columns of a weight row: all configurations of all classes (167,265)."""

INSTANCE_CLASS = np.array([c for c, _ in INSTANCES], dtype=np.int64)
INSTANCE_OFFSET = CLASS_OFFSETS[INSTANCE_CLASS]

MAGIC = U64(0x0101010101010101)


def _chunks() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split each instance into chunks of squares in distinct columns (of the board, or of the
    transposed board when that needs fewer chunks), with each chunk's byte -> index table."""
    src: list[int] = []
    masks: list[int] = []
    tables: list[np.ndarray] = []
    last: list[bool] = []
    offsets: list[int] = []
    for inst, (_, squares) in enumerate(INSTANCES):
        best: list[dict[int, int]] | None = None
        best_t = 0
        for t in (0, 1):
            chunks: list[dict[int, int]] = []
            for j, s in enumerate(squares):
                r, col = divmod(s, 8)
                if t:
                    r, col = col, r
                for ch in chunks:
                    if all(q % 8 != col for q in ch):
                        ch[r * 8 + col] = j
                        break
                else:
                    chunks.append({r * 8 + col: j})
            if best is None or len(chunks) < len(best):
                best, best_t = chunks, t
        assert best is not None
        for k, ch in enumerate(best):
            table = np.zeros(256, dtype=np.int32)
            for b in range(256):
                table[b] = sum(3**j for q, j in ch.items() if b >> (q % 8) & 1)
            src.append(best_t)
            masks.append(sum(1 << q for q in ch))
            tables.append(table)
            last.append(k == len(best) - 1)
            offsets.append(int(INSTANCE_OFFSET[inst]))
    return (
        np.array(src, dtype=np.int64),
        np.array(masks, dtype=np.uint64),
        np.stack(tables),
        np.array(last, dtype=np.bool_),
        np.array(offsets, dtype=np.int64),
    )


_CH_SRC, _CH_MASK, _CH_TABLE, _CH_LAST, _CH_OFFSET = _chunks()
_N_CHUNKS = len(_CH_SRC)


@numba.njit(cache=True, inline="always")
def transpose(x: int) -> int:
    """Mirror a bitboard in the a1-h8 diagonal (square ``(r, c)`` -> ``(c, r)``)."""
    t = U64(0x0F0F0F0F00000000) & (x ^ (x << U64(28)))
    x ^= t ^ (t >> U64(28))
    t = U64(0x3333000033330000) & (x ^ (x << U64(14)))
    x ^= t ^ (t >> U64(14))
    t = U64(0x5500550055005500) & (x ^ (x << U64(7)))
    x ^= t ^ (t >> U64(7))
    return x


@numba.njit(cache=True)
def pattern_indices(p: int, o: int, out: np.ndarray) -> None:
    """Write each instance's configuration (column in a weight row, class offset included)."""
    p = U64(p)
    o = U64(o)
    tp = transpose(p)
    to = transpose(o)
    idx = 0
    inst = 0
    for c in range(_N_CHUNKS):
        m = _CH_MASK[c]
        if _CH_SRC[c] == 0:
            bp = ((p & m) * MAGIC) >> U64(56)
            bo = ((o & m) * MAGIC) >> U64(56)
        else:
            bp = ((tp & m) * MAGIC) >> U64(56)
            bo = ((to & m) * MAGIC) >> U64(56)
        idx += _CH_TABLE[c, bp] + 2 * _CH_TABLE[c, bo]
        if _CH_LAST[c]:
            out[inst] = _CH_OFFSET[c] + idx
            inst += 1
            idx = 0


@numba.njit(cache=True)
def pattern_indices_batch(p: np.ndarray, o: np.ndarray) -> np.ndarray:
    """``pattern_indices`` of many positions: an ``(N, N_INSTANCES)`` int32 array."""
    out = np.empty((p.shape[0], N_INSTANCES), dtype=np.int32)
    row = np.empty(N_INSTANCES, dtype=np.int64)
    for i in range(p.shape[0]):
        pattern_indices(p[i], o[i], row)
        for j in range(N_INSTANCES):
            out[i, j] = row[j]
    return out


@numba.njit(cache=True, inline="always")
def phase_of(empties: int, phases: int) -> int:
    """Weight row of a position with ``empties`` empty squares, for ``phases`` rows."""
    k = (empties - 1) // PHASE_WIDTH
    if k < 0:
        return 0
    if k >= phases:
        return phases - 1
    return k


@numba.njit(cache=True, inline="always")
def phase_row(empties: int, width: int, phases: int) -> int:
    """``phase_of`` for phases of ``width`` empties each (``width`` 5 gives ``phase_of``).
    The usual width is divided by as a constant: a division by a variable, a few tens of
    cycles, was a percent of the midgame search."""
    if width == PHASE_WIDTH:
        return phase_of(empties, phases)
    k = (empties - 1) // width
    if k < 0:
        return 0
    if k >= phases:
        return phases - 1
    return k


def _dedupe(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``tables`` and, for each row, the number of its distinct row."""
    seen: dict[bytes, int] = {}
    ids = [seen.setdefault(t.tobytes(), len(seen)) for t in tables]
    distinct = np.stack([np.frombuffer(k, dtype=np.int32) for k in seen])
    return np.ascontiguousarray(distinct), np.array(ids, dtype=np.int64)


TABLES, _CH_TABLE_ID = _dedupe(_CH_TABLE)
"""The distinct byte -> index-part tables of all chunks (shared by the generated kernel)."""


def _pext_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the ``pext`` evaluation: each instance's square mask, and the start in one flat
    uint16 table of its ``2**squares`` entries mapping the instance's squares gathered in
    ascending order (``pext``'s order) to the sum of their digits' ``3**j``. Instances that map
    alike share a table (24 distinct, 26 KB, which stays in the L1 cache)."""
    masks: list[int] = []
    starts: list[int] = []
    seen: dict[bytes, int] = {}
    parts: list[np.ndarray] = []
    size = 0
    for _, squares in INSTANCES:
        ascending = sorted(squares)
        digit = np.array([3 ** squares.index(s) for s in ascending])
        bits = np.arange(1 << len(ascending))[:, None] >> np.arange(len(ascending)) & 1
        table = (bits @ digit).astype(np.uint16)
        key = table.tobytes()
        if key not in seen:
            seen[key] = size
            parts.append(table)
            size += len(table)
        masks.append(sum(1 << s for s in squares))
        starts.append(seen[key])
    return np.array(masks, dtype=np.uint64), np.array(starts, dtype=np.int64), np.concatenate(parts)


PEXT_MASK, PEXT_START, PEXT_TABLE = _pext_tables()


def kernel_source() -> str:
    """Source of ``_pattern_kernel``: ``pattern_value`` unrolled over the chunks, every mask,
    shift, table number and weight offset a constant, so LLVM keeps it all in registers, and
    ``pattern_value_pext``, the same sum with one ``pext`` per instance and side instead."""
    out = [
        '"""Generated by ``othellolab.players.search._pattern_tables.kernel_source()``; do not edit.',
        "",
        "The unrolled pattern evaluation: one line per chunk of every pattern instance. A test",
        "regenerates it and compares, so a change of the pattern set cannot leave it stale.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import numpy as np",
        "",
        "from othellolab.core.jit import hot_kernel, pext",
        "from othellolab.core.kernels import U64, popcount",
        "from othellolab.players.search._pattern_tables import MAGIC as M",
        "from othellolab.players.search._pattern_tables import PEXT_TABLE as X",
        "from othellolab.players.search._pattern_tables import TABLES as T",
        "from othellolab.players.search._pattern_tables import phase_of, transpose",
        "",
        "",
        "@hot_kernel()",
        "def pattern_value(p: int, o: int, weights: np.ndarray) -> float:",
        '    """The pattern evaluation of ``(p, o)`` in discs for the side to move, in [-64, 64].',
        "",
        "    ``weights`` is a float64 ``(phases, N_FEATURES)`` array (``PatternWeights.table``).",
        '    """',
        "    w = weights[phase_of(64 - popcount(U64(p) | U64(o)), weights.shape[0])]",
        "    return clamp64(pattern_sum(p, o, w))",
        "",
        "",
        "@hot_kernel()",
        "def pattern_value_pext(p: int, o: int, weights: np.ndarray) -> float:",
        '    """``pattern_value`` with BMI2\'s ``pext`` gathering each instance\'s squares (only where',
        '    ``core.jit.FAST_PEXT``); the same value, about a quarter faster."""',
        "    w = weights[phase_of(64 - popcount(U64(p) | U64(o)), weights.shape[0])]",
        "    return clamp64(pattern_sum_pext(p, o, w))",
        "",
        "",
        '@hot_kernel(inline="always")',
        "def clamp64(v: float) -> float:",
        '    """``v`` within the disc scale [-64, 64]."""',
        "    if v > 64.0:",
        "        return 64.0",
        "    if v < -64.0:",
        "        return -64.0",
        "    return v",
        "",
        "",
        '@hot_kernel(inline="always")',
        "def pattern_sum(p: int, o: int, w: np.ndarray) -> float:",
        '    """The sum of the pattern weights of ``(p, o)`` in the weight row ``w`` (its first',
        '    ``N_FEATURES`` columns), unclamped."""',
        "    p = U64(p)",
        "    o = U64(o)",
        "    tp = transpose(p)",
        "    to = transpose(o)",
        "    v = 0.0",
    ]
    terms: list[str] = []
    for c in range(_N_CHUNKS):
        m = int(_CH_MASK[c])
        a, b = ("p", "o") if _CH_SRC[c] == 0 else ("tp", "to")
        rows = {q // 8 for q in range(64) if m >> q & 1}
        t = int(_CH_TABLE_ID[c])
        if len(rows) == 1:
            shift = 8 * rows.pop()
            terms.append(f"T[{t}, ({a} >> U64({shift})) & U64(255)]")
            terms.append(f"2 * T[{t}, ({b} >> U64({shift})) & U64(255)]")
        else:
            terms.append(f"T[{t}, (({a} & U64({m:#x})) * M) >> U64(56)]")
            terms.append(f"2 * T[{t}, (({b} & U64({m:#x})) * M) >> U64(56)]")
        if _CH_LAST[c]:
            out.append(f"    v += w[{int(_CH_OFFSET[c])} + " + " + ".join(terms) + "]")
            terms = []
    out += [
        "    return v",
        "",
        "",
        '@hot_kernel(inline="always")',
        "def pattern_sum_pext(p: int, o: int, w: np.ndarray) -> float:",
        '    """``pattern_sum`` with one ``pext`` per instance and side."""',
        "    p = U64(p)",
        "    o = U64(o)",
        "    v = 0.0",
    ]
    for inst in range(N_INSTANCES):
        m = f"U64({int(PEXT_MASK[inst]):#x})"
        t = int(PEXT_START[inst])
        out.append(
            f"    v += w[{int(INSTANCE_OFFSET[inst])} + np.int64(X[{t} + pext(p, {m})])"
            f" + 2 * np.int64(X[{t} + pext(o, {m})])]"
        )
    out += ["    return v", ""]
    return "\n".join(out)
