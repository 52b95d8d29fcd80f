"""Position evaluators for tree search: batched bitboards in, priors and values out.

The ``Evaluator`` protocol is the only thing the MCTS tree knows about evaluation, so a random
rollout, a uniform prior or a neural network all plug into the same search:

* input: ``player`` and ``opponent``, two ``uint64`` arrays of equal length ``N`` holding the
  discs of the side to move and of its opponent, and the board ``size`` (8, 6 or 4);
* output: ``(priors, values)``. ``priors`` is float32 ``(N, size*size + 1)`` over the actions
  (pass last), zero on illegal actions and summing to 1 over the legal ones (the pass action
  alone when the side to move must pass; all zeros when the game is over). ``values`` is
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
from othellolab.core import animal_shogi as shogi
from othellolab.core import kernels as _k
from othellolab.core.games import ANIMAL_SHOGI
from othellolab.core.numba_kernel import kernel

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
        self, player: np.ndarray, opponent: np.ndarray, size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (N, n_actions) float32, values (N,) float32)`` for ``N`` positions of the
        game whose kernel code is ``size`` (``core.games``: an Othello board's size, whose
        ``n_actions`` is ``size*size+1``, or another game's code)."""
        ...


_write_mask = numba.njit(cache=True, nogil=True)(_k.write_action_mask.py_func)
"""The one legal-action mask, compiled into this module (Numba does not inline another
module's kernel; the call doubled the time of the uniform priors)."""


@kernel
def _legal_priors(player: np.ndarray, opponent: np.ndarray, size: int) -> np.ndarray:
    n = player.shape[0]
    npass = size * size
    out = np.zeros((n, npass + 1), dtype=np.float32)
    for i in range(n):
        p = player[i]
        o = opponent[i]
        moves = _k.legal_mask(p, o, size)
        live = moves != np.uint64(0) or _k.legal_mask(o, p, size) != np.uint64(0)
        share = np.float32(1.0 / _k.popcount(moves)) if moves != np.uint64(0) else np.float32(0)
        _write_mask(moves, live, npass, out, i, share)
    return out


def legal_priors(player: np.ndarray, opponent: np.ndarray, size: int) -> np.ndarray:
    """Uniform priors over the legal actions of each position (pass alone when forced)."""
    return _legal_priors(_as_bitboards(player), _as_bitboards(opponent), int(size))


@kernel
def _terminal_values(player: np.ndarray, opponent: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(player.shape[0], dtype=np.float32)
    for i in range(player.shape[0]):
        if _k.is_game_over(player[i], opponent[i], size):
            s = _k.final_score(player[i], opponent[i], size)
            out[i] = 1.0 if s > 0 else (-1.0 if s < 0 else 0.0)
    return out


@kernel
def _rollouts(
    player: np.ndarray, opponent: np.ndarray, playouts: int, state: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    values = np.zeros(player.shape[0], dtype=np.float32)
    for i in range(player.shape[0]):
        total = 0
        for _ in range(playouts):
            s = _k.random_playout(player[i], opponent[i], state, size)
            total += (s > 0) - (s < 0)
        values[i] = total / playouts
    return _legal_priors(player, opponent, size), values


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
        self, player: np.ndarray, opponent: np.ndarray, size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        p, o = _as_bitboards(player), _as_bitboards(opponent)
        if int(size) == ANIMAL_SHOGI:
            legal = shogi.legal_mask_batch(p, o).astype(np.float32)
            priors = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)
            results = shogi.result_batch(p, o)
            values = np.where(results == shogi.ONGOING, 0, results).astype(np.float32)
            return priors, values
        return _legal_priors(p, o, int(size)), _terminal_values(p, o, int(size))

    def __repr__(self) -> str:
        return "UniformEvaluator()"


class RandomRolloutEvaluator:
    """Uniform priors and the mean result of ``playouts`` random games per position.

    The playouts run in a compiled kernel with its own seeded random stream, so a seeded
    evaluator gives the same values for the same sequence of calls. A finished game always
    evaluates to its exact result. The playouts are Othello's.
    """

    has_priors = False
    games = ("othello",)

    def __init__(self, playouts: int = 1, *, seed: int | None = None) -> None:
        if playouts < 1:
            raise ValueError(f"RandomRolloutEvaluator: playouts must be at least 1, got {playouts}")
        self.playouts = int(playouts)
        self.seed = seed
        self._state = _k.rng_seed(int(np.random.default_rng(seed).integers(2**63)))

    def evaluate(
        self, player: np.ndarray, opponent: np.ndarray, size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        p, o = _as_bitboards(player), _as_bitboards(opponent)
        return _rollouts(p, o, self.playouts, self._state, int(size))

    def __repr__(self) -> str:
        return f"RandomRolloutEvaluator({self.playouts}, seed={self.seed!r})"


def evaluate_boards(evaluator: Evaluator, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate ``Board`` objects (all of one size) with any evaluator."""
    if not boards:
        raise ValueError("evaluate_boards: no boards given")
    size = boards[0].size
    if any(b.size != size for b in boards):
        raise ValueError(
            f"evaluate_boards: boards of mixed sizes {sorted({b.size for b in boards})}"
        )
    p = np.array([b.player for b in boards], dtype=np.uint64)
    o = np.array([b.opponent for b in boards], dtype=np.uint64)
    return evaluator.evaluate(p, o, size)
