"""What the pattern layouts of issue 38 cost per evaluation, old kernel against new, one process.

The kernel of a425a57 (before the layouts with terms) is loaded from git beside today's, and
every variant runs through a compiled loop over the same real positions (WTHOR 2023, 15-35
empties, in game order and shuffled), best of 7 interleaved runs:

- ``old``: a425a57's ``pattern_value`` with patterns-wthor (the baseline, 1.00);
- ``plain (kernel)``: today's ``pattern_value`` with patterns-wthor (must be about 1.00);
- ``plain (evaluate)``: the same through ``evaluate(EVAL_PATTERNS)``, the search's call;
- ``terms: none``: ``EVAL_PATTERN_TERMS``, 12 phases, no term declared (the header's cost);
- ``terms: X``: one term declared, ``terms: first three`` mobility, potential mobility and
  parity (``patterns-r1``'s layout), ``terms: all counts`` all five counts (12 phases),
  ``terms: first three + patterns`` ``patterns-r1``'s layout with the three pattern terms
  (triangle, corner + block, cross: 12 more instances, read with ``pext``);
- ``terms: none, 60 phases``: 60 rows, whose 21 rows for 15-35 empties hold 28 MB of weights
  against 5 rows and 7 MB (the cache's share); ``terms: all counts, 60 phases``: the refit's layout.

``python benchmarks/bench_pattern_terms.py`` (about a minute; needs git and the data folder).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from othellolab.core.jit import FAST_PEXT
from othellolab.datasets.heldout import load_positions
from othellolab.fitting.patterns import Positions
from othellolab.players.search.evaluation import (
    EVAL_PATTERN_TERMS,
    EVAL_PATTERNS,
    evaluate,
)
from othellolab.players.search.patterns import (
    COUNT_TERMS,
    PATTERN_TERMS,
    TERMS,
    compact_to_full,
    load_pattern_weights,
    pattern_value,
    pattern_value_pext,
    term_columns,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
BASE = "a425a57"
RICH = (*TERMS[:3], *(c.name for c in PATTERN_TERMS))


_LOOP = """

import numba as _numba


@_numba.njit
def sum_values(weights, p, o):
    s = 0.0
    for i in range(p.shape[0]):
        s += {kernel}(p[i], o[i], weights)
    return s
"""
"""A loop appended to the old kernel's module, so that it calls the kernel as a global, as
``sum_kernel`` and ``sum_evaluate`` here do (a kernel captured in a closure compiles as a
first-class function call, several times slower)."""


def old_loop(tmp: Path) -> object:
    """The loop over ``pattern_value`` (portable or ``pext``, as ``evaluate`` picks) of commit
    ``BASE``."""
    source = subprocess.run(
        ["git", "show", f"{BASE}:src/othellolab/players/search/_pattern_kernel.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    kernel = "pattern_value_pext" if FAST_PEXT else "pattern_value"
    path = tmp / "old_pattern_kernel.py"
    path.write_text(source + _LOOP.format(kernel=kernel))
    spec = importlib.util.spec_from_file_location("old_pattern_kernel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_pattern_kernel"] = module
    spec.loader.exec_module(module)
    return module.sum_values


_kernel = pattern_value_pext if FAST_PEXT else pattern_value


@numba.njit
def sum_kernel(weights: np.ndarray, p: np.ndarray, o: np.ndarray) -> float:
    s = 0.0
    for i in range(p.shape[0]):
        s += _kernel(p[i], o[i], weights)
    return s


@numba.njit
def sum_evaluate(kind: int, weights: np.ndarray, p: np.ndarray, o: np.ndarray) -> float:
    s = 0.0
    for i in range(p.shape[0]):
        s += evaluate(kind, weights, p[i], o[i], 8)
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wthor", type=Path, default=DATA / "wthor", help="WTHOR folder")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved runs (best kept)")
    args = parser.parse_args()

    held = load_positions([args.wthor / "WTH_2023.wtb"], size=8)
    positions = Positions.of(held.player, held.opponent, held.score)
    mid = (positions.empties >= 15) & (positions.empties <= 35)
    p, o = positions.p[mid], positions.o[mid]
    shuffle = np.random.default_rng(0).permutation(len(p))
    wthor = load_pattern_weights()
    rng = np.random.default_rng(1)

    def with_terms(terms: tuple[str, ...], width: int, phases: int) -> np.ndarray:
        extra = rng.normal(0, 0.5, size=(phases, term_columns(terms)))
        compact = np.concatenate(
            [np.resize(wthor.compact, (phases, wthor.compact.shape[1])), extra], 1
        )
        return compact_to_full(compact, terms=terms, phase_width=width)

    variants = {
        "plain (evaluate)": (EVAL_PATTERNS, wthor.table),
        "terms: none": (EVAL_PATTERN_TERMS, with_terms((), 4, 12)),
        **{f"terms: {t}": (EVAL_PATTERN_TERMS, with_terms((t,), 5, 12)) for t in TERMS},
        "terms: first three": (EVAL_PATTERN_TERMS, with_terms(TERMS[:3], 5, 12)),
        "terms: all counts": (EVAL_PATTERN_TERMS, with_terms(COUNT_TERMS, 5, 12)),
        "terms: first three + patterns": (EVAL_PATTERN_TERMS, with_terms(RICH, 5, 12)),
        "terms: none, 60 phases": (EVAL_PATTERN_TERMS, with_terms((), 1, 60)),
        "terms: all counts, 60 phases": (EVAL_PATTERN_TERMS, with_terms(COUNT_TERMS, 1, 60)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        sum_old = old_loop(Path(tmp))
        for order, (pp, oo) in (("game order", (p, o)), ("shuffled", (p[shuffle], o[shuffle]))):
            pp, oo = np.ascontiguousarray(pp), np.ascontiguousarray(oo)
            loops = {
                "old": (sum_old, (wthor.table, pp, oo)),
                "plain (kernel)": (sum_kernel, (wthor.table, pp, oo)),
                **{
                    name: (sum_evaluate, (kind, table, pp, oo))
                    for name, (kind, table) in variants.items()
                },
            }
            for fn, fn_args in loops.values():
                fn(*fn_args[:-2], pp[:10], oo[:10])
            best = dict.fromkeys(loops, np.inf)
            for _ in range(args.repeat):
                for name, (fn, fn_args) in loops.items():
                    t0 = time.perf_counter()
                    fn(*fn_args)
                    best[name] = min(best[name], time.perf_counter() - t0)
            print(f"{order}, {len(pp):,} positions (pext: {FAST_PEXT}):")
            for name, seconds in best.items():
                print(
                    f"  {name:>24}: {1e9 * seconds / len(pp):6.1f} ns/eval, "
                    f"{seconds / best['old']:.2f}x old"
                )


if __name__ == "__main__":
    main()
