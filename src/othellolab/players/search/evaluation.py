"""Evaluations behind one signature: the search kernels call ``evaluate(kind, weights, p, o, n)``
and an ``Evaluation`` carries the ``kind`` (the hand-written heuristic, the plain disc count,
or the learned 8x8 patterns) with its weights, so that every search takes any of them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from othellolab.core import Board, ConfigError
from othellolab.core.jit import FAST_PEXT, hot_kernel
from othellolab.core.kernels import U64, popcount
from othellolab.players.search.heuristic import DEFAULT_WEIGHTS, heuristic
from othellolab.players.search.patterns import (
    DEFAULT_PATTERNS,
    HEADER_TERMS,
    HEADER_WIDTH,
    TERMS,
    available_pattern_sets,
    load_pattern_weights,
    pattern_terms_value,
    pattern_terms_value_pext,
    pattern_value,
    pattern_value_pext,
    pattern_weights_dir,
    shipped_weights,
    term_table_width,
)
from othellolab.players.search.patterns import N_FEATURES as _PATTERN_FEATURES
from othellolab.players.search.simd import TABLE_SPARE

_pattern_value = pattern_value_pext if FAST_PEXT else pattern_value
"""The pattern evaluation the kernels call: with ``pext`` where the CPU runs it fast, the
portable one elsewhere; Numba binds one of the two."""

_pattern_terms_value = pattern_terms_value_pext if FAST_PEXT else pattern_terms_value

EVAL_HEURISTIC = 0
"""``evaluate`` kind: the hand-written evaluation (``heuristic``)."""

EVAL_DISCS = 1
"""``evaluate`` kind: the disc difference (no weights)."""

EVAL_PATTERNS = 2
"""``evaluate`` kind: the learned pattern evaluation of ``players.patterns`` (8x8 only)."""

EVAL_PATTERN_TERMS = 3
"""``evaluate`` kind: the pattern evaluation with a phase width and extra terms declared in its
table's header (``patterns.pattern_terms_value``; 8x8 only)."""

_PATTERN_KINDS = (EVAL_PATTERNS, EVAL_PATTERN_TERMS)


@hot_kernel()
def evaluate(kind: int, weights: np.ndarray, p: int, o: int, n: int) -> float:
    """Evaluation ``kind`` with parameters ``weights`` of ``(p, o)``, disc scale, side to move."""
    if kind == EVAL_HEURISTIC:
        return heuristic(p, o, n, weights)
    if kind == EVAL_PATTERNS and n == 8:
        return _pattern_value(p, o, weights)
    if kind == EVAL_PATTERN_TERMS and n == 8:
        return _pattern_terms_value(p, o, weights)
    # EVAL_DISCS, and the fallback for patterns off 8x8 (``Evaluation.check_size`` refuses
    # that case in Python; a raise here would slow the pattern branch down by half).
    return float(popcount(U64(p)) - popcount(U64(o)))


NO_UNITS = np.zeros((0, 0), dtype=np.int16)
"""``Evaluation.units``'s table where the pattern weights are not whole units."""


def pattern_units(weights: np.ndarray) -> tuple[np.ndarray, float]:
    """The pattern columns of a pattern table (its first ``N_FEATURES``) as int16 multiples of
    one power of two, and that power (``unit``), where every weight is exactly one (as
    ``save_pattern_weights`` writes them); else ``NO_UNITS`` and 0. Each row ends with
    ``simd.TABLE_SPARE`` zeros, which the search's gathers may read. A float64 sum of such
    weights is exact in any order, so the int32 sum of the units times ``unit`` is that sum
    to the last bit: the search adds integers instead (one cycle a step, not a float add's
    four, from a table half the size)."""
    w = weights[:, :_PATTERN_FEATURES]
    peak = float(np.abs(w).max(initial=0.0))
    if not (np.isfinite(peak) and peak > 0.0):
        return NO_UNITS, 0.0
    unit = 2.0 ** math.ceil(math.log2(peak / 32767.0))
    q = w / unit
    whole = np.rint(q)
    if not np.array_equal(q, whole) or np.abs(whole).max() > 32767:
        return NO_UNITS, 0.0
    units = np.zeros((whole.shape[0], whole.shape[1] + TABLE_SPARE), dtype=np.int16)
    units[:, : whole.shape[1]] = whole  # the spare columns: a gather's read past the last
    return units, unit


