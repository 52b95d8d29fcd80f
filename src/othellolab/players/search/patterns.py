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

import numpy as np

from othellolab.core.parsing import clip
from othellolab.nn.files import (
    CHECKSUM_KEY,
    ModelFileError,
    expected_checksum,
    read_config,
    verify_weights,
)
from othellolab.players.search._pattern_kernel import pattern_value, pattern_value_pext
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
)

__all__ = [
    "CLASSES",
    "CLASS_OFFSETS",
    "CLASS_SIZES",
    "DEFAULT_PATTERNS",
    "INSTANCES",
    "MAX_PHASES",
    "N_FEATURES",
    "N_INSTANCES",
    "N_PHASES",
    "PHASE_WIDTH",
    "WEIGHTS_FILE",
    "PatternClass",
    "PatternWeights",
    "available_pattern_sets",
    "canonical_index",
    "compact_to_full",
    "full_to_compact",
    "kernel_source",
    "load_pattern_weights",
    "pattern_indices",
    "pattern_indices_batch",
    "pattern_value",
    "pattern_value_pext",
    "phase_of",
    "save_pattern_weights",
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


def _checked_compact(compact: np.ndarray) -> np.ndarray:
    """``compact`` as float64, after checking it has one column per tied configuration."""
    n = full_to_compact()[1]
    compact = np.asarray(compact, dtype=np.float64)
    if compact.ndim != 2 or compact.shape[1] != n:
        raise ValueError(
            f"compact pattern weights must have shape (phases, {n}), got {compact.shape}"
        )
    return compact


def compact_to_full(compact: np.ndarray) -> np.ndarray:
    """Expand compact weights ``(phases, compact columns)`` to a float64 table for the kernel."""
    return np.ascontiguousarray(_checked_compact(compact)[:, full_to_compact()[0]])


# ----------------------------------------------------------------------------------------------
# Files: weights.safetensors (int16 compact weights + a float scale) and config.json.


@dataclass(frozen=True, eq=False)
class PatternWeights:
    """Trained pattern weights: the compact float table and the config that describes it."""

    compact: np.ndarray
    config: dict[str, Any]

    @property
    def table(self) -> np.ndarray:
        """The ``(phases, N_FEATURES)`` float64 table that ``pattern_value`` takes."""
        return compact_to_full(self.compact)


def _pattern_config() -> dict[str, Any]:
    return {
        "board_size": 8,
        "phase_width": PHASE_WIDTH,
        "classes": [{"name": c.name, "squares": [int(s) for s in c.squares]} for c in CLASSES],
        "instances": N_INSTANCES,
        "features": N_FEATURES,
        "compact_features": full_to_compact()[1],
    }


def save_pattern_weights(
    directory: str | Path, compact: np.ndarray, info: dict[str, Any] | None = None
) -> Path:
    """Write ``weights.safetensors`` (int16 with a scale) and ``config.json`` atomically."""
    from safetensors.numpy import save

    from othellolab.core.files import write_bytes, write_json

    compact = _checked_compact(compact)
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    peak = float(np.abs(compact).max()) or 1.0
    scale = peak / 32767.0
    q = np.clip(np.rint(compact / scale), -32767, 32767).astype(np.int16)
    data = save({"weights": q, "scale": np.array([scale], dtype=np.float64)})
    config = {
        **_pattern_config(),
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
    """Names of the shipped pattern weights (directories holding a ``config.json``)."""
    if not _DATA.is_dir():
        return []
    return sorted(p.name for p in _DATA.iterdir() if (p / "config.json").is_file())


def load_pattern_weights(source: str | Path | None = None) -> PatternWeights:
    """Weights from a directory, or the shipped set of that name (default ``DEFAULT_PATTERNS``).

    The files are checked as a network's are (``nn.files``): the config's size, depth and
    pattern set, the weights' SHA-256 (a directory without one loads with a warning), their
    shape and finiteness; a problem is a ``ModelFileError`` naming the file."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

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
    config_path = d / "config.json"
    config = read_config(config_path)
    expected = _pattern_config()
    for key in ("board_size", "phase_width", "classes"):
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
    n = expected["compact_features"]
    if q is None or q.ndim != 2 or q.shape[1] != n or not 1 <= q.shape[0] <= MAX_PHASES:
        shape = None if q is None else q.shape
        raise ModelFileError(
            f"tensor 'weights' has shape {shape}, expected (phases, {n}) with 1..{MAX_PHASES} "
            "phases",
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
def shipped_table(name: str) -> np.ndarray:
    return load_pattern_weights(name).table
