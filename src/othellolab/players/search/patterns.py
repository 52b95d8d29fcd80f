"""A learned pattern evaluation for 8x8 (the linear model of Logistello and Edax), in Numba.

The value of a position is a sum of weights, one per pattern instance, looked up by the
instance's configuration: its squares read as base-3 digits (0 empty, 1 side to move,
2 opponent), square ``j`` of the instance's list giving digit ``3**j``. The instances of one
pattern class are the images of one base instance under the 8 board symmetries, squares in
the transported order, so they share one weight table; configurations that a symmetry of the
instance itself maps onto each other share one weight, which makes the evaluation exactly
invariant under the board symmetries. One weight row per phase of empty squares.

Indices are computed from bitboards without a loop over squares: every instance is split into
a few chunks whose squares lie in distinct columns (of the board or of its transpose), a shift
(a chunk within one row) or a multiply (a diagonal) gathers a chunk's bits into one byte, and a
256-entry table turns that byte into the chunk's part of the base-3 index. ``pattern_value``
is generated code (``_pattern_kernel``), one line per instance with every constant inline.

The weight table of the kernel is float64 ``(phases, N_FEATURES)``, the Numba type of
``search.heuristic.DEFAULT_WEIGHTS``, so it goes through the same ``evaluate`` dispatch
(``EVAL_PATTERNS``). Files store the tied (compact) weights as int16 with a scale.

A weights file may also declare a ``phase_width`` other than 5 (1 or 2: 60 or 30 phases) and
extra ``terms`` beyond the patterns (``TERMS``: each side's mobility, each side's potential
mobility, the parity of the empties per quadrant, each side's frontier discs and the side to
move's disc count), each a small table per phase indexed by a count. Such a file's table has
``N_TERM_FEATURES`` columns: the patterns', then a block that starts with two header columns
(the phase width and a bit mask of the declared terms, the same in every row), then every
term's table; ``pattern_terms_value`` evaluates it (``evaluate``'s
``EVAL_PATTERN_TERMS``), skipping the terms the mask leaves out. A file with neither (the
shipped ``patterns-wthor``) keeps the plain table and ``pattern_value``, bit for bit.

>>> table = load_pattern_weights().table
>>> table.shape == (N_PHASES, N_FEATURES)
True
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numba
import numpy as np

from othellolab.core.jit import hot_kernel
from othellolab.core.kernels import U64, popcount
from othellolab.core.parsing import clip
from othellolab.nn.files import (
    CHECKSUM_KEY,
    ModelFileError,
    expected_checksum,
    read_config,
    verify_weights,
)
from othellolab.players.search._pattern_kernel import (
    clamp64,
    pattern_sum,
    pattern_sum_pext,
    pattern_value,
    pattern_value_pext,
)
from othellolab.players.search._pattern_tables import (
    _CLASS_PERMS,
    CLASS_OFFSETS,
    CLASS_SIZES,
    CLASSES,
    INSTANCES,
    N_FEATURES,
    N_INSTANCES,
    PHASE_WIDTH,
    PatternClass,
    kernel_source,
    pattern_indices,
    pattern_indices_batch,
    phase_of,
    phase_row,
)
from othellolab.players.search.geometry import gen_moves

__all__ = [
    "CLASSES",
    "CLASS_OFFSETS",
    "CLASS_SIZES",
    "DEFAULT_PATTERNS",
    "DISC_ENTRIES",
    "FRONTIER_ENTRIES",
    "HEADER_TERMS",
    "HEADER_WIDTH",
    "INSTANCES",
    "MAX_PHASES",
    "MOBILITY_ENTRIES",
    "N_FEATURES",
    "N_INSTANCES",
    "N_PHASES",
    "N_TERM_FEATURES",
    "PARITY_ENTRIES",
    "PHASE_WIDTH",
    "POTENTIAL_ENTRIES",
    "TERMS",
    "WEIGHTS_FILE",
    "PatternClass",
    "PatternWeights",
    "available_pattern_sets",
    "canonical_index",
    "check_phase_width",
    "check_terms",
    "compact_to_full",
    "full_to_compact",
    "kernel_source",
    "load_pattern_weights",
    "pattern_indices",
    "pattern_indices_batch",
    "pattern_terms_value",
    "pattern_terms_value_pext",
    "pattern_value",
    "pattern_value_pext",
    "pattern_weights_dir",
    "phase_of",
    "phase_row",
    "save_pattern_weights",
    "shipped_weights",
    "term_columns",
    "term_indices_batch",
]

DEFAULT_PATTERNS = "patterns-wthor"
"""The shipped weights loaded when no name is given (``evaluation.pattern_evaluation()``)."""

N_PHASES = 12
"""Phases of the shipped weights (1-5, 6-10, ..., 56-60 empties)."""

MAX_PHASES = 64
"""Most weight rows (phases) a weights file may hold."""

WEIGHTS_FILE = "weights.safetensors"
"""The weights file of a pattern-weights directory (beside its ``config.json``)."""

_DATA = Path(__file__).resolve().parent / "data"


# ----------------------------------------------------------------------------------------------
# Weight tying: configurations that a symmetry of an instance maps onto each other share a
# weight. Stored weights hold one column per class of tied configurations (compact form).


def canonical_index(class_number: int, index: np.ndarray) -> np.ndarray:
    """The smallest configuration tied to each ``index`` (within the class, no offset)."""
    k = len(CLASSES[class_number].squares)
    index = np.asarray(index, dtype=np.int64)
    digits = (index[..., None] // 3 ** np.arange(k)) % 3
    best = index.copy()
    for perm in _CLASS_PERMS[class_number]:
        best = np.minimum(best, (digits * 3 ** np.asarray(perm)).sum(-1))
    return best


@cache
def full_to_compact() -> tuple[np.ndarray, int]:
    """For every weight-row column, its compact column; and the number of compact columns."""
    out = np.empty(N_FEATURES, dtype=np.int32)
    start = 0
    for c in range(len(CLASSES)):
        canon = canonical_index(c, np.arange(CLASS_SIZES[c]))
        _, rank = np.unique(canon, return_inverse=True)
        out[CLASS_OFFSETS[c] : CLASS_OFFSETS[c] + CLASS_SIZES[c]] = start + rank
        start += int(rank.max()) + 1
    return out, start


# ----------------------------------------------------------------------------------------------
# Extra terms: tables per phase indexed by a count, after the pattern columns of a weight row.

TERMS = ("mobility", "potential_mobility", "parity", "frontier", "discs")
"""The terms a weights file may declare beyond the patterns, in their column order."""

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
"""Columns of a weight row with terms: the patterns', two header columns, every term's table."""

_FULL_START = {
    "mobility": _MOB,
    "potential_mobility": _POT,
    "parity": _PAR,
    "frontier": _FRO,
    "discs": _DSC,
}
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
    moves given (``moves``, or 0 to generate them: the search has them at its leaves). One
    implementation for the bitboard and the kept-index evaluations, so both sum in one order."""
    mask = int(w[HEADER_TERMS])
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
    out = np.zeros((len(p), sum(_TERM_INSTANCES[t] for t in terms)), dtype=np.int32)
    if terms:
        _term_indices(p, o, _term_mask(terms), out)
    return out


