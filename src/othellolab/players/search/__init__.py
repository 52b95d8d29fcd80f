"""The search engine: every search algorithm as functions over bitboards with a pluggable
evaluation, compiled with Numba; the players in ``othellolab.players`` are thin adapters.

One module per concern, each importing only those listed before it:

- ``geometry``: named square masks per board size, the move generator, the final score,
  stable discs, neighbours, the move-list helper;
- ``stats``: a search's statistics and limits in one array (nodes, node limit, abort flag,
  the next look at the clock);
- ``heuristic``: the hand-written evaluation;
- ``patterns``: the learned 8x8 pattern evaluation (its pattern set and index tables in
  ``_pattern_tables``, its generated kernel in ``_pattern_kernel``, the extra terms a weights
  file may declare in ``pattern_terms``, shipped weights in ``players/search/data``);
- ``simd``: vector kernels written as LLVM IR for the pattern index rows (a move's update,
  the evaluation's gathered table loads);
- ``evaluation``: every evaluation behind one signature (``evaluate(kind, weights, p, o, n)``,
  ``Evaluation``, ``named_evaluation``);
- ``incremental``: the pattern evaluation from pattern indices kept move by move (the
  midgame search's);
- ``table``: the transposition table;
- ``probcut``: multi-ProbCut's fitted table for the midgame search (``data/probcut.json``);
- ``priors``: move priors of a few positions that order the midgame search's moves;
- ``smp``: the midgame table's lockless entries, the driver of helper threads (lazy SMP)
  and a node's moves shared among threads (the solver's);
- ``lastempties``: the exact search's last few empties;
- ``ordering``: the exact search's move ordering (fastest first, table probes, shallow
  searches);
- ``parallel_solve``: the exact solver's threads (a node's moves shared among them);
- ``endgame``: the exact solver (``solve``);
- ``pvs``: the midgame search's compiled kernels (principal-variation search, its root, move
  ordering, the table store);
- ``midgame``: iterative-deepening alpha-beta (``search``) over them: windows, limits,
  threads;
- ``book``: the opening book (canonical positions with negamax values, built by
  ``fitting.book``);
- ``negamax``: alpha-beta for any game of the protocol (``core.games``) over its rules
  kernels, on the heuristic the game provides, for the ``negamax`` and ``shogi-alphabeta``
  players;
- ``exact4``: the full solution of 4x4 Othello (every position's value and best moves), which
  grades learners exactly;
- ``solved6``: solved and graded 6x6 position sets (``data/solved6x6.obf``,
  ``data/graded6x6.obf``), every move's exact value (``optimal_moves``) and the grading of a
  player's choices against them (``grade_positions``).

The small kernels called once per node (``solve1``, ``solve2``, ``order_moves``, ``pick_best``,
``tt_store``, the table helpers) are inlined by Numba (``inline="always"``): a call between
compiled kernels passes its result through memory and checks a status code, and these run
hundreds of millions of times per solve. The price is a first compile of about 40 s (cached
on disk; ``make setup`` pays it once). Measured trials of these choices and of the search
constants are in docs/benchmarks.md.
"""

from othellolab.players.search.endgame import SolveAborted, SolveResult, solve, warm_up
from othellolab.players.search.evaluation import (
    EVALUATION_NAMES,
    Evaluation,
    default_evaluation,
    named_evaluation,
)
from othellolab.players.search.midgame import SearchResult, search
from othellolab.players.search.table import TranspositionTable

__all__ = [
    "EVALUATION_NAMES",
    "Evaluation",
    "SearchResult",
    "SolveAborted",
    "SolveResult",
    "TranspositionTable",
    "default_evaluation",
    "named_evaluation",
    "search",
    "solve",
    "warm_up",
]
