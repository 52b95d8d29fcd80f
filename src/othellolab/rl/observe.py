"""Positions as the Othello environments show them, for grading agents trained in an env on
many positions at once: the planes (own discs, opponent's, legal moves; uint8) and the action
mask (int8, pass last), from arrays of bitboards of the side to move."""

from __future__ import annotations

import numpy as np

from othellolab.core.features import FeatureSpec, encode_batch
from othellolab.core.kernels import action_mask_batch


def env_observations(player: np.ndarray, opponent: np.ndarray, size: int) -> dict[str, np.ndarray]:
    """``{"observation": (n, 3, size, size) uint8, "action_mask": (n, size*size + 1) int8}``, as
    ``OthelloEnv`` gives them with its defaults (``legal_plane=True``) when the agent is to move;
    the pass action is legal where no square is and the game goes on."""
    spec = FeatureSpec(planes=("player", "opponent", "legal"), size=size)
    planes = encode_batch(player, opponent, spec, dtype=np.uint8)
    mask = action_mask_batch(player, opponent, size).astype(np.int8)
    return {"observation": planes, "action_mask": mask}