# ----------------------------------------------------------------------------------------------
# Compact (stored) weights and the kernel's table.


def _checked_compact(compact: np.ndarray, terms: tuple[str, ...] = ()) -> np.ndarray:
    """``compact`` as float64, after checking it has one column per tied configuration (and
    per entry of the declared ``terms``' tables)."""
    n = full_to_compact()[1] + term_columns(terms)
    compact = np.asarray(compact, dtype=np.float64)
    if compact.ndim != 2 or compact.shape[1] != n:
        raise ValueError(
            f"compact pattern weights must have shape (phases, {n}), got {compact.shape}"
        )
    return compact


def compact_to_full(
    compact: np.ndarray, *, terms: tuple[str, ...] | None = None, phase_width: int | None = None
) -> np.ndarray:
    """Expand compact weights ``(phases, compact columns)`` to a float64 table for the kernel:
    ``(phases, N_FEATURES)`` when neither ``terms`` nor ``phase_width`` is given (or they are
    the plain layout's), else ``(phases, N_TERM_FEATURES)`` with the header."""
    terms = check_terms(terms or ())
    width = check_phase_width(PHASE_WIDTH if phase_width is None else phase_width)
    compact = _checked_compact(compact, terms)
    index, n = full_to_compact()
    if not terms and width == PHASE_WIDTH:
        return np.ascontiguousarray(compact[:, index])
    table = np.zeros((compact.shape[0], N_TERM_FEATURES))
    table[:, :N_FEATURES] = compact[:, index]
    table[:, HEADER_WIDTH] = width
    table[:, HEADER_TERMS] = _term_mask(terms)
    start = n
    for t in terms:
        size = _TERM_SIZES[t]
        table[:, _FULL_START[t] : _FULL_START[t] + size] = compact[:, start : start + size]
        start += size
    return table


