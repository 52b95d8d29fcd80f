"""Evaluations behind one signature: the search kernels call ``evaluate(kind, weights, p, o, n)``
and an ``Evaluation`` carries the ``kind`` (the hand-written heuristic, the plain disc count,
or the learned 8x8 patterns) with its weights, so that every search takes any of them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from othellolab.core import Board, ConfigError
from othellolab.core.jit import FAST_PEXT, hot_kernel
from othellolab.core.kernels import U64, popcount
from othellolab.players.search.heuristic import DEFAULT_WEIGHTS, heuristic
from othellolab.players.search.patterns import (
    DEFAULT_PATTERNS,
    load_pattern_weights,
    pattern_value,
    pattern_value_pext,
    shipped_table,
)
from othellolab.players.search.patterns import N_FEATURES as _PATTERN_FEATURES

_pattern_value = pattern_value_pext if FAST_PEXT else pattern_value
"""The pattern evaluation the kernels call: with ``pext`` where the CPU runs it fast, the
portable one elsewhere; Numba binds one of the two."""

EVAL_HEURISTIC = 0
"""``evaluate`` kind: the hand-written evaluation (``heuristic``)."""

EVAL_DISCS = 1
"""``evaluate`` kind: the disc difference (no weights)."""

EVAL_PATTERNS = 2
"""``evaluate`` kind: the learned pattern evaluation of ``players.patterns`` (8x8 only)."""


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


def pattern_evaluation(name: str | Path | None = None) -> Evaluation:
    """An ``Evaluation`` (kind ``EVAL_PATTERNS``) for the search kernels, from shipped weights
    (``None`` = the default set) or a weights directory."""
    source = str(name) if name is not None else DEFAULT_PATTERNS
    if Path(source).is_dir():
        table = load_pattern_weights(source).table
    else:
        table = shipped_table(source).copy()
    return Evaluation(kind=EVAL_PATTERNS, weights=table)


def named_evaluation(name: str) -> Evaluation:
    """The evaluation called ``name`` (one of ``EVALUATION_NAMES``), with its shipped weights."""
    if name == "heuristic":
        return Evaluation()
    if name == "patterns":
        return pattern_evaluation()
    if name == "discs":
        return Evaluation(kind=EVAL_DISCS)
    raise ValueError(f"evaluation must be one of {', '.join(EVALUATION_NAMES)}, got {name!r}")


@functools.cache
def default_evaluation(size: int) -> Evaluation:
    """The evaluation that orders moves when the caller names none: the learned patterns on
    8x8 (about half the nodes of the hand-written one), the hand-written one on the small
    boards, which have no pattern weights. Built once per size: the pattern table is 16 MB,
    too much to copy for every solve of a game."""
    return pattern_evaluation() if size == 8 else Evaluation()
