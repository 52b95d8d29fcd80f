"""Position evaluators for tree search: batched bitboards in, priors and values out.

The ``Evaluator`` protocol is the only thing the MCTS tree knows about evaluation, so a random
rollout, a uniform prior or a neural network all plug into the same search:

* input: ``player`` and ``opponent``, two ``uint64`` arrays of equal length ``N`` holding the
  positions from the side to move (Othello: its discs and its opponent's), and the ``game``
  (``core.games.Game``);
* output: ``(priors, values)``. ``priors`` is float32 ``(N, game.n_actions)`` over the actions,
  zero on illegal actions and summing to 1 over the legal ones (all zeros when the game is
  over). ``values`` is
  float32 ``(N,)`` in ``[-1, 1]``: the expected result for the side to move (+1 win, -1 loss).
* ``has_priors`` says whether the priors carry information. The search uses the AlphaZero PUCT
  rule when they do and plain UCT when they are uniform, as for random rollouts.

Evaluators are called with batches of leaves, never with an empty batch, and may keep state
(a random stream, a cache). A network evaluator converts the bitboards to planes (plane 0 the
side to move, plane 1 the opponent), runs the model and masks its policy to the legal actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numba
import numpy as np

from othellolab.core import Board
from othellolab.core import kernels as _k
from othellolab.core.games import (
    Game,
    get_game,
    playout_at,
    position_game,
    position_state,
    rules_children,
    rules_playout,
)

__all__ = [
    "Evaluator",
    "RandomRolloutEvaluator",
    "UniformEvaluator",
    "evaluate_boards",
    "legal_priors",
]


@runtime_checkable
class Evaluator(Protocol):
    """Priors over actions and values in [-1, 1] for a batch of positions, side to move's view."""

    has_priors: bool
    """True when the priors are informative (search with PUCT), False when uniform (UCT)."""

    def evaluate(
        self, player: np.ndarray, opponent: np.ndarray, game: Game
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (N, game.n_actions) float32, values (N,) float32)`` for ``N`` positions
        of ``game`` (``core.games``)."""
        ...


@numba.njit(cache=True, nogil=True)
def _priors_and_rollouts(
    player, opponent, playouts, state, children, result, param, scale, room, n_actions, own
):  # type: ignore[no-untyped-def]
    """Uniform priors over each position's legal actions (from the game's ``children``) and
    the mean result of ``playouts`` random games, in one call: the game's own playout kernel
    at address ``own`` (0: ``rules_playout``). The game's ``rules`` come as separate numbers:
    Numba types a tuple argument on every call, which cost a quarter of the call."""
    rules = (children, result, param, scale, room)
    n = player.shape[0]
    priors = np.zeros((n, n_actions), dtype=np.float32)
    values = np.zeros(n, dtype=np.float32)
    actions = np.empty(room, np.int64)
    cp = np.empty(room, np.uint64)
    co = np.empty(room, np.uint64)
    for i in range(n):
        k = rules_children(rules, player[i], opponent[i], actions, cp, co)
        if k > 0:
            share = np.float32(1.0 / k)
            for j in range(k):
                priors[i, actions[j]] = share
        total = 0
        for _ in range(playouts):
            if own != 0:
                s = playout_at(own)(param, player[i], opponent[i], state)
            else:
                s = rules_playout(rules, player[i], opponent[i], state)
            total += (s > 0) - (s < 0)
        values[i] = total / playouts
    return priors, values


def legal_priors(player: np.ndarray, opponent: np.ndarray, game: Game | str) -> np.ndarray:
    """Uniform priors over the legal actions of each position of ``game`` (Othello: the pass
    alone when forced)."""
    return get_game(game).legal_priors(_as_bitboards(player), _as_bitboards(opponent))


def _as_bitboards(x: np.ndarray | Sequence[int]) -> np.ndarray:
    if isinstance(x, np.ndarray) and x.dtype == np.uint64 and x.ndim == 1 and x.flags.c_contiguous:
        return x
    return np.ascontiguousarray(np.asarray(x, dtype=np.uint64).reshape(-1))


class UniformEvaluator:
    """Uniform priors over the legal actions and value 0, exact results at finished games.

    The "know nothing" evaluator: a search with it sees only the game's end, which makes it
    a baseline and a test double for the tree code. Any game of ``core.games``.
    """

    has_priors = False

    def evaluate(
        self, player: np.ndarray, opponent: np.ndarray, game: Game
    ) -> tuple[np.ndarray, np.ndarray]:
        p, o = _as_bitboards(player), _as_bitboards(opponent)
        return game.legal_priors(p, o), game.terminal_values(p, o)

    def __repr__(self) -> str:
        return "UniformEvaluator()"


class RandomRolloutEvaluator:
    """Uniform priors and the mean result of ``playouts`` random games per position.

    The playouts run in a compiled kernel with its own seeded random stream, so a seeded
    evaluator gives the same values for the same sequence of calls. A finished game always
    evaluates to its exact result. Any game: its own playout kernel where it has one
    (Othello's), else uniformly random moves through its rules (``core.games.rules_playout``).
    """

    has_priors = False

    def __init__(self, playouts: int = 1, *, seed: int | None = None) -> None:
        if playouts < 1:
            raise ValueError(f"RandomRolloutEvaluator: playouts must be at least 1, got {playouts}")
        self.playouts = int(playouts)
        self.seed = seed
        self._state = _k.rng_seed(int(np.random.default_rng(seed).integers(2**63)))

    def evaluate(
        self, player: np.ndarray, opponent: np.ndarray, game: Game
    ) -> tuple[np.ndarray, np.ndarray]:
        p, o = _as_bitboards(player), _as_bitboards(opponent)
        own = game.playout
        children, result, param, scale, room = game.rules
        return _priors_and_rollouts(
            p, o, self.playouts, self._state, children, result, param, scale, room,
            game.n_actions, own[0] if own is not None else 0,
        )  # fmt: skip

    def __repr__(self) -> str:
        return f"RandomRolloutEvaluator({self.playouts}, seed={self.seed!r})"


def evaluate_boards(evaluator: Evaluator, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate positions (``Board`` objects or another game's, all of one game) with any
    evaluator."""
    if not boards:
        raise ValueError("evaluate_boards: no boards given")
    game = position_game(boards[0])
    games = {position_game(b).key for b in boards}
    if len(games) > 1:
        raise ValueError(f"evaluate_boards: positions of several games {sorted(games)}")
    states = [position_state(b) for b in boards]
    p = np.array([s[0] for s in states], dtype=np.uint64)
    o = np.array([s[1] for s in states], dtype=np.uint64)
    return evaluator.evaluate(p, o, game)