# ----------------------------------------------------------------------------------------------
# Files: weights.safetensors (int16 compact weights + a float scale) and config.json.


@dataclass(frozen=True, eq=False)
class PatternWeights:
    """Trained pattern weights: the compact float table and the config that describes it."""

    compact: np.ndarray
    config: dict[str, Any]

    @property
    def terms(self) -> tuple[str, ...]:
        """The extra terms the file declares (none for a plain pattern file)."""
        return tuple(self.config.get("terms", ()))

    @property
    def phase_width(self) -> int:
        """Empty squares per phase."""
        return int(self.config.get("phase_width", PHASE_WIDTH))

    @property
    def plain(self) -> bool:
        """True for the plain layout (5 empties a phase, no terms): ``pattern_value``'s table."""
        return not self.terms and self.phase_width == PHASE_WIDTH

    @property
    def table(self) -> np.ndarray:
        """The float64 table the kernel takes: ``(phases, N_FEATURES)`` for the plain layout
        (``pattern_value``), ``(phases, N_TERM_FEATURES)`` else (``pattern_terms_value``)."""
        return compact_to_full(self.compact, terms=self.terms, phase_width=self.phase_width)


def _pattern_config(phase_width: int = PHASE_WIDTH) -> dict[str, Any]:
    return {
        "board_size": 8,
        "phase_width": phase_width,
        "classes": [{"name": c.name, "squares": [int(s) for s in c.squares]} for c in CLASSES],
        "instances": N_INSTANCES,
        "features": N_FEATURES,
        "compact_features": full_to_compact()[1],
    }


def save_pattern_weights(
    directory: str | Path,
    compact: np.ndarray,
    info: dict[str, Any] | None = None,
    *,
    phase_width: int = PHASE_WIDTH,
    terms: tuple[str, ...] = (),
) -> Path:
    """Write ``weights.safetensors`` (int16 with a scale) and ``config.json`` atomically; a
    ``phase_width`` other than 5 or any ``terms`` are declared in the config."""
    from safetensors.numpy import save

    from othellolab.core.files import write_bytes, write_json

    terms = check_terms(terms)
    phase_width = check_phase_width(phase_width)
    compact = _checked_compact(compact, terms)
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    peak = float(np.abs(compact).max()) or 1.0
    scale = peak / 32767.0
    q = np.clip(np.rint(compact / scale), -32767, 32767).astype(np.int16)
    data = save({"weights": q, "scale": np.array([scale], dtype=np.float64)})
    layout = {"terms": list(terms), "term_columns": term_columns(terms)} if terms else {}
    config = {
        **_pattern_config(phase_width),
        **layout,
        "phases": int(compact.shape[0]),
        "dtype": "int16",
        "scale": scale,
        "created": datetime.date.today().isoformat(),
        **(info or {}),
        CHECKSUM_KEY: hashlib.sha256(data).hexdigest(),
    }
    write_bytes(d / WEIGHTS_FILE, data)
    write_json(d / "config.json", config)
    return d


