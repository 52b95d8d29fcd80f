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
extra ``terms`` beyond the patterns (``search.pattern_terms``: counts such as each side's
mobility, and more pattern classes such as Egaroucid's triangle). Such a file's table has the
patterns' columns, then a header and every term's table; ``pattern_terms_value`` evaluates it
(``evaluate``'s ``EVAL_PATTERN_TERMS``), skipping the terms the mask leaves out. A file with
neither (the shipped ``patterns-wthor``) keeps the plain table and ``pattern_value``, bit for
bit.

>>> table = load_pattern_weights().table
>>> table.shape == (N_PHASES, N_FEATURES)
True
"""

from __future__ import annotations

import datetime
import hashlib
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core.parsing import clip
from othellolab.nn.files import (
    CHECKSUM_KEY,
    ModelFileError,
    expected_checksum,
    read_config,
    verify_weights,
)
from othellolab.players.search._pattern_kernel import (
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
    canonical_configuration,
    kernel_source,
    pattern_indices,
    pattern_indices_batch,
    phase_of,
    phase_row,
)
from othellolab.players.search.pattern_terms import (
    COUNT_TERMS,
    DISC_ENTRIES,
    FRONTIER_ENTRIES,
    HEADER_TERMS,
    HEADER_WIDTH,
    MOBILITY_ENTRIES,
    N_TERM_FEATURES,
    N_WIDE_TERM_FEATURES,
    PARITY_ENTRIES,
    PATTERN_TERMS,
    POTENTIAL_ENTRIES,
    TERMS,
    _term_mask,
    check_phase_width,
    check_terms,
    expand_terms,
    pattern_terms_value,
    pattern_terms_value_pext,
    term_columns,
    term_indices_batch,
    term_table_width,
)

__all__ = [
    "CLASSES",
    "CLASS_OFFSETS",
    "CLASS_SIZES",
    "COUNT_TERMS",
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
    "N_WIDE_TERM_FEATURES",
    "PARITY_ENTRIES",
    "PATTERN_TERMS",
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
    "term_table_width",
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
    length = len(CLASSES[class_number].squares)
    return canonical_configuration(index, length, _CLASS_PERMS[class_number])


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
    the plain layout's), else ``(phases, term_table_width(...))`` with the header."""
    terms = check_terms(terms or ())
    width = check_phase_width(PHASE_WIDTH if phase_width is None else phase_width)
    compact = _checked_compact(compact, terms)
    index, n = full_to_compact()
    if not terms and width == PHASE_WIDTH:
        return np.ascontiguousarray(compact[:, index])
    table = np.zeros((compact.shape[0], term_table_width(_term_mask(terms))))
    table[:, :N_FEATURES] = compact[:, index]
    table[:, HEADER_WIDTH] = width
    expand_terms(compact[:, n:], terms, table)
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
        (``pattern_value``), ``(phases, term_table_width(...))`` else
        (``pattern_terms_value``)."""
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
    """Write ``weights.safetensors`` (int16 with a power-of-two scale) and ``config.json``
    atomically; a ``phase_width`` other than 5 or any ``terms`` are declared in the config."""
    from safetensors.numpy import save

    from othellolab.core.files import write_bytes, write_json

    terms = check_terms(terms)
    phase_width = check_phase_width(phase_width)
    compact = _checked_compact(compact, terms)
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    peak = float(np.abs(compact).max()) or 1.0
    # A power of two: each weight is then a whole number of units, which the search sums in
    # integers to the float sum's last bit (``evaluation.pattern_units``).
    scale = 2.0 ** math.ceil(math.log2(peak / 32767.0))
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
