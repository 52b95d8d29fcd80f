"""The learning tier of the game protocol (``core.games``): input planes, symmetries and
legal-action masks of any game's positions, for the networks and the self-play trainer.

Othello goes through the one feature encoder (``datasets.features``: named planes, the 8
symmetries of the square); animal shogi through its kernels (``core.animal_shogi``: its 17
planes, the left-right mirror).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from othellolab.core import animal_shogi as _shogi
from othellolab.core.games import Game, Othello
from othellolab.datasets.features import (
    FeatureSpec,
    encode_batch,
    transform_bitboards,
    transform_policy,
)

__all__ = ["action_masks", "encode", "transform_policies", "transform_states"]


def encode(game: Game, p: np.ndarray, o: np.ndarray, planes: Sequence[str]) -> np.ndarray:
    """Float32 planes ``(N, C, rows, cols)`` of ``N`` positions: Othello's named ``planes``,
    or another game's own planes (which ``planes`` must name, all of them, in order)."""
    p = np.ascontiguousarray(p, dtype=np.uint64)
    o = np.ascontiguousarray(o, dtype=np.uint64)
    if isinstance(game, Othello):
        return encode_batch(p, o, FeatureSpec(tuple(planes), game.size))
    if tuple(planes) != game.plane_names:
        raise ValueError(f"{game.name} reads its planes {game.plane_names}, not {tuple(planes)}")
    return _shogi.encode_batch(p, o)


def transform_states(
    game: Game, p: np.ndarray, o: np.ndarray, ks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Symmetry ``ks[i]`` (``0 .. game.symmetries - 1``, 0 the identity) of each position."""
    ks = np.ascontiguousarray(ks, dtype=np.int64)
    if isinstance(game, Othello):
        return transform_bitboards(p, ks, game.size), transform_bitboards(o, ks, game.size)
    p = np.ascontiguousarray(p, dtype=np.uint64)
    o = np.ascontiguousarray(o, dtype=np.uint64)
    return _shogi.transform_states(p, o, ks)


def transform_policies(game: Game, policy: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """The same symmetries applied to rows of policy vectors over the game's actions."""
    ks = np.ascontiguousarray(ks, dtype=np.int64)
    if isinstance(game, Othello):
        return transform_policy(policy, ks, game.size)
    return _shogi.transform_policies(np.ascontiguousarray(policy), ks)


def action_masks(game: Game, p: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Boolean ``(N, n_actions)`` legal actions (all false where the game is over)."""
    return game.legal_mask_batch(p, o)