@dataclass(frozen=True)
class Evaluation:
    """An evaluation for the search kernels: a dispatch ``kind`` and its parameter array
    (read-only once a search has used it: ``units`` is made from it once)."""

    kind: int = EVAL_HEURISTIC
    weights: np.ndarray = field(default_factory=lambda: DEFAULT_WEIGHTS.copy())

    def __post_init__(self) -> None:
        if self.kind not in (EVAL_HEURISTIC, EVAL_DISCS, *_PATTERN_KINDS):
            raise ValueError(f"unknown evaluation kind {self.kind}")
        w = self.weights
        if not (isinstance(w, np.ndarray) and w.ndim == 2 and w.dtype == np.float64):
            raise ValueError("evaluation weights must be a 2-D float64 array")
        if self.kind == EVAL_PATTERNS and w.shape[1] != _PATTERN_FEATURES:
            raise ValueError(
                f"pattern weights must have {_PATTERN_FEATURES} columns, got shape {w.shape}"
            )
        if self.kind == EVAL_PATTERN_TERMS:
            _check_terms_header(w)

    @property
    def name(self) -> str:
        """The name of this evaluation's kind: ``heuristic``, ``discs`` or ``patterns``."""
        if self.kind in _PATTERN_KINDS:
            return "patterns"
        return {EVAL_HEURISTIC: "heuristic", EVAL_DISCS: "discs"}[self.kind]

    @functools.cached_property
    def units(self) -> tuple[np.ndarray, float]:
        """``pattern_units`` of a pattern evaluation's table (``NO_UNITS`` and 0 for the other
        kinds), which the midgame search sums in integers."""
        if self.kind not in _PATTERN_KINDS:
            return NO_UNITS, 0.0
        return pattern_units(self.weights)

    def check_size(self, size: int) -> None:
        """Raise ``ValueError`` when this evaluation cannot judge ``size`` x ``size`` boards."""
        if self.kind in _PATTERN_KINDS and size != 8:
            raise ConfigError(f"the pattern evaluation is 8x8 only, not {size}x{size}")

    def __call__(self, board: Board) -> float:
        """The evaluation of ``board`` from the side to move, in discs."""
        self.check_size(board.size)
        return float(
            evaluate(self.kind, self.weights, U64(board.player), U64(board.opponent), board.size)
        )


def _check_terms_header(w: np.ndarray) -> None:
    """The header of a table with terms: its width and shape, and the same phase width (1..60)
    and term mask in every row."""
    if w.shape[1] <= HEADER_TERMS or w.shape[0] < 1:
        raise ValueError(
            f"pattern weights with terms must have a header (column {HEADER_TERMS}), got "
            f"shape {w.shape}"
        )
    width, mask = w[:, HEADER_WIDTH], w[:, HEADER_TERMS]
    if not (
        (width == width[0]).all()
        and (mask == mask[0]).all()
        and width[0] in range(1, 61)
        and mask[0] in range(1 << len(TERMS))
    ):
        raise ValueError(
            "pattern weights with terms need one phase width in 1..60 and one term mask in "
            f"0..{(1 << len(TERMS)) - 1} in every row"
        )
    if w.shape[1] != term_table_width(int(mask[0])):
        raise ValueError(
            f"pattern weights with term mask {int(mask[0])} must have "
            f"{term_table_width(int(mask[0]))} columns, got shape {w.shape}"
        )


EVALUATION_NAMES = ("heuristic", "patterns", "discs")
"""Evaluations that players and the CLI name (``patterns`` is 8x8 only)."""