def available_pattern_sets() -> list[str]:
    """Names of the shipped pattern weights (directories holding a ``config.json`` and the
    weights file; the opening book beside them is not one)."""
    if not _DATA.is_dir():
        return []
    return sorted(
        p.name
        for p in _DATA.iterdir()
        if (p / "config.json").is_file() and (p / WEIGHTS_FILE).is_file()
    )


def pattern_weights_dir(source: str | Path | None = None) -> Path:
    """The directory of ``source``: a directory holding a ``config.json``, or the shipped set of
    that name (default ``DEFAULT_PATTERNS``); ``FileNotFoundError`` listing the shipped ones."""
    if source is None or str(source) == "":
        source = DEFAULT_PATTERNS
    d = Path(source)
    if not (d / "config.json").is_file() and str(source) in available_pattern_sets():
        d = _DATA / str(source)
    if not (d / "config.json").is_file():
        raise FileNotFoundError(
            f"{d}: no pattern weights (config.json); shipped: "
            f"{', '.join(available_pattern_sets()) or 'none'}"
        )
    return d


def load_pattern_weights(source: str | Path | None = None) -> PatternWeights:
    """Weights from a directory, or the shipped set of that name (default ``DEFAULT_PATTERNS``).

    The files are checked as a network's are (``nn.files``): the config's size, depth and
    pattern set, its phase width and terms, the weights' SHA-256 (a directory without one loads
    with a warning), their shape and finiteness; a problem is a ``ModelFileError`` naming the
    file."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    d = pattern_weights_dir(source)
    config_path = d / "config.json"
    config = read_config(config_path)
    try:
        width = check_phase_width(config.get("phase_width"))
        terms = check_terms(config.get("terms", []))
    except ValueError as e:
        raise ModelFileError(str(e), where=str(config_path)) from None
    expected = _pattern_config(width)
    for key in ("board_size", "classes"):
        if config.get(key) != expected[key]:
            raise ModelFileError(
                f"{key} {clip(config.get(key))} differs from this version's pattern set "
                f"{clip(expected[key])}",
                where=str(config_path),
                key=key,
            )
    path = d / WEIGHTS_FILE
    verify_weights(path, expected_checksum(config, config_path), config_path=config_path)
    try:
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        raise ModelFileError(
            f"corrupted or not a safetensors file ({e})", where=str(path)
        ) from None
    q = tensors.get("weights")
    scale_array = tensors.get("scale", np.ones(1))
    n = expected["compact_features"] + term_columns(terms)
    if q is None or q.ndim != 2 or q.shape[1] != n or not 1 <= q.shape[0] <= MAX_PHASES:
        shape = None if q is None else q.shape
        raise ModelFileError(
            f"tensor 'weights' has shape {shape}, expected (phases, {n}) with 1..{MAX_PHASES} "
            f"phases{' for the terms ' + ', '.join(terms) if terms else ''}",
            where=str(path),
        )
    scale = float(scale_array.reshape(-1)[0]) if scale_array.size == 1 else float("nan")
    compact = q.astype(np.float64) * scale
    if not (np.isfinite(scale) and scale > 0 and np.isfinite(compact).all()):
        raise ModelFileError(
            "tensor 'scale' must be one positive number and the weights finite", where=str(path)
        )
    return PatternWeights(compact=compact, config=config)


@cache
def shipped_weights(name: str) -> tuple[bool, np.ndarray]:
    """Whether the shipped set ``name`` has the plain layout, and its kernel table (loaded once
    per process: callers that keep it must copy it or never write it)."""
    w = load_pattern_weights(name)
    return w.plain, w.table
