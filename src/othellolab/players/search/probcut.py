"""Multi-ProbCut for the midgame search (Buro 1997): a shallow search predicts the deep one.

For a node searched to ``depth`` plies, a search to ``shallow_depth(depth)`` plies gives ``v``;
over many positions the deep value is about ``a*v + b`` with a normal error of deviation
``sigma``, all three fitted per depth and number of empties (``fitting.probcut``). With a
confidence ``t``, the node is cut as failing high when ``v >= (beta + t*sigma - b) / a`` and as
failing low when ``v <= (alpha - t*sigma - b) / a``; each test is one null-window shallow
search. A larger ``t`` cuts less and errs less.

The fitted parameters ship as JSON (``data/probcut.json``) and become one float64 array
``(61, MAX_DEPTH + 1, 4)`` indexed by empties and depth: ``[shallow depth, a, b, sigma]``, a
shallow depth of 0 meaning no cut there. A pattern weights directory may hold its own fit
(``probcut.json``, fitted with those weights: ``weights_probcut``), since a better evaluation
predicts its deep searches more closely and so cuts more at the same confidence.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError

__all__ = [
    "MIN_DEPTH",
    "PROBCUT_FILE",
    "load_probcut",
    "probcut_table",
    "shallow_depth",
    "weights_probcut",
]

PROBCUT_FILE = Path(__file__).resolve().parent / "data" / "probcut.json"
MIN_DEPTH = 3
"""The shallowest node that ProbCut tests: below, the test costs as much as the search."""

TABLE_DEPTH = 61
"""Depths 0..60 (a full game), the midgame search's deepest iteration."""


def shallow_depth(depth: int) -> int:
    """The shallow search's depth for a node of ``depth`` plies (Edax's schedule: about a
    quarter of the depth, doubled, keeping the parity of ``depth``), 0 below ``MIN_DEPTH``."""
    if depth < MIN_DEPTH:
        return 0
    return max(1, 2 * (depth // 4) + (depth & 1))


def probcut_table(fits: list[dict[str, Any]]) -> np.ndarray:
    """The kernel's table from fitted rows ``{"depth", "shallow", "empties": [lo, hi], "a",
    "b", "sigma"}``: a depth beyond the deepest fitted one takes that one's fit (same empties)."""
    table = np.zeros((61, TABLE_DEPTH, 4), dtype=np.float64)
    by_depth: dict[int, list[dict[str, Any]]] = {}
    for row in fits:
        by_depth.setdefault(int(row["depth"]), []).append(row)
    if not by_depth:
        return table
    deepest = max(by_depth)
    for depth in range(MIN_DEPTH, TABLE_DEPTH):
        rows = by_depth.get(min(depth, deepest), [])
        for row in rows:
            lo, hi = int(row["empties"][0]), int(row["empties"][1])
            for e in range(max(0, lo), min(60, hi) + 1):
                shallow = shallow_depth(depth) if depth > deepest else int(row["shallow"])
                table[e, depth] = (shallow, float(row["a"]), float(row["b"]), float(row["sigma"]))
    return table


def _checked_rows(data: Any, where: str) -> list[dict[str, Any]]:
    rows = data.get("fits") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ConfigError(f"{where}: expected an object with a list 'fits'")
    for i, row in enumerate(rows):
        try:
            depth, shallow = int(row["depth"]), int(row["shallow"])
            lo, hi = (int(x) for x in row["empties"])
            a, b, sigma = float(row["a"]), float(row["b"]), float(row["sigma"])
        except (KeyError, TypeError, ValueError):
            raise ConfigError(
                f"{where}: fits[{i}] needs depth, shallow, empties [lo, hi], a, b and sigma"
            ) from None
        if not (MIN_DEPTH <= depth < TABLE_DEPTH and 1 <= shallow < depth and 0 <= lo <= hi <= 60):
            raise ConfigError(f"{where}: fits[{i}] has depths or empties out of range")
        if not (np.isfinite([a, b, sigma]).all() and a > 0 and sigma > 0):
            raise ConfigError(f"{where}: fits[{i}] needs finite a > 0, b and sigma > 0")
    return rows


def load_probcut(path: str | Path | None = None) -> np.ndarray:
    """The kernel's table from a fit file (default: the shipped ``data/probcut.json``); a
    missing shipped file gives an empty table (no cut anywhere)."""
    p = Path(path) if path is not None else PROBCUT_FILE
    if path is None and not p.is_file():
        return np.zeros((61, TABLE_DEPTH, 4), dtype=np.float64)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{p}: no ProbCut fit there") from None
    except (OSError, ValueError) as e:
        raise ConfigError(f"{p}: not a ProbCut fit ({e})") from None
    return probcut_table(_checked_rows(data, str(p)))


@cache
def shipped_probcut() -> np.ndarray:
    """The shipped table, loaded once (shared: do not write to it)."""
    return load_probcut()


@cache
def weights_probcut(weights_dir: str) -> np.ndarray:
    """The fit kept beside a pattern weights directory (``probcut.json``, fitted with those
    weights), else the shipped one; loaded once per directory (shared: do not write to it)."""
    own = Path(weights_dir) / PROBCUT_FILE.name
    return load_probcut(own) if own.is_file() else shipped_probcut()
