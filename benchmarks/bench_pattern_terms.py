"""What the pattern layouts of issue 38 cost per evaluation, old kernel against new, one process.

The kernel of a425a57 (before the layouts with terms) is loaded from git beside today's, and
every variant runs through a compiled loop over the same real positions (WTHOR 2023, 15-35
empties, in game order and shuffled), best of 7 interleaved runs:

- ``old``: a425a57's ``pattern_value`` with patterns-wthor (the baseline, 1.00);
- ``plain``: today's ``evaluate(EVAL_PATTERNS)`` with patterns-wthor (must be about 1.00);
- ``terms: none``: ``EVAL_PATTERN_TERMS``, 12 phases, no term declared (the header's cost);
- ``terms: X``: one term declared; ``terms: all, 60 phases``: the refit's layout.

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
from othellolab.players.search.evaluation import (
    EVAL_PATTERN_TERMS,
    EVAL_PATTERNS,
    evaluate,
)
from othellolab.players.search.patterns import (
    TERMS,
    compact_to_full,
    load_pattern_weights,
    term_columns,
)
from othellolab.training.heldout import load_positions
from othellolab.training.patterns import Positions

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
BASE = "a425a57"


def old_kernel(tmp: Path) -> object:
    """``pattern_value`` (portable or ``pext``, as ``evaluate`` picks) of commit ``BASE``."""
    source = subprocess.run(
        ["git", "show", f"{BASE}:src/othellolab/players/search/_pattern_kernel.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = tmp / "old_pattern_kernel.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_pattern_kernel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_pattern_kernel"] = module
    spec.loader.exec_module(module)
    return module.pattern_value_pext if FAST_PEXT else module.pattern_value


def make_loops(old: object) -> tuple[object, object]:
    @numba.njit
    def sum_old(weights: np.ndarray, p: np.ndarray, o: np.ndarray) -> float:
        s = 0.0
        for i in range(p.shape[0]):
            s += old(p[i], o[i], weights)
        return s

    @numba.njit
    def sum_new(kind: int, weights: np.ndarray, p: np.ndarray, o: np.ndarray) -> float:
        s = 0.0
        for i in range(p.shape[0]):
            s += evaluate(kind, weights, p[i], o[i], 8)
        return s

    return sum_old, sum_new


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
        "plain": (EVAL_PATTERNS, wthor.table),
        "terms: none": (EVAL_PATTERN_TERMS, with_terms((), 4, 12)),
        **{f"terms: {t}": (EVAL_PATTERN_TERMS, with_terms((t,), 5, 12)) for t in TERMS},
        "terms: all, 60 phases": (EVAL_PATTERN_TERMS, with_terms(TERMS, 1, 60)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        sum_old, sum_new = make_loops(old_kernel(Path(tmp)))
        for order, (pp, oo) in (("game order", (p, o)), ("shuffled", (p[shuffle], o[shuffle]))):
            pp, oo = np.ascontiguousarray(pp), np.ascontiguousarray(oo)
            sum_old(wthor.table, pp[:10], oo[:10])
            for kind, table in variants.values():
                sum_new(kind, table, pp[:10], oo[:10])
            best = dict.fromkeys(["old", *variants], np.inf)
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                sum_old(wthor.table, pp, oo)
                best["old"] = min(best["old"], time.perf_counter() - t0)
                for name, (kind, table) in variants.items():
                    t0 = time.perf_counter()
                    sum_new(kind, table, pp, oo)
                    best[name] = min(best[name], time.perf_counter() - t0)
            print(f"{order}, {len(pp):,} positions (pext: {FAST_PEXT}):")
            for name, seconds in best.items():
                print(
                    f"  {name:>22}: {1e9 * seconds / len(pp):6.1f} ns/eval, "
                    f"{seconds / best['old']:.2f}x old"
                )


if __name__ == "__main__":
    main()
