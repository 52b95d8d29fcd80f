"""Monte Carlo tree search (UCT and AlphaZero's PUCT) over any ``Evaluator``.

The tree lives in one numpy structured array (one row per node, children of a node in a
contiguous block), walked by compiled kernels: ``select`` descends from the root to a batch of
leaves (with virtual loss, so that one batch spreads over different leaves), the evaluator
scores those leaves in one batched call, and ``expand_backup`` adds their children and backs the
values up. The tree code never looks inside the evaluator, so random rollouts and networks
search the same way. Finished games are never evaluated: a terminal node's value is the sign of
its final score, exactly (mixed with the score itself by ``score_weight``, for networks whose
value head predicts the disc difference, see ``core.games.rules_value``). A pass is an ordinary
edge (action ``size*size`` in Othello).

Exact values travel up the tree as bounds (score-bounded MCTS, Cazenave and Saffidine 2010,
after MCTS-Solver, Winands et al. 2008): every node holds a lower and an upper bound on its
minimax value for the side to move, ``[-1, 1]`` while nothing is known, both at
``terminal_value`` of the final score for a finished game, and for an expanded node the
negamax of its children's bounds. A node whose bounds meet is *proven*. A descent stops at a
proven node and backs up its exact value without an evaluation; selection clamps each child's
mean into its bounds (a proven child counts at its exact value) and, below the root, skips a
child that cannot beat what its parent is already sure of. So the last plies of a game are
searched as minimax, and a search can end on the exact best move (with values by results, as
soon as it proves a win).

Selection: with an evaluator whose priors are uniform (``has_priors`` False) the rule is UCT,
``Q + c * sqrt(ln N / n)`` with unvisited children first; with informative priors it is PUCT,
``Q + c * P * sqrt(N) / (1 + n)`` with ``Q = 0`` for unvisited children. ``Q`` is always from the
point of view of the side choosing.

One module per job: ``tree`` (the node array and its kernels), ``forest`` (many trees in one
array), ``player`` (``MCTS``, one tree kept between moves, and ``MCTSPlayer``), ``gumbel``
(Gumbel AlphaZero's root as numpy functions), ``forced`` (KataGo's forced playouts and
policy-target pruning at a PUCT root) and ``batch`` (``BatchSearch``: many searches
over a forest with a PUCT or a Gumbel root, for self-play, grading and the players' Gumbel
root; ``search_positions``).
"""

from othellolab.players.mcts.batch import (
    BatchSearch,
    SearchConfig,
    SearchOutcome,
    search_positions,
)
from othellolab.players.mcts.forest import (
    Forest,
    advance_forest,
    expand_backup_forest,
    plant_forest,
    select_forest,
)
from othellolab.players.mcts.player import MCTS, MCTSPlayer, SearchResult
from othellolab.players.mcts.tree import (
    C_PUCT,
    C_UCT,
    NODE_DTYPE,
    choose_action,
    evaluate_leaves,
    expand_backup,
    root_exact,
    root_summary,
    select_leaves,
)

__all__ = [
    "C_PUCT",
    "C_UCT",
    "MCTS",
    "NODE_DTYPE",
    "BatchSearch",
    "Forest",
    "MCTSPlayer",
    "SearchConfig",
    "SearchOutcome",
    "SearchResult",
    "advance_forest",
    "choose_action",
    "evaluate_leaves",
    "expand_backup",
    "expand_backup_forest",
    "plant_forest",
    "root_exact",
    "root_summary",
    "search_positions",
    "select_forest",
    "select_leaves",
]
