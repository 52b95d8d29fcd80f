"""The solver profiler's pure parts: naming Numba's symbols and summing perf's samples."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from othellolab.players.search import geometry

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "profile_solver.py"
_spec = importlib.util.spec_from_file_location("profile_solver", _PATH)
assert _spec is not None and _spec.loader is not None
profile_solver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile_solver)


def test_demangle_names_a_real_numba_symbol() -> None:
    # The symbol Numba itself gives a compiled kernel: a change of its mangling scheme shows here.
    geometry.final_score(0b11, 0b100, 8)
    for cres in geometry.final_score.overloads.values():
        assert profile_solver.demangle(cres.fndesc.mangled_name) == (
            "othellolab.players.search.geometry.final_score"
        )
    assert profile_solver.demangle("PyObject_GetAttr") == "PyObject_GetAttr"


def test_summarise_keeps_only_kernels_and_adds_their_copies() -> None:
    report = """
# Samples: 1K of event 'cycles:P'
    30.00%  [.] othellolab.players.search.lastempties.nws_shallow
    20.00%  [.] _PyEval_EvalFrameDefault
    10.00%  [.] othellolab.players.search.endgame._nws_deep
    10.00%  [.] othellolab.players.search.lastempties.nws_shallow
     5.00%  [.] cpython.othellolab.players.search.endgame._solve_kernel
"""
    assert profile_solver.summarise(report) == [
        ("othellolab.players.search.lastempties.nws_shallow", 72.72727272727273),
        ("othellolab.players.search.endgame._nws_deep", 18.181818181818183),
        ("othellolab.players.search.endgame._solve_kernel", 9.090909090909092),
    ]