def pattern_evaluation(name: str | Path | None = None) -> Evaluation:
    """An ``Evaluation`` for the search kernels (kind ``EVAL_PATTERNS``, or
    ``EVAL_PATTERN_TERMS`` for weights with a phase width of their own or extra terms), from
    shipped weights (``None`` = the default set) or a weights directory."""
    source = str(name) if name is not None else DEFAULT_PATTERNS
    if Path(source).is_dir():
        weights = load_pattern_weights(source)
        plain, table = weights.plain, weights.table
    else:
        plain, table = shipped_weights(source)
        table = table.copy()
    return Evaluation(kind=EVAL_PATTERNS if plain else EVAL_PATTERN_TERMS, weights=table)


@functools.cache
def shared_pattern_evaluation(name: str) -> Evaluation:
    """``pattern_evaluation(name)`` of a shipped set, built once per process and shared (a
    60-phase table is 80 MB): callers must never write its weights."""
    plain, table = shipped_weights(name)
    return Evaluation(kind=EVAL_PATTERNS if plain else EVAL_PATTERN_TERMS, weights=table)


def weights_evaluation(source: str) -> Evaluation:
    """The pattern evaluation of ``source``, a shipped set's name (shared, see
    ``shared_pattern_evaluation``) or a weights directory (loaded, checked); an unknown name
    is a ``ConfigError`` listing the shipped sets, a bad file a ``ModelFileError`` naming it."""
    try:
        d = pattern_weights_dir(source)
    except FileNotFoundError:
        raise ConfigError(
            f"no pattern weights named {source!r} (neither a shipped set nor a directory "
            f"holding a config.json); shipped: {', '.join(available_pattern_sets()) or 'none'}",
            allowed=", ".join(available_pattern_sets()),
        ) from None
    if source in available_pattern_sets() and not Path(source).is_dir():
        return shared_pattern_evaluation(source)
    weights = load_pattern_weights(d)
    return Evaluation(
        kind=EVAL_PATTERNS if weights.plain else EVAL_PATTERN_TERMS, weights=weights.table
    )


def named_evaluation(name: str) -> Evaluation:
    """The evaluation called ``name`` (one of ``EVALUATION_NAMES``), with its shipped weights."""
    if name == "heuristic":
        return Evaluation()
    if name == "patterns":
        return pattern_evaluation()
    if name == "discs":
        return Evaluation(kind=EVAL_DISCS)
    raise ValueError(f"evaluation must be one of {', '.join(EVALUATION_NAMES)}, got {name!r}")


def check_evaluation_source(source: str) -> str:
    """``source`` if it is one of ``EVALUATION_NAMES`` or names pattern weights (a shipped set or
    a directory holding a ``config.json``), without loading them; else (empty included) a
    ``ConfigError`` listing both kinds."""
    if source in EVALUATION_NAMES:
        return source
    shipped = available_pattern_sets()
    try:
        if not str(source).strip():
            raise FileNotFoundError(source)
        pattern_weights_dir(source)
    except FileNotFoundError:
        raise ConfigError(
            f"expected {', '.join(EVALUATION_NAMES)} or pattern weights (a shipped set: "
            f"{', '.join(shipped) or 'none'}; or a directory holding a config.json), got "
            f"{str(source)[:80]!r}",
            allowed=", ".join((*EVALUATION_NAMES, *shipped)),
        ) from None
    return source


def evaluation_or_weights(source: str) -> Evaluation:
    """The evaluation a setting names: ``named_evaluation`` for one of ``EVALUATION_NAMES``, else
    ``weights_evaluation`` of pattern weights (checked by ``check_evaluation_source``)."""
    if check_evaluation_source(source) in EVALUATION_NAMES:
        return named_evaluation(source)
    return weights_evaluation(source)


@functools.cache
def default_evaluation(size: int) -> Evaluation:
    """The evaluation that orders moves when the caller names none: the learned patterns on
    8x8 (about half the nodes of the hand-written one), the hand-written one on the small
    boards, which have no pattern weights. Built once per size: the pattern table is 16 MB,
    too much to copy for every solve of a game."""
    return shared_pattern_evaluation(DEFAULT_PATTERNS) if size == 8 else Evaluation()
